#pragma once

#include "core/util/error.h"

#include <QSqlDatabase>

namespace rw {

// Registers Rewind's SQL functions on an open SQLite connection:
//   rewind_hash(a, b, ...)  a 32-bit FNV-1a hash of its arguments' types and
//                           bytes, deterministic, NULL-aware. Summed over rows it
//                           gives an order-independent checksum of a row set.
//   rewind_json_differ(a, b)  1 when two JSON texts hold different values by
//                           jsonb's rules (numbers by value, key order and
//                           string escapes aside), else 0.
// PostgreSQL gets the same function from SQL (see the dialect).
//
// The SQLite C API is reached through the library the Qt driver already
// loaded (dlsym), so core links no SQLite of its own.
Status registerSqliteFunctions(QSqlDatabase &connection);

// Process-wide SQLite settings, applied before the first SQLite connection of
// the process opens (later calls, and calls once one is open, change
// nothing). Turns off SQLite's memory statistics: with them on, every
// allocation of every connection takes one global mutex, which two threads
// replaying a stream (a stager and a writer) then fight over. Rewind reads
// none of those statistics.
void configureSqliteLibrary();

} // namespace rw
