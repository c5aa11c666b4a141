#pragma once

#include "core/sql/sqliteapi.h"
#include "core/util/error.h"

#include <QByteArray>
#include <optional>
#include <span>
#include <vector>

namespace rw {

// Rewind's SQLite function for event-time work, registered on every SQLite
// connection with the other subsystems' (core/sql/sqlitefunctions.h):
//
//   rewind_lateness(event_time, ingest_time, partition)
//                               an aggregate: in one pass and without sorting,
//                               a hash map of (partition, lateness in ms) ->
//                               count, plus per-partition counts of rows whose
//                               timestamps are NULL or unparseable. Returns a
//                               blob that decodeLatenessCounts() reads.
//
// It reads timestamps as rewind_epoch_ms does (core/sql/sqliteepoch.h).
std::span<const sqlite::Function> latenessSqliteFunctions();

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
