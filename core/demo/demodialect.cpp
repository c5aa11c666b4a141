#include "core/demo/demodialect.h"

#include "core/sql/perengine.h"

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
    QString epochDateText(const QString &seconds) const override {
        return QStringLiteral("date(") % seconds % QStringLiteral(", 'unixepoch')");
    }
    QString epochIsoText(const QString &seconds) const override {
        return QStringLiteral("replace(datetime(") % seconds %
               QStringLiteral(", 'unixepoch'), ' ', 'T') || 'Z'");
    }
    QString isoTextEpoch(const QString &text) const override {
        return QStringLiteral("CAST(strftime('%s', ") % text % QStringLiteral(") AS INTEGER)");
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

class PostgresDemoDialect final : public DemoDialect {
public:
    // PostgreSQL 15 cannot test text for JSON validity without trying the
    // cast (pg_input_is_valid is 16), and a failed cast aborts the
    // statement: a session-local function catches it. It lives in pg_temp,
    // so it leaves nothing behind in the user's database.
    QStringList loadBegin() const override {
        return {QStringLiteral("CREATE OR REPLACE FUNCTION pg_temp.rewind_demo_jsonb(t text) "
                               "RETURNS jsonb LANGUAGE plpgsql "
                               "IMMUTABLE AS $$BEGIN RETURN CAST(t AS jsonb); EXCEPTION WHEN "
                               "others THEN RETURN NULL; END$$")};
    }
    QStringList loadEnd(const QStringList &quotedTables) const override {
        QStringList statements;
        for (const auto &t : quotedTables)
            statements << QStringLiteral("ANALYZE ") % t;
        return statements;
    }
    QStringList dropControlSchema() const override {
        return {QStringLiteral("DROP SCHEMA IF EXISTS rewind CASCADE")};
    }
    QString controlSchemaExists() const override {
        return QStringLiteral("SELECT COUNT(*) FROM pg_namespace WHERE nspname = 'rewind'");
    }
    QString epochDateText(const QString &seconds) const override {
        return QStringLiteral("to_char(to_timestamp(") % seconds %
               QStringLiteral(") AT TIME ZONE 'UTC', 'YYYY-MM-DD')");
    }
    QString epochIsoText(const QString &seconds) const override {
        return QStringLiteral("to_char(to_timestamp(") % seconds %
               QStringLiteral(") AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"')");
    }
    QString isoTextEpoch(const QString &text) const override {
        return QStringLiteral("CAST(extract(epoch FROM CAST(") % text %
               QStringLiteral(" AS timestamptz)) AS BIGINT)");
    }
    QString hex8(const QString &value) const override {
        return QStringLiteral("lpad(to_hex(CAST(") % value %
               QStringLiteral(" AS BIGINT)), 8, '0')");
    }
    QString jsonOrNull(const QString &text) const override {
        return QStringLiteral("pg_temp.rewind_demo_jsonb(") % text % u')';
    }
    QString jsonHasPath(const QString &document, const QString &path) const override {
        return QStringLiteral("COALESCE(jsonb_path_exists(CAST(") % document %
               QStringLiteral(" AS jsonb), ") % strictPath(path) %
               QStringLiteral(", '{}', true), false)");
    }

private:
    // A SQLite JSON path ('$.a.b') as an SQL/JSON path in strict mode, which
    // reads it as SQLite does (see PostgresDialect::jsonExtract).
    static QString strictPath(const QString &path) {
        return QStringLiteral("CAST('strict ' || ") % path % QStringLiteral(" AS jsonpath)");
    }
};

} // namespace

const DemoDialect &DemoDialect::of(const SqlDialect &dialect) {
    return perEngine<DemoDialect, SqliteDemoDialect, PostgresDemoDialect>(dialect);
}

} // namespace rw
