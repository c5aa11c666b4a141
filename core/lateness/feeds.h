#pragma once

#include "core/sql/database.h"
#include "core/workspace/spec.h"

#include <optional>
#include <vector>

namespace rw {

// The consumer groups of the streams feeding a dataset (DatasetSpec::feeds)
// that hold its watermark back: while a group lags, the events it has not
// consumed yet will reach the dataset's source, so no window they fall in
// may become final.
//
// Which groups: those the spec names (a Kafka stream's kafka.groups) and
// those that replayed into the stream's sink (rewind_replays); where there
// are none of either, every group with committed offsets the log lists. For
// each lagging
// partition of a group, the record at its committed offset is read (a log
// table: one query; Kafka: one fetch per partition, bounded by
// REWIND_KAFKA_TIMEOUT_MS) and its event time taken through the stream's
// field mapping (the sink column the dataset's event_time names), else its
// record timestamp.
//
// Threading: the calling thread, with its connection.
struct WatermarkHold {
    QString stream;
    QString group;
    qint64 lag = 0; // events behind, over its partitions
    // The earliest event time not yet consumed, minus the dataset's allowed
    // lateness: the watermark goes no further. None when no event time could
    // be read from those records.
    std::optional<qint64> heldAtMs;
    // The stream's log could not be read (a cluster that does not answer):
    // why. The watermark then stays where it was (finalize.h).
    QString unreachable;
};

// Every hold on `dataset`'s watermark, in feed and group order; empty when
// no feeding group lags. A log that cannot be read is a hold with
// `unreachable` set, not an error; an Error only when the workspace itself
// could not be read.
Result<std::vector<WatermarkHold>> watermarkHolds(const Database &db, const DatasetSpec &dataset);

// For people: "watermark held at 2025-05-06T09:45:00Z by group orders-loader
// of stream orders, 97,500 events behind", or, for a log that cannot be read,
// "watermark held where the last finalize left it: stream orders cannot be
// read: ...".
QString describeHold(const WatermarkHold &hold);

} // namespace rw
