#pragma once

#include "core/batch/batch.h"
#include "core/sql/database.h"
#include "core/workspace/spec.h"
#include "ui/common/jobtracker.h"

#include <QElapsedTimer>
#include <QObject>
#include <atomic>
#include <map>
#include <memory>

namespace rw {

// One run (or resume) started from this console, as the GUI sees it.
struct LiveRun {
    int id = 0; // local to this console session
    QString dataset;
    QString planId;          // empty for a resume until it finishes
    qint64 resumedRunId = 0; // the run being resumed, 0 for a new run
    Progress progress;       // the latest report from the worker
    bool started = false;    // the run row exists (first progress arrived)
    bool finished = false;
    bool cancelRequested = false;
    std::optional<RunResult> result; // when finished without an error
    std::optional<Error> error;      // when finished with one (StalePlan included)
    QStringList log;
    QElapsedTimer clock;
    quint64 jobId = 0; // its job in the manager's tracker (cancel)

    double rowsPerSecond() const;
    // Seconds left, from the pace of the finished partitions; -1 when unknown.
    double etaSeconds() const;
    // 0..4: the steps of the current partition (stage, checks, diff, publish).
    int phaseStep() const;
    QString statusText() const;
};

// Starts rw::run / rw::resume on worker threads and tracks them.
//
// Threading: the progress callback runs on the worker; each report is
// delivered to this object's (GUI) thread with a queued invocation, so all
// signals below are emitted on the GUI thread. Cancel sets the run's atomic
// flag; core stops between statements and rolls the current chunk back.
// The destructor cancels what is still running and does not wait: the
// workers hold no pointer they dereference off the GUI thread.
class RunManager : public QObject {
    Q_OBJECT
public:
    explicit RunManager(QObject *parent = nullptr);

    // Executes the stored plan `planId` (from a preview) for `dataset`.
    int startRun(const Database &db, const DatasetSpec &dataset, const QString &planId);
    // Finalizes `dataset` by executing the stored plan `planId` (a preview
    // of the days the watermark has passed): rw::finalize with that plan,
    // which publishes them and marks them final. The LiveRun's result is the
    // publishing run.
    int startFinalize(const Database &db, const DatasetSpec &dataset, const QString &planId);
    // Continues an interrupted, cancelled or failed run.
    int resumeRun(const Database &db, const Spec &spec, qint64 runId, const QString &dataset);
    void cancel(int id);

    const LiveRun *run(int id) const;
    // Runs still working, oldest first.
    QList<int> activeRuns() const;
    bool hasActiveRuns() const { return !activeRuns().isEmpty(); }

Q_SIGNALS:
    void runAdded(int id);
    void runStarted(int id); // core created the run row: it is under way
    void runProgressed(int id);
    void logAppended(int id, const QString &line);
    void runFinished(int id); // run(id)->result or ->error is set

private:
    int launch(LiveRun run, std::function<Result<RunResult>(const BatchOptions &)> work);
    void onProgress(int id, const Progress &progress);
    void onFinished(int id, Result<RunResult> result);
    void appendLog(LiveRun &run, const QString &line);

    std::map<int, LiveRun> m_runs;
    int m_nextId = 1;
    JobTracker m_jobs; // runs side by side
};

} // namespace rw
