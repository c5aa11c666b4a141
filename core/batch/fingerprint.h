#pragma once

#include "core/batch/batchsql.h"
#include "core/batch/scope.h"

#include <QHash>
#include <memory>

// A partition's source fingerprint (row count and order-independent
// checksum): what locks a plan to the source it previewed.
namespace rw {

// Fingerprint of a partition's scoped source rows, keyed by partitionKey().
struct SourceStats {
    qint64 rows = 0;
    QString fingerprint;
};
using SourceStatsMap = QHash<QString, SourceStats>;

// One set-based pass over the scoped source: rows and fingerprint per partition.
Result<SourceStatsMap> sourceStats(const Database &db, const BatchSql &sql,
                                   const std::vector<PartitionRef> &scope);

// sourceStats() on a second connection, in a thread of its own, while the
// caller goes on (stages the same rows): the fingerprint is a read-only pass
// over the source in scope that staging does not need, so the two passes run
// on two cores. Inside the caller's SQLite write transaction the second
// connection reads the same committed source (the caller holds the only
// write lock); on PostgreSQL each statement reads at READ COMMITTED, as the
// caller's own would. Where no second connection reaches the same data (an
// in-memory SQLite database) start() reads on the caller's thread.
class SourceStatsReader {
public:
    explicit SourceStatsReader(const Database &db);
    ~SourceStatsReader(); // waits for a read in flight; the connection closes with the thread
    SourceStatsReader(const SourceStatsReader &) = delete;
    SourceStatsReader &operator=(const SourceStatsReader &) = delete;
    // Starts reading the fingerprint of `scope` (the SQL is built here, on
    // the caller's thread); a previous result not taken is dropped.
    void start(const BatchSql &sql, const std::vector<PartitionRef> &scope);
    // The last start()'s result, waiting for it.
    Result<SourceStatsMap> take();

private:
    struct State;
    std::unique_ptr<State> m;
};

} // namespace rw
