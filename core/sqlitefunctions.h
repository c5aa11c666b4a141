#pragma once

#include "error.h"

#include <QSqlDatabase>

namespace rw {

// Registers Rewind's SQL functions on an open SQLite connection:
//   rewind_hash(a, b, ...)  a 32-bit FNV-1a hash of its arguments' types and
//                           bytes, deterministic, NULL-aware. Summed over rows it
//                           gives an order-independent checksum of a row set.
// PostgreSQL gets the same function from SQL (see the dialect).
//
// The SQLite C API is reached through the library the Qt driver already
// loaded (dlsym), so core links no SQLite of its own.
Status registerSqliteFunctions(QSqlDatabase &connection);

} // namespace rw
