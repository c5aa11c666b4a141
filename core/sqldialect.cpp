#include "sqldialect.h"

#include <QStringBuilder>

namespace rw {

QString SqlDialect::quote(const QString &identifier) const
{
    QString escaped = identifier;
    escaped.replace(u'"', QStringLiteral("\"\""));
    return u'"' % escaped % u'"';
}

QString SqlDialect::upsertSet(const QStringList &conflictColumns, const QStringList &updateColumns) const
{
    QStringList target;
    for (const auto &c : conflictColumns)
        target << quote(c);
    QStringList sets;
    for (const auto &c : updateColumns)
        sets << quote(c) % QStringLiteral(" = excluded.") % quote(c);
    if (sets.isEmpty())
        return QStringLiteral(" ON CONFLICT (") % target.join(u", ") % QStringLiteral(") DO NOTHING");
    return QStringLiteral(" ON CONFLICT (") % target.join(u", ") % QStringLiteral(") DO UPDATE SET ") % sets.join(u", ");
}

namespace {

class SqliteDialect final : public SqlDialect {
public:
    Kind kind() const override { return Kind::Sqlite; }
    QString name() const override { return QStringLiteral("sqlite"); }
    QString driverName() const override { return QStringLiteral("QSQLITE"); }

    QStringList sessionSetup() const override
    {
        return {QStringLiteral("PRAGMA journal_mode=WAL"),
                QStringLiteral("PRAGMA synchronous=NORMAL"),
                QStringLiteral("PRAGMA foreign_keys=ON"),
                QStringLiteral("PRAGMA temp_store=MEMORY")};
    }
    QString beginWrite() const override { return QStringLiteral("BEGIN IMMEDIATE"); }

    QString listRelations() const override
    {
        return QStringLiteral("SELECT name FROM sqlite_schema WHERE type IN ('table','view') "
                              "AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY name");
    }
    QString listColumns() const override
    {
        return QStringLiteral("SELECT name, type FROM pragma_table_info(?) ORDER BY cid");
    }

    QString listIndexColumns() const override
    {
        return QStringLiteral("SELECT il.name, ii.seqno, ii.name FROM pragma_index_list(?) AS il "
                              "JOIN pragma_index_info(il.name) AS ii ORDER BY il.name, ii.seqno");
    }

    QString autoIdColumn() const override { return QStringLiteral("INTEGER PRIMARY KEY AUTOINCREMENT"); }
    QString blobType() const override { return QStringLiteral("BLOB"); }
    QString bigintType() const override { return QStringLiteral("INTEGER"); }
    QString doubleType() const override { return QStringLiteral("REAL"); }

    QString nullSafeEqual(const QString &a, const QString &b) const override
    {
        return a % QStringLiteral(" IS ") % b;
    }
    QString rowIdentity(const QString &alias) const override
    {
        return alias.isEmpty() ? QStringLiteral("rowid") : alias % QStringLiteral(".rowid");
    }
    QString castText(const QString &expr) const override
    {
        return QStringLiteral("CAST(") % expr % QStringLiteral(" AS TEXT)");
    }
    QString nowUtcText() const override
    {
        return QStringLiteral("strftime('%Y-%m-%dT%H:%M:%fZ','now')");
    }
    QString dropTempTable(const QString &name) const override
    {
        return QStringLiteral("DROP TABLE IF EXISTS temp.") % quote(name);
    }
    QString createTempIndex(const QString &index, const QString &table, const QStringList &columns) const override
    {
        QStringList cols;
        for (const auto &c : columns)
            cols << quote(c);
        return QStringLiteral("CREATE INDEX temp.") % quote(index) % QStringLiteral(" ON ") % quote(table) % QStringLiteral(" (")
               % cols.join(u", ") % u')';
    }
    QString rowHash(const QStringList &quotedExpressions) const override
    {
        return QStringLiteral("rewind_hash(") % quotedExpressions.join(u", ") % u')';
    }
    QString jsonExtract(const QString &document, const QString &path) const override
    {
        return QStringLiteral("json_extract(") % document % QStringLiteral(", ") % path % u')';
    }
    QString jsonObject(const QStringList &namesAndExpressions) const override
    {
        return QStringLiteral("json_object(") % namesAndExpressions.join(u", ") % u')';
    }

    // Demo
    QStringList demoLoadBegin() const override
    {
        return {QStringLiteral("PRAGMA cache_size = -131072"), QStringLiteral("PRAGMA journal_mode = MEMORY")};
    }
    QStringList demoLoadEnd(const QStringList &) const override { return {QStringLiteral("PRAGMA journal_mode = WAL")}; }
    QStringList demoDropControlSchema() const override { return {}; }
    QString demoControlSchemaExists() const override
    {
        return QStringLiteral("SELECT COUNT(*) FROM sqlite_schema WHERE name = 'rewind_meta'");
    }
    QString epochDateText(const QString &seconds) const override
    {
        return QStringLiteral("date(") % seconds % QStringLiteral(", 'unixepoch')");
    }
    QString epochIsoText(const QString &seconds) const override
    {
        return QStringLiteral("replace(datetime(") % seconds % QStringLiteral(", 'unixepoch'), ' ', 'T') || 'Z'");
    }
    QString isoTextEpoch(const QString &text) const override
    {
        return QStringLiteral("CAST(strftime('%s', ") % text % QStringLiteral(") AS INTEGER)");
    }
    QString hex8(const QString &value) const override { return QStringLiteral("printf('%08x', ") % value % u')'; }
    QString jsonOrNull(const QString &text) const override
    {
        return QStringLiteral("CASE WHEN json_valid(") % text % QStringLiteral(") THEN ") % text % QStringLiteral(" END");
    }
    QString jsonHasPath(const QString &document, const QString &path) const override
    {
        return QStringLiteral("json_type(") % document % QStringLiteral(", ") % path % QStringLiteral(") IS NOT NULL");
    }
};


// PostgreSQL 15. The control tables live in the schema `rewind`, which the
// session's search path lists after the user's own schemas: unqualified
// control-table names resolve there, unqualified user tables (and tables
// Rewind creates for the user, like replay sinks) resolve as they would in
// psql. Temporary tables live in pg_temp, searched first as always.
class PostgresDialect final : public SqlDialect {
public:
    Kind kind() const override { return Kind::Postgres; }
    QString name() const override { return QStringLiteral("postgresql"); }
    QString driverName() const override { return QStringLiteral("QPSQL"); }

    QStringList sessionSetup() const override
    {
        return {QStringLiteral("SET search_path = \"$user\", public, rewind"),
                QStringLiteral("SET client_min_messages = warning"),
                QStringLiteral("SET TIME ZONE 'UTC'")};
    }
    // Writers are serialised, as on SQLite, by one transaction-scoped
    // advisory lock taken first: the checks a run makes inside its
    // transaction (is another run of this dataset live?) then see every
    // committed writer. Readers never wait (MVCC, READ COMMITTED).
    QString beginWrite() const override { return QStringLiteral("BEGIN ISOLATION LEVEL READ COMMITTED"); }
    QStringList afterBeginWrite() const override
    {
        return {QStringLiteral("SELECT pg_advisory_xact_lock(%1)").arg(kWriterLock)};
    }
    QStringList controlSchemaSetup() const override
    {
        return {QStringLiteral("CREATE SCHEMA IF NOT EXISTS rewind"), QStringLiteral("SET LOCAL search_path = rewind")};
    }

    // User relations: visible ones (through the search path) by their bare
    // name, the others as schema.name.
    QString listRelations() const override
    {
        return QStringLiteral("SELECT CASE WHEN pg_table_is_visible(c.oid) THEN c.relname ELSE n.nspname || '.' || c.relname END "
                              "FROM pg_class AS c JOIN pg_namespace AS n ON n.oid = c.relnamespace "
                              "WHERE c.relkind IN ('r', 'v', 'm', 'p', 'f') AND n.nspname NOT IN ('pg_catalog', 'information_schema') "
                              "AND n.nspname NOT LIKE 'pg\\_toast%' AND n.nspname NOT LIKE 'pg\\_temp\\_%' ORDER BY 1");
    }
    QString listColumns() const override
    {
        return QStringLiteral("SELECT a.attname, format_type(a.atttypid, a.atttypmod) FROM pg_attribute AS a WHERE a.attrelid = (")
               % relationOid() % QStringLiteral(") AND a.attnum > 0 AND NOT a.attisdropped ORDER BY a.attnum");
    }
    QString listIndexColumns() const override
    {
        return QStringLiteral("SELECT i.relname, k.n - 1, a.attname FROM pg_index AS x JOIN pg_class AS i ON i.oid = x.indexrelid "
                              "CROSS JOIN LATERAL unnest(x.indkey::int2[]) WITH ORDINALITY AS k(attnum, n) "
                              "JOIN pg_attribute AS a ON a.attrelid = x.indrelid AND a.attnum = k.attnum WHERE x.indrelid = (")
               % relationOid() % QStringLiteral(") ORDER BY i.relname, k.n");
    }

    QString autoIdColumn() const override { return QStringLiteral("BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY"); }
    // Payloads: a PostgreSQL source holds them as text (which is valid
    // UTF-8 by construction), and the JSON functions read text.
    QString blobType() const override { return QStringLiteral("TEXT"); }
    QString bigintType() const override { return QStringLiteral("BIGINT"); }
    QString doubleType() const override { return QStringLiteral("DOUBLE PRECISION"); }

    QString nullSafeEqual(const QString &a, const QString &b) const override
    {
        return a % QStringLiteral(" IS NOT DISTINCT FROM ") % b;
    }
    QString rowIdentity(const QString &alias) const override
    {
        return alias.isEmpty() ? QStringLiteral("ctid") : alias % QStringLiteral(".ctid");
    }
    QString castText(const QString &expr) const override
    {
        return QStringLiteral("CAST(") % expr % QStringLiteral(" AS TEXT)");
    }
    QString nowUtcText() const override
    {
        return QStringLiteral("to_char(clock_timestamp() AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.MS\"Z\"')");
    }
    QString dropTempTable(const QString &name) const override
    {
        return QStringLiteral("DROP TABLE IF EXISTS pg_temp.") % quote(name);
    }
    QString createTempIndex(const QString &index, const QString &table, const QStringList &columns) const override
    {
        QStringList cols;
        for (const auto &c : columns)
            cols << quote(c);
        return QStringLiteral("CREATE INDEX ") % quote(index) % QStringLiteral(" ON pg_temp.") % quote(table) % QStringLiteral(" (")
               % cols.join(u", ") % u')';
    }
    // hashtext of the row's text form: NULL and '' differ ("(,)" against
    // "(\"\")"), and the result is a 32-bit integer, as on SQLite.
    QString rowHash(const QStringList &quotedExpressions) const override
    {
        return QStringLiteral("CAST(hashtext(CAST(ROW(") % quotedExpressions.join(u", ") % QStringLiteral(", 0) AS TEXT)) AS BIGINT)");
    }
    // SQL/JSON path: '$.a.b' means the same as in SQLite.
    QString jsonExtract(const QString &document, const QString &path) const override
    {
        return QStringLiteral("(jsonb_path_query_first(CAST(") % document % QStringLiteral(" AS jsonb), CAST(") % path
               % QStringLiteral(" AS jsonpath)) #>> '{}')");
    }
    QString jsonObject(const QStringList &namesAndExpressions) const override
    {
        return QStringLiteral("CAST(json_build_object(") % namesAndExpressions.join(u", ") % QStringLiteral(") AS TEXT)");
    }

    // Demo
    // PostgreSQL 15 cannot test text for JSON validity without trying the
    // cast (pg_input_is_valid is 16), and a failed cast aborts the
    // statement: a session-local function catches it. It lives in pg_temp,
    // so it leaves nothing behind in the user's database.
    QStringList demoLoadBegin() const override
    {
        return {QStringLiteral("CREATE OR REPLACE FUNCTION pg_temp.rewind_demo_jsonb(t text) RETURNS jsonb LANGUAGE plpgsql "
                               "IMMUTABLE AS $$BEGIN RETURN CAST(t AS jsonb); EXCEPTION WHEN others THEN RETURN NULL; END$$")};
    }
    QStringList demoLoadEnd(const QStringList &quotedTables) const override
    {
        QStringList statements;
        for (const auto &t : quotedTables)
            statements << QStringLiteral("ANALYZE ") % t;
        return statements;
    }
    QStringList demoDropControlSchema() const override { return {QStringLiteral("DROP SCHEMA IF EXISTS rewind CASCADE")}; }
    QString demoControlSchemaExists() const override
    {
        return QStringLiteral("SELECT COUNT(*) FROM pg_namespace WHERE nspname = 'rewind'");
    }
    QString epochDateText(const QString &seconds) const override
    {
        return QStringLiteral("to_char(to_timestamp(") % seconds % QStringLiteral(") AT TIME ZONE 'UTC', 'YYYY-MM-DD')");
    }
    QString epochIsoText(const QString &seconds) const override
    {
        return QStringLiteral("to_char(to_timestamp(") % seconds
               % QStringLiteral(") AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"')");
    }
    QString isoTextEpoch(const QString &text) const override
    {
        return QStringLiteral("CAST(extract(epoch FROM CAST(") % text % QStringLiteral(" AS timestamptz)) AS BIGINT)");
    }
    QString hex8(const QString &value) const override
    {
        return QStringLiteral("lpad(to_hex(CAST(") % value % QStringLiteral(" AS BIGINT)), 8, '0')");
    }
    QString jsonOrNull(const QString &text) const override { return QStringLiteral("pg_temp.rewind_demo_jsonb(") % text % u')'; }
    QString jsonHasPath(const QString &document, const QString &path) const override
    {
        return QStringLiteral("jsonb_path_exists(CAST(") % document % QStringLiteral(" AS jsonb), CAST(") % path
               % QStringLiteral(" AS jsonpath))");
    }

private:
    static constexpr qint64 kWriterLock = 7305467101; // "rewind" writers
    // The oid of the relation named by the bound parameter: a visible bare
    // name, or schema.name.
    static QString relationOid()
    {
        return QStringLiteral("SELECT c.oid FROM pg_class AS c JOIN pg_namespace AS n ON n.oid = c.relnamespace, "
                              "(SELECT CAST(? AS TEXT) AS name) AS r WHERE (c.relname = r.name AND pg_table_is_visible(c.oid)) "
                              "OR n.nspname || '.' || c.relname = r.name ORDER BY pg_table_is_visible(c.oid) DESC LIMIT 1");
    }
};

} // namespace

std::shared_ptr<const SqlDialect> makeDialect(SqlDialect::Kind kind)
{
    switch (kind) {
    case SqlDialect::Kind::Sqlite:
        return std::make_shared<SqliteDialect>();
    case SqlDialect::Kind::Postgres:
        return std::make_shared<PostgresDialect>();
    }
    return nullptr;
}

} // namespace rw
