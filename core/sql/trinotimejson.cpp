#include "core/sql/timejson.h"

#include <QStringBuilder>

namespace rw {

namespace {

// Trino, its sessions in UTC (the driver's X-Trino-Time-Zone).
class TrinoTimeJson final : public TimeJson {
public:
    QString nowUtcText() const override {
        return QStringLiteral("format_datetime(current_timestamp AT TIME ZONE 'UTC', "
                              "'yyyy-MM-dd''T''HH:mm:ss.SSS''Z''')");
    }
    // Timestamps and dates as instants; numbers as epoch seconds; text as
    // numeric epoch seconds or ISO-8601 (a space or a T), NULL when it reads
    // as neither (TRY). Digits past the millisecond dropped.
    QString epochMs(const QString &x, const QString &columnType) const override {
        const QString t = columnType.toLower();
        if (t.startsWith(QLatin1String("timestamp")) || t == QLatin1String("date"))
            return QStringLiteral("CAST(floor(to_unixtime(CAST(") % x %
                   QStringLiteral(" AS TIMESTAMP(3) WITH TIME ZONE)) * 1000) AS BIGINT)");
        const auto fromNumber = [](const QString &number) -> QString {
            return QStringLiteral("CASE WHEN ") % number %
                   QStringLiteral(" BETWEEN -62167219200 AND 253402300799.999999 THEN CAST(") %
                   number % QStringLiteral(" * 1000 AS BIGINT) END");
        };
        if (t == QLatin1String("tinyint") || t == QLatin1String("smallint") ||
            t == QLatin1String("integer") || t == QLatin1String("bigint") ||
            t.startsWith(QLatin1String("decimal")) || t == QLatin1String("real") ||
            t == QLatin1String("double"))
            return u'(' %
                   fromNumber(QStringLiteral("CAST(") % x % QStringLiteral(" AS DECIMAL(38, 9))")) %
                   u')';
        const QString text = QStringLiteral("trim(CAST(") % x % QStringLiteral(" AS VARCHAR))");
        return QStringLiteral("(CASE WHEN regexp_like(") % text %
               QStringLiteral(", '^-?[0-9]{1,13}(\\.[0-9]+)?$') THEN ") %
               fromNumber(QStringLiteral("CAST(") % text % QStringLiteral(" AS DECIMAL(38, 9))")) %
               QStringLiteral(" ELSE TRY(CAST(floor(to_unixtime(from_iso8601_timestamp(replace(") %
               text % QStringLiteral(", ' ', 'T'))) * 1000) AS BIGINT)) END)");
    }
    QString isoTextOfEpoch(const QString &seconds) const override {
        return QStringLiteral("format_datetime(from_unixtime(") % seconds %
               QStringLiteral(", 'UTC'), 'yyyy-MM-dd''T''HH:mm:ss''Z''')");
    }
    QString dateTextOfEpoch(const QString &seconds) const override {
        return QStringLiteral("format_datetime(from_unixtime(") % seconds %
               QStringLiteral(", 'UTC'), 'yyyy-MM-dd')");
    }
    QString epochOfIsoText(const QString &text) const override {
        return QStringLiteral("CAST(to_unixtime(from_iso8601_timestamp(replace(") % text %
               QStringLiteral(", ' ', 'T'))) AS BIGINT)");
    }
    QString jsonPath(const QString &path) const override { return path; }
    QString jsonExtract(const QString &document, const QString &path) const override {
        return QStringLiteral("json_extract_scalar(") % document % QStringLiteral(", ") % path %
               u')';
    }
    QString comparedWithJsonValue(const QString &expr) const override {
        return QStringLiteral("CAST(") % expr % QStringLiteral(" AS VARCHAR)");
    }
    // Each value as JSON (text quoted), the names as keys.
    QString jsonObject(const QStringList &namesAndExpressions) const override {
        QStringList parts;
        for (qsizetype i = 0; i + 1 < namesAndExpressions.size(); i += 2)
            parts << QStringLiteral("json_format(CAST(") % namesAndExpressions[i] %
                         QStringLiteral(" AS JSON)) || ':' || COALESCE(json_format(CAST(") %
                         namesAndExpressions[i + 1] % QStringLiteral(" AS JSON)), 'null')");
        return QStringLiteral("'{' || ") %
               (parts.isEmpty() ? QStringLiteral("''")
                                : parts.join(QStringLiteral(" || ',' || "))) %
               QStringLiteral(" || '}'");
    }
};

} // namespace

const TimeJson &trinoTimeJson() {
    static const TrinoTimeJson timeJson;
    return timeJson;
}

} // namespace rw
