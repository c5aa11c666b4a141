#pragma once

#include "core/batch/catalog.h"
#include "core/sql/database.h"
#include "core/workspace/spec.h"

// Apache Iceberg tables read through Trino: their snapshots, which on
// Trino are what a plan locks to, what a run records per publish and what
// a rollback restores from. Snapshot ids are kept as their decimal text (a
// bigint past 2^53 survives JSON that way).
namespace rw::iceberg {

// `table`'s metadata table `suffix` ("$snapshots", "$refs"), quoted:
// "schema"."table$snapshots".
QString metadataTable(const Database &db, const QString &table, const QString &suffix);

// The snapshot `table`'s main branch points at now (empty: a table with no
// snapshot yet).
Result<QString> currentSnapshot(const Database &db, const QString &table);

// The snapshot of `table` that Trino query `queryId` committed (empty: none,
// or the query committed nothing).
Result<QString> snapshotOfQuery(const Database &db, const QString &table, const QString &queryId);

// Whether `table` still keeps `snapshot` (not expired).
Result<bool> snapshotKept(const Database &db, const QString &table, const QString &snapshot);

// The snapshots `table` committed after `snapshot` that are ancestors of its
// current one, oldest first, with who committed each and its query id
// (what a rollback reads to know whether anything else wrote since).
struct Commit {
    QString snapshot;
    QString committedAt; // ISO-8601, UTC
    QString operation;   // append, overwrite, delete
    QString user;        // the summary's trino_user
    QString queryId;     // the summary's trino_query_id
};
Result<std::vector<Commit>> commitsSince(const Database &db, const QString &table,
                                         const QString &snapshot);

// Whether the one-statement commit a run recorded as about to be made
// landed in `table`, for a write whose effect cannot be recognised in the
// data (an append adds its rows again). The intent recorded `before` (the
// snapshot current then, empty for a table with none), `tag` (the comment
// its statement began with, commentOf()) and `queryId`, which is recorded
// before Trino submits the statement (TrinoQueryWatch). A statement still
// queued or running (found by its id or tag in system.runtime.queries) is
// killed and waited for; then a snapshot of its query id among the main
// branch's ancestors since `before` means it landed, none that it did not
// (no id recorded: it was never submitted). Unknown, with `detail`, for a
// statement that would not stop, or whose snapshot is no longer in the
// branch's history.
struct CommitFound {
    enum class Outcome { Landed, NotLanded, Unknown } outcome = Outcome::Unknown;
    QString snapshot; // Landed: the snapshot it committed
    QString queryId;
    QString detail;
};
Result<CommitFound> findCommit(const Database &db, const QString &table, const QString &before,
                               const QString &tag, QString queryId);
// The comment a tagged statement begins with.
QString commentOf(const QString &tag);

// `select` (SELECT * FROM "t") reading the table as of `snapshot`.
QString asOf(const QString &quotedTable, const QString &snapshot);

// What a plan on a Trino warehouse locks to: the source table's snapshot
// (none for a transform, which may read any tables: its fingerprints lock
// it, as on the other engines) and the target's.
struct Locks {
    QString source;
    QString target;
};
Result<Locks> readLocks(const Database &db, const DatasetSpec &dataset, bool targetExists);

// `catalog` reading the dataset's source table as of `snapshot` (nothing
// changes for a transform, or with no snapshot).
void lockSource(DatasetCatalog &catalog, const Database &db, const DatasetSpec &dataset,
                const QString &snapshot);

// The last snapshot that wrote each partition of `dataset`'s target (its
// data or delete files, from $entries), by partition key (partitionKey()),
// when the table's Iceberg partitioning is the dataset's partition: its
// column, or its day, hour or month (partition_granularity). Empty when it
// is partitioned otherwise.
struct PartitionSnapshot {
    QString snapshot;
    QString committedAt; // ISO-8601, UTC
    QString operation;   // append, overwrite, delete
    QString user;        // the summary's trino_user
};
Result<QHash<QString, PartitionSnapshot>> lastSnapshots(const Database &db,
                                                        const DatasetSpec &dataset);

} // namespace rw::iceberg
