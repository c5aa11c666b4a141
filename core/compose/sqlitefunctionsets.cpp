// The composition of core: the one file that names every subsystem's SQLite
// functions, so that each subsystem owns its set and the sql layer, which
// registers them on every SQLite connection as it opens
// (core/sql/sqlitefunctions.h), names none of them. A subsystem that adds
// SQL functions adds its set here. Nothing includes this area: it sits above
// every other, as a main does.
#include "core/dlq/dlq.h"
#include "core/lateness/latenessfunctions.h"
#include "core/sql/sqliteepoch.h"
#include "core/sql/sqlitefunctions.h"

namespace rw {

std::span<const SqliteFunctionSet> sqliteFunctionSets() {
    static constexpr SqliteFunctionSet sets[] = {sqlSqliteFunctions, epochSqliteFunctions,
                                                 latenessSqliteFunctions, dlqSqliteFunctions};
    return sets;
}

} // namespace rw
