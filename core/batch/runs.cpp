#include "core/batch/runs.h"

#include "core/batch/batchdialect.h"
#include "core/batch/batchjson.h"
#include "core/batch/planstore.h"
#include "core/batch/scope.h"
#include "core/workspace/workspace.h"

#include <QCoreApplication>
#include <QStringBuilder>
#include <QSysInfo>
#include <cerrno>
#include <signal.h>

namespace rw {

namespace {

bool processAlive(qint64 pid, const QString &host) {
    if (pid <= 0 || host != QSysInfo::machineHostName())
        return host != QSysInfo::machineHostName() &&
               pid > 0; // another machine's run: trust its status
    return ::kill(pid_t(pid), 0) == 0 || errno == EPERM;
}

Result<RunInfo> fromRow(const QSqlQuery &q) {
    RunInfo r;
    r.runId = q.value(0).toLongLong();
    r.dataset = q.value(1).toString();
    const QString kind = q.value(2).toString();
    if (const auto known = enumFromName<RunKind>(kind))
        r.kind = *known;
    else
        return internalError(
            QStringLiteral("run %1 recorded an unknown kind \"%2\"").arg(r.runId).arg(kind));
    r.planId = q.value(3).toString();
    r.mode = q.value(4).toString();
    const QString status = q.value(5).toString();
    if (const auto known = enumFromName<RunStatus>(status))
        r.status = *known;
    else
        return internalError(
            QStringLiteral("run %1 recorded an unknown status \"%2\"").arg(r.runId).arg(status));
    r.startedAt = q.value(6).toString();
    r.finishedAt = q.value(7).toString();
    r.osUser = q.value(8).toString();
    r.error = q.value(9).toString();
    r.pid = q.value(10).toLongLong();
    r.host = q.value(11).toString();
    r.imagesPrunedAt = q.value(12).toString();
    if (r.status == RunStatus::Running && !processAlive(r.pid, r.host))
        r.status = RunStatus::Interrupted;
    return r;
}

// A partition's label as rewind_checkpoints and rewind_check_results hold
// it: the NULL partition is '' with part_is_null = 1.
QString partText(const std::optional<QString> &partition) {
    return partition.value_or(QStringLiteral(""));
}

const char *kColumns = "run_id, dataset, kind, plan_id, mode, status, started_at, finished_at, "
                       "os_user, error, pid, host, images_pruned_at";

} // namespace

Status refuseConcurrentRun(const Database &db, const QString &dataset, qint64 exceptRunId) {
    auto q = db.exec(QStringLiteral("SELECT ") % QLatin1String(kColumns) %
                         QStringLiteral(" FROM rewind_runs WHERE dataset = ? AND status = ? AND "
                                        "run_id <> ? ORDER BY run_id"),
                     {dataset, enumName(RunStatus::Running), exceptRunId});
    if (!q)
        return fail(q.error());
    while (q->next()) {
        auto row = fromRow(*q);
        if (!row)
            return fail(row.error());
        const RunInfo &other = *row;
        if (other.status == RunStatus::Running)
            return fail(Error{Error::Code::Internal,
                              QStringLiteral("refused: run %1 of dataset \"%2\" is running (%3, "
                                             "process %4 on %5, started %6); "
                                             "wait for it to finish, or cancel it")
                                  .arg(other.runId)
                                  .arg(dataset, enumName(other.kind), QString::number(other.pid),
                                       other.host, other.startedAt)});
    }
    return {};
}

Result<RunInfo> loadRun(const Database &db, qint64 runId) {
    auto q = db.exec(QStringLiteral("SELECT ") % QLatin1String(kColumns) %
                         QStringLiteral(" FROM rewind_runs WHERE run_id = ?"),
                     {runId});
    if (!q)
        return fail(q.error());
    if (!q->next())
        return badInput(QStringLiteral("unknown run %1 (rewindctl runs lists them)").arg(runId));
    auto row = fromRow(*q);
    if (!row)
        return fail(row.error());
    RunInfo info = std::move(*row);
    auto cp =
        db.exec(QStringLiteral("SELECT part, part_is_null, counts_json, status FROM "
                               "rewind_checkpoints WHERE run_id = ? AND status IN (?, ?)"),
                {runId, enumName(CheckpointStatus::Done), enumName(CheckpointStatus::Publishing)});
    if (!cp)
        return fail(cp.error());
    while (cp->next()) {
        const std::optional<QString> label =
            cp->value(1).toInt() ? std::nullopt : std::optional<QString>(cp->value(0).toString());
        (cp->value(3).toString() == enumName(CheckpointStatus::Done) ? info.done : info.publishing)
            .insert(partitionKey(label), partitionFromJson(cp->value(2).toString()));
    }
    // In the order they were written: rows of this table are never updated,
    // so the row identity (SQLite rowid, PostgreSQL ctid) follows insertion.
    auto checks = db.exec(QStringLiteral("SELECT name, part, part_is_null, passed, detail FROM "
                                         "rewind_check_results WHERE run_id = ? ORDER BY ") %
                              BatchDialect::of(db.dialect()).rowIdentity(QString()),
                          {runId});
    if (!checks)
        return fail(checks.error());
    while (checks->next())
        info.checks.push_back({checks->value(0).toString(),
                               checks->value(2).toInt()
                                   ? std::nullopt
                                   : std::optional<QString>(checks->value(1).toString()),
                               checks->value(3).toInt() != 0, checks->value(4).toString(), 0});
    return info;
}

Result<std::vector<RunInfo>> listRuns(const Database &db, int limit) {
    auto q = db.exec(QStringLiteral("SELECT ") % QLatin1String(kColumns) %
                         QStringLiteral(" FROM rewind_runs ORDER BY run_id DESC LIMIT ?"),
                     {limit});
    if (!q)
        return fail(q.error());
    std::vector<RunInfo> out;
    while (q->next()) {
        auto row = fromRow(*q);
        if (!row)
            return fail(row.error());
        out.push_back(std::move(*row));
    }
    return out;
}

Result<WriteMode> writeMode(const RunInfo &run) {
    if (const auto mode = enumFromName<WriteMode>(run.mode))
        return *mode;
    return internalError(QStringLiteral("run %1 recorded an unknown write mode \"%2\"")
                             .arg(run.runId)
                             .arg(run.mode));
}

Result<RunResult> runResult(const Database &db, qint64 runId) {
    auto info = loadRun(db, runId);
    if (!info)
        return fail(info.error());
    auto mode = writeMode(*info);
    if (!mode)
        return fail(mode.error());
    RunResult r;
    r.dataset = info->dataset;
    r.mode = *mode;
    r.planId = info->planId;
    r.runId = info->runId;
    r.executed = true;
    r.status = info->status;
    r.error = info->error;
    r.startedAt = info->startedAt;
    r.finishedAt = info->finishedAt;
    r.checks = info->checks;
    // What its plan's preview said each column would change (a plan gone,
    // or made by the run itself, has none).
    if (!r.planId.isEmpty())
        if (auto plan = loadPlan(db, r.planId))
            r.planColumns = plan->columns;
    // Published partitions from their checkpoints; the rest of the plan as not published.
    auto scope =
        db.scalar(QStringLiteral("SELECT scope_json FROM rewind_runs WHERE run_id = ?"), {runId});
    if (!scope)
        return fail(scope.error());
    auto failedCp = db.exec(QStringLiteral("SELECT part, part_is_null, counts_json FROM "
                                           "rewind_checkpoints WHERE run_id = ? AND status <> ?"),
                            {runId, enumName(CheckpointStatus::Done)});
    if (!failedCp)
        return fail(failedCp.error());
    QHash<QString, PartitionResult> unpublished;
    while (failedCp->next()) {
        const std::optional<QString> label =
            failedCp->value(1).toInt() ? std::nullopt
                                       : std::optional<QString>(failedCp->value(0).toString());
        unpublished.insert(partitionKey(label), partitionFromJson(failedCp->value(2).toString()));
    }
    for (const PartitionRef &p : scopeFromJson(scope->toString())) {
        const QString key = partitionKey(p.label);
        if (info->done.contains(key)) {
            r.partitions.push_back(info->done.value(key));
        } else if (unpublished.contains(key)) {
            r.partitions.push_back(unpublished.value(key));
        } else {
            PartitionResult pending;
            pending.partition = p.label;
            r.partitions.push_back(pending);
        }
    }
    return r;
}

namespace runstore {

Result<qint64> startRun(const Database &db, const NewRun &run) {
    auto r = db.exec(
        QStringLiteral("INSERT INTO rewind_runs (dataset, kind, plan_id, mode, status, "
                       "started_at, finished_at, os_user, scope_json, error, pid, host) "
                       "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"),
        {run.dataset, enumName(run.kind), run.planId, enumName(run.mode), enumName(run.status),
         run.startedAt, run.finishedAt.isEmpty() ? QVariant() : QVariant(run.finishedAt),
         run.osUser.value_or(osUser()), run.scopeJson,
         run.error.isEmpty() ? QVariant() : QVariant(run.error),
         run.thisProcess ? QVariant(QCoreApplication::applicationPid()) : QVariant(),
         run.thisProcess ? QVariant(QSysInfo::machineHostName()) : QVariant()});
    if (!r)
        return fail(r.error());
    auto id = db.scalar(QStringLiteral("SELECT MAX(run_id) FROM rewind_runs"));
    if (!id)
        return fail(id.error());
    return id->toLongLong();
}

Status markResumed(const Database &db, qint64 runId, RunStatus status) {
    auto r = db.exec(
        QStringLiteral("UPDATE rewind_runs SET status = ?, pid = ?, host = ?, "
                       "finished_at = NULL, error = NULL WHERE run_id = ?"),
        {enumName(status), QCoreApplication::applicationPid(), QSysInfo::machineHostName(), runId});
    if (!r)
        return fail(r.error());
    return {};
}

Status finishRun(const Database &db, qint64 runId, RunStatus status, const QString &finishedAt,
                 const QString &error, const QString &resultJson) {
    auto r = db.exec(QStringLiteral("UPDATE rewind_runs SET status = ?, finished_at = ?, error "
                                    "= ?, result_json = ? WHERE run_id = ?"),
                     {enumName(status), finishedAt.isEmpty() ? QVariant() : QVariant(finishedAt),
                      error.isEmpty() ? QVariant() : QVariant(error), resultJson, runId});
    if (!r)
        return fail(r.error());
    return {};
}

Status markRolledBack(const Database &db, qint64 runId) {
    auto r = db.exec(QStringLiteral("UPDATE rewind_runs SET status = ? WHERE run_id = ?"),
                     {enumName(RunStatus::RolledBack), runId});
    if (!r)
        return fail(r.error());
    return {};
}

Status markImagesPruned(const Database &db, qint64 runId, const QString &at) {
    auto r = db.exec(QStringLiteral("UPDATE rewind_runs SET images_pruned_at = ? WHERE run_id = ?"),
                     {at, runId});
    if (!r)
        return fail(r.error());
    return {};
}

Status recordCheckpoints(const Database &db, qint64 runId, const std::vector<Checkpoint> &rows) {
    QVariantList binds;
    for (const Checkpoint &c : rows)
        binds << runId << partText(c.partition) << (c.partition ? 0 : 1) << enumName(c.status)
              << c.at << c.countsJson;
    return db.execRows(
        QStringLiteral("INSERT INTO rewind_checkpoints (run_id, part, part_is_null, status, "
                       "committed_at, counts_json) VALUES "),
        QStringLiteral("(?, ?, ?, ?, ?, ?)"), 6, binds,
        u' ' % db.dialect().upsertSet({QStringLiteral("run_id"), QStringLiteral("part"),
                                       QStringLiteral("part_is_null")},
                                      {QStringLiteral("status"), QStringLiteral("committed_at"),
                                       QStringLiteral("counts_json")}));
}

Status markCheckpointRolledBack(const Database &db, qint64 runId,
                                const std::optional<QString> &partition) {
    auto r = db.exec(
        QStringLiteral("UPDATE rewind_checkpoints SET status = ? WHERE "
                       "run_id = ? AND part = ? AND part_is_null = ?"),
        {enumName(CheckpointStatus::RolledBack), runId, partText(partition), partition ? 0 : 1});
    if (!r)
        return fail(r.error());
    return {};
}

Status recordCheckResults(const Database &db, qint64 runId, const std::vector<CheckResult> &checks,
                          const QString &at) {
    QVariantList binds;
    for (const CheckResult &c : checks)
        binds << runId << partText(c.partition) << (c.partition ? 0 : 1) << c.name
              << (c.passed ? 1 : 0) << c.detail << at;
    return db.execRows(QStringLiteral("INSERT INTO rewind_check_results (run_id, part, "
                                      "part_is_null, name, passed, detail, at) VALUES "),
                       QStringLiteral("(?, ?, ?, ?, ?, ?, ?)"), 7, binds);
}

} // namespace runstore

} // namespace rw
