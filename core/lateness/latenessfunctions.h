#pragma once

#include "core/sql/sqliteapi.h"
#include "core/util/error.h"

#include <QByteArray>
#include <optional>
#include <span>
#include <vector>

namespace rw {

// Rewind's SQLite functions for event-time work, registered on every SQLite
// connection with the other subsystems' (core/sql/sqlitefunctions.h):
//
//   rewind_epoch_ms(ts)         ts (ISO-8601 text in any zone form, fractions
//                               allowed; or Unix epoch seconds, as a number or
//                               as text) in milliseconds since the epoch;
//                               NULL when it cannot be parsed, and for epoch
//                               numbers outside years 0000-9999 (epoch
//                               milliseconds among seconds land there).
//   rewind_lateness(event_time, ingest_time, partition)
//                               an aggregate: in one pass and without sorting,
//                               a hash map of (partition, lateness in ms) ->
//                               count, plus per-partition counts of rows whose
//                               timestamps are NULL or unparseable. Returns a
//                               blob that decodeLatenessCounts() reads.
//
// Both parse the same forms as timeutil::parseTimestamp, without allocating.
std::span<const sqlite::Function> latenessSqliteFunctions();

// Milliseconds since the epoch of an ISO-8601 or epoch-seconds text, or
// nullopt. Exposed for tests and for callers that hold a single value.
std::optional<qint64> parseEpochMs(const char *text, qsizetype size);

// What rewind_lateness() returns, decoded.
struct LatenessCounts {
    struct Partition {
        std::optional<QString> value; // as text; nullopt for NULL
        qint64 unparseable = 0;       // rows whose event or ingest time is NULL or cannot be parsed
        qint64 missing = 0;           // of those, rows with a NULL timestamp
    };
    struct Entry {
        quint32 partition = 0; // index into partitions
        qint64 latenessMs = 0;
        qint64 count = 0;
    };
    std::vector<Partition> partitions;
    std::vector<Entry> entries; // one per distinct (partition, lateness), in no particular order
};

Result<LatenessCounts> decodeLatenessCounts(const QByteArray &blob);

} // namespace rw
