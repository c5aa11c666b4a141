#include "core/sql/timejson.h"

#include <QStringBuilder>

namespace rw {

namespace {

class SqliteTimeJson final : public TimeJson {
public:
    QString nowUtcText() const override {
        return QStringLiteral("strftime('%Y-%m-%dT%H:%M:%fZ','now')");
    }
    // Whatever the column's type: SQLite keeps the value it was given, and
    // rewind_epoch_ms (core/sql/sqliteepoch.h) reads every form in C++.
    QString epochMs(const QString &expr, const QString &) const override {
        return QStringLiteral("rewind_epoch_ms(") % expr % u')';
    }
    QString isoTextOfEpoch(const QString &seconds) const override {
        return QStringLiteral("replace(datetime(") % seconds %
               QStringLiteral(", 'unixepoch'), ' ', 'T') || 'Z'");
    }
    QString dateTextOfEpoch(const QString &seconds) const override {
        return QStringLiteral("date(") % seconds % QStringLiteral(", 'unixepoch')");
    }
    QString epochOfIsoText(const QString &text) const override {
        return QStringLiteral("CAST(strftime('%s', ") % text % QStringLiteral(") AS INTEGER)");
    }

    QString jsonPath(const QString &path) const override { return path; }
    QString jsonExtract(const QString &document, const QString &path) const override {
        return QStringLiteral("json_extract(") % document % QStringLiteral(", ") % path % u')';
    }
    // json_extract yields numbers and text as the JSON holds them, compared
    // with the column's values as SQLite compares values.
    QString comparedWithJsonValue(const QString &expr) const override { return expr; }
    QString jsonObject(const QStringList &namesAndExpressions) const override {
        return QStringLiteral("json_object(") % namesAndExpressions.join(u", ") % u')';
    }
};

} // namespace

const TimeJson &sqliteTimeJson() {
    static const SqliteTimeJson timeJson;
    return timeJson;
}

} // namespace rw
