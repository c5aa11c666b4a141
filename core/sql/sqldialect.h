#pragma once

#include <QJsonValue>
#include <QList>
#include <QPair>
#include <QSqlField>
#include <QString>
#include <QStringList>
#include <QVariant>
#include <memory>
#include <utility>
#include <vector>

namespace rw {

// Everything that differs between SQL engines lives behind this interface:
// session set-up, transaction start, catalog queries, type names and the few
// expressions whose spelling differs. Portable SQL is written by the query
// builders; dialect-specific text comes only from here.
class SqlDialect {
public:
    enum class Kind { Sqlite, Postgres };

    virtual ~SqlDialect() = default;

    virtual Kind kind() const = 0;
    virtual QString name() const = 0;
    // The Qt SQL driver that speaks this dialect.
    virtual QString driverName() const = 0;

    // Statements run once on every new connection.
    virtual QStringList sessionSetup() const = 0;
    // Starts a write transaction that takes the write lock up front, so two
    // writers never deadlock upgrading a read lock.
    virtual QString beginWrite() const = 0;
    // Statements run right after beginWrite() (PostgreSQL: the writers' lock).
    virtual QStringList afterBeginWrite() const { return {}; }
    // Statements run at the start of a control-schema migration's
    // transaction, so that its tables land where the control schema lives.
    virtual QStringList controlSchemaSetup() const { return {}; }

    // Strategy
    // Whether the engine runs in this process and calls C++ functions Rewind
    // registers on each connection (rewind_lateness, rewind_dlq_signature):
    // SQLite. Otherwise the same work is SQL from this dialect (epochMs,
    // dlqSignature, dlqSessionFunctions), run by the server.
    virtual bool inProcessFunctions() const = 0;
    // Whether a one-partition merge publish stages its rows already joined
    // to their target rows, in one statement (BatchSql::createStageWithMatches),
    // rather than writing the stage and then matching it, and a preview with
    // no gates or samples diffs the deduped rows without writing them
    // (BatchSql::dedupedDiffCounts) (see each engine's answer for the
    // measurements).
    virtual bool stagesJoinedToTarget() const = 0;
    // Whether the stage is indexed by key before a publish that matches it
    // row by row, or an overwrite's samples, read it by key. SQLite joins by
    // nested loops: without the index each staged row would scan. (Gates
    // and SCD2 index it on every engine.)
    virtual bool indexesStageForJoins() const = 0;
    // Whether CREATE TABLE ... AS reports the rows it wrote as the
    // statement's affected rows (QSqlQuery::numRowsAffected): PostgreSQL's
    // command tag does; SQLite's change count covers only INSERT, UPDATE and
    // DELETE, and would give an earlier statement's.
    virtual bool createdTableReportsRows() const = 0;
    // The dedupe: `outer` over one row of `from` (aliased s) per distinct
    // `partitionBy`, the first by `orderBy` (empty: any). `inner` lists the
    // columns of s that `outer` reads from the chosen rows (aliased ranked).
    // The standard form numbers the rows of a window; PostgreSQL's DISTINCT ON
    // does the same with one sort and no window.
    virtual QString latestPerKey(const QString &outer, const QString &inner,
                                 const QStringList &partitionBy, const QStringList &orderBy,
                                 const QString &from) const;

    // Catalog: user tables and views, one column "name".
    virtual QString listRelations() const = 0;
    // Columns of one relation, bound parameter: relation name. Columns
    // "name", "type", "strict" (1 for a SQLite STRICT table's columns, which
    // refuse a value their type does not take; else 0).
    virtual QString listColumns() const = 0;

    // One row when a user table or view is named by the bound name, none
    // otherwise (PostgreSQL: a visible relation, or one named schema.relation).
    virtual QString findRelation() const = 0;
    // Whether a relation name may be schema-qualified (sales.fact_sales).
    // Null when not; else a query, bound parameter: the name, that yields
    // one row when a visible relation is named by the whole dotted name.
    virtual QString visibleRelationNamed() const { return {}; }

    // Where a new table goes, for names that may carry a schema. Null when
    // they never do (SQLite); else a query, bound parameter: the schema a
    // qualified name names, or NULL for an unqualified name, that yields one
    // row: the schema the table would be created in (NULL when there is
    // none), 1 when that schema exists, 1 when this session may create
    // tables in it.
    virtual QString schemaForNewTable() const { return {}; }

    // Indexes of a relation, bound parameter: relation name. Columns "index", "position", "column".
    virtual QString listIndexColumns() const = 0;

    // DDL pieces.
    virtual QString autoIdColumn() const = 0; // an auto-increment integer primary key
    virtual QString blobType() const = 0;
    virtual QString bigintType() const = 0;
    virtual QString doubleType() const = 0;

    // Expressions.
    // Double-quotes an identifier, doubling embedded quotes. Standard SQL;
    // both engines accept any character inside a quoted identifier but NUL.
    QString quote(const QString &identifier) const;
    virtual QString nullSafeEqual(const QString &a, const QString &b) const = 0;
    // nullSafeEqual for a join key whose column type (as the catalog names
    // it; empty when unknown) is `type`, spelled so the engine can hash or
    // merge join on it.
    virtual QString nullSafeKeyEqual(const QString &a, const QString &b,
                                     const QString &type) const {
        Q_UNUSED(type);
        return nullSafeEqual(a, b);
    }
    virtual QString castText(const QString &expr) const = 0;
    // The engine's physical row identity of `alias` (never NULL for a real
    // row, so it also marks which side of an outer join matched); with no
    // alias, of the statement's one table.
    virtual QString rowIdentity(const QString &alias) const = 0;
    // Statements before and after an UPDATE that joins the target to a work
    // table on rowIdentity for many rows, so that the engine hashes the
    // identities of the rows it scans rather than looking each one up (empty
    // where lookups are its best plan). PostgreSQL: TID scans off for the
    // statement, else a TID scan per row in a nested loop.
    virtual std::pair<QString, QString> aroundHashedIdentityJoin() const = 0;
    // Statements before and after a read that groups a whole table by
    // (partition, key) outside a transaction: such groups are nearly as many
    // as the rows, which the engine's estimate of distinct pairs does not
    // know (empty where that estimate does not change the plan).
    virtual std::pair<QString, QString> aroundKeyGrouping() const { return {}; }
    // Current UTC time as ISO-8601 text with milliseconds and a Z.
    virtual QString nowUtcText() const = 0;
    // Per-connection temporary work tables.
    virtual QString dropTempTable(const QString &name) const = 0;
    virtual QString createTempIndex(const QString &index, const QString &table,
                                    const QStringList &columns) const = 0;
    // A deterministic 32-bit hash of a row's values, NULL-aware: summed over
    // rows it is an order-independent checksum.
    virtual QString rowHash(const QStringList &quotedExpressions) const = 0;
    // rowHash of columns whose engine type ids (Database::selectColumns'
    // nativeTypes; -1 unknown) are `nativeTypes`: the engine may pick a
    // cheaper hash when it knows every type has one.
    virtual QString rowHash(const QStringList &quotedExpressions,
                            const QList<int> &nativeTypes) const {
        Q_UNUSED(nativeTypes);
        return rowHash(quotedExpressions);
    }

    // The value at `path` (an SQL expression holding a JSON path like
    // '$.a.b') of the JSON text `document`: a number or text, NULL when absent.
    virtual QString jsonExtract(const QString &document, const QString &path) const = 0;
    // The column `expr` as compared with a value jsonExtract() yields.
    virtual QString comparedWithJsonValue(const QString &expr) const = 0;
    // A JSON object text from alternating name literals and expressions.
    virtual QString jsonObject(const QStringList &namesAndExpressions) const = 0;

    // rewind_dlq_signature(class, error): errorSignature() in SQL. Here, not
    // in DlqDialect, because the control schema indexes by it.
    virtual QString dlqSignature(const QString &errorClass, const QString &error) const = 0;

    // Event time: milliseconds since the epoch of a timestamp expression
    // (ISO-8601 text in any zone form, epoch seconds as a number or text, or
    // a timestamp column), NULL when it cannot be read.
    virtual QString epochMs(const QString &expr) const = 0;
    // Functions the engine keeps in the database (created with the control
    // schema; SQLite registers its own on each connection instead).
    virtual QStringList controlFunctions() const { return {}; }
    // Upsert tail for a table whose conflict target is `conflictColumns`:
    // ON CONFLICT (...) DO NOTHING / DO UPDATE SET c = excluded.c, the same
    // text on both engines.
    QString upsertSet(const QStringList &conflictColumns, const QStringList &updateColumns) const;

    // Streams (the rest of the streams' SQL: core/streams/streamsdialect.h)
    // Statements that make valueFitsType()'s helpers available on this
    // connection (PostgreSQL: a function in pg_temp; SQLite: none).
    virtual QStringList valueFitsSetup() const { return {}; }
    // A predicate, never NULL: the value `expr` (as jsonStageSelect or
    // jsonExtract gives it) can be written to a sink column declared `type`
    // (as listColumns reports it, with its "strict") without failing the
    // statement. PostgreSQL: sinkValue()'s cast succeeds, or the text fits a
    // character(n) column (needs valueFitsSetup() or
    // dlqSessionFunctions()). SQLite stores anything in any column of an
    // ordinary table: only columns of a numeric type name (INTEGER, REAL,
    // NUMERIC, ...) are checked, a number or numeric text fits. A STRICT
    // table's INTEGER takes what converts to an integer without loss, REAL a
    // number or numeric text, BLOB only a blob. NULL fits. Empty when every
    // value fits. `expr` may be evaluated more than once: pass a column.
    virtual QString valueFitsType(const QString &expr, const QString &type, bool strict) const = 0;

    // Typed values
    // A value the driver read from `field` as JSON (samples): a date, time or
    // timestamp as ISO-8601 text (an instant in UTC with a Z), NULL as null.
    virtual QJsonValue jsonValue(const QSqlField &field) const;
    // The label of a partition value `expr`: the text partitions are listed,
    // chosen (--partition, --from, --to) and recorded by. Its castText()
    // form, except that an instant reads as samples show it, in ISO-8601
    // whatever the session's time zone: a timestamptz in UTC with a Z
    // (2026-03-01T10:00:00Z), a timestamp without zone with a T. A date
    // stays 2026-03-01. Dearer than castText() (PostgreSQL: a type test and
    // a round trip through text): use it on grouped values where possible.
    virtual QString partitionText(const QString &expr) const = 0;
    // A partition value read from the database (`value` as the driver typed
    // it, `text` its partitionText() form), as bound again to select the rows
    // of that partition.
    virtual QVariant partitionBind(const QVariant &value, const QString &text) const = 0;
    // One row naming the type of each of `quotedColumns` of the SELECT
    // `select`, in order (engines whose columns hold what they are given
    // need none: empty). And whether a value of type `from` (as that row
    // names it) must be cast to be compared with and written to a column
    // declared `to` (as listColumns names it).
    virtual QString selectColumnTypes(const QString &select,
                                      const QStringList &quotedColumns) const {
        Q_UNUSED(select);
        Q_UNUSED(quotedColumns);
        return {};
    }
    virtual bool needsCast(const QString &from, const QString &to) const {
        Q_UNUSED(from);
        Q_UNUSED(to);
        return false;
    }
};

std::shared_ptr<const SqlDialect> makeDialect(SqlDialect::Kind kind);

// One per engine, in sqlitedialect.cpp and postgresdialect.cpp; makeDialect picks.
std::shared_ptr<const SqlDialect> makeSqliteDialect();
std::shared_ptr<const SqlDialect> makePostgresDialect();

} // namespace rw
