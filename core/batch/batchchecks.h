#pragma once

#include "core/batch/batch.h"
#include "core/batch/batchsql.h"

namespace rw {

// Runs the dataset's quality gates on the rows in rewind_stage, per
// partition of `scope`. Rows failing a row-level check with on_fail
// "quarantine" are removed from the stage; when `runId` is not null they are
// also written to the DLQ (with a history row), in the caller's transaction.
Result<std::vector<CheckResult>> runChecks(const Database &db, const DatasetSpec &dataset,
                                           const BatchSql &sql,
                                           const std::vector<PartitionRef> &scope,
                                           const QVariant &runId);

} // namespace rw
