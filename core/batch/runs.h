#pragma once

#include "core/batch/batch.h"

#include <QHash>

namespace rw {

// A run's record of one partition (rewind_checkpoints.status): published
// (done), held back by a failed check, or undone by a rollback.
enum class CheckpointStatus {
    Done,
    CheckFailed,
    RolledBack,
};
template <> struct EnumNames<CheckpointStatus> {
    static constexpr std::pair<CheckpointStatus, std::string_view> names[] = {
        {CheckpointStatus::Done, "done"},
        {CheckpointStatus::CheckFailed, "check_failed"},
        {CheckpointStatus::RolledBack, "rolled_back"}};
};

struct RunInfo {
    qint64 runId = 0;
    QString dataset;
    QString kind;
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
    QHash<QString, PartitionResult>
        done;                        // published partitions (checkpoints done), by partitionKey()
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

} // namespace rw
