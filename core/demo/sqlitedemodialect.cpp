#include "core/demo/demodialect.h"

#include <QStringBuilder>

namespace rw {

namespace {

class SqliteDemoDialect final : public DemoDialect {
public:
    QStringList loadBegin() const override {
        return {QStringLiteral("PRAGMA cache_size = -131072"),
                QStringLiteral("PRAGMA journal_mode = MEMORY")};
    }
    QStringList loadEnd(const QStringList &) const override {
        return {QStringLiteral("PRAGMA journal_mode = WAL")};
    }
    QStringList dropControlSchema() const override { return {}; }
    QString controlSchemaExists() const override {
        return QStringLiteral("SELECT COUNT(*) FROM sqlite_schema WHERE name = 'rewind_meta'");
    }
    QString hex8(const QString &value) const override {
        return QStringLiteral("printf('%08x', ") % value % u')';
    }
    QString jsonOrNull(const QString &text) const override {
        return QStringLiteral("CASE WHEN json_valid(") % text % QStringLiteral(") THEN ") % text %
               QStringLiteral(" END");
    }
    QString jsonHasPath(const QString &document, const QString &path) const override {
        return QStringLiteral("json_type(") % document % QStringLiteral(", ") % path %
               QStringLiteral(") IS NOT NULL");
    }
};

} // namespace

const DemoDialect &sqliteDemoDialect() {
    static const SqliteDemoDialect dialect;
    return dialect;
}

} // namespace rw
