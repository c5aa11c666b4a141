#pragma once

#include "core/batch/batch.h"

#include <nlohmann/json.hpp>

namespace rw {

// The contract's JSON for run, preview, resume and run-show.
nlohmann::ordered_json toJson(const RunResult &result);
nlohmann::ordered_json partitionJson(const PartitionResult &partition);
nlohmann::ordered_json checksJson(const std::vector<CheckResult> &checks);
// What a stored plan keeps of its preview: the totals and checks, and only
// the partitions the plan changes (at most 1,000 of them), so that a plan of
// thousands of partitions stays small.
nlohmann::ordered_json planSummaryJson(const RunResult &preview);
// Back from partitionJson (checkpoints keep it).
PartitionResult partitionFromJson(const QString &json);

} // namespace rw
