#pragma once

#include "core/sql/database.h"
#include "core/workspace/spec.h"

#include <vector>

namespace rw {

// One partition of a stream's log.
struct StreamPartitionInfo {
    qint64 partition = 0;
    qint64 logStart = 0;   // smallest offset still present
    qint64 logEnd = 0;     // largest offset plus one
    qint64 events = 0;     // rows present (may be less than logEnd - logStart after compaction)
    QString firstRecordTs; // as stored
    QString lastRecordTs;
};

// Per-partition extent of the log (StreamLog::partitions). Reads only.
Result<std::vector<StreamPartitionInfo>> listStreamPartitions(const Database &db,
                                                              const StreamSpec &stream);

// Rows in the sink table (0 when it does not exist yet).
Result<qint64> sinkRowCount(const Database &db, const StreamSpec &stream);

// The columns of each index a catalog query (listIndexColumns' shape:
// index, position, column; bound parameter: the relation) reports for `relation`.
Result<QList<QStringList>> relationIndexColumns(const Database &db, const QString &catalogSql,
                                                const QString &relation);

} // namespace rw
