#pragma once

#include "core/batch/batch.h"
#include "core/batch/batchsql.h"

#include <optional>
#include <vector>

// A run's scope: the partitions a request names, resolved against those the
// source and target hold, and its JSON form (rewind_runs.scope_json, plans).
namespace rw {

// The key of a partition label in maps of partitions ("v:<label>", or "null").
QString partitionKey(const std::optional<QString> &label);

// The partitions a request names, checked against those the source (and
// target) hold, sorted. BadInput names an unknown partition.
Result<std::vector<PartitionRef>> resolveScope(const Database &db, const DatasetSpec &dataset,
                                               const BatchSql &sql, const ScopeRequest &request);

// JSON text of a scope (for rewind_runs.scope_json and plans) and back.
QString scopeToJson(const std::vector<PartitionRef> &scope);
std::vector<PartitionRef> scopeFromJson(const QString &json);

} // namespace rw
