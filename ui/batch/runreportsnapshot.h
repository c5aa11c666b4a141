#pragma once

#include "core/batch/runs.h"

#include <QString>
#include <optional>
#include <vector>

namespace rw {

// How a partition came out of a run, in the order the console lists them:
// what needs a look first.
enum class PartitionOutcome {
    Failed,       // a gate failed for it
    Changed,      // published, with rows inserted, updated or deleted
    NotPublished, // not reached, cancelled before it, or rolled back
    Unchanged,    // published, nothing to change
};
template <> struct EnumNames<PartitionOutcome> {
    static constexpr std::pair<PartitionOutcome, std::string_view> names[] = {
        {PartitionOutcome::Failed, "failed"},
        {PartitionOutcome::Changed, "changed"},
        {PartitionOutcome::NotPublished, "not published"},
        {PartitionOutcome::Unchanged, "unchanged"}};
};
inline constexpr int kPartitionOutcomes = 4;

// One partition of a run's report.
struct RunReportRow {
    PartitionResult counts; // samples dropped
    PartitionOutcome outcome = PartitionOutcome::Unchanged;
    int failedGates = 0;
};

// A run's report as the console shows it: the facts of the run, its totals,
// its partitions failed first, then changed, not published and unchanged
// (by partition within each), and its gates failed first. A value: built off
// the GUI thread by buildRunReport, handed to the view whole. The exports stay
// rw::runReportMarkdown and the JSON of rw::toJson, complete and in run order.
struct RunReportSnapshot {
    RunInfo info;           // without `done` and `checks` (in the rows below)
    RunResult result;       // without `partitions` and `checks` (in the rows below)
    PartitionResult totals; // of every partition
    int outcomeCounts[kPartitionOutcomes] = {};
    int published = 0;
    std::vector<RunReportRow> partitions;
    std::vector<CheckResult> gates; // failed first, then in the order core ran them
    int gatesFailed = 0;

    int count(PartitionOutcome outcome) const { return outcomeCounts[int(outcome)]; }
};

PartitionOutcome partitionOutcome(const PartitionResult &partition, int failedGates);

// Any thread. Linear in partitions and gates, plus the sort.
RunReportSnapshot buildRunReport(const RunInfo &info, const RunResult &result);

} // namespace rw
