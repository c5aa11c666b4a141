#pragma once

#include "core/batch/partitionswap.h"
#include "core/batch/schemachange.h"
#include "core/sql/database.h"
#include "core/workspace/spec.h"

#include <QHash>
#include <QList>
#include <QStringList>
#include <utility>
#include <vector>

namespace rw {

// What the database's catalog says about a dataset, as a batch operation
// needs it: the source's columns, the target's, and whether key lookups into
// the target are cheap. Resolved once per operation (a preview, a run, a
// recovery with its re-run) and handed to every BatchSql it makes: each
// resolution is up to five catalog round trips.
struct DatasetCatalog {
    QString source;         // the dataset's source SELECT (sourceSelect)
    QStringList columns;    // as the source / transform yields them
    QList<int> columnTypes; // their engine type ids (Database::selectColumns)
    QStringList key;        // the dataset's key, or every column when it has none
    QStringList values;     // columns that are neither key nor partition
    // The values a merge compares and updates: `values`, narrowed by
    // merge_update_columns or merge_exclude_columns.
    QStringList updated;
    bool targetExists = false;
    QHash<QString, QString>
        targetTypes;               // the target's column types, by name (empty before it exists)
    QHash<QString, QString> casts; // target types the stage casts source columns to, by name
    bool targetIndexed =
        false; // an index leads with a key column (or partition, key) and rows have an identity
    // The target's indexes (name, plain columns in order), as the catalog listed them.
    std::vector<std::pair<QString, QStringList>> targetIndexes;
    // An index leads with the partition column: distinct partition values are
    // one index seek each (the source: the table `source` names).
    bool sourcePartitionIndexed = false;
    bool targetPartitionIndexed = false;
    // How a run would change the target's schema (on_schema_change): the
    // columns the source yields that the target lacks, those it has that
    // the source no longer yields, those the source yields wider. Resolving
    // refuses a type Rewind cannot widen.
    SchemaChange schemaChange;
    // Why a preview or run must refuse that change (a narrower or
    // incompatible type under sync_all_columns; a column to drop that an
    // index holds); empty when it may go ahead.
    QString refusal;
    // The target's declarative partitioning (PostgreSQL), for an
    // overwrite_partition publish by partition swap.
    PartitionLayout layout;

    // The source as a derived table, "(SELECT ...) AS alias".
    QString sourceRelation(const QString &alias) const;

    // `compareTypes`: a preview, run or resume, which also compares the
    // transform's types with the target's (widened columns, refusals).
    static Result<DatasetCatalog> resolve(const Database &db, const DatasetSpec &dataset,
                                          bool compareTypes = false);
};

} // namespace rw
