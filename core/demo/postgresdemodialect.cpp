#include "core/demo/demodialect.h"
#include "core/sql/timejson.h"

#include <QStringBuilder>

namespace rw {

namespace {

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
    QString hex8(const QString &value) const override {
        return QStringLiteral("lpad(to_hex(CAST(") % value %
               QStringLiteral(" AS BIGINT)), 8, '0')");
    }
    QString jsonOrNull(const QString &text) const override {
        return QStringLiteral("pg_temp.rewind_demo_jsonb(") % text % u')';
    }
    QString jsonHasPath(const QString &document, const QString &path) const override {
        return QStringLiteral("COALESCE(jsonb_path_exists(CAST(") % document %
               QStringLiteral(" AS jsonb), ") % postgresTimeJson().jsonPath(path) %
               QStringLiteral(", '{}', true), false)");
    }
};

} // namespace

const DemoDialect &postgresDemoDialect() {
    static const PostgresDemoDialect dialect;
    return dialect;
}

} // namespace rw
