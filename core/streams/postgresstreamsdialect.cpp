#include "core/streams/streamsdialect.h"

#include <QStringBuilder>

namespace rw {

namespace {

// A SQLite JSON path ('$.a.b') as an SQL/JSON path in strict mode, which
// reads it as SQLite does (see PostgresDialect::jsonExtract).
QString strictPath(const QString &path) {
    return QStringLiteral("CAST('strict ' || ") % path % QStringLiteral(" AS jsonpath)");
}

class PostgresStreamsDialect final : public StreamsDialect {
public:
    explicit PostgresStreamsDialect(std::shared_ptr<const SqlDialect> sql)
        : m_sql(std::move(sql)) {}

    // JSON validity without PostgreSQL 16's IS JSON: a cast attempt in a
    // PL/pgSQL exception block, as a temporary function of the session (no
    // control-schema migration, no CREATE privilege on a schema needed). It
    // parses each payload once; about 4 us a row above the plain cast.
    QStringList sessionSetup() const override {
        return {QStringLiteral("CREATE OR REPLACE FUNCTION pg_temp.rewind_try_jsonb(t text) "
                               "RETURNS jsonb LANGUAGE plpgsql IMMUTABLE "
                               "AS $rw$ BEGIN RETURN CAST(t AS jsonb); EXCEPTION WHEN others THEN "
                               "RETURN NULL; END $rw$"),
                QStringLiteral("CREATE OR REPLACE FUNCTION pg_temp.rewind_try_timestamptz(t text) "
                               "RETURNS timestamptz LANGUAGE plpgsql STABLE "
                               "AS $rw$ BEGIN RETURN CAST(t AS timestamptz); EXCEPTION WHEN others "
                               "THEN RETURN NULL; END $rw$")};
    }
    QString fixedOrderJoin() const override { return QStringLiteral("JOIN"); }
    QString tempTable(const QString &name) const override {
        return QStringLiteral("pg_temp.") % m_sql->quote(name);
    }
    QString isTrue(const QString &expr) const override { return expr % QStringLiteral(" IS TRUE"); }
    QString isNotTrue(const QString &expr) const override {
        return expr % QStringLiteral(" IS NOT TRUE");
    }
    QString jsonIntegerRows(const QString &leading, int columns,
                            const QString &trailing) const override {
        QStringList items;
        for (int i = 0; i < columns; ++i)
            items << QStringLiteral("CAST(value ->> %1 AS BIGINT)").arg(i);
        return QStringLiteral("SELECT ") % leading % items.join(QStringLiteral(", ")) % trailing %
               QStringLiteral(" FROM jsonb_array_elements(CAST(? AS jsonb)) AS value");
    }
    // The payload parsed once in a subquery that OFFSET 0 keeps from being
    // flattened (which would call the parser once per use).
    QString jsonStageSelect(const QList<QPair<QString, QString>> &passThrough,
                            const QString &payload, int paths,
                            const QString &fromClause) const override {
        QString inner = QStringLiteral("SELECT ");
        QString out = QStringLiteral("SELECT ");
        for (const auto &[expr, alias] : passThrough) {
            inner += expr % QStringLiteral(" AS ") % alias % QStringLiteral(", ");
            out += QStringLiteral("x.") % alias % QStringLiteral(", ");
        }
        inner += QStringLiteral("pg_temp.rewind_try_jsonb(") % payload % QStringLiteral(") AS j") %
                 fromClause;
        out += QStringLiteral("(x.j IS NOT NULL) AS jv");
        for (int i = 0; i < paths; ++i)
            out += QStringLiteral(", (jsonb_path_query_first(x.j, ") %
                   strictPath(QStringLiteral("?")) %
                   QStringLiteral(", '{}', true) #>> '{}') AS c") % QString::number(i);
        return out % QStringLiteral(" FROM (") % inner % QStringLiteral(" OFFSET 0) AS x");
    }
    QString jsonTextAt(const QString &payload, const QString &path) const override {
        return QStringLiteral("(jsonb_path_query_first(pg_temp.rewind_try_jsonb(") % payload %
               QStringLiteral("), ") % strictPath(path) % QStringLiteral(", '{}', true) #>> '{}')");
    }
    QString jsonTypeAt(const QString &payload, const QString &path) const override {
        return QStringLiteral("jsonb_typeof(jsonb_path_query_first(pg_temp.rewind_try_jsonb(") %
               payload % QStringLiteral("), ") % strictPath(path) %
               QStringLiteral(", '{}', true))");
    }
    // JSON numbers become NUMERIC (exact, like the text), booleans BOOLEAN,
    // anything else (strings, mixed, objects, only nulls) TEXT.
    QString sinkColumnType(const QStringList &jsonTypes) const override {
        QStringList seen = jsonTypes;
        seen.removeAll(QStringLiteral("null"));
        seen.removeDuplicates();
        if (seen == QStringList{QStringLiteral("number")})
            return QStringLiteral("NUMERIC");
        if (seen == QStringList{QStringLiteral("boolean")})
            return QStringLiteral("BOOLEAN");
        return QStringLiteral("TEXT");
    }
    QString sinkValue(const QString &expr, const QString &type) const override {
        const QString t = type.toLower();
        if (t.isEmpty() || t == QLatin1String("text") || t.startsWith(QLatin1String("character")))
            return expr;
        return QStringLiteral("CAST(") % expr % QStringLiteral(" AS ") % type % u')';
    }
    QString subqueryFence() const override { return QStringLiteral(" OFFSET 0"); }
    // findRelation() is the oid of the relation the bound name means.
    QString listUniqueIndexColumns() const override {
        return QStringLiteral(
                   "SELECT i.relname, k.n - 1, a.attname FROM pg_index AS x JOIN pg_class AS i ON "
                   "i.oid = x.indexrelid "
                   "CROSS JOIN LATERAL unnest(x.indkey::int2[]) WITH ORDINALITY AS k(attnum, n) "
                   "JOIN pg_attribute AS a ON a.attrelid = x.indrelid AND a.attnum = k.attnum "
                   "WHERE x.indisunique AND x.indpred IS NULL AND x.indrelid = (") %
               m_sql->findRelation() % QStringLiteral(") ORDER BY i.relname, k.n");
    }
    // By the column's type: timestamps and dates as instants (a timestamp
    // without zone read in the session's UTC), numbers as epoch seconds, text
    // as numeric epoch seconds or ISO-8601 (the pattern keeps out what
    // PostgreSQL reads but SQLite does not, like 'now'; the cast attempt of
    // sessionSetup() makes an impossible date like 2025-02-30 NULL
    // instead of aborting the statement).
    QString epochMillis(const QString &x, const QString &columnType) const override {
        // As rewind.epoch_ms and SQLite's rewind_epoch_ms read them: digits
        // past the millisecond dropped (floor for instants, toward zero for
        // epoch numbers), years 0000 to 9999 only (a 13-digit epoch in
        // milliseconds reads as unreadable, not as a date far ahead).
        const QString t = columnType.toLower();
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

private:
    std::shared_ptr<const SqlDialect> m_sql;
};

} // namespace

const StreamsDialect &postgresStreamsDialect() {
    static const PostgresStreamsDialect dialect(makePostgresDialect());
    return dialect;
}

} // namespace rw
