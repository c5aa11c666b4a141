#pragma once

#include "core/batch/batch.h"
#include "core/batch/partitions.h"
#include "core/sql/database.h"
#include "core/workspace/spec.h"

#include <atomic>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>

namespace rw {

// Watermark and finalization of a dataset with event_time and allowed_lateness.
//
// The watermark is max(event_time) over the dataset's source minus
// allowed_lateness (event times parsed as lag parses them: ISO-8601 in any
// zone form, or epoch seconds; unparseable ones are ignored). Event times
// after the moment it is computed are ignored too, and counted: one event a
// producer stamped in 2099 would otherwise finalize every day until then. A day partition
// (value 'YYYY-MM-DD', a UTC day) is final once the watermark reaches its
// end, the next midnight. Other partition values (and the single partition
// of an unpartitioned dataset) are never finalized by the watermark: they are
// listed as "undated" and keep their status.
//
// Threading: runs on the calling thread with that thread's connection;
// `cancel` may be set from any thread (see BatchOptions).

struct FinalizeOptions {
    bool execute = false;
    // Executed: publish exactly this stored plan (a preview of days the
    // watermark has passed, as the console shows before its confirmation)
    // instead of planning afresh. Refused (BadInput) when it covers a day
    // finalize would not finalize; StalePlan when its source changed.
    QString planId;
    std::function<void(const Progress &)> progress;
    const std::atomic<bool> *cancel = nullptr;
    // A dry run given the dataset's partitions as listPartitions() just
    // read them (the console's lag page lists them anyway) classifies
    // those instead of reading them again. Ignored when executed.
    const std::vector<PartitionInfo> *partitions = nullptr;
};

struct FinalizeResult {
    QString dataset;
    bool executed = false;
    qint64 allowedLatenessSeconds = 0;
    std::optional<qint64> maxEventMs;
    std::optional<qint64> watermarkMs; // empty when no event time parses
    qint64 futureEvents = 0;           // event times after the moment of computing: ignored
    // Each partition appears in exactly one list.
    QStringList finalized;    // dry run: would be published and marked final; executed: were
    QStringList provisional;  // day partitions the watermark has not passed
    QStringList stale;        // final partitions with late arrivals, and stale ones not yet passed:
                              // backfill with run --stale
    QStringList alreadyFinal; // final and unchanged
    QList<std::optional<QString>> undated; // not day partitions: never finalized by the watermark
    QStringList failed; // executed: eligible, but its publish failed a check or did not happen
    std::optional<RunResult> run; // the publishing run, when executed
};

// Dry run unless options.execute. Executed, it publishes the eligible days
// through rw::run (gated, atomic, checkpointed, one transaction per
// partition), then marks those it published final (status 'final',
// finalized_at) with an audit row, in one transaction.
// BadInput: no event_time or no allowed_lateness.
Result<FinalizeResult> finalize(const Database &db, const DatasetSpec &dataset,
                                const FinalizeOptions &options);

// The day a partition value names, as the epoch milliseconds of its first
// instant (UTC), when it is a 'YYYY-MM-DD' date.
std::optional<qint64> dayPartitionStartMs(const QString &value);

// The window [start, end) in epoch milliseconds (UTC) a partition value of
// `dataset` covers: with partition_granularity, its hour, day or month (the
// labels Rewind gives them); without, a 'YYYY-MM-DD' day. nullopt for any
// other value (undated).
std::optional<std::pair<qint64, qint64>> partitionWindowMs(const DatasetSpec &dataset,
                                                           const QString &value);

// ISO-8601 UTC text of epoch milliseconds ("2025-05-14T22:00:00Z").
QString isoUtc(qint64 ms);

// {"dataset","watermark","finalized","provisional","stale", ...extras}.
nlohmann::ordered_json toJson(const FinalizeResult &result);

// 0, or the run's exit code (3 a check failed, 1 the run failed).
int exitCodeOf(const FinalizeResult &result);

} // namespace rw
