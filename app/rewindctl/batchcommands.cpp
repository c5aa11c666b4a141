// rewindctl preview, run, resume, runs, run-show.
#include "app/rewindctl/clisupport.h"
#include "core/batch/batch.h"
#include "core/batch/batchjson.h"
#include "core/batch/partitions.h"
#include "core/batch/runs.h"
#include "core/dbt/drift.h"
#include "core/dbt/runresults.h"
#include "core/recovery/recovery.h"

#include <QStringBuilder>
#include <unistd.h>

namespace rw::cli {

namespace {

// --- preview, run, resume, runs, run-show ------------------------------------

const QCommandLineOption kPartition({QStringLiteral("partition")},
                                    QStringLiteral("A partition to cover (repeatable)."),
                                    QStringLiteral("P"));
const QCommandLineOption
    kStale({QStringLiteral("stale")},
           QStringLiteral("Every stale partition (source changed since its publish)."));
const QCommandLineOption kSchemaBehind(
    {QStringLiteral("schema-behind")},
    QStringLiteral(
        "Every partition published before a schema change added columns (NULL in them)."));
const QCommandLineOption kSamples({QStringLiteral("samples")},
                                  QStringLiteral("Add up to N example rows per category."),
                                  QStringLiteral("N"), QStringLiteral("0"));
const QCommandLineOption kPlan(
    {QStringLiteral("plan")},
    QStringLiteral(
        "Execute exactly this stored plan (from preview); refused, exit 4, if its source changed."),
    QStringLiteral("ID"));
const QCommandLineOption kLimit({QStringLiteral("limit")},
                                QStringLiteral("At most N rows (default 50)."), QStringLiteral("N"),
                                QStringLiteral("50"));

const QCommandLineOption
    kDbtResults({QStringLiteral("dbt-results")},
                QStringLiteral("The partitions dbt's run (its run_results.json) failed: of the "
                               "failed batches, or every one of a model whose run or test failed."),
                QStringLiteral("RUN_RESULTS"));

void scopeOptions(QCommandLineParser &p) {
    workspaceOptions(p);
    p.addOptions({kDataset, kPartition, kFrom, kTo, kStale, kSchemaBehind, kSamples, kDbtResults});
}

// --dbt-results: the scope is the partitions dbt's run left to redo
// (listed as `partitions --dbt-results` marks them). Refused with another
// scope option, for a dataset not made from dbt, or when none is left.
Status scopeFromDbtResults(const Context &ctx, const Workspace &ws, const DatasetSpec &dataset,
                           BatchOptions &options) {
    const QString path = ctx.parser.value(kDbtResults);
    for (const char *other : {"partition", "from", "to", "stale", "schema-behind"})
        if (ctx.given(QLatin1String(other)))
            return badInput(QStringLiteral("--dbt-results picks the partitions itself: give it "
                                           "without --%1")
                                .arg(QLatin1String(other)));
    if (!dataset.dbt)
        return badInput(QStringLiteral("--dbt-results: dataset \"%1\" was not imported from a "
                                       "dbt model (its spec has no \"dbt\")")
                            .arg(dataset.name));
    auto results = dbt::loadRunResults(path, dbt::manifestFor(ws.spec, QString()));
    if (!results)
        return fail(results.error());
    // One partition, the whole table: the default scope.
    if (!dataset.partitioned() && dbt::failureOf(*results, dataset, std::nullopt))
        return {};
    auto parts = listPartitions(ws.db, dataset);
    if (!parts)
        return fail(parts.error());
    for (const PartitionInfo &p : *parts)
        if (p.partition && dbt::failureOf(*results, dataset, p.partition))
            options.scope.partitions << *p.partition;
    if (options.scope.partitions.isEmpty())
        return badInput(QStringLiteral("%1: dbt's run left no partition of dataset \"%2\" (model "
                                       "%3) to redo")
                            .arg(path, dataset.name, dataset.dbt->uniqueId));
    return {};
}

Result<BatchOptions> batchOptions(const Context &ctx, bool withScope) {
    BatchOptions o;
    if (withScope) {
        o.scope.partitions = ctx.parser.values(kPartition);
        if (ctx.parser.isSet(kFrom))
            o.scope.from = ctx.parser.value(kFrom);
        if (ctx.parser.isSet(kTo))
            o.scope.to = ctx.parser.value(kTo);
        o.scope.stale = ctx.parser.isSet(kStale);
        o.scope.schemaBehind = ctx.parser.isSet(kSchemaBehind);
    }
    auto samples = intOption(ctx, kSamples, 0, 1000);
    if (!samples)
        return fail(samples.error());
    o.samples = *samples;
    if (ctx.given(QStringLiteral("plan")))
        o.planId = ctx.parser.value(kPlan);
    o.execute = ctx.given(QStringLiteral("execute"));
    // A live progress line on a terminal, unless the output is JSON.
    if (!ctx.json && ctx.err.device() != nullptr && ::isatty(STDERR_FILENO)) {
        QTextStream *err = &ctx.err;
        o.progress = [err](const Progress &p) {
            *err << "\r\033[K[" << p.partitionsDone << '/' << p.partitionsTotal << "] "
                 << p.partition << ' ' << p.phase << ", " << thousands(p.rowsDone) << " rows done";
            err->flush();
        };
    }
    return o;
}

// What the preview would change in each column, over all its partitions.
void printColumnsText(Context &ctx, const std::vector<ColumnChange> &columns) {
    ctx.out << "\nColumns (rows whose key the target holds: " << thousands(columns.front().matched)
            << "):\n";
    TextTable table({QStringLiteral("COLUMN"), QStringLiteral("CHANGED"), QStringLiteral("%"),
                     QStringLiteral("ONLY IT"), QStringLiteral("NULLS BEFORE -> AFTER"),
                     QStringLiteral("SUM BEFORE -> AFTER"), QStringLiteral("CHANGE")},
                    {false, true, true, true, false, false, false});
    for (const ColumnChange &c : columns) {
        if (c.kind == ColumnKind::Skipped) {
            table.add({c.column, QStringLiteral("-"), QString(), QString(), QString(), QString(),
                       QStringLiteral("skipped: %1 values are not compared").arg(c.type)});
            continue;
        }
        table.add({c.column, thousands(c.changed), QString::number(c.changedPct(), 'f', 2),
                   thousands(c.onlyThisChanged),
                   thousands(c.nullsBefore) % QStringLiteral(" -> ") % thousands(c.nullsAfter),
                   c.kind == ColumnKind::Number
                       ? QString(figureText(c.sumBefore) % QStringLiteral(" -> ") %
                                 figureText(c.sumAfter))
                       : QString(),
                   changeShape(c)});
    }
    table.print(ctx.out);
}

void printRunText(Context &ctx, const RunResult &r) {
    if (!ctx.json && ctx.err.device() != nullptr && ::isatty(STDERR_FILENO))
        ctx.err << "\r\033[K";
    ctx.out << r.dataset << " (" << enumName(r.mode) << "): " << enumName(r.status);
    if (!r.runId.isNull())
        ctx.out << ", run " << r.runId.toString();
    ctx.out << ", plan " << r.planId << "\n\n";
    if (!r.schemaChange.empty())
        ctx.out << "Schema change: " << r.schemaChange.describe() << " (on_schema_change "
                << enumName(r.onSchemaChange) << ")\n\n";
    // delete_insert and append keep every row: no duplicates are dropped;
    // a delete_insert's keys touched are shown in that column instead.
    const bool keys = r.mode == WriteMode::DeleteInsert;
    const auto third = [&](const PartitionResult &p) {
        return keys ? thousands(p.keysTouched.value_or(0)) : thousands(p.duplicatesDropped);
    };
    TextTable table({QStringLiteral("PARTITION"), QStringLiteral("SOURCE"),
                     QStringLiteral("STAGED"),
                     keys ? QStringLiteral("KEYS") : QStringLiteral("DUPES DROPPED"),
                     QStringLiteral("INSERT"), QStringLiteral("UPDATE"), QStringLiteral("DELETE"),
                     QStringLiteral("UNCHANGED"), QStringLiteral("PUBLISHED")},
                    {false, true, true, true, true, true, true, true, false});
    for (const auto &p : r.partitions)
        table.add({partitionLabel(p.partition), thousands(p.sourceRows), thousands(p.stagedRows),
                   third(p), thousands(p.inserted), thousands(p.updated), thousands(p.deleted),
                   thousands(p.unchanged),
                   p.published ? QStringLiteral("yes") : QStringLiteral("no")});
    const PartitionResult t = r.totals();
    table.add({QStringLiteral("total"), thousands(t.sourceRows), thousands(t.stagedRows), third(t),
               thousands(t.inserted), thousands(t.updated), thousands(t.deleted),
               thousands(t.unchanged), QString()});
    table.print(ctx.out);
    if (!t.columns.empty())
        printColumnsText(ctx, t.columns);
    if (r.mode == WriteMode::Scd2) {
        // INSERT and UPDATE are rows; a snapshot's reader thinks in versions.
        ctx.out << "\nVersions: " << thousands(t.versionsOpened.value_or(t.inserted)) << " opened, "
                << thousands(t.versionsClosed.value_or(t.updated)) << " closed";
        if (t.versionsInvalidated.value_or(0) > 0)
            ctx.out << ", of which " << thousands(*t.versionsInvalidated)
                    << " invalidated (keys gone from the source)";
        ctx.out << ".\n";
    }
    int failed = 0;
    for (const auto &c : r.checks) {
        if (c.passed)
            continue;
        if (failed++ == 0)
            ctx.out << "\nFailed checks:\n";
        ctx.out << "  " << partitionLabel(c.partition) << "  " << c.name << ": " << c.detail
                << '\n';
    }
    if (!r.checks.empty() && failed == 0)
        ctx.out << '\n' << r.checks.size() << " checks passed.\n";
    if (!r.error.isEmpty())
        ctx.out << "\nError: " << r.error << '\n';
    if (!r.executed)
        ctx.out << "\nNothing was written but plan " << r.planId
                << ". To publish exactly this:\n  rewindctl run --db " << shownDb(ctx) << " --spec "
                << ctx.parser.value(kSpec) << " --dataset " << r.dataset << " --plan " << r.planId
                << " --execute\n";
    else if (r.status == RunStatus::Failed || r.status == RunStatus::Cancelled)
        ctx.out << "\nResume with: rewindctl resume --db " << shownDb(ctx) << " --spec "
                << ctx.parser.value(kSpec) << " --run " << r.runId.toString() << " --execute\n";
}

// Prints a run result and turns its status into the exit code.
Status report(Context &ctx, const RunResult &r) {
    if (ctx.json)
        ctx.print(toJson(r));
    else
        printRunText(ctx, r);
    const int code = exitCodeOf(r);
    if (code == 0)
        return {};
    Error e{static_cast<Error::Code>(code),
            r.error.isEmpty()
                ? QStringLiteral("run %1: %2").arg(r.runId.toString(), enumName(r.status))
                : r.error};
    return fail(e);
}

Status runBatch(Context &ctx, bool forcePreview) {
    if (auto name = required(ctx, kDataset);
        !name) // before the options are read, as the lookup below
        return fail(name.error());
    auto options = batchOptions(ctx, true);
    if (!options)
        return fail(options.error());
    auto wd = datasetOf(ctx);
    if (!wd)
        return fail(wd.error());
    const auto &[ws, dataset] = *wd;
    if (ctx.given(QStringLiteral("dbt-results")))
        if (auto s = scopeFromDbtResults(ctx, ws, *dataset, *options); !s)
            return s;
    if (forcePreview)
        options->execute = false;
    auto result =
        forcePreview ? preview(ws.db, *dataset, *options) : run(ws.db, *dataset, *options);
    if (!result)
        return fail(result.error());
    ctx.reported = true;
    return report(ctx, *result);
}

Status runPreview(Context &ctx) {
    return runBatch(ctx, true);
}
Status runRun(Context &ctx) {
    return runBatch(ctx, false);
}

Status runResume(Context &ctx) {
    auto id = runIdOption(ctx);
    if (!id)
        return fail(id.error());
    auto options = batchOptions(ctx, false);
    if (!options)
        return fail(options.error());
    auto ws = workspace(ctx);
    if (!ws)
        return fail(ws.error());
    auto result = resumeRun(ws->db, ws->spec, *id, *options);
    if (!result)
        return fail(result.error());
    ctx.reported = true;
    if (!result->recovery)
        return report(ctx, result->run);
    // A duplicate recovery's re-run: the run, then the recovery it finished.
    const RecoveryResult &recovery = *result->recovery;
    if (ctx.json) {
        Json j = toJson(result->run);
        j["recovery"] = recoveryJson(recovery);
        ctx.print(j);
    } else {
        printRunText(ctx, result->run);
        ctx.out << "\nThe duplicate recovery this run belongs to, carried on:\n";
        printRecoveryText(ctx, recovery);
    }
    if (recovery.failed())
        return internalError(recovery.error);
    if (const int code = exitCodeOf(result->run); code != 0)
        return fail(Error{static_cast<Error::Code>(code), result->run.error});
    return {};
}

Status runRuns(Context &ctx) {
    auto limit = intOption(ctx, kLimit, 1, INT_MAX, QStringLiteral("a positive number"));
    if (!limit)
        return fail(limit.error());
    auto ws = workspace(ctx);
    if (!ws)
        return fail(ws.error());
    auto runs = listRuns(ws->db.control(), *limit);
    if (!runs)
        return fail(runs.error());
    if (ctx.json) {
        Json list = Json::array();
        for (const auto &r : *runs)
            list.push_back(
                {{"run_id", r.runId},
                 {"dataset", s(r.dataset)},
                 {"status", s(enumName(r.status))},
                 {"started_at", s(r.startedAt)},
                 {"finished_at", r.finishedAt.isEmpty() ? Json(nullptr) : Json(s(r.finishedAt))},
                 {"kind", s(enumName(r.kind))},
                 {"plan_id", r.planId.isEmpty() ? Json(nullptr) : Json(s(r.planId))},
                 {"os_user", s(r.osUser)}});
        ctx.print({{"runs", list}});
        return {};
    }
    TextTable table({QStringLiteral("RUN"), QStringLiteral("DATASET"), QStringLiteral("KIND"),
                     QStringLiteral("STATUS"), QStringLiteral("STARTED"),
                     QStringLiteral("FINISHED"), QStringLiteral("USER")},
                    {true, false, false, false, false, false, false});
    for (const auto &r : *runs)
        table.add({QString::number(r.runId), r.dataset, enumName(r.kind), enumName(r.status),
                   r.startedAt, r.finishedAt.isEmpty() ? QStringLiteral("-") : r.finishedAt,
                   r.osUser});
    table.print(ctx.out);
    return {};
}

Status runShow(Context &ctx) {
    auto id = runIdOption(ctx);
    if (!id)
        return fail(id.error());
    auto ws = workspace(ctx);
    if (!ws)
        return fail(ws.error());
    auto result = runResult(ws->db.control(), *id);
    if (!result)
        return fail(result.error());
    if (ctx.json) {
        ctx.print(toJson(*result));
        return {};
    }
    printRunText(ctx, *result);
    return {};
}

} // namespace

std::vector<Command> batchCommands() {
    return {
        {QStringLiteral("preview"),
         QStringLiteral("Stage, dedupe, diff and check partitions; store a plan. Writes no data."),
         scopeOptions, runPreview},
        {QStringLiteral("run"),
         QStringLiteral(
             "Re-run partitions: a preview unless --execute; publishes each partition atomically."),
         [](QCommandLineParser &p) {
             scopeOptions(p);
             p.addOptions({kPlan, kExecute});
         },
         runRun},
        {QStringLiteral("resume"),
         QStringLiteral(
             "Continue an interrupted, cancelled or failed run from its first unfinished partition "
             "(a duplicate recovery's re-run: then the recovery's last steps too)."),
         withWorkspace({kRun, kExecute, kSamples}), runResume},
        {QStringLiteral("runs"), QStringLiteral("List runs, newest first."),
         withWorkspace({kLimit}), runRuns},
        {QStringLiteral("run-show"),
         QStringLiteral("One run: its plan, per-partition results, gate results and error."),
         withWorkspace({kRun}), runShow},
    };
}

} // namespace rw::cli
