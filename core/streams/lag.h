#pragma once

#include "core/sql/database.h"
#include "core/streams/offsets.h"

#include <QMap>
#include <optional>
#include <vector>

namespace rw {

// Lag over time: each read of a group's offsets (offsets, consumer-groups,
// the Streams page) records one sample per partition in rewind_lag_samples;
// consumer-groups' status applies Burrow's rules to the newest samples.

// The newest samples per partition that Burrow's rules look at (Burrow's
// default `intervals`), and the samples kept per stream and group.
inline constexpr int kLagWindow = 10;
inline constexpr int kLagRetention = 2000;
inline constexpr qint64 kLagMinSpacingMs = 1000;

struct LagSample {
    qint64 sampledMs = 0;
    std::optional<qint64> committed; // none: the group has no commit there
    qint64 logEnd = 0;
    qint64 lag = 0;
};

// In Burrow's order of severity (its StatusConstant): the worst partition
// status is the group's.
enum class LagStatus { Unknown, Ok, Warn, Stop, Stall, Rewind };
QString lagStatusName(LagStatus status); // "unknown", "OK", "WARN", "STOP", "STALL", "REWIND"

// Burrow's rules (linkedin/Burrow, evaluator/caching.go) over one
// partition's window (oldest first), leaving out samples taken while the
// group had no commit there; fewer than two left: Unknown. `currentLag` is
// the lag now, `nowMs` the time now. In Burrow's order:
//   OK      lag zero now, or anywhere in the window;
//   REWIND  the committed offset went back between two samples;
//   STOP    the time since the newest commit exceeds the time from the
//           window's first commit to it, a commit's time being when its
//           offset was first sampled (Kafka's OffsetFetch carries none);
//   STALL   the same, while the group has members (`hasMembers`): Burrow
//           tells a consumer that commits the same offset again (stalled)
//           from one that stopped committing by commit times we cannot see;
//   WARN    the offset moves, but the lag never went down between samples;
//   OK      otherwise.
LagStatus partitionLagStatus(const std::vector<LagSample> &window, qint64 currentLag, qint64 nowMs,
                             std::optional<bool> hasMembers);

// Records one sample per partition of `offsets` at `nowMs` and trims the
// group's samples to the newest kLagRetention sample times, in one write
// transaction. Nothing is recorded within kLagMinSpacingMs of the group's
// newest sample.
Status recordLagSamples(const Database &db, const QString &stream, const QString &group,
                        const std::vector<PartitionOffsets> &offsets, qint64 nowMs);

// The newest `perPartition` samples of each partition of the group, oldest
// first, in one query. Reads only.
Result<QMap<qint64, std::vector<LagSample>>> recentLagSamples(const Database &db,
                                                              const QString &stream,
                                                              const QString &group,
                                                              int perPartition = kLagWindow);

// The group's status over its partitions' windows: the worst partition's;
// Unknown when no partition has two samples.
LagStatus groupLagStatus(const QMap<qint64, std::vector<LagSample>> &windows, qint64 nowMs,
                         std::optional<bool> hasMembers);

// Total lag of the group at each sample time since `sinceMs`, oldest first,
// for the lag-over-time chart. Reads only.
struct LagPoint {
    qint64 sampledMs = 0;
    qint64 lag = 0;
};
Result<std::vector<LagPoint>> lagHistory(const Database &db, const QString &stream,
                                         const QString &group, qint64 sinceMs);

} // namespace rw
