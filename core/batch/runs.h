#pragma once

// The run store: the one writer of rewind_runs, rewind_checkpoints and
// rewind_check_results (scripts/check-layout refuses a write from anywhere
// else), and their readers. A run's start, resume, finish and rollback, its
// per-partition checkpoints and its gate results go through here; each call
// that writes runs inside the caller's write transaction, with the publish or
// the audit row it belongs to.

#include "core/batch/batch.h"

#include <QHash>

namespace rw {

// A run's record of one partition (rewind_checkpoints.status): published
// (done), held back by a failed check, or undone by a rollback; on Trino,
// where the data write and its checkpoint cannot share a transaction, also
// the commit a publish is about to make (publishing: recorded first, then
// done once the snapshot committed, or recognised by a resume).
enum class CheckpointStatus {
    Done,
    CheckFailed,
    RolledBack,
    Publishing,
};
template <> struct EnumNames<CheckpointStatus> {
    static constexpr std::pair<CheckpointStatus, std::string_view> names[] = {
        {CheckpointStatus::Done, "done"},
        {CheckpointStatus::CheckFailed, "check_failed"},
        {CheckpointStatus::RolledBack, "rolled_back"},
        {CheckpointStatus::Publishing, "publishing"}};
};

struct RunInfo {
    qint64 runId = 0;
    QString dataset;
    RunKind kind = RunKind::Run;
    QString planId;
    QString mode; // as recorded; writeMode() reads it
    RunStatus status =
        RunStatus::Running; // running, interrupted (its process is gone), succeeded, failed,
                            // check_failed, cancelled, stale_plan, rolled_back
    QString startedAt;
    QString finishedAt;
    QString osUser;
    QString error;
    qint64 pid = 0;
    QString host;
    QString imagesPrunedAt; // when its before-images were dropped (prune.h); empty: kept
    QHash<QString, PartitionResult>
        done; // published partitions (checkpoints done), by partitionKey()
    // Trino: partitions whose commit was recorded as about to be made, and
    // not as made (the run stopped in between), by partitionKey().
    QHash<QString, PartitionResult> publishing;
    std::vector<CheckResult> checks; // every recorded gate result
};

// The write mode a run recorded (Internal when the row holds none Rewind knows).
Result<WriteMode> writeMode(const RunInfo &run);

// One run with its checkpoints. BadInput for an unknown id.
Result<RunInfo> loadRun(const Database &db, qint64 runId);

// Refuses (Error::Code::Internal, exit 1) while another run of `dataset`,
// other than `exceptRunId`, is running in a live process: two writers never
// publish one dataset at once. Call inside the write transaction that marks
// the caller's run as running, so no other run can start in between.
Status refuseConcurrentRun(const Database &db, const QString &dataset, qint64 exceptRunId = 0);

// Every run, newest first, without checkpoints.
Result<std::vector<RunInfo>> listRuns(const Database &db, int limit = 200);

// A run's result in the contract's shape, from what its checkpoints recorded.
Result<RunResult> runResult(const Database &db, qint64 runId);

namespace runstore {

// A new rewind_runs row. The process (pid, host) and OS user are this one's
// unless given (the demo records a nightly run of another process).
struct NewRun {
    QString dataset;
    RunKind kind = RunKind::Run;
    QString planId;
    WriteMode mode = WriteMode::Merge;
    RunStatus status = RunStatus::Running;
    QString startedAt;
    QString finishedAt; // empty: not finished
    QString error;
    QString scopeJson;
    std::optional<QString> osUser; // default: this process's
    bool thisProcess = true;       // record this process's pid and host
};

// Inserts the row; returns its run id.
Result<qint64> startRun(const Database &db, const NewRun &run);

// A resumed run: running again in this process, its finish and error cleared.
Status markResumed(const Database &db, qint64 runId, RunStatus status);

// How a run ended, with its result's JSON.
Status finishRun(const Database &db, qint64 runId, RunStatus status, const QString &finishedAt,
                 const QString &error, const QString &resultJson);

// A run whose partitions were all restored.
Status markRolledBack(const Database &db, qint64 runId);

struct Checkpoint {
    std::optional<QString> partition;
    CheckpointStatus status = CheckpointStatus::Done;
    QString at;
    QString countsJson;
};

// A run whose before-images (and saved leaves) were dropped at `at`: it can
// no longer be rolled back.
Status markImagesPruned(const Database &db, qint64 runId, const QString &at);

// Records (or replaces) the checkpoints of a run's partitions.
Status recordCheckpoints(const Database &db, qint64 runId, const std::vector<Checkpoint> &rows);

// A partition's checkpoint undone by a rollback.
Status markCheckpointRolledBack(const Database &db, qint64 runId,
                                const std::optional<QString> &partition);

// Records gate results of a run, at `at`.
Status recordCheckResults(const Database &db, qint64 runId, const std::vector<CheckResult> &checks,
                          const QString &at);

} // namespace runstore

} // namespace rw
