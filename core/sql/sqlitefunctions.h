#pragma once

#include "core/sql/sqliteapi.h"

#include <QSqlDatabase>
#include <span>

namespace rw {

// Rewind's SQL functions on SQLite, one set per subsystem that has any. Each
// subsystem owns its set; this layer names none of them:
//   sql       rewind_hash(a, b, ...)  a 32-bit FNV-1a hash of its arguments'
//                           types and bytes, deterministic, NULL-aware. Summed
//                           over rows it gives an order-independent checksum
//                           of a row set.
//             rewind_json_differ(a, b)  1 when two JSON texts hold different
//                           values by jsonb's rules (numbers by value, key
//                           order and string escapes aside), else 0.
//             md5(text)   the hex MD5 of the text, as PostgreSQL's md5().
//             rewind_epoch_ms (core/sql/sqliteepoch.h)
//   lateness  rewind_lateness (core/lateness/latenessfunctions.h)
//   dlq       rewind_dlq_signature (core/dlq/dlq.h)
// PostgreSQL gets the same functions from SQL (the control schema's
// migrations and each subsystem's dialect).
using SqliteFunctionSet = std::span<const sqlite::Function> (*)();

// The sql layer's own set (above).
std::span<const sqlite::Function> sqlSqliteFunctions();

// Every set, the sql layer's and each subsystem's. Defined by core's
// composition (core/compose/sqlitefunctionsets.cpp), the one file that names
// every subsystem, so that a subsystem adds its set there and the sql layer
// includes none.
std::span<const SqliteFunctionSet> sqliteFunctionSets();

// Registers every set on a new SQLite connection (Database does, as each
// connection opens).
Status registerSqliteFunctions(QSqlDatabase &connection);

} // namespace rw
