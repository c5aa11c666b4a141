#pragma once

#include "core/sql/sqldialect.h"

#include <QList>
#include <QString>
#include <QStringList>
#include <QVariant>
#include <utility>

namespace rw {

// What batch work (scope, stage, diff, publish, rollback) asks of an engine
// beyond SqlDialect: its strategy, the dedupe, row identity and hashes, and
// partition labels. One stateless instance per engine:
// BatchDialect::of(db.dialect()).
class BatchDialect {
public:
    virtual ~BatchDialect() = default;
    static const BatchDialect &of(const SqlDialect &dialect);

    // Strategy (see each engine's answer for the measurements)
    // Whether a one-partition merge publish stages its rows already joined
    // to their target rows, in one statement (BatchSql::createStageWithMatches),
    // rather than writing the stage and then matching it.
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
    // Whether a partition of a declaratively partitioned target can be
    // published by swapping its leaf table (PartitionLayout): PostgreSQL.
    virtual bool swapsPartitions() const { return false; }

    // The dedupe: `outer` over one row of `from` (aliased s) per distinct
    // `partitionBy`, the first by `orderBy` (empty: any). `inner` lists the
    // columns of s that `outer` reads from the chosen rows (aliased ranked).
    // The standard form numbers the rows of a window; PostgreSQL's DISTINCT ON
    // does the same with one sort and no window.
    virtual QString latestPerKey(const QString &outer, const QString &inner,
                                 const QStringList &partitionBy, const QStringList &orderBy,
                                 const QString &from) const = 0;
    // The hour, day or month (`grain`) of the timestamp `expr` as partition
    // label text: 2025-05-06T05:00:00Z, 2025-05-06, 2025-05-01 (in UTC).
    // Each is its own label's value, so it may be applied to a label again.
    virtual QString timeGrain(const QString &expr, const QString &grain) const = 0;
    // SqlDialect::nullSafeEqual for a join key whose column type (as the
    // catalog names it; empty when unknown) is `type`, spelled so the engine
    // can hash or merge join on it.
    virtual QString nullSafeKeyEqual(const QString &a, const QString &b,
                                     const QString &type) const = 0;

    // Row identity
    // The engine's physical row identity of `alias` (never NULL for a real
    // row, so it also marks which side of an outer join matched); with no
    // alias, of the statement's one table.
    virtual QString rowIdentity(const QString &alias) const = 0;
    // A work table's rows (the stage's), each with an identity no other row
    // of it shares: the FROM item reading `table` as `alias`, and that
    // identity. rowIdentity where the engine's names one row; Trino's names
    // a data file, so its rows are numbered there.
    virtual std::pair<QString, QString> identifiedRows(const QString &table,
                                                       const QString &alias) const {
        return {table + QStringLiteral(" AS ") + alias, rowIdentity(alias)};
    }
    // Statements before and after an UPDATE that joins the target to a work
    // table on rowIdentity for many rows, so that the engine hashes the
    // identities of the rows it scans rather than looking each one up (empty
    // where lookups are its best plan).
    virtual std::pair<QString, QString> aroundHashedIdentityJoin() const = 0;
    // Statements before and after a read that groups a whole table by
    // (partition, key) outside a transaction: such groups are nearly as many
    // as the rows, which the engine's estimate of distinct pairs does not
    // know (empty where that estimate does not change the plan).
    virtual std::pair<QString, QString> aroundKeyGrouping() const { return {}; }
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

    // An order-independent checksum of the rows a group holds, of the
    // columns `quotedExpressions` (types as rowHash takes them): a number or
    // text, never NULL (0 for no rows). The sum of rowHash; Trino's own
    // checksum() aggregate.
    virtual QString rowsChecksum(const QStringList &quotedExpressions,
                                 const QList<int> &nativeTypes) const {
        return QStringLiteral("COALESCE(SUM(") + rowHash(quotedExpressions, nativeTypes) +
               QStringLiteral("), 0)");
    }

    // Partition labels
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
    // A partition value as a plan or a run stored it (JSON: a number or a
    // text), bound again against a column of `type` (the catalog's name for
    // it): as is, but where the engine compares a value with a literal of
    // the column's own type only (Trino).
    virtual QVariant storedPartitionBind(const QVariant &stored, const QString &) const {
        return stored;
    }

    // Work tables
    // Run once a job's last work table is dropped: what removes their home
    // (Trino: the session's scratch schema; elsewhere nothing).
    virtual QStringList dropWorkSpace() const { return {}; }

    // Types (a transform's columns against the target's)
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
    // How the transform's type `to` of a column (as a new table would
    // declare it) relates to its type `from` in the target: the same, or
    // types of unrelated kinds (a text column read into a date, cast as
    // needsCast says: Same); a wider one, whose every value `to` holds
    // (Widens: integer to bigint, numeric(10,2) to numeric(12,2), varchar(n)
    // to text); a narrower one (Narrows); or neither holding every value of
    // the other (Incompatible: bigint against double precision). Engines
    // whose columns hold any value (SQLite's affinity): always Same.
    enum class TypeChange { Same, Widens, Narrows, Incompatible };
    // typeChange() ever says anything but Same: a column's type is worth
    // comparing with the transform's.
    virtual bool typesHaveWidths() const { return false; }
    virtual TypeChange typeChange(const QString &from, const QString &to) const {
        Q_UNUSED(from);
        Q_UNUSED(to);
        return TypeChange::Same;
    }
};

// One per engine, in sqlitebatchdialect.cpp, postgresbatchdialect.cpp and
// trinobatchdialect.cpp.
const BatchDialect &sqliteBatchDialect();
const BatchDialect &postgresBatchDialect();
const BatchDialect &trinoBatchDialect();

inline const BatchDialect &BatchDialect::of(const SqlDialect &dialect) {
    switch (dialect.kind()) {
    case SqlDialect::Kind::Postgres:
        return postgresBatchDialect();
    case SqlDialect::Kind::Trino:
        return trinoBatchDialect();
    case SqlDialect::Kind::Sqlite:
        break;
    }
    return sqliteBatchDialect();
}

} // namespace rw
