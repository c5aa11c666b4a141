#include "core/sql/timejson.h"

#include <QStringBuilder>

namespace rw {

namespace {

class PostgresTimeJson final : public TimeJson {
public:
    // The cast attempt epochMs() reads a text column's ISO-8601 with: an
    // impossible date like 2025-02-30 becomes NULL instead of aborting the
    // statement.
    QStringList sessionSetup() const override {
        return {QStringLiteral("CREATE OR REPLACE FUNCTION pg_temp.rewind_try_timestamptz(t text) "
                               "RETURNS timestamptz LANGUAGE plpgsql STABLE "
                               "AS $rw$ BEGIN RETURN CAST(t AS timestamptz); EXCEPTION WHEN others "
                               "THEN RETURN NULL; END $rw$")};
    }
    QString nowUtcText() const override {
        return QStringLiteral(
            "to_char(clock_timestamp() AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.MS\"Z\"')");
    }

    // Of an unknown type: rewind.epoch_ms (the control schema's functions,
    // one per kind of column, PostgresDialect::controlFunctions). Of a known
    // type, inline as rewind.epoch_ms reads it, so a scan of a log's
    // millions of timestamps calls no function per row: timestamps and dates
    // as instants (a timestamp without zone read in the session's UTC),
    // numbers as epoch seconds, text as numeric epoch seconds or ISO-8601
    // (the pattern keeps out what PostgreSQL reads but SQLite does not, like
    // 'now'). Digits past the millisecond dropped (floor for instants,
    // toward zero for epoch numbers), years 0000 to 9999 only.
    QString epochMs(const QString &x, const QString &columnType) const override {
        const QString t = columnType.toLower();
        if (t.isEmpty())
            return QStringLiteral("rewind.epoch_ms(") % x % u')';
        if (t.startsWith(QLatin1String("timestamp")) || t == QLatin1String("date"))
            return QStringLiteral("CAST(floor(extract(epoch FROM ") % x %
                   QStringLiteral(") * 1000) AS BIGINT)");
        const auto fromNumber = [](const QString &number) -> QString {
            return QStringLiteral("CASE WHEN ") % number %
                   QStringLiteral(
                       " BETWEEN -62167219200 AND 253402300799.999999 THEN CAST(trunc(") %
                   number % QStringLiteral(" * 1000) AS BIGINT) END");
        };
        static const QStringList numeric{QStringLiteral("smallint"), QStringLiteral("integer"),
                                         QStringLiteral("bigint"), QStringLiteral("real"),
                                         QStringLiteral("double precision")};
        // A float's shortest text is the decimal that was written; its
        // binary value times 1000 could land either side of a millisecond.
        if (numeric.contains(t) || t.startsWith(QLatin1String("numeric")))
            return u'(' %
                   fromNumber(QStringLiteral("CAST(CAST(") % x %
                              QStringLiteral(" AS TEXT) AS NUMERIC)")) %
                   u')';
        const QString text = QStringLiteral("CAST(") % x % QStringLiteral(" AS TEXT)");
        return QStringLiteral("(CASE WHEN ") % text %
               QStringLiteral(" ~ '^\\s*-?[0-9]{1,13}(\\.[0-9]+)?\\s*$' THEN ") %
               fromNumber(QStringLiteral("CAST(") % text % QStringLiteral(" AS NUMERIC)")) %
               QStringLiteral(" WHEN ") % text %
               QStringLiteral(
                   " ~ '^\\s*[0-9]{4}-[0-9]{2}-[0-9]{2}([Tt "
                   "][0-9]{2}:[0-9]{2}(:[0-9]{2}(\\.[0-9]+)?)?)?\\s*([Zz]|[+-][0-9]{2}(:?[0-9]{2})?"
                   ")?\\s*$' "
                   "THEN CAST(floor(extract(epoch FROM pg_temp.rewind_try_timestamptz(") %
               text % QStringLiteral(")) * 1000) AS BIGINT) END)");
    }
    QString isoTextOfEpoch(const QString &seconds) const override {
        return QStringLiteral("to_char(to_timestamp(") % seconds %
               QStringLiteral(") AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"')");
    }
    QString dateTextOfEpoch(const QString &seconds) const override {
        return QStringLiteral("to_char(to_timestamp(") % seconds %
               QStringLiteral(") AT TIME ZONE 'UTC', 'YYYY-MM-DD')");
    }
    QString epochOfIsoText(const QString &text) const override {
        return QStringLiteral("CAST(extract(epoch FROM CAST(") % text %
               QStringLiteral(" AS timestamptz)) AS BIGINT)");
    }

    QString jsonPath(const QString &path) const override {
        return QStringLiteral("CAST('strict ' || ") % path % QStringLiteral(" AS jsonpath)");
    }
    // Callers of jsonPath() pass silent => true, so a step that does not
    // apply is NULL, not an error.
    QString jsonExtract(const QString &document, const QString &path) const override {
        return QStringLiteral("(jsonb_path_query_first(CAST(") % document %
               QStringLiteral(" AS jsonb), ") % jsonPath(path) %
               QStringLiteral(", '{}', true) #>> '{}')");
    }
    // jsonExtract yields text: compare the column's text form (exact for
    // integer and text keys).
    QString comparedWithJsonValue(const QString &expr) const override {
        return QStringLiteral("CAST(") % expr % QStringLiteral(" AS TEXT)");
    }
    QString jsonObject(const QStringList &namesAndExpressions) const override {
        return QStringLiteral("CAST(json_build_object(") % namesAndExpressions.join(u", ") %
               QStringLiteral(") AS TEXT)");
    }
};

} // namespace

const TimeJson &postgresTimeJson() {
    static const PostgresTimeJson timeJson;
    return timeJson;
}

} // namespace rw
