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
// from 1; anything else is warned about and ignored), else `fallback`. Bounds the stage, the
// transaction and the time the write lock is held.
qint64 chunkRowBudget(qint64 fallback = 200000);
// On Iceberg a chunk is one commit, holding no lock, and costs about 0.6 s
// more than its rows (a work schema, the stage, its counts, the commit and
// the snapshot's lookup): a 30-day backfill of 820,000 rows took 7.3 s in
// six chunks of 200,000, hand SQL 1.6 s in one INSERT (bench/trino_year).
// A million rows a chunk; the stage and the MERGE's join stay well within
// a 2 GB Trino.
inline constexpr qint64 kIcebergChunkRows = 1000000;
// Partitions in one chunk at most: the scope is bound as values in each statement.
inline constexpr int kMaxChunkPartitions = 1000;

} // namespace rw
