#include "core/batch/partitionstate.h"
#include "core/batch/batch.h"

#include "core/batch/batchchecks.h"
#include "core/batch/batchdiff.h"
#include "core/batch/batchjson.h"
#include "core/batch/batchsql.h"
#include "core/util/failpoint.h"
#include "core/batch/partitions.h"
#include "core/batch/planstore.h"
#include "core/batch/runs.h"
#include "core/batch/scd2.h"
#include "core/workspace/workspace.h"

#include <QCoreApplication>
#include <QDateTime>
#include <QJsonDocument>
#include <QLoggingCategory>
#include <QRandomGenerator>
#include <QStringBuilder>
#include <QSysInfo>
#include <QThread>

Q_LOGGING_CATEGORY(lcBatch, "rewind.batch")

namespace rw {

PartitionResult RunResult::totals() const
{
    PartitionResult t;
    for (const auto &p : partitions) {
        t.sourceRows += p.sourceRows;
        t.stagedRows += p.stagedRows;
        t.duplicatesDropped += p.duplicatesDropped;
        t.inserted += p.inserted;
        t.updated += p.updated;
        t.deleted += p.deleted;
        t.unchanged += p.unchanged;
    }
    return t;
}

bool RunResult::checksPassed() const
{
    return std::all_of(checks.begin(), checks.end(), [](const CheckResult &c) { return c.passed; });
}

int exitCodeOf(const RunResult &result)
{
    switch (result.status) {
    case RunStatus::StalePlan: return 4;
    case RunStatus::CheckFailed: return 3;
    case RunStatus::Failed:
    case RunStatus::Cancelled: return 1;
    default: return 0;
    }
}

namespace {

// rewind_* tables key a NULL partition as ('', part_is_null = 1): the text must be empty, not NULL.
const QString kNullPartText = QStringLiteral("");

QString nowIso() { return QDateTime::currentDateTimeUtc().toString(Qt::ISODateWithMs); }

QString resultJsonText(const RunResult &r) { return QString::fromStdString(toJson(r).dump()); }

Status setRunStatus(const Database &db, const RunResult &result, const QString &error)
{
    return Database::retryTransient(5, [&] { return db.writeTransaction([&]() -> Status {
        auto r = db.exec(QStringLiteral("UPDATE rewind_runs SET status = ?, finished_at = ?, error = ?, result_json = ? WHERE run_id = ?"),
                         {enumName(result.status), result.finishedAt.isEmpty() ? QVariant() : QVariant(result.finishedAt),
                          error.isEmpty() ? QVariant() : QVariant(error), resultJsonText(result), result.runId});
        if (!r)
            return fail(r.error());
        return writeAudit(db, QStringLiteral("run ") % enumName(result.status), result.dataset, QString(), result.runId,
                          QString::fromStdString(nlohmann::ordered_json{{"plan_id", result.planId.toStdString()},
                                                                        {"error", error.toStdString()}}
                                                     .dump()));
    }); });
}

// The error that stops a chunk's transaction, and why.
enum class ChunkStop { None, CheckFailed, StalePlan, Cancelled };

// Publishes the partitions of `todo` one chunk at a time into `result`.
void executeChunks(const Database &db, const DatasetSpec &dataset, BatchSql &sql, const Plan &plan,
                   const std::vector<PartitionRef> &todo, const BatchOptions &options, RunResult &result, int alreadyDone)
{
    const bool overwrite = dataset.write == WriteMode::OverwritePartition;
    Progress progress;
    progress.partitionsTotal = int(todo.size()) + alreadyDone;
    progress.partitionsDone = alreadyDone;
    for (const auto &pr : result.partitions)
        progress.rowsDone += pr.stagedRows;
    auto report = [&](const QString &phase) {
        progress.phase = phase;
        if (options.progress)
            options.progress(progress);
    };
    bool anyCheckFailed = false;
    SourceStatsReader fingerprints(db); // one second connection for the run's chunks
    // The partition's state: this run failed on it (its data untouched).
    const auto markFailed = [&](const PartitionRef &p) -> Status {
        return partitionstate::markFailed(db, dataset.name, p.label.value_or(kNullPartText), !p.label, result.runId);
    };

    for (const PartitionRef &p : todo) {
        failpoint("chunk-start");
        progress.partition = partitionLabel(p.label);
        if (cancelled(options)) {
            result.status = RunStatus::Cancelled;
            break;
        }
        const std::vector<PartitionRef> one{p};
        PartitionResult partResult;
        std::vector<CheckResult> checks;
        ChunkStop stop = ChunkStop::None;
        QString staleDetail;
        Status outcome;
        for (int attempt = 1;; ++attempt) {
            checks.clear();
            stop = ChunkStop::None;
            const bool targetExisted = sql.targetExists();
            outcome = db.writeTransaction([&]() -> Status {
                // Inside the write lock: the fingerprint the publish records
                // is of exactly the rows it publishes. It is read on a second
                // connection while this one stages, and compared before
                // anything is published.
                fingerprints.start(sql, one);
                const QString key = partitionKey(p.label);
                bool stale = false;
                const auto now = [&]() -> Result<SourceStatsMap> {
                    auto read = fingerprints.take();
                    // A run planned afresh locks each partition as it reads it.
                    if (read && plan.stats.contains(key) && read->value(key).fingerprint != plan.stats.value(key).fingerprint)
                        stale = true;
                    return read;
                };
                auto parts = stageAndDiff(db, dataset, sql, one, now, result.runId, options, false, true, checks, report);
                if (stale) {
                    stop = ChunkStop::StalePlan;
                    staleDetail = partitionLabel(p.label);
                    return fail(Error{Error::Code::StalePlan, QString()});
                }
                if (!parts) {
                    if (cancelled(options))
                        stop = ChunkStop::Cancelled;
                    return fail(parts.error());
                }
                partResult = parts->front();
                if (std::any_of(checks.begin(), checks.end(), [](const CheckResult &c) { return !c.passed; })) {
                    stop = ChunkStop::CheckFailed;
                    return fail(Error{Error::Code::CheckFailed, QString()});
                }
                if (cancelled(options)) {
                    stop = ChunkStop::Cancelled;
                    return internalError(QStringLiteral("cancelled"));
                }
                failpoint("before-publish");
                report(QStringLiteral("publish"));
                QStringList ddl = sql.createTargetIfMissing();
                ddl << sql.createImagesIfMissing();
                if (auto s = db.execAll(ddl); !s)
                    return s;
                sql.setTargetExists(true);
                if (sql.isScd2()) {
                    // Before-images and the reconciliation of the month.
                    if (auto s = scd2Publish(db, sql, partResult, result.runId); !s)
                        return s;
                } else {
                    // Before-images only of what changes: the diff already counted it.
                    QVariantList imageBinds{result.runId};
                    if (overwrite || partResult.updated > 0) {
                        const QString images = overwrite ? sql.saveImagesReplaced(imageBinds) : sql.saveImagesUpdated(imageBinds);
                        if (auto r = db.exec(images, imageBinds); !r)
                            return fail(r.error());
                    }
                    if (!overwrite && partResult.inserted > 0)
                        if (auto r = db.exec(sql.saveImagesInserted(), {result.runId}); !r)
                            return fail(r.error());
                    QVariantList binds;
                    if (overwrite) {
                        if (auto r = db.exec(sql.overwriteDelete(p, binds), binds); !r)
                            return fail(r.error());
                        if (auto r = db.exec(sql.overwriteInsert()); !r)
                            return fail(r.error());
                    } else {
                        if (partResult.updated > 0)
                            for (const auto &[text, b] : sql.mergeUpdate(p))
                                if (auto r = db.exec(text, b); !r)
                                    return fail(r.error());
                        if (partResult.inserted > 0)
                            if (auto r = db.exec(sql.mergeInsert()); !r)
                                return fail(r.error());
                    }
                }
                failpoint("after-write");
                partResult.published = true;
                const QString label = p.label.value_or(kNullPartText);
                const int isNull = p.label ? 0 : 1;
                const QString counts = QString::fromStdString(partitionJson(partResult).dump());
                if (auto r = db.exec(QStringLiteral("INSERT INTO rewind_checkpoints (run_id, part, part_is_null, status, committed_at, counts_json) "
                                                    "VALUES (?, ?, ?, ?, ?, ?)")
                                         % db.dialect().upsertSet({QStringLiteral("run_id"), QStringLiteral("part"), QStringLiteral("part_is_null")},
                                                                  {QStringLiteral("status"), QStringLiteral("committed_at"), QStringLiteral("counts_json")}),
                                     {result.runId, label, isNull, enumName(CheckpointStatus::Done), nowIso(), counts});
                    !r)
                    return fail(r.error());
                for (const auto &c : checks)
                    if (auto r = db.exec(QStringLiteral("INSERT INTO rewind_check_results (run_id, part, part_is_null, name, passed, detail, at) VALUES (?, ?, ?, ?, ?, ?, ?)"),
                                         {result.runId, label, isNull, c.name, c.passed ? 1 : 0, c.detail, nowIso()});
                        !r)
                        return fail(r.error());
                // A backfill of a final partition leaves it final: the
                // watermark passed it once and only moves forward.
                if (auto s = partitionstate::markPublished(db, dataset.name, label, isNull, partResult.sourceRows, partResult.fingerprint,
                                                           nowIso(), result.runId);
                    !s)
                    return s;
                if (auto s = writeAudit(db, QStringLiteral("publish"), dataset.name, QString(), result.runId,
                                        QString::fromStdString(partitionJson(partResult).dump()));
                    !s)
                    return s;
                failpoint("before-commit");
                return {};
            });
            if (outcome)
                failpoint("after-commit");
            if (!outcome && stop == ChunkStop::None && outcome.error().transient && attempt < options.maxAttempts) {
                sql.setTargetExists(targetExisted);
                const int wait = Database::backoffMs(attempt);
                qCInfo(lcBatch) << "partition" << progress.partition << "busy, retrying in" << wait << "ms (attempt" << attempt << ")";
                QThread::msleep(wait);
                continue;
            }
            if (!outcome)
                sql.setTargetExists(targetExisted);
            break;
        }
        (void)db.execAll(sql.dropWorkTables());

        result.checks.insert(result.checks.end(), checks.begin(), checks.end());
        if (outcome) {
            result.partitions.push_back(partResult);
            ++progress.partitionsDone;
            progress.rowsDone += partResult.stagedRows;
            report(QStringLiteral("published"));
            continue;
        }
        if (stop == ChunkStop::CheckFailed) {
            anyCheckFailed = true;
            partResult.published = false;
            result.partitions.push_back(partResult);
            // Record the failure on its own: the partition's data is untouched.
            const Status recorded = Database::retryTransient(options.maxAttempts, [&] { return db.writeTransaction([&]() -> Status {
                const QString label = p.label.value_or(kNullPartText);
                const int isNull = p.label ? 0 : 1;
                for (const auto &c : checks)
                    if (auto r = db.exec(QStringLiteral("INSERT INTO rewind_check_results (run_id, part, part_is_null, name, passed, detail, at) VALUES (?, ?, ?, ?, ?, ?, ?)"),
                                         {result.runId, label, isNull, c.name, c.passed ? 1 : 0, c.detail, nowIso()});
                        !r)
                        return fail(r.error());
                if (auto r = db.exec(QStringLiteral("INSERT INTO rewind_checkpoints (run_id, part, part_is_null, status, committed_at, counts_json) VALUES (?, ?, ?, ?, ?, ?)")
                                         % db.dialect().upsertSet({QStringLiteral("run_id"), QStringLiteral("part"), QStringLiteral("part_is_null")},
                                                                  {QStringLiteral("status"), QStringLiteral("committed_at"), QStringLiteral("counts_json")}),
                                     {result.runId, label, isNull, enumName(CheckpointStatus::CheckFailed), nowIso(), QString::fromStdString(partitionJson(partResult).dump())});
                    !r)
                    return fail(r.error());
                if (auto s = markFailed(p); !s)
                    return s;
                return writeAudit(db, QStringLiteral("check failed"), dataset.name, QString(), result.runId,
                                  QString::fromStdString(checksJson(checks).dump()));
            }); });
            if (!recorded) {
                result.status = RunStatus::Failed;
                result.error = recorded.error().message;
                break;
            }
            ++progress.partitionsDone;
            report(QStringLiteral("check failed"));
            continue;
        }
        if (stop == ChunkStop::StalePlan) {
            result.status = RunStatus::StalePlan;
            result.error = QStringLiteral("the source of partition %1 changed since plan %2 was made: preview again").arg(staleDetail, plan.id);
            break;
        }
        if (stop == ChunkStop::Cancelled || cancelled(options)) {
            result.status = RunStatus::Cancelled;
            break;
        }
        result.status = RunStatus::Failed;
        result.error = outcome.error().transient
                           ? QStringLiteral("partition %1: the database stayed busy after %2 attempts: %3")
                                 .arg(progress.partition)
                                 .arg(options.maxAttempts)
                                 .arg(outcome.error().message)
                           : QStringLiteral("partition %1: %2").arg(progress.partition, outcome.error().message);
        // Shown as failed, as a failed check is, when the database still
        // answers (after a lost connection or a full disk it may not: the
        // run's own status says it then).
        (void)Database::retryTransient(options.maxAttempts, [&] { return db.writeTransaction([&] { return markFailed(p); }); });
        break;
    }
    if (result.status == RunStatus::Running)
        result.status = anyCheckFailed ? RunStatus::CheckFailed : RunStatus::Succeeded;
    result.finishedAt = nowIso();
}

Status refuseFrozen(const Database &db, const DatasetSpec &dataset, const BatchOptions &options)
{
    if (options.ignoreFreeze)
        return {};
    auto frozen = db.exec(QStringLiteral("SELECT frozen_at, os_user, reason FROM rewind_frozen WHERE dataset = ?"), {dataset.name});
    if (!frozen)
        return fail(frozen.error());
    if (frozen->next())
        return internalError(QStringLiteral("dataset \"%1\" is frozen since %2 by %3%4: writes are refused until rewindctl unfreeze")
                                 .arg(dataset.name, frozen->value(0).toString(), frozen->value(1).toString(),
                                      frozen->value(2).toString().isEmpty() ? QString() : QStringLiteral(" (") % frozen->value(2).toString() % u')'));
    return {};
}

Result<RunResult> finish(const Database &db, RunResult result)
{
    if (auto s = setRunStatus(db, result, result.error); !s)
        return fail(s.error());
    if (result.status == RunStatus::StalePlan)
        return fail(Error{Error::Code::StalePlan, result.error});
    return result;
}

// run() past its checks: plans (or loads the plan) and publishes.
Result<RunResult> execute(const Database &db, const DatasetSpec &dataset, const DatasetCatalog &catalog, const BatchOptions &options)
{
    BatchSql sql(db, dataset, catalog);

    Plan plan;
    if (!options.planId.isEmpty()) {
        const ScopeRequest &r = options.scope;
        if (!r.partitions.isEmpty() || r.from || r.to || r.stale)
            return badInput(QStringLiteral("--plan fixes the scope: drop --partition, --from, --to and --stale"));
        auto loaded = loadPlan(db, options.planId);
        if (!loaded)
            return fail(loaded.error());
        if (loaded->dataset != dataset.name)
            return badInput(QStringLiteral("plan %1 is for dataset \"%2\", not \"%3\"").arg(options.planId, loaded->dataset, dataset.name));
        if (loaded->mode != dataset.write)
            return badInput(QStringLiteral("plan %1 was made for write mode %2, but the spec now says %3: preview again")
                                .arg(options.planId, enumName(loaded->mode), enumName(dataset.write)));
        auto stale = stalePartitions(db, sql, *loaded);
        if (!stale)
            return fail(stale.error());
        if (!stale->isEmpty())
            return fail(Error{Error::Code::StalePlan, QStringLiteral("plan %1 is stale: the source of %2 changed since the preview; preview again")
                                                          .arg(options.planId, stale->join(QStringLiteral(", ")))});
        plan = *loaded;
    } else {
        // Planned afresh: each chunk fingerprints its partition inside its
        // own transaction, so no separate pass over the source is needed.
        auto scope = resolveScope(db, dataset, sql, options.scope);
        if (!scope)
            return fail(scope.error());
        plan = Plan{newPlanId(), dataset.name, dataset.write, *scope, {}};
    }
    if (sql.isScd2())
        if (auto s = refuseScd2OutOfOrder(db, dataset, sql, plan.scope); !s)
            return fail(s.error());

    RunResult result;
    result.dataset = dataset.name;
    result.mode = dataset.write;
    result.planId = plan.id;
    result.executed = true;
    result.status = RunStatus::Running;
    result.startedAt = nowIso();
    const Status started = Database::retryTransient(options.maxAttempts, [&] { return db.writeTransaction([&]() -> Status {
        if (auto s = refuseConcurrentRun(db, dataset.name); !s)
            return s;
        if (options.planId.isEmpty())
            if (auto s = storePlan(db, plan, QString()); !s)
                return s;
        auto r = db.exec(QStringLiteral("INSERT INTO rewind_runs (dataset, kind, plan_id, mode, status, started_at, os_user, scope_json, pid, host) "
                                        "VALUES (?, 'run', ?, ?, ?, ?, ?, ?, ?, ?)"),
                         {dataset.name, plan.id, enumName(plan.mode), enumName(result.status), result.startedAt, osUser(), scopeToJson(plan.scope),
                          QCoreApplication::applicationPid(), QSysInfo::machineHostName()});
        if (!r)
            return fail(r.error());
        auto id = db.scalar(QStringLiteral("SELECT MAX(run_id) FROM rewind_runs"));
        if (!id)
            return fail(id.error());
        result.runId = *id;
        return writeAudit(db, QStringLiteral("run started"), dataset.name, QString(), result.runId,
                          QString::fromStdString(nlohmann::ordered_json{{"plan_id", plan.id.toStdString()},
                                                                        {"partitions", plan.scope.size()}}
                                                     .dump()));
    }); });
    if (!started)
        return fail(started.error());
    executeChunks(db, dataset, sql, plan, plan.scope, options, result, 0);
    return finish(db, std::move(result));
}

} // namespace

Result<RunResult> preview(const Database &db, const DatasetSpec &dataset, const BatchOptions &options)
{
    auto catalog = DatasetCatalog::resolve(db, dataset);
    if (!catalog)
        return fail(catalog.error());
    return preview(db, dataset, *catalog, options);
}

Result<RunResult> preview(const Database &db, const DatasetSpec &dataset, const DatasetCatalog &catalog, const BatchOptions &options)
{
    BatchSql sql(db, dataset, catalog);
    if (!options.planId.isEmpty())
        return badInput(QStringLiteral("--plan is for executing a stored plan: add --execute"));
    auto scope = resolveScope(db, dataset, sql, options.scope);
    if (!scope)
        return fail(scope.error());
    if (sql.isScd2())
        if (auto s = refuseScd2OutOfOrder(db, dataset, sql, *scope); !s)
            return fail(s.error());
    RunResult result;
    result.dataset = dataset.name;
    result.mode = dataset.write;
    result.startedAt = nowIso();
    // The fingerprint that locks the plan, read while the scope is staged.
    SourceStatsReader fingerprints(db);
    fingerprints.start(sql, *scope);
    std::optional<SourceStatsMap> stats;
    const auto now = [&]() -> Result<SourceStatsMap> {
        auto read = fingerprints.take();
        if (read)
            stats = *read;
        return read;
    };
    Progress progress;
    progress.partitionsTotal = int(scope->size());
    auto parts = stageAndDiff(db, dataset, sql, *scope, now, QVariant(), options, true, false, result.checks, [&](const QString &phase) {
        progress.phase = phase;
        if (options.progress)
            options.progress(progress);
    });
    (void)db.execAll(sql.dropWorkTables());
    if (!parts)
        return fail(parts.error());
    result.partitions = std::move(*parts);
    result.status = RunStatus::Previewed;
    result.finishedAt = nowIso();

    Plan plan{newPlanId(), dataset.name, dataset.write, *scope, *stats};
    result.planId = plan.id;
    const Status stored = Database::retryTransient(options.maxAttempts, [&] { return db.writeTransaction([&]() -> Status {
        if (auto s = storePlan(db, plan, resultJsonText(result)); !s)
            return s;
        return writeAudit(db, QStringLiteral("preview"), dataset.name, QString(), QVariant(),
                          QString::fromStdString(nlohmann::ordered_json{{"plan_id", plan.id.toStdString()},
                                                                        {"partitions", scope->size()},
                                                                        {"totals", partitionJson(result.totals())}}
                                                     .dump()));
    }); });
    if (!stored)
        return fail(stored.error());
    return result;
}

Result<RunResult> run(const Database &db, const DatasetSpec &dataset, const BatchOptions &options)
{
    if (!options.execute)
        return preview(db, dataset, options);
    if (auto s = refuseFrozen(db, dataset, options); !s)
        return fail(s.error());
    auto catalog = DatasetCatalog::resolve(db, dataset);
    if (!catalog)
        return fail(catalog.error());
    return execute(db, dataset, *catalog, options);
}

Result<RunResult> run(const Database &db, const DatasetSpec &dataset, const DatasetCatalog &catalog, const BatchOptions &options)
{
    if (!options.execute)
        return preview(db, dataset, catalog, options);
    if (auto s = refuseFrozen(db, dataset, options); !s)
        return fail(s.error());
    return execute(db, dataset, catalog, options);
}

Result<RunResult> resume(const Database &db, const Spec &spec, qint64 runId, const BatchOptions &options)
{
    auto info = loadRun(db, runId);
    if (!info)
        return fail(info.error());
    if (info->status == RunStatus::Succeeded)
        return badInput(QStringLiteral("run %1 already succeeded: nothing to resume").arg(runId));
    if (info->status == RunStatus::RolledBack)
        return badInput(QStringLiteral("run %1 was rolled back: start a new run").arg(runId));
    if (info->status == RunStatus::Running)
        return badInput(QStringLiteral("run %1 is still running (process %2 on %3)").arg(runId).arg(info->pid).arg(info->host));
    auto dataset = spec.requireDataset(info->dataset);
    if (!dataset)
        return fail(dataset.error());
    if (!options.execute)
        return badInput(QStringLiteral("resume publishes: add --execute"));
    if (auto s = refuseFrozen(db, **dataset, options); !s)
        return fail(s.error());
    auto sql = BatchSql::make(db, **dataset);
    if (!sql)
        return fail(sql.error());
    auto plan = loadPlan(db, info->planId);
    if (!plan)
        return fail(plan.error());

    RunResult result;
    result.dataset = info->dataset;
    result.mode = plan->mode;
    result.planId = plan->id;
    result.runId = runId;
    result.executed = true;
    result.status = RunStatus::Running;
    result.startedAt = info->startedAt;
    std::vector<PartitionRef> todo;
    for (const auto &p : plan->scope) {
        const auto done = info->done.constFind(partitionKey(p.label));
        if (done != info->done.cend())
            result.partitions.push_back(*done);
        else
            todo.push_back(p);
    }
    if (sql->isScd2())
        if (auto s = refuseScd2OutOfOrder(db, **dataset, *sql, todo); !s)
            return fail(s.error());
    Plan remaining = *plan;
    remaining.scope = todo;
    auto stale = stalePartitions(db, *sql, remaining);
    if (!stale)
        return fail(stale.error());
    if (!stale->isEmpty())
        return fail(Error{Error::Code::StalePlan, QStringLiteral("run %1 cannot resume: the source of %2 changed since its plan %3; start a new run")
                                                      .arg(runId)
                                                      .arg(stale->join(QStringLiteral(", ")), plan->id)});
    const Status marked = Database::retryTransient(options.maxAttempts, [&] { return db.writeTransaction([&]() -> Status {
        if (auto s = refuseConcurrentRun(db, info->dataset, runId); !s)
            return s;
        auto r = db.exec(QStringLiteral("UPDATE rewind_runs SET status = ?, pid = ?, host = ?, finished_at = NULL, error = NULL WHERE run_id = ?"),
                         {enumName(result.status), QCoreApplication::applicationPid(), QSysInfo::machineHostName(), runId});
        if (!r)
            return fail(r.error());
        return writeAudit(db, QStringLiteral("run resumed"), info->dataset, QString(), runId,
                          QString::fromStdString(nlohmann::ordered_json{{"remaining", todo.size()}}.dump()));
    }); });
    if (!marked)
        return fail(marked.error());
    executeChunks(db, **dataset, *sql, *plan, todo, options, result, int(result.partitions.size()));
    // Keep the plan's order in the result.
    std::sort(result.partitions.begin(), result.partitions.end(),
              [](const PartitionResult &a, const PartitionResult &b) { return partitionLess(a.partition, b.partition); });
    return finish(db, std::move(result));
}

} // namespace rw
