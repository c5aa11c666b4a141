#pragma once

#include "core/sql/sqliteapi.h"

#include <optional>
#include <span>

namespace rw {

// Event time on SQLite, read in this process without allocating: the forms
// timeutil::parseTimestamp reads (ISO-8601 text in any zone form, fractions
// allowed; Unix epoch seconds as a number or as text), in milliseconds since
// the epoch. Digits past the millisecond are dropped; epoch numbers outside
// years 0000-9999 (epoch milliseconds among seconds land there) do not read.
//
//   rewind_epoch_ms(ts)   the SQL function TimeJson::epochMs spells on
//                         SQLite; NULL when ts cannot be read. Registered on
//                         every SQLite connection with the sql layer's own
//                         functions (core/sql/sqlitefunctions.h).
std::span<const sqlite::Function> epochSqliteFunctions();

// One SQLite value in epoch milliseconds, for functions that read timestamps
// (rewind_epoch_ms, the lateness aggregate). False when it cannot be read;
// `missing` is set when it is NULL.
bool sqliteEpochMs(const sqlite::Api &api, sqlite::sqlite3_value *value, bool &missing,
                   qint64 &out);

// Milliseconds since the epoch of an ISO-8601 or epoch-seconds text, or
// nullopt. For callers that hold a single value, and tests.
std::optional<qint64> parseEpochMs(const char *text, qsizetype size);

} // namespace rw
