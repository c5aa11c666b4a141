#pragma once

// What rollback.cpp shares with rollbackiceberg.cpp (Trino over Iceberg).
// Not for other callers.
#include "core/batch/rollback.h"
#include "core/batch/runs.h"

namespace rw {

// The count a query of one value answers.
Result<qint64> countOf(const Database &db, const std::pair<QString, QVariantList> &query);

// The partition's state once `runId`'s publish of it is undone: the publish
// before it, if any. In a transaction of the control store.
Status restorePartitionState(const Database &db, const QString &dataset, const PartitionRef &p,
                             qint64 runId);

// The audit row of one partition's rollback, in its transaction.
Status auditRestored(const Database &db, const QString &dataset, qint64 runId,
                     const RollbackPartition &rp, bool swapped);

// rollback() on a Trino warehouse, past its checks (`todo`: the partitions
// the run published, last first): each partition back to the target's
// snapshot before the run's publish of it, all in one commit.
Result<RollbackResult> rollbackIceberg(const Database &db, const DatasetSpec &dataset,
                                       const RunInfo &run, const std::vector<PartitionRef> &todo,
                                       RollbackResult result);

} // namespace rw
