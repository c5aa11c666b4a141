#pragma once

#include "core/batch/batch.h"
#include "core/batch/planstore.h"

#include <vector>

namespace rw {

class BatchSql;

// Publishes the partitions of `todo` into `result`, chunk by chunk. A chunk is
// several partitions staged, diffed, gated and written by set-based
// statements over all of them, in one transaction with their checkpoints,
// before-images, partition states and audit rows: killed inside a chunk, none
// of its partitions is published. Chunks are sized by source rows
// (chunkRowBudget), never more than kMaxChunkPartitions partitions; SCD2
// applies one month per chunk. A chunk whose gates fail or whose write fails
// is rolled back and its partitions published one per chunk, so a failed gate
// keeps only its own partition unpublished and an error names its partition.
// Progress is reported per partition. `alreadyDone`: partitions of the run
// published before (resume). On a Trino warehouse each chunk is one
// statement and one Iceberg snapshot, its checkpoints recorded in the
// control store before (publishing) and after (done) it commits;
// `intended`: the commits a stopped run recorded as about to be made
// (RunInfo::publishing), which a resume recognises when they landed.
void publishChunks(const Database &db, const DatasetSpec &dataset, BatchSql &sql, const Plan &plan,
                   const std::vector<PartitionRef> &todo, const BatchOptions &options,
                   RunResult &result, int alreadyDone,
                   const QHash<QString, PartitionResult> &intended = {});

// Source rows a chunk aims at: REWIND_CHUNK_ROWS when set (a whole number
// from 1; anything else is warned about and ignored), else 200,000. Bounds the stage, the
// transaction and the time the write lock is held.
qint64 chunkRowBudget();
// Partitions in one chunk at most: the scope is bound as values in each statement.
inline constexpr int kMaxChunkPartitions = 1000;

} // namespace rw
