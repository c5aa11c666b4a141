#pragma once

#include "core/sql/sqldialect.h"

namespace rw {

// A subsystem's dialect interface, chosen once by the engine's kind: one
// stateless instance per engine, shared by every thread.
template <typename Interface, typename Sqlite, typename Postgres>
const Interface &perEngine(const SqlDialect &dialect) {
    static const Sqlite sqlite;
    static const Postgres postgres;
    if (dialect.kind() == SqlDialect::Kind::Postgres)
        return postgres;
    return sqlite;
}

} // namespace rw
