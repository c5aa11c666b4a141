#include "core/batch/batch.h"

#include "core/batch/batchchecks.h"
#include "core/batch/batchdiff.h"
#include "core/batch/batchjson.h"
#include "core/batch/batchprivileges.h"
#include "core/batch/batchsql.h"
#include "core/batch/iceberg.h"
#include "core/batch/partitions.h"
#include "core/batch/planstore.h"
#include "core/batch/publish.h"
#include "core/batch/runs.h"
#include "core/batch/scd2.h"
#include "core/util/timeutil.h"
#include "core/workspace/workspace.h"

#include <QCoreApplication>
#include <QDateTime>
#include <QJsonDocument>
#include <QLoggingCategory>
#include <QRandomGenerator>
#include <QStringBuilder>
#include <QSysInfo>

Q_LOGGING_CATEGORY(lcBatch, "rewind.batch")

namespace rw {

PartitionResult RunResult::totals() const {
    PartitionResult t;
    std::vector<std::vector<ColumnChange>> columns;
    for (const auto &p : partitions) {
        columns.push_back(p.columns);
        t.sourceRows += p.sourceRows;
        t.stagedRows += p.stagedRows;
        t.duplicatesDropped += p.duplicatesDropped;
        t.inserted += p.inserted;
        t.updated += p.updated;
        t.deleted += p.deleted;
        t.unchanged += p.unchanged;
        const auto add = [](std::optional<qint64> &sum, const std::optional<qint64> &part) {
            if (part)
                sum = sum.value_or(0) + *part;
        };
        add(t.keysTouched, p.keysTouched);
        add(t.versionsOpened, p.versionsOpened);
        add(t.versionsClosed, p.versionsClosed);
        add(t.versionsInvalidated, p.versionsInvalidated);
    }
    t.columns = totalColumns(columns, columnDetails);
    return t;
}

bool RunResult::checksPassed() const {
    return std::all_of(checks.begin(), checks.end(), [](const CheckResult &c) { return c.passed; });
}

int exitCodeOf(const RunResult &result) {
    switch (result.status) {
    case RunStatus::StalePlan:
        return 4;
    case RunStatus::CheckFailed:
        return 3;
    case RunStatus::Failed:
    case RunStatus::Cancelled:
        return 1;
    default:
        return 0;
    }
}

namespace {

QString nowIso() {
    return QDateTime::currentDateTimeUtc().toString(Qt::ISODateWithMs);
}

QString resultJsonText(const RunResult &r) {
    return QString::fromStdString(toJson(r).dump());
}

Status setRunStatus(const Database &db, const RunResult &result, const QString &error) {
    return Database::retryTransient(5, [&] {
        return db.writeTransaction([&]() -> Status {
            if (auto s = runstore::finishRun(db, result.runId.toLongLong(), result.status,
                                             result.finishedAt, error, resultJsonText(result));
                !s)
                return s;
            return writeAudit(db, QStringLiteral("run ") % enumName(result.status), result.dataset,
                              QString(), result.runId,
                              QString::fromStdString(nlohmann::ordered_json{
                                  {"plan_id", result.planId.toStdString()},
                                  {"error",
                                   error.toStdString()}}.dump()));
        });
    });
}

Status refuseFrozen(const Database &db, const DatasetSpec &dataset, const BatchOptions &options) {
    if (options.ignoreFreeze)
        return {};
    auto frozen = db.control().exec(
        QStringLiteral("SELECT frozen_at, os_user, reason FROM rewind_frozen WHERE dataset = ?"),
        {dataset.name});
    if (!frozen)
        return fail(frozen.error());
    if (frozen->next())
        return internalError(
            QStringLiteral("dataset \"%1\" is frozen since %2 by %3%4: writes are refused until "
                           "rewindctl unfreeze")
                .arg(dataset.name, frozen->value(0).toString(), frozen->value(1).toString(),
                     frozen->value(2).toString().isEmpty()
                         ? QString()
                         : QStringLiteral(" (") % frozen->value(2).toString() % u')'));
    return {};
}

// The request of a preview or a run (see ScopeRequest::publishes).
ScopeRequest publishing(ScopeRequest request) {
    request.publishes = true;
    return request;
}

// A schema change the dataset's on_schema_change does not allow (the spec
// check refuses such a dataset when the workspace opens; the target may
// have changed since).
Status refuseSchemaChange(const DatasetSpec &dataset, const BatchSql &sql) {
    const SchemaChange &change = sql.schemaChange();
    if (change.empty())
        return sql.catalog().refusal.isEmpty() ? Status{} : badInput(sql.catalog().refusal);
    const bool onlyAdds = change.dropped.empty() && change.widened.empty();
    if (dataset.onSchemaChange == SchemaChangePolicy::Fail)
        return badInput(QStringLiteral("dataset \"%1\": the run %2, which \"on_schema_change\": "
                                       "\"fail\" refuses; \"%3\" allows it")
                            .arg(dataset.name, change.describe(),
                                 onlyAdds ? QStringLiteral("append_new_columns")
                                          : QStringLiteral("sync_all_columns")));
    if (dataset.onSchemaChange == SchemaChangePolicy::AppendNewColumns && !onlyAdds)
        return badInput(QStringLiteral("dataset \"%1\": the run %2; \"append_new_columns\" only "
                                       "adds columns, \"sync_all_columns\" would also drop and "
                                       "widen them")
                            .arg(dataset.name, change.describe()));
    if (!sql.catalog().refusal.isEmpty())
        return badInput(sql.catalog().refusal);
    return {};
}

// What a run on a Trino warehouse does not do yet, refused before it writes.
Status refuseIcebergRun(const Database &db, const DatasetSpec &dataset, const BatchSql &sql) {
    if (!db.dialect().keepsControlApart())
        return {};
    if (!sql.targetExists())
        return badInput(QStringLiteral("dataset \"%1\": target %2 does not exist: on a Trino "
                                       "warehouse Rewind writes into an Iceberg table made "
                                       "beforehand (its partitioning is the team's to choose); "
                                       "nothing was written")
                            .arg(dataset.name, dataset.target));
    if (!sql.schemaChange().empty())
        return badInput(QStringLiteral("dataset \"%1\": the run %2, and schema changes on a Trino "
                                       "warehouse are not built yet; nothing was written")
                            .arg(dataset.name, sql.schemaChange().describe()));
    return {};
}

// On a Trino warehouse, the snapshot locks of a new plan, with `sql` reading
// the source as of its snapshot.
Result<iceberg::Locks> lockToSnapshots(const Database &db, const DatasetSpec &dataset,
                                       BatchSql &sql) {
    if (!db.dialect().keepsControlApart())
        return iceberg::Locks{};
    auto locks = iceberg::readLocks(db, dataset, sql.targetExists());
    if (!locks)
        return fail(locks.error());
    DatasetCatalog locked = sql.catalog();
    iceberg::lockSource(locked, db, dataset, locks->source);
    sql.restoreCatalog(std::move(locked));
    return locks;
}

Result<RunResult> finish(const Database &db, RunResult result) {
    if (auto s = setRunStatus(db.control(), result, result.error); !s)
        return fail(s.error());
    if (result.status == RunStatus::StalePlan)
        return fail(Error{Error::Code::StalePlan, result.error});
    return result;
}

// A snapshot dated by its run at one time for all it reads: its plan's (the
// one partition the preview took), else now.
DatasetSpec pinned(const DatasetSpec &dataset, const Plan *plan) {
    DatasetSpec out = dataset;
    if (!out.datedByRun() || !out.snapshotTime.isEmpty())
        return out;
    QDateTime at = QDateTime::currentDateTimeUtc();
    if (plan && plan->scope.size() == 1 && plan->scope.front().label)
        if (auto t = timeutil::parseTimestamp(*plan->scope.front().label))
            at = *t;
    out.snapshotTime = snapshotTimeText(at);
    return out;
}

Result<DatasetSpec> pinnedToPlan(const Database &db, const DatasetSpec &dataset,
                                 const QString &planId) {
    if (!dataset.datedByRun() || planId.isEmpty())
        return pinned(dataset, nullptr);
    auto plan = loadPlan(db.control(), planId);
    if (!plan)
        return fail(plan.error());
    return pinned(dataset, &*plan);
}

// run() past its checks: plans (or loads the plan) and publishes.
Result<RunResult> execute(const Database &db, const DatasetSpec &dataset,
                          const DatasetCatalog &catalog, const BatchOptions &options) {
    BatchSql sql(db, dataset, catalog);
    const Database ctl = db.control();
    if (auto s = refuseIcebergRun(db, dataset, sql); !s)
        return fail(s.error());

    Plan plan;
    if (!options.planId.isEmpty()) {
        const ScopeRequest &r = options.scope;
        if (!r.partitions.isEmpty() || r.from || r.to || r.stale || r.schemaBehind)
            return badInput(
                QStringLiteral("--plan fixes the scope: drop --partition, --from, --to, "
                               "--stale and --schema-behind"));
        auto loaded = loadPlan(ctl, options.planId);
        if (!loaded)
            return fail(loaded.error());
        if (loaded->dataset != dataset.name)
            return badInput(QStringLiteral("plan %1 is for dataset \"%2\", not \"%3\"")
                                .arg(options.planId, loaded->dataset, dataset.name));
        if (loaded->mode != dataset.write)
            return badInput(
                QStringLiteral(
                    "plan %1 was made for write mode %2, but the spec now says %3: preview again")
                    .arg(options.planId, enumName(loaded->mode), enumName(dataset.write)));
        if (loaded->schemaChange != sql.schemaChange())
            return fail(Error{
                Error::Code::StalePlan,
                QStringLiteral("plan %1 is stale: the target's schema changed since the preview "
                               "(the plan %2, the run now %3); preview again")
                    .arg(options.planId,
                         loaded->schemaChange.empty() ? QStringLiteral("changes none")
                                                      : loaded->schemaChange.describe(),
                         sql.schemaChange().empty() ? QStringLiteral("changes none")
                                                    : sql.schemaChange().describe())});
        const QString imported = dataset.dbt ? dataset.dbt->checksum : QString();
        if (loaded->dbtChecksum.isEmpty() && !imported.isEmpty())
            return fail(Error{Error::Code::StalePlan,
                              QStringLiteral("plan %1 is stale: it does not record which version "
                                             "of dbt model %2 it was made from (made before "
                                             "Rewind recorded it, or before the dataset came from "
                                             "dbt); preview again")
                                  .arg(options.planId, dataset.dbt->uniqueId)});
        if (loaded->dbtChecksum != imported)
            return fail(Error{
                Error::Code::StalePlan,
                QStringLiteral("plan %1 is stale: it was made from dbt model %2 at checksum %3, "
                               "and the spec now holds it at %4; preview again")
                    .arg(options.planId,
                         dataset.dbt ? dataset.dbt->uniqueId : QStringLiteral("(none)"),
                         loaded->dbtChecksum.isEmpty() ? QStringLiteral("(none)")
                                                       : loaded->dbtChecksum,
                         imported.isEmpty() ? QStringLiteral("(none)") : imported)});
        if (!loaded->targetSnapshot.isEmpty()) {
            // Trino: the target as the preview saw it, and the source as of
            // the snapshot the preview read.
            auto current = iceberg::currentSnapshot(db, dataset.target);
            if (!current)
                return fail(current.error());
            if (*current != loaded->targetSnapshot)
                return fail(
                    Error{Error::Code::StalePlan,
                          QStringLiteral("plan %1 is stale: target %2 moved since the "
                                         "preview (snapshot %3 then, %4 now); preview again")
                              .arg(options.planId, dataset.target, loaded->targetSnapshot,
                                   current->isEmpty() ? QStringLiteral("none") : *current)});
        }
        if (!loaded->sourceSnapshot.isEmpty()) {
            DatasetCatalog locked = sql.catalog();
            iceberg::lockSource(locked, db, dataset, loaded->sourceSnapshot);
            sql.restoreCatalog(std::move(locked));
        }
        auto stale = stalePartitions(db, sql, *loaded);
        if (!stale)
            return fail(stale.error());
        if (!stale->isEmpty())
            return fail(Error{
                Error::Code::StalePlan,
                QStringLiteral(
                    "plan %1 is stale: the source of %2 changed since the preview; preview again")
                    .arg(options.planId, stale->join(QStringLiteral(", ")))});
        plan = *loaded;
    } else {
        // Planned afresh: each chunk fingerprints its partition inside its
        // own transaction, so no separate pass over the source is needed.
        auto locks = lockToSnapshots(db, dataset, sql);
        if (!locks)
            return fail(locks.error());
        auto scope = resolveScope(db, dataset, sql, publishing(options.scope));
        if (!scope)
            return fail(scope.error());
        plan = Plan{newPlanId(),
                    dataset.name,
                    dataset.write,
                    *scope,
                    {},
                    sql.schemaChange(),
                    dataset.dbt ? dataset.dbt->checksum : QString(),
                    {},
                    locks->source,
                    locks->target};
    }
    if (auto s = refuseSchemaChange(dataset, sql); !s)
        return fail(s.error());
    // A duplicate recovery re-runs what is published; it changes no schema.
    if (options.kind == RunKind::Recover && !sql.schemaChange().empty())
        return badInput(QStringLiteral("dataset \"%1\": a recovery does not change the schema, "
                                       "and a run now %2: run the dataset first")
                            .arg(dataset.name, sql.schemaChange().describe()));
    if (!sql.schemaChange().empty())
        if (auto s = requireRunPrivileges(db, dataset, QStringLiteral("run of ") % dataset.name,
                                          sql.schemaChange().describe());
            !s)
            return fail(s.error());
    if (sql.isScd2())
        if (auto s = refuseScd2OutOfOrder(db, dataset, sql, plan.scope); !s)
            return fail(s.error());

    RunResult result;
    result.dataset = dataset.name;
    result.mode = dataset.write;
    result.planId = plan.id;
    result.planColumns = plan.columns;
    result.executed = true;
    result.status = RunStatus::Running;
    result.onSchemaChange = dataset.onSchemaChange;
    result.schemaChange.target = dataset.target;
    result.startedAt = nowIso();
    const Status started = Database::retryTransient(options.maxAttempts, [&] {
        return ctl.writeTransaction([&]() -> Status {
            if (auto s = refuseConcurrentRun(ctl, dataset.name); !s)
                return s;
            if (options.planId.isEmpty())
                if (auto s = storePlan(ctl, plan, QString()); !s)
                    return s;
            runstore::NewRun row;
            row.dataset = dataset.name;
            row.kind = options.kind;
            row.planId = plan.id;
            row.mode = plan.mode;
            row.status = result.status;
            row.startedAt = result.startedAt;
            row.scopeJson = scopeToJson(plan.scope);
            auto id = runstore::startRun(ctl, row);
            if (!id)
                return fail(id.error());
            result.runId = *id;
            return writeAudit(ctl, QStringLiteral("run started"), dataset.name, QString(),
                              result.runId,
                              QString::fromStdString(nlohmann::ordered_json{
                                  {"plan_id", plan.id.toStdString()},
                                  {"partitions",
                                   plan.scope.size()}}.dump()));
        });
    });
    if (!started)
        return fail(started.error());
    publishChunks(db, dataset, sql, plan, plan.scope, options, result, 0);
    return finish(db, std::move(result));
}

} // namespace

namespace {
Result<RunResult> previewChecked(const Database &db, const DatasetSpec &dataset,
                                 const DatasetCatalog &catalog, const BatchOptions &options);
} // namespace

Result<RunResult> preview(const Database &db, const DatasetSpec &spec,
                          const BatchOptions &options) {
    const DatasetSpec dataset = pinned(spec, nullptr);
    if (auto s = requirePreviewPrivileges(db, dataset); !s)
        return fail(s.error());
    auto catalog = DatasetCatalog::resolve(db, dataset, true);
    if (!catalog)
        return fail(catalog.error());
    return previewChecked(db, dataset, *catalog, options);
}

Result<RunResult> preview(const Database &db, const DatasetSpec &dataset,
                          const DatasetCatalog &catalog, const BatchOptions &options) {
    if (auto s = requirePreviewPrivileges(db, dataset); !s)
        return fail(s.error());
    return previewChecked(db, dataset, catalog, options);
}

namespace {

Result<RunResult> previewChecked(const Database &db, const DatasetSpec &dataset,
                                 const DatasetCatalog &catalog, const BatchOptions &options) {
    BatchSql sql(db, dataset, catalog);
    if (!options.planId.isEmpty())
        return badInput(QStringLiteral("--plan is for executing a stored plan: add --execute"));
    auto locks = lockToSnapshots(db, dataset, sql);
    if (!locks)
        return fail(locks.error());
    auto scope = resolveScope(db, dataset, sql, publishing(options.scope));
    if (!scope)
        return fail(scope.error());
    if (sql.isScd2())
        if (auto s = refuseScd2OutOfOrder(db, dataset, sql, *scope); !s)
            return fail(s.error());
    if (auto s = refuseSchemaChange(dataset, sql); !s)
        return fail(s.error());
    RunResult result;
    result.dataset = dataset.name;
    result.mode = dataset.write;
    result.onSchemaChange = dataset.onSchemaChange;
    result.schemaChange = sql.schemaChange();
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
    auto parts = stageAndDiff(
        db, dataset, sql, *scope, now, QVariant(), options, true, false, result.checks,
        [&](const QString &phase) {
            progress.phase = phase;
            if (options.progress)
                options.progress(progress);
        },
        &result.columnDetails);
    (void)db.execAll(sql.dropWorkTables());
    if (!parts)
        return fail(parts.error());
    result.partitions = std::move(*parts);
    result.status = RunStatus::Previewed;
    result.finishedAt = nowIso();

    Plan plan{newPlanId(),
              dataset.name,
              dataset.write,
              *scope,
              *stats,
              result.schemaChange,
              dataset.dbt ? dataset.dbt->checksum : QString(),
              {},
              locks->source,
              locks->target};
    result.planId = plan.id;
    // In the control tables' store (the database itself but on Trino).
    const Database control = db.control();
    const Status stored = Database::retryTransient(options.maxAttempts, [&] {
        return control.writeTransaction([&]() -> Status {
            if (auto s = storePlan(control, plan,
                                   QString::fromStdString(planSummaryJson(result).dump()));
                !s)
                return s;
            return writeAudit(control, QStringLiteral("preview"), dataset.name, QString(),
                              QVariant(),
                              QString::fromStdString(
                                  nlohmann::ordered_json{{"plan_id", plan.id.toStdString()},
                                                         {"partitions", scope->size()},
                                                         {"totals", partitionJson(result.totals())}}
                                      .dump()));
        });
    });
    if (!stored)
        return fail(stored.error());
    return result;
}

} // namespace

Result<RunResult> run(const Database &db, const DatasetSpec &spec, const BatchOptions &options) {
    if (!options.execute)
        return preview(db, spec, options);
    auto at = pinnedToPlan(db, spec, options.planId);
    if (!at)
        return fail(at.error());
    const DatasetSpec &dataset = *at;
    if (auto s = refuseFrozen(db, dataset, options); !s)
        return fail(s.error());
    if (auto s = requireRunPrivileges(db, dataset, QStringLiteral("run of ") % dataset.name); !s)
        return fail(s.error());
    auto catalog = DatasetCatalog::resolve(db, dataset, true);
    if (!catalog)
        return fail(catalog.error());
    return execute(db, dataset, *catalog, options);
}

Result<RunResult> run(const Database &db, const DatasetSpec &dataset, const DatasetCatalog &catalog,
                      const BatchOptions &options) {
    if (!options.execute)
        return preview(db, dataset, catalog, options);
    if (auto s = refuseFrozen(db, dataset, options); !s)
        return fail(s.error());
    if (auto s = requireRunPrivileges(db, dataset, QStringLiteral("run of ") % dataset.name); !s)
        return fail(s.error());
    return execute(db, dataset, catalog, options);
}

Result<RunResult> resume(const Database &db, const Spec &spec, qint64 runId,
                         const BatchOptions &options) {
    const Database ctl = db.control();
    auto info = loadRun(ctl, runId);
    if (!info)
        return fail(info.error());
    if (info->status == RunStatus::Succeeded)
        return badInput(QStringLiteral("run %1 already succeeded: nothing to resume").arg(runId));
    if (info->status == RunStatus::RolledBack)
        return badInput(QStringLiteral("run %1 was rolled back: start a new run").arg(runId));
    if (info->status == RunStatus::Running)
        return badInput(QStringLiteral("run %1 is still running (process %2 on %3)")
                            .arg(runId)
                            .arg(info->pid)
                            .arg(info->host));
    auto specDataset = spec.requireDataset(info->dataset);
    if (!specDataset)
        return fail(specDataset.error());
    if (!options.execute)
        return badInput(QStringLiteral("resume publishes: add --execute"));
    auto plan = loadPlan(ctl, info->planId);
    if (!plan)
        return fail(plan.error());
    // A dbt dataset imported again from a changed model since: the rest of
    // the run would publish another model's logic than its first part did.
    if (const QString imported = (*specDataset)->dbt ? (*specDataset)->dbt->checksum : QString();
        !plan->dbtChecksum.isEmpty() && plan->dbtChecksum != imported)
        return fail(Error{
            Error::Code::StalePlan,
            QStringLiteral("run %1 cannot resume: it ran dbt model %2 at checksum "
                           "%3, and the spec now holds it at %4 (imported again "
                           "since); roll it back or start a new run")
                .arg(QString::number(runId),
                     (*specDataset)->dbt ? (*specDataset)->dbt->uniqueId : QStringLiteral("(none)"),
                     plan->dbtChecksum, imported.isEmpty() ? QStringLiteral("(none)") : imported)});
    // The run writes as its plan says (a duplicate recovery's re-run
    // overwrites partitions of a merge dataset), not as the spec says today.
    DatasetSpec planned = pinned(**specDataset, &*plan);
    if (plan->mode != planned.write) {
        if (plan->mode == WriteMode::Scd2 || planned.write == WriteMode::Scd2)
            return badInput(QStringLiteral("run %1 cannot resume: it wrote \"%2\" by %3, and the "
                                           "spec now says %4; start a new run")
                                .arg(runId)
                                .arg(info->dataset, enumName(plan->mode), enumName(planned.write)));
        planned.write = plan->mode;
    }
    if (auto s = refuseFrozen(db, planned, options); !s)
        return fail(s.error());
    if (auto s = requireRunPrivileges(db, planned, QStringLiteral("resume of run %1").arg(runId));
        !s)
        return fail(s.error());
    auto sql = BatchSql::make(db, planned, true);
    if (!sql)
        return fail(sql.error());
    // A change its first publish made is the target's now; another one, or
    // one where the plan had none, was never previewed.
    if (!sql->schemaChange().empty() && sql->schemaChange() != plan->schemaChange)
        return fail(Error{Error::Code::StalePlan,
                          QStringLiteral("run %1 cannot resume: the run now %2, which its plan %3 "
                                         "did not; start a new run")
                              .arg(runId)
                              .arg(sql->schemaChange().describe(), plan->id)});
    if (auto s = refuseSchemaChange(planned, *sql); !s)
        return fail(s.error());
    if (auto s = refuseIcebergRun(db, planned, *sql); !s)
        return fail(s.error());
    if (!plan->sourceSnapshot.isEmpty()) { // Trino: the source as of the plan's snapshot
        DatasetCatalog locked = sql->catalog();
        iceberg::lockSource(locked, db, planned, plan->sourceSnapshot);
        sql->restoreCatalog(std::move(locked));
    }
    if (!sql->schemaChange().empty())
        if (auto s =
                requireRunPrivileges(db, planned, QStringLiteral("resume of run %1").arg(runId),
                                     sql->schemaChange().describe());
            !s)
            return fail(s.error());

    RunResult result;
    result.dataset = info->dataset;
    result.mode = plan->mode;
    result.planId = plan->id;
    result.planColumns = plan->columns;
    result.runId = runId;
    result.executed = true;
    result.status = RunStatus::Running;
    result.onSchemaChange = planned.onSchemaChange;
    result.schemaChange.target = planned.target;
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
        if (auto s = refuseScd2OutOfOrder(db, planned, *sql, todo); !s)
            return fail(s.error());
    Plan remaining = *plan;
    remaining.scope = todo;
    auto stale = stalePartitions(db, *sql, remaining);
    if (!stale)
        return fail(stale.error());
    if (!stale->isEmpty())
        return fail(Error{
            Error::Code::StalePlan,
            QStringLiteral(
                "run %1 cannot resume: the source of %2 changed since its plan %3; start a new run")
                .arg(runId)
                .arg(stale->join(QStringLiteral(", ")), plan->id)});
    if (options.beforeResume)
        if (auto s = options.beforeResume(); !s)
            return fail(s.error());
    const Status marked = Database::retryTransient(options.maxAttempts, [&] {
        return ctl.writeTransaction([&]() -> Status {
            if (auto s = refuseConcurrentRun(ctl, info->dataset, runId); !s)
                return s;
            if (auto s = runstore::markResumed(ctl, runId, result.status); !s)
                return s;
            return writeAudit(
                ctl, QStringLiteral("run resumed"), info->dataset, QString(), runId,
                QString::fromStdString(nlohmann::ordered_json{{"remaining", todo.size()}}.dump()));
        });
    });
    if (!marked)
        return fail(marked.error());
    publishChunks(db, planned, *sql, *plan, todo, options, result, int(result.partitions.size()),
                  info->publishing);
    // Keep the plan's order in the result.
    sortByPartition(result.partitions, [](const PartitionResult &p) { return p.partition; });
    return finish(db, std::move(result));
}

} // namespace rw
