#pragma once

#include "core/batch/batch.h"
#include "core/batch/partitions.h"
#include "core/lateness/feeds.h"
#include "core/sql/database.h"
#include "core/util/enumnames.h"
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
// producer stamped in 2099 would otherwise finalize every day until then.
// While a consumer group of a stream feeding the dataset lags (feeds.h), the
// watermark is held at the earliest event it has not consumed, minus
// allowed_lateness; a feeding log that cannot be read holds it where the
// last finalize left it (none before: nothing becomes final).
//
// A partition is a window of calendar time (UTC): an hour, a day or a month,
// the grain read from partition_granularity where the spec sets one, else
// from the values (WindowGrain). It is final once the watermark reaches its
// end. Values that name no window (and the single partition of an
// unpartitioned dataset) are never finalized by the watermark: they are
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

// A calendar grain of partition windows.
enum class WindowGrain { Hour, Day, Month };
template <> struct EnumNames<WindowGrain> {
    static constexpr std::pair<WindowGrain, std::string_view> names[] = {
        {WindowGrain::Hour, "hour"}, {WindowGrain::Day, "day"}, {WindowGrain::Month, "month"}};
};

struct FinalizeResult {
    QString dataset;
    bool executed = false;
    qint64 allowedLatenessSeconds = 0;
    std::optional<WindowGrain> grain; // none: no partition names a window
    std::optional<qint64> maxEventMs;
    std::optional<qint64> watermarkMs; // held where held_by says; empty when no event time parses
    // What holds the watermark (feeds.h); empty when nothing does.
    std::vector<WatermarkHold> heldBy;
    std::optional<qint64> unheldWatermarkMs; // what it would be, were nothing holding it
    qint64 futureEvents = 0;                 // event times after the moment of computing: ignored
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

// The grain of `dataset`'s partition windows: its partition_granularity,
// else the one shape of its `values` that name a window: an hour
// ('2025-05-06T05:00:00Z', '2025-05-06T05', '2025-05-06 05:00'), a day
// ('2025-05-06') or a month ('2025-05'). None when no value names one.
// BadInput naming the dataset, the field and examples when values of two
// grains are mixed, or a value does not fit the partition_granularity
// ('2025-05-01' fits month, as Rewind labels months).
Result<std::optional<WindowGrain>> windowGrain(const DatasetSpec &dataset,
                                               const QList<std::optional<QString>> &values);

// The window [start, end) in epoch milliseconds (UTC) a partition value
// covers at `grain`; nullopt when it names none at that grain (undated).
std::optional<std::pair<qint64, qint64>> partitionWindowMs(WindowGrain grain, const QString &value);

// ISO-8601 UTC text of epoch milliseconds ("2025-05-14T22:00:00Z").
QString isoUtc(qint64 ms);

// {"dataset","watermark","finalized","provisional","stale", ...extras}.
nlohmann::ordered_json toJson(const FinalizeResult &result);
// "held_by": [{"stream","group","lag","held_at"[,"reason"]}].
nlohmann::ordered_json toJson(const std::vector<WatermarkHold> &holds);

// 0, or the run's exit code (3 a check failed, 1 the run failed).
int exitCodeOf(const FinalizeResult &result);

} // namespace rw
