#include "ui/batch/runmanager.h"

#include "core/batch/partitions.h"
#include "core/lateness/finalize.h"
#include "core/recovery/recovery.h"

#include <QLocale>
#include <QTime>

namespace rw {

namespace {

QString n(qint64 v) {
    static const QLocale english(QLocale::English, QLocale::UnitedStates);
    return english.toString(v);
}

const QStringList &phases() {
    static const QStringList list{QStringLiteral("stage"), QStringLiteral("checks"),
                                  QStringLiteral("diff"), QStringLiteral("publish")};
    return list;
}

} // namespace

double LiveRun::rowsPerSecond() const {
    const double seconds = clock.isValid() ? clock.elapsed() / 1000.0 : 0.0;
    return seconds > 0.05 ? double(progress.rowsDone) / seconds : 0.0;
}

double LiveRun::etaSeconds() const {
    if (!clock.isValid() || progress.partitionsDone <= 0 || progress.partitionsTotal <= 0)
        return -1;
    const double perPartition = clock.elapsed() / 1000.0 / progress.partitionsDone;
    return perPartition * (progress.partitionsTotal - progress.partitionsDone);
}

int LiveRun::phaseStep() const {
    if (progress.phase == QLatin1String("published") ||
        progress.phase == QLatin1String("check failed"))
        return 4;
    const qsizetype i = phases().indexOf(progress.phase);
    return i < 0 ? 0 : int(i) + 1;
}

QString LiveRun::statusText() const {
    if (finished) {
        if (error)
            return enumName(error->code == Error::Code::StalePlan ? RunStatus::StalePlan
                                                                  : RunStatus::Failed);
        return enumName(result ? result->status : RunStatus::Failed);
    }
    // Only the console says these: a run asked to stop, or not begun yet.
    if (cancelRequested)
        return QStringLiteral("cancelling");
    return started ? enumName(RunStatus::Running) : QStringLiteral("starting");
}

RunManager::RunManager(QObject *parent)
    : QObject(parent)
    , m_jobs(this, JobTracker::Policy::Concurrent) {}

int RunManager::startRun(const Database &db, const DatasetSpec &dataset, const QString &planId) {
    LiveRun run;
    run.dataset = dataset.name;
    run.planId = planId;
    return launch(std::move(run), [db, dataset, planId](const BatchOptions &base) {
        BatchOptions options = base;
        options.planId = planId;
        options.execute = true;
        return rw::run(db, dataset, options);
    });
}

int RunManager::startFinalize(const Database &db, const DatasetSpec &dataset,
                              const QString &planId) {
    LiveRun run;
    run.dataset = dataset.name;
    run.planId = planId;
    return launch(
        std::move(run), [db, dataset, planId](const BatchOptions &base) -> Result<RunResult> {
            FinalizeOptions options;
            options.execute = true;
            options.planId = planId;
            options.progress = base.progress;
            options.cancel = base.cancel;
            auto result = rw::finalize(db, dataset, options);
            if (!result)
                return fail(result.error());
            if (!result->run)
                return badInput(
                    QStringLiteral("nothing to finalize: no day of %1 is eligible any more")
                        .arg(dataset.name));
            return *result->run;
        });
}

int RunManager::resumeRun(const Database &db, const Spec &spec, qint64 runId,
                          const QString &dataset) {
    LiveRun run;
    run.dataset = dataset;
    run.resumedRunId = runId;
    return launch(std::move(run), [db, spec, runId](const BatchOptions &base) {
        BatchOptions options = base;
        options.execute = true;
        // A duplicate recovery's re-run carries its recovery on to the end
        // (totals, unique index, unfreeze): a recovery that then fails is
        // this resume's failure, and the dataset stays frozen.
        auto resumed = rw::resumeRun(db, spec, runId, options);
        if (!resumed)
            return Result<RunResult>(fail(resumed.error()));
        if (resumed->recovery && resumed->recovery->failed())
            return Result<RunResult>(internalError(resumed->recovery->error));
        return Result<RunResult>(std::move(resumed->run));
    });
}

int RunManager::launch(LiveRun run, std::function<Result<RunResult>(const BatchOptions &)> work) {
    const int id = m_nextId++;
    run.id = id;
    run.clock.start();
    LiveRun &stored = m_runs.emplace(id, std::move(run)).first->second;
    Q_EMIT runAdded(id);
    appendLog(stored,
              stored.resumedRunId
                  ? tr("resuming run #%1 of %2").arg(stored.resumedRunId).arg(stored.dataset)
                  : tr("starting a run of %1 with plan %2").arg(stored.dataset, stored.planId));
    stored.jobId = m_jobs.start(
        [this, id, work = std::move(work)](const JobToken &job) -> Result<RunResult> {
            BatchOptions options;
            options.cancel = job.cancelFlag();
            // Worker thread: each report is posted back; `this` is only
            // touched there, and only while the manager exists.
            options.progress = [this, id, job](const Progress &p) {
                job.post([this, id, p] { onProgress(id, p); });
            };
            return work(options);
        },
        [this, id](Result<RunResult> result) { onFinished(id, std::move(result)); });
    return id;
}

void RunManager::cancel(int id) {
    auto it = m_runs.find(id);
    if (it == m_runs.end() || it->second.finished)
        return;
    m_jobs.requestCancel(it->second.jobId);
    it->second.cancelRequested = true;
    appendLog(it->second, tr("cancel requested: the current partition rolls back"));
    Q_EMIT runProgressed(id);
}

const LiveRun *RunManager::run(int id) const {
    auto it = m_runs.find(id);
    return it == m_runs.end() ? nullptr : &it->second;
}

QList<int> RunManager::activeRuns() const {
    QList<int> out;
    for (const auto &[id, run] : m_runs)
        if (!run.finished)
            out << id;
    return out;
}

void RunManager::appendLog(LiveRun &run, const QString &line) {
    const QString stamped =
        QTime::currentTime().toString(QStringLiteral("HH:mm:ss")) + QStringLiteral("  ") + line;
    run.log << stamped;
    Q_EMIT logAppended(run.id, stamped);
}

void RunManager::onProgress(int id, const Progress &p) {
    auto it = m_runs.find(id);
    if (it == m_runs.end() || it->second.finished)
        return; // a late report after the result
    LiveRun &run = it->second;
    const bool first = !run.started;
    const Progress before = run.progress;
    run.progress = p;
    run.started = true;
    if (first)
        Q_EMIT runStarted(id);
    if (p.partition != before.partition || p.phase != before.phase || first) {
        QString line =
            tr("%1: %2").arg(p.partition.isEmpty() ? tr("(plan)") : p.partition, p.phase);
        if (p.phase == QLatin1String("published") || p.phase == QLatin1String("check failed"))
            line += tr(" (%1 of %2 partitions, %3 rows)")
                        .arg(p.partitionsDone)
                        .arg(p.partitionsTotal)
                        .arg(n(p.rowsDone));
        appendLog(run, line);
    }
    Q_EMIT runProgressed(id);
}

void RunManager::onFinished(int id, Result<RunResult> result) {
    auto it = m_runs.find(id);
    if (it == m_runs.end())
        return;
    LiveRun &run = it->second;
    run.finished = true;
    if (result) {
        run.result = std::move(*result);
        const PartitionResult t = run.result->totals();
        appendLog(run, tr("run #%1 %2: %3 inserted, %4 updated, %5 deleted, %6 unchanged")
                           .arg(run.result->runId.toString(), enumName(run.result->status),
                                n(t.inserted), n(t.updated), n(t.deleted), n(t.unchanged)));
        if (!run.result->error.isEmpty())
            appendLog(run, run.result->error);
        run.planId = run.result->planId;
    } else {
        run.error = result.error();
        appendLog(run, result.error().code == Error::Code::StalePlan
                           ? tr("refused, stale plan: %1").arg(result.error().message)
                           : tr("failed: %1").arg(result.error().message));
    }
    Q_EMIT runFinished(id);
}

} // namespace rw
