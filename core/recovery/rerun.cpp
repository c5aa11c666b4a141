// Step 3 of a recovery: the affected partitions re-run by overwrite from the
// deduped source through the batch core, under the recovery's freeze.
#include "core/recovery/recoverydetail.h"

#include <QStringBuilder>

namespace rw {

using namespace recovery_detail;

Result<RunResult> Recovery::previewRerun(int samples) const {
    if (m_result.scope.empty()) {
        RunResult none;
        none.dataset = m_dataset.name;
        none.mode = WriteMode::OverwritePartition;
        none.status = RunStatus::Previewed;
        return none;
    }
    BatchOptions o;
    o.samples = samples;
    if (m_dataset.partitioned())
        o.scope.partitions = m_result.scopeLabels;
    return preview(m_db, overwriteOf(m_dataset), o);
}

Status Recovery::rerun(const RecoveryRerunOptions &options) {
    if (auto s = require(RecoveryStep::Rerun, RecoveryStep::Identify); !s)
        return s;
    if (m_result.scope.empty()) {
        m_result.steps.push_back({RecoveryStep::Rerun, RecoveryStepStatus::Skipped,
                                  QStringLiteral("no duplicate keys")});
        return {};
    }
    BatchOptions o;
    o.execute = true;
    o.ignoreFreeze = true;
    o.kind = RunKind::Recover; // resumeRun() finishes the recovery after a crash
    o.planId = options.planId;
    o.progress = options.progress;
    o.cancel = options.cancel;
    if (m_dataset.partitioned() && o.planId.isEmpty()) // a plan fixes its scope
        o.scope.partitions = m_result.scopeLabels;
    // The catalog was resolved for the dataset's own write mode: the
    // overwrite's partition layout (a swap where the target allows one, as
    // previewRerun said) is read for this run.
    const DatasetSpec overwrite = overwriteOf(m_dataset);
    DatasetCatalog catalog = m_catalog;
    auto layout = PartitionLayout::resolve(m_db, overwrite, catalog.targetExists, true);
    if (!layout) {
        stop(RecoveryStep::Rerun, layout.error().message);
        return {};
    }
    catalog.layout = std::move(*layout);
    auto rerun = run(m_db, overwrite, catalog, o);
    if (!rerun) {
        // A stale (or unusable) preview is the operator's to look at again,
        // not a failed recovery: nothing was written.
        if (!options.planId.isEmpty() && (rerun.error().code == Error::Code::StalePlan ||
                                          rerun.error().code == Error::Code::BadInput))
            return fail(rerun.error());
        stop(RecoveryStep::Rerun, rerun.error().message);
        return {};
    }
    return recordRerun(std::move(*rerun));
}

Status Recovery::recordRerun(RunResult rerun) {
    m_result.rerun = rerun;
    m_result.rerunId = rerun.runId;
    if (rerun.status != RunStatus::Succeeded) {
        stop(RecoveryStep::Rerun,
             QStringLiteral("run %1 ended %2%3")
                 .arg(rerun.runId.toString(), enumName(rerun.status),
                      rerun.error.isEmpty() ? QString() : QStringLiteral(": ") % rerun.error));
        return {};
    }
    const PartitionResult t = rerun.totals();
    if (auto s = auditStep(m_db, m_dataset.name, QStringLiteral("recover rerun"), rerun.runId,
                           Json{{"partitions", rerun.partitions.size()},
                                {"inserted", t.inserted},
                                {"deleted", t.deleted}});
        !s)
        return fail(s.error());
    m_result.steps.push_back(
        {RecoveryStep::Rerun, RecoveryStepStatus::Done,
         QStringLiteral("run %1 overwrote %2 partition(s): %3 rows written, %4 removed")
             .arg(rerun.runId.toString())
             .arg(rerun.partitions.size())
             .arg(t.stagedRows)
             .arg(t.deleted)});
    return {};
}

} // namespace rw
