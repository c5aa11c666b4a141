#include "core/sql/timejson.h"
#include "core/streams/streamsdialect.h"

#include <QStringBuilder>

namespace rw {

namespace {

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
                               "RETURN NULL; END $rw$")};
    }
    bool stagesOptimistically() const override { return true; }
    std::unique_ptr<ReplayScratch> replayScratch(const Database &db, bool inOrder) const override {
        return inOrder ? postgresReplayScratch(db) : nullptr;
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
                            const QString &payload, int paths, const QString &fromClause,
                            bool assumeValid) const override {
        QString inner = QStringLiteral("SELECT ");
        QString out = QStringLiteral("SELECT ");
        for (const auto &[expr, alias] : passThrough) {
            inner += expr % QStringLiteral(" AS ") % alias % QStringLiteral(", ");
            out += QStringLiteral("x.") % alias % QStringLiteral(", ");
        }
        inner +=
            (assumeValid
                 ? QString(QStringLiteral("CAST(") % payload % QStringLiteral(" AS jsonb) AS j"))
                 : QString(QStringLiteral("pg_temp.rewind_try_jsonb(") % payload %
                           QStringLiteral(") AS j"))) %
            fromClause;
        out += QStringLiteral("(x.j IS NOT NULL) AS jv");
        for (int i = 0; i < paths; ++i)
            out += QStringLiteral(", (jsonb_path_query_first(x.j, ") %
                   postgresTimeJson().jsonPath(QStringLiteral("?")) %
                   QStringLiteral(", '{}', true) #>> '{}') AS c") % QString::number(i);
        return out % QStringLiteral(" FROM (") % inner % QStringLiteral(" OFFSET 0) AS x");
    }
    QString jsonTextAt(const QString &payload, const QString &path) const override {
        return QStringLiteral("(jsonb_path_query_first(pg_temp.rewind_try_jsonb(") % payload %
               QStringLiteral("), ") % postgresTimeJson().jsonPath(path) %
               QStringLiteral(", '{}', true) #>> '{}')");
    }
    QString jsonTypeAt(const QString &payload, const QString &path) const override {
        return QStringLiteral("jsonb_typeof(jsonb_path_query_first(pg_temp.rewind_try_jsonb(") %
               payload % QStringLiteral("), ") % postgresTimeJson().jsonPath(path) %
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

private:
    std::shared_ptr<const SqlDialect> m_sql;
};

} // namespace

const StreamsDialect &postgresStreamsDialect() {
    static const PostgresStreamsDialect dialect(makePostgresDialect());
    return dialect;
}

} // namespace rw
