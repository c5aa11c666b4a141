// A recovery whose re-run was cut short (a crash, a kill): resume of its run
// finishes it, from step 3 under its freeze, then totals, unique index,
// unfreeze and the report; any other run resumes as batch resume() does.
#include "core/batch/planstore.h"
#include "core/batch/runs.h"
#include "core/recovery/recoverydetail.h"

#include <QStringBuilder>

namespace rw {

using namespace recovery_detail;

Result<ResumedRun> resumeRun(const Database &db, const Spec &spec, qint64 runId,
                             const BatchOptions &options, const RecoverOptions &recoverOptions) {
    auto info = loadRun(db.control(), runId);
    if (!info)
        return fail(info.error());
    if (info->kind != RunKind::Recover) {
        auto plain = resume(db, spec, runId, options);
        if (!plain)
            return fail(plain.error());
        return ResumedRun{std::move(*plain), std::nullopt};
    }
    // A duplicate recovery's re-run, cut short: the recovery carries on
    // from step 3 under its freeze, over the partitions that run planned.
    auto specDataset = spec.requireDataset(info->dataset);
    if (!specDataset)
        return fail(specDataset.error());
    const DatasetSpec &dataset = **specDataset;
    if (info->status == RunStatus::Succeeded) {
        // The re-run is done; what may be left is the recovery's last steps.
        auto frozen = freezeInfo(db, dataset.name);
        if (!frozen)
            return fail(frozen.error());
        if (*frozen)
            return badInput(QStringLiteral("run %1 already succeeded: it is the re-run of a "
                                           "duplicate recovery of \"%2\", which stopped after it "
                                           "(the dataset is still frozen); rewindctl recover "
                                           "--dataset %2 --execute finishes it (totals, unique "
                                           "index, unfreeze), or unfreeze lifts the freeze")
                                .arg(runId)
                                .arg(dataset.name));
    }
    if (auto s = checkRecoverable(dataset); !s)
        return fail(s.error());
    if (!options.execute)
        return badInput(QStringLiteral("resume publishes: add --execute"));
    if (auto s =
            requireRecoverPrivileges(db, dataset, QStringLiteral("resume of run %1").arg(runId));
        !s)
        return fail(s.error());
    auto opened = Recovery::open(db, dataset);
    if (!opened)
        return fail(opened.error());
    Recovery &recovery = *opened;
    RecoveryResult &result = recovery.m_result;
    auto plan = loadPlan(db, info->planId);
    if (!plan)
        return fail(plan.error());
    if (auto s = recovery.plan(recoverOptions.samples); !s)
        return fail(s.error());
    // The scope is the run's: what it planned to re-run.
    result.scope = plan->scope;
    result.scopeLabels.clear();
    for (const PartitionRef &p : result.scope)
        if (p.label)
            result.scopeLabels << *p.label;
    auto before = compareTotals(db, dataset, recovery.batchSql(), result.scope);
    if (!before)
        return fail(before.error());
    result.totalsBefore = *before;
    BatchOptions o = options;
    o.ignoreFreeze = true;  // the recovery's own freeze
    result.rerunId = runId; // named by the audit rows of a step that fails
    bool started = false;
    // Steps 1 and 2 again, once resume() knows the run goes ahead: a run
    // that cannot resume (succeeded, rolled back, a stale plan) changes nothing.
    o.beforeResume = [&]() -> Status {
        started = true;
        if (auto s = recovery.freeze(); !s) // adopts the freeze the crash left (or freezes again)
            return s;
        if (auto s = auditStep(db, dataset.name, QStringLiteral("recover identify"), runId,
                               Json{{"resumed_run", runId}, {"partitions", result.scope.size()}});
            !s)
            return s;
        result.steps.push_back(
            {RecoveryStep::Identify, RecoveryStepStatus::Done,
             QStringLiteral(
                 "resuming run %1, which re-runs %2 partition(s); %3 duplicate keys left")
                 .arg(runId)
                 .arg(result.scope.size())
                 .arg(result.before.duplicateKeys)});
        return {};
    };
    auto rerun = resume(db, spec, runId, o);
    if (!rerun) {
        if (!started)
            return fail(rerun.error()); // refused before anything was written
        recovery.stop(RecoveryStep::Rerun, rerun.error().message);
    } else if (auto s = recovery.recordRerun(*rerun); !s) {
        return fail(s.error());
    }
    if (!result.failed())
        if (auto s = recovery.totals(); !s)
            return fail(s.error());
    if (!result.failed())
        if (auto s = recovery.uniqueIndex(recoverOptions.samples); !s)
            return fail(s.error());
    // The recovery is done (or stopped) whether or not its report can be
    // written (a console started where it may not write): said, not fatal.
    if (auto s = writeRecoveryReport(db, dataset, result, recoverOptions.reportPath); !s) {
        result.reportPath.clear();
        result.steps.push_back(
            {RecoveryStep::Report, RecoveryStepStatus::Failed, s.error().message});
    }
    RunResult runResult = result.rerun ? *result.rerun : RunResult{};
    if (!result.rerun) { // the resume failed: the run as it stands
        runResult.dataset = dataset.name;
        runResult.runId = runId;
        runResult.status = RunStatus::Failed;
        runResult.error = result.error;
    }
    return ResumedRun{std::move(runResult), std::move(result)};
}

} // namespace rw
