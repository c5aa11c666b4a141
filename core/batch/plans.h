#pragma once

#include "core/batch/batch.h"
#include "core/batch/batchsql.h"

#include <QHash>

#include <memory>

namespace rw {

// Fingerprint of a partition's scoped source rows, keyed by partitionKey().
struct SourceStats {
    qint64 rows = 0;
    QString fingerprint;
};
using SourceStatsMap = QHash<QString, SourceStats>;

QString partitionKey(const std::optional<QString> &label);

// A preview locked for execution: the dataset, mode, scope and each
// partition's source fingerprint.
struct Plan {
    QString id;
    QString dataset;
    WriteMode mode = WriteMode::Merge;
    std::vector<PartitionRef> scope;
    SourceStatsMap stats;
};

// The partitions a request names, checked against those the source (and
// target) hold, sorted. BadInput names an unknown partition.
Result<std::vector<PartitionRef>> resolveScope(const Database &db, const DatasetSpec &dataset, const BatchSql &sql,
                                               const ScopeRequest &request);

// One set-based pass over the scoped source: rows and fingerprint per partition.
Result<SourceStatsMap> sourceStats(const Database &db, const BatchSql &sql, const std::vector<PartitionRef> &scope);

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

// The partitions of `plan` whose source fingerprint differs now (empty: fresh).
Result<QStringList> stalePartitions(const Database &db, const BatchSql &sql, const Plan &plan);

// Stores a plan; call inside a write transaction.
Status storePlan(const Database &db, const Plan &plan, const QString &summaryJson);
Result<Plan> loadPlan(const Database &db, const QString &planId);
QString newPlanId();

// JSON text of a scope (for rewind_runs.scope_json and plans) and back.
QString scopeToJson(const std::vector<PartitionRef> &scope);
std::vector<PartitionRef> scopeFromJson(const QString &json);

} // namespace rw
