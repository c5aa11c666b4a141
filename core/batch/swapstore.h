#pragma once

#include "core/sql/database.h"

#include <optional>
#include <vector>

namespace rw {

// rewind_swaps: the partitions a run published by partition swap
// (PostgreSQL), one row each. The table a swap detached is the partition's
// before-image: it stays in the control schema under `savedTable` until the
// run is rolled back (it is attached again) or its images are dropped.
// This file is the table's one writer.
namespace swapstore {

struct Swap {
    qint64 runId = 0;
    QString dataset;
    std::optional<QString> partition;
    QString parent;     // the partitioned table, quoted and qualified
    QString leafSchema; // where the leaf lives, and its name, kept across the swap
    QString leafName;
    QString bound;      // FOR VALUES ...
    QString check;      // the CHECK that lets the saved leaf be attached again without a scan
    QString savedTable; // the detached leaf, quoted and qualified; empty: the run created the leaf
    // The detached leaf's indexes: each one's name while saved, and its name before.
    std::vector<std::pair<QString, QString>> savedIndexes;
    QString swappedAt;
};

// Inside the publish's transaction that swapped them.
Status record(const Database &db, const std::vector<Swap> &swaps);
// Run `runId`'s swaps of dataset `dataset`, by partition key (partitionKey()).
Result<std::vector<Swap>> ofRun(const Database &db, qint64 runId, const QString &dataset);
// The swap is undone (its rollback attached the saved leaf again): inside
// that rollback's transaction.
Status forget(const Database &db, const Swap &swap);

// Run `runId`'s saved leaves of dataset `dataset` are dropped and its swaps
// forgotten (its images pruned): inside the prune's transaction. Returns
// the number of tables dropped.
Result<int> dropSaved(const Database &db, qint64 runId, const QString &dataset);

} // namespace swapstore

} // namespace rw
