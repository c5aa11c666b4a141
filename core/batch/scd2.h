#pragma once

#include "core/batch/batch.h"
#include "core/batch/batchsql.h"

#include <atomic>

namespace rw {

// The scd2 write mode of the batch core (internal to batch.cpp).
//
// The partition value is the effective date. Each month reconciles, per
// staged key, the version that was current just before it: a changed
// tracked value closes it (valid_to = the month, current 0) and opens a new
// one (valid_from = the month, valid_to = the start of the next later
// version or NULL, current when open-ended). Keys absent from a month and
// keys whose tracked values did not change are untouched, so a re-run
// changes nothing. Re-applying a month when later months exist also undoes
// transitions at that month that the source no longer has.

// Stages nothing: diffs the months of `scope` (already in rewind_stage) in
// ascending order. `simulate` (preview): applies each month to a temporary
// copy of the dimension so later months see earlier ones. Otherwise `scope`
// is one month, diffed against the target; rewind_scd2 stays for the publish.
// Fills stagedRows, inserted (opened), updated (closed or extended),
// deleted, unchanged (keys), versionsOpened/Closed and samples.
Result<std::vector<PartitionResult>> scd2Diff(const Database &db, const BatchSql &sql,
                                              const std::vector<PartitionRef> &scope, bool simulate,
                                              int samples, const std::atomic<bool> *cancel);

// The write of one month diffed by scd2Diff: before-images, then the
// reconciliation. Call inside the chunk's transaction, after the target exists.
Status scd2Publish(const Database &db, const BatchSql &sql, const PartitionResult &diffed,
                   const QVariant &runId);

// Refuses (BadInput) a scope whose first month lies before a month already
// applied that the scope leaves out: re-applying it alone would leave later
// history built on what it replaces. Also refuses a NULL effective date.
Status refuseScd2OutOfOrder(const Database &db, const DatasetSpec &dataset, const BatchSql &sql,
                            const std::vector<PartitionRef> &scope);

} // namespace rw
