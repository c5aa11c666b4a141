#pragma once

// What the publish of a run shares between its engines: publish.cpp (a
// transaction per chunk) and publishiceberg.cpp (Trino over Iceberg, a
// statement per chunk). Not for other callers.
#include "core/batch/batch.h"
#include "core/batch/fingerprint.h"
#include "core/batch/partitions.h"
#include "core/batch/planstore.h"
#include "core/sql/database.h"

#include <algorithm>
#include <vector>

namespace rw {

// How many of the partitions from `at` the next chunk takes: as many as
// `budget` source rows hold. A partition's rows come from the plan's stats
// where it has them (a stored plan, a resume); else they are estimated from
// the chunk before (its source rows per partition); the first chunk of a run
// planned afresh is one partition, which gives the first estimate.
class ChunkSizer {
public:
    ChunkSizer(bool onePerChunk, const SourceStatsMap &stats, qint64 budget)
        : m_onePerChunk(onePerChunk)
        , m_stats(stats)
        , m_budget(budget) {}

    std::size_t next(const std::vector<PartitionRef> &todo, std::size_t at) const {
        const std::size_t left = todo.size() - at;
        if (m_onePerChunk || left <= 1)
            return std::min<std::size_t>(left, 1);
        const std::size_t cap = std::min<std::size_t>(left, kMaxChunkPartitions);
        std::size_t n = 0;
        qint64 rows = 0;
        while (n < cap) {
            const qint64 r = rowsOf(todo[at + n]);
            if (r < 0)
                return std::max<std::size_t>(n, 1); // no estimate yet: this one alone
            if (n > 0 && rows + r > m_budget)
                break;
            rows += r;
            ++n;
        }
        return std::max<std::size_t>(n, 1);
    }

    // The partitions from `at` on, at least `least`, whose estimated rows
    // stay within `rows` (and `partitions`): a run copy's window.
    std::size_t window(const std::vector<PartitionRef> &todo, std::size_t at, std::size_t least,
                       qint64 rows, std::size_t partitions) const {
        std::size_t n = 0;
        qint64 sum = 0;
        while (at + n < todo.size() && n < partitions) {
            const qint64 r = rowsOf(todo[at + n]);
            if (n >= least && (r < 0 || sum + r > rows))
                break;
            sum += std::max<qint64>(r, 0);
            ++n;
        }
        return std::max(n, std::min(least, todo.size() - at));
    }

    qint64 budget() const { return m_budget; }

    // A chunk of `partitions` partitions read `sourceRows` source rows.
    void observe(std::size_t partitions, qint64 sourceRows) {
        if (partitions > 0)
            m_estimate = std::max<qint64>(1, sourceRows / qint64(partitions));
    }

private:
    qint64 rowsOf(const PartitionRef &p) const {
        const auto it = m_stats.constFind(partitionKey(p.label));
        return it != m_stats.constEnd() ? it->rows : m_estimate;
    }

    bool m_onePerChunk;
    const SourceStatsMap &m_stats;
    qint64 m_budget;
    qint64 m_estimate = -1;
};

// The rows a chunk's publish records in the control tables (`db`): per
// partition its checkpoint (done), state and audit row, and the chunk's gate
// results. Inside a transaction of `db`.
Status recordPublished(const Database &db, const DatasetSpec &dataset, const RunResult &result,
                       const std::vector<PartitionResult> &parts,
                       const std::vector<CheckResult> &checks);

// A run's progress over its chunks, reported as BatchOptions::progress asks.
class ChunkProgress {
public:
    ChunkProgress(const BatchOptions &options, const RunResult &result, std::size_t todo,
                  int alreadyDone)
        : m_options(options) {
        m_progress.partitionsTotal = int(todo) + alreadyDone;
        m_progress.partitionsDone = alreadyDone;
        for (const auto &p : result.partitions)
            m_progress.rowsDone += p.stagedRows;
    }
    void report(const QString &phase) {
        m_progress.phase = phase;
        if (m_options.progress)
            m_options.progress(m_progress);
    }
    void setPartition(const std::optional<QString> &label) {
        m_progress.partition = partitionLabel(label);
    }
    const QString &partition() const { return m_progress.partition; }
    // A chunk published: its partitions and gate results onto `result`, each
    // reported. Its source rows.
    qint64 published(RunResult &result, const std::vector<PartitionResult> &parts,
                     const std::vector<CheckResult> &checks) {
        result.checks.insert(result.checks.end(), checks.begin(), checks.end());
        qint64 sourceRows = 0;
        for (const PartitionResult &p : parts) {
            result.partitions.push_back(p);
            sourceRows += p.sourceRows;
            setPartition(p.partition);
            ++m_progress.partitionsDone;
            m_progress.rowsDone += p.stagedRows;
            report(QStringLiteral("published"));
        }
        return sourceRows;
    }
    // A partition held back by its gate.
    void checkFailed() {
        ++m_progress.partitionsDone;
        report(QStringLiteral("check failed"));
    }

private:
    const BatchOptions &m_options;
    Progress m_progress;
};

// What stopped a chunk before it published.
enum class ChunkStop { None, CheckFailed, StalePlan, Cancelled };

// A chunk that did not publish, once its attempts are spent: a failed gate
// (a one-partition chunk) recorded on `result` and in the control store
// `ctl`, and true (the run goes on with the next partition); else the run's
// status and error set from `stop` or `outcome`, its partitions marked
// failed where they can be, and false (the run stops).
bool unpublishedChunk(const Database &ctl, const DatasetSpec &dataset, const Plan &plan,
                      const BatchOptions &options, const std::vector<PartitionRef> &chunk,
                      const std::vector<PartitionResult> &parts,
                      const std::vector<CheckResult> &checks, ChunkStop stop,
                      const QString &staleDetail, const Status &outcome, RunResult &result);

// A partition whose gate failed: its gate results, its checkpoint
// (check_failed), its state (failed) and the audit row, in one transaction
// of `db` (the control store), retried while busy.
Status recordCheckFailed(const Database &db, const DatasetSpec &dataset, const RunResult &result,
                         const PartitionRef &p, const PartitionResult &partResult,
                         const std::vector<CheckResult> &checks, int maxAttempts);
// The partitions of a chunk whose publish failed, marked failed where `db`
// (the control store) still answers.
void markChunkFailed(const Database &db, const DatasetSpec &dataset, const RunResult &result,
                     const std::vector<PartitionRef> &chunk, int maxAttempts);

// publishChunks on a Trino warehouse (publishiceberg.cpp).
void publishIcebergChunks(const Database &db, const DatasetSpec &dataset, BatchSql &sql,
                          const Plan &plan, const std::vector<PartitionRef> &todo,
                          const BatchOptions &options, RunResult &result, int alreadyDone,
                          const QHash<QString, PartitionResult> &intended);

} // namespace rw
