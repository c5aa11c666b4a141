#pragma once

#include "core/sql/database.h"
#include "core/workspace/spec.h"

#include <QHash>
#include <QList>
#include <QStringList>

namespace rw {

// What the database's catalog says about a dataset, as a batch operation
// needs it: the source's columns, the target's, and whether key lookups into
// the target are cheap. Resolved once per operation (a preview, a run, a
// recovery with its re-run) and handed to every BatchSql it makes: each
// resolution is up to five catalog round trips.
struct DatasetCatalog {
    QStringList columns;    // as the source / transform yields them
    QList<int> columnTypes; // their engine type ids (Database::selectColumns)
    QStringList key;        // the dataset's key, or every column when it has none
    QStringList values;     // columns that are neither key nor partition
    bool targetExists = false;
    QHash<QString, QString>
        targetTypes;               // the target's column types, by name (empty before it exists)
    QHash<QString, QString> casts; // target types the stage casts source columns to, by name
    bool targetIndexed =
        false; // an index leads with a key column (or partition, key) and rows have an identity

    static Result<DatasetCatalog> resolve(const Database &db, const DatasetSpec &dataset);
};

} // namespace rw
