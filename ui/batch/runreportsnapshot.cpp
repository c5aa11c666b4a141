#include "ui/batch/runreportsnapshot.h"

#include "core/batch/partitions.h"
#include "core/batch/scope.h"

#include <QHash>
#include <algorithm>

namespace rw {

PartitionOutcome partitionOutcome(const PartitionResult &p, int failedGates) {
    if (failedGates > 0)
        return PartitionOutcome::Failed;
    if (!p.published)
        return PartitionOutcome::NotPublished;
    return p.inserted + p.updated + p.deleted > 0 ? PartitionOutcome::Changed
                                                  : PartitionOutcome::Unchanged;
}

RunReportSnapshot buildRunReport(const RunInfo &info, const RunResult &result) {
    RunReportSnapshot s;
    s.info = info;
    s.info.done.clear();
    s.info.checks.clear();
    s.result.dataset = result.dataset;
    s.result.mode = result.mode;
    s.result.planId = result.planId;
    s.result.runId = result.runId;
    s.result.executed = result.executed;
    s.result.status = result.status;
    s.result.error = result.error;
    s.result.startedAt = result.startedAt;
    s.result.finishedAt = result.finishedAt;
    s.totals = result.totals();

    // Failed gates per partition; a gate of no partition fails them all.
    QHash<QString, int> failedOf;
    int failedEverywhere = 0;
    for (const CheckResult &c : result.checks) {
        if (c.passed)
            continue;
        ++s.gatesFailed;
        if (c.partition)
            ++failedOf[partitionKey(c.partition)];
        else
            ++failedEverywhere;
    }
    s.partitions.reserve(result.partitions.size());
    for (const PartitionResult &p : result.partitions) {
        RunReportRow row;
        row.counts = p;
        row.counts.samples.reset();
        row.failedGates = failedEverywhere + failedOf.value(partitionKey(p.partition));
        row.outcome = partitionOutcome(p, row.failedGates);
        ++s.outcomeCounts[int(row.outcome)];
        s.published += p.published ? 1 : 0;
        s.partitions.push_back(std::move(row));
    }
    std::stable_sort(s.partitions.begin(), s.partitions.end(),
                     [](const RunReportRow &a, const RunReportRow &b) {
                         if (a.outcome != b.outcome)
                             return a.outcome < b.outcome;
                         return partitionLess(a.counts.partition, b.counts.partition);
                     });
    s.gates = result.checks;
    std::stable_sort(
        s.gates.begin(), s.gates.end(),
        [](const CheckResult &a, const CheckResult &b) { return !a.passed && b.passed; });
    return s;
}

} // namespace rw
