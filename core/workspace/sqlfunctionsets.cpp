// The SQLite functions of every subsystem, registered by Database on each
// SQLite connection as it opens (core/sql/sqlitefunctions.h). A subsystem
// that adds SQL functions lists its set here.
#include "core/dlq/dlq.h"
#include "core/lateness/latenessfunctions.h"
#include "core/sql/sqlitefunctions.h"

namespace rw {

std::span<const SqliteFunctionSet> sqliteFunctionSets() {
    static constexpr SqliteFunctionSet sets[] = {sqlSqliteFunctions, latenessSqliteFunctions,
                                                 dlqSqliteFunctions};
    return sets;
}

} // namespace rw
