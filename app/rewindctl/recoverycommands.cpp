// rewindctl duplicates, freeze, unfreeze, recover, rollback, prune.
#include "app/rewindctl/clisupport.h"
#include "core/batch/batchjson.h"
#include "core/batch/partitions.h"
#include "core/batch/prune.h"
#include "core/batch/rollback.h"
#include "core/recovery/recovery.h"

#include <QJsonDocument>
#include <QStringBuilder>

namespace rw::cli {

namespace {

const QCommandLineOption kSamplesOpt({QStringLiteral("samples")},
                                     QStringLiteral("Up to N example duplicate keys (default 5)."),
                                     QStringLiteral("N"), QStringLiteral("5"));
const QCommandLineOption kReason({QStringLiteral("reason")},
                                 QStringLiteral("Why (kept with the freeze and in the audit log)."),
                                 QStringLiteral("TEXT"));
const QCommandLineOption kReport(
    {QStringLiteral("report")},
    QStringLiteral("Write the Markdown recovery report to FILE (default: next to the database)."),
    QStringLiteral("FILE"));

const QCommandLineOption
    kBefore({QStringLiteral("before")},
            QStringLiteral("Runs finished before TIME (ISO-8601 UTC; a date is its midnight)."),
            QStringLiteral("TIME"));
const QCommandLineOption
    kKeep({QStringLiteral("keep")},
          QStringLiteral("The newest N runs that can be rolled back keep their images."),
          QStringLiteral("N"));

Json partitionsJson(const DuplicateReport &d) {
    Json parts = Json::array();
    for (const auto &p : d.partitions)
        parts.push_back({{"partition", nullable(p.partition)},
                         {"duplicate_keys", p.duplicateKeys},
                         {"extra_rows", p.extraRows}});
    return parts;
}

Json samplesJson(const std::vector<QJsonObject> &samples) {
    Json out = Json::array();
    for (const auto &o : samples)
        out.push_back(Json::parse(QJsonDocument(o).toJson(QJsonDocument::Compact).toStdString()));
    return out;
}

Json variantJson(const QVariant &v) {
    if (v.isNull())
        return nullptr;
    bool ok = false;
    const qlonglong i = v.toLongLong(&ok);
    if (ok && v.typeId() != QMetaType::Double)
        return i;
    const double d = v.toDouble(&ok);
    return ok ? Json(d) : Json(s(v.toString()));
}

Result<int> samplesOption(const Context &ctx) {
    return intOption(ctx, kSamplesOpt, 0, 1000);
}

Status runDuplicates(Context &ctx) {
    auto samples = samplesOption(ctx);
    if (!samples)
        return fail(samples.error());
    auto wd = datasetOf(ctx);
    if (!wd)
        return fail(wd.error());
    auto d = findDuplicates(wd->first.db, *wd->second, *samples);
    if (!d)
        return fail(d.error());
    if (ctx.json) {
        ctx.print({{"dataset", s(d->dataset)},
                   {"target", s(d->target)},
                   {"duplicate_keys", d->duplicateKeys},
                   {"extra_rows", d->extraRows},
                   {"partitions", partitionsJson(*d)},
                   {"samples", samplesJson(d->samples)}});
        return {};
    }
    ctx.out << d->dataset << " (" << d->target << "): " << thousands(d->duplicateKeys)
            << " duplicate keys, " << thousands(d->extraRows) << " extra rows\n";
    if (d->partitions.empty())
        return {};
    ctx.out << '\n';
    TextTable table({QStringLiteral("PARTITION"), QStringLiteral("DUPLICATE KEYS"),
                     QStringLiteral("EXTRA ROWS")},
                    {false, true, true});
    for (const auto &p : d->partitions)
        table.add(
            {partitionLabel(p.partition), thousands(p.duplicateKeys), thousands(p.extraRows)});
    table.print(ctx.out);
    if (!d->samples.empty()) {
        ctx.out << "\nExamples:\n";
        for (const auto &o : d->samples)
            ctx.out << "  " << QString::fromUtf8(QJsonDocument(o).toJson(QJsonDocument::Compact))
                    << '\n';
    }
    return {};
}

Status runFreeze(Context &ctx, bool freezing) {
    auto wd = datasetOf(ctx);
    if (!wd)
        return fail(wd.error());
    const Database &db = wd->first.db;
    const QString name = wd->second->name;
    const bool execute = ctx.given(QStringLiteral("execute"));
    const QString reason =
        ctx.given(QStringLiteral("reason")) ? ctx.parser.value(kReason) : QString();
    auto state = freezeInfo(db, name);
    if (!state)
        return fail(state.error());
    const bool wasFrozen = state->has_value();
    bool changed = false;
    if (execute) {
        auto r = freezing ? freeze(db, *wd->second, reason) : unfreeze(db, *wd->second, reason);
        if (!r)
            return fail(r.error());
        changed = *r;
        state = freezeInfo(db, name);
        if (!state)
            return fail(state.error());
    }
    const bool frozenNow = execute ? state->has_value() : wasFrozen;
    // Iceberg tables (Trino) have no triggers: the freeze binds Rewind alone.
    const bool inDatabase = !db.dialect().keepsControlApart();
    if (ctx.json) {
        Json j{{"dataset", s(name)},  {"executed", execute},
               {"frozen", frozenNow}, {"was_frozen", wasFrozen},
               {"changed", changed},  {"other_writers_refused", frozenNow && inDatabase}};
        if (*state) {
            j["frozen_at"] = s((*state)->frozenAt);
            j["os_user"] = s((*state)->osUser);
            j["reason"] = s((*state)->reason);
        }
        ctx.print(j);
        return {};
    }
    if (!execute) {
        if (freezing == wasFrozen)
            ctx.out << name << " is " << (wasFrozen ? "already frozen" : "not frozen")
                    << ": nothing to do.\n";
        else
            ctx.out << "Would " << (freezing ? "freeze " : "unfreeze ") << name
                    << ". Add --execute to do it.\n";
        return {};
    }
    if (!changed)
        ctx.out << name << " was " << (wasFrozen ? "already frozen" : "not frozen")
                << ": nothing changed.\n";
    else if (!freezing)
        ctx.out << name << " is unfrozen.\n";
    else if (inDatabase)
        ctx.out << name
                << " is frozen: every other writer's INSERT, UPDATE and DELETE on its "
                   "target is refused in the database, "
                   "and Rewind's runs refuse it, until rewindctl unfreeze.\n";
    else
        ctx.out << name
                << " is frozen: Rewind's runs refuse it until rewindctl unfreeze. Iceberg "
                   "tables have no triggers: writers outside Rewind are not stopped.\n";
    return {};
}

Json totalsJson(const std::vector<TotalsRow> &rows) {
    Json out = Json::array();
    for (const auto &t : rows) {
        Json sums = Json::object();
        for (const auto &[column, source, target] : t.sums)
            sums[s(column)] = {{"source", variantJson(source)}, {"target", variantJson(target)}};
        out.push_back({{"partition", nullable(t.partition)},
                       {"source_rows", t.sourceRows},
                       {"target_rows", t.targetRows},
                       {"sums", sums},
                       {"match", t.match}});
    }
    return out;
}

} // namespace

Json recoveryJson(const RecoveryResult &r) {
    Json steps = Json::array();
    for (const auto &st : r.steps)
        steps.push_back({{"step", s(enumName(st.step))},
                         {"status", s(enumName(st.status))},
                         {"detail", s(st.detail)}});
    Json j{{"dataset", s(r.dataset)},
           {"duplicate_keys", r.before.duplicateKeys},
           {"extra_rows", r.before.extraRows},
           {"partitions", partitionsJson(r.before)},
           {"totals_match", r.totalsMatch},
           {"unique_index_added", r.uniqueIndexAdded},
           {"executed", r.executed},
           {"status", s(enumName(r.status))},
           {"target", s(r.target)},
           {"unique_index", s(r.uniqueIndex)},
           {"unique_index_columns", Json::array()},
           {"run_id", r.rerunId.isNull() ? Json(nullptr) : Json(r.rerunId.toLongLong())},
           {"totals", totalsJson(r.totals)},
           {"steps", steps},
           {"samples", samplesJson(r.before.samples)},
           {"report", r.reportPath.isEmpty() ? Json(nullptr) : Json(s(r.reportPath))}};
    for (const QString &c : r.uniqueIndexColumns)
        j["unique_index_columns"].push_back(s(c));
    if (r.rerun && !r.rerun->planColumns.empty())
        j["rerun_columns"] = columnsJson(r.rerun->planColumns);
    if (r.after)
        j["after"] = {{"duplicate_keys", r.after->duplicateKeys},
                      {"extra_rows", r.after->extraRows}};
    if (!r.error.isEmpty())
        j["error"] = s(r.error);
    return j;
}

void printRecoveryText(Context &ctx, const RecoveryResult &r) {
    ctx.out << r.dataset << " (" << r.target << "): " << thousands(r.before.duplicateKeys)
            << " duplicate keys, " << thousands(r.before.extraRows) << " extra rows\n\n";
    TextTable table({QStringLiteral("STEP"), QStringLiteral("STATUS"), QStringLiteral("DETAIL")});
    for (const auto &st : r.steps)
        table.add({enumName(st.step), enumName(st.status), st.detail});
    table.print(ctx.out);
    ctx.out << "\nTotals " << (r.totalsMatch ? "match" : "do not match") << " the source"
            << (r.executed ? QString() : QStringLiteral(" (as the target is now)")) << ".\n";
    if (!r.reportPath.isEmpty())
        ctx.out << "Report: " << r.reportPath << '\n';
    if (!r.executed)
        ctx.out << "Dry run: nothing changed. Add --execute to recover.\n";
}

namespace {

Status runRecover(Context &ctx) {
    auto samples = samplesOption(ctx);
    if (!samples)
        return fail(samples.error());
    auto wd = datasetOf(ctx);
    if (!wd)
        return fail(wd.error());
    RecoverOptions o;
    o.execute = ctx.given(QStringLiteral("execute"));
    o.samples = *samples;
    if (ctx.given(QStringLiteral("report")))
        o.reportPath = ctx.parser.value(kReport);
    auto r = recover(wd->first.db, *wd->second, o);
    if (!r)
        return fail(r.error());
    if (ctx.json)
        ctx.print(recoveryJson(*r));
    else
        printRecoveryText(ctx, *r);
    ctx.reported = true;
    if (r->status == RecoveryStatus::Failed)
        return internalError(r->error);
    return {};
}

Status runRollback(Context &ctx) {
    auto runId = runIdOption(ctx);
    if (!runId)
        return fail(runId.error());
    const qint64 id = *runId;
    auto ws = workspace(ctx);
    if (!ws)
        return fail(ws.error());
    const bool execute = ctx.given(QStringLiteral("execute"));
    auto r = rollback(ws->db, ws->spec, id, execute);
    if (!r)
        return fail(r.error());
    if (ctx.json) {
        Json parts = Json::array();
        qint64 removed = 0, restored = 0;
        for (const auto &p : r->partitions) {
            parts.push_back({{"partition", nullable(p.partition)},
                             {"rows_removed", p.rowsRemoved},
                             {"rows_restored", p.rowsRestored},
                             {"restored", p.restored}});
            removed += p.rowsRemoved;
            restored += p.rowsRestored;
        }
        ctx.print(
            {{"run_id", r->runId},
             {"dataset", s(r->dataset)},
             {"mode", s(enumName(r->mode))},
             {"executed", r->executed},
             {"status", s(enumName(r->status))},
             {"partitions", parts},
             {"totals", {{"rows_removed", removed}, {"rows_restored", restored}}},
             {"schema_change", r->schemaChange.toJson(SchemaChangePolicy::AppendNewColumns)}});
        return {};
    }
    ctx.out << "Run " << r->runId << " of " << r->dataset << " (" << enumName(r->mode)
            << "): " << enumName(r->status) << "\n\n";
    TextTable table({QStringLiteral("PARTITION"), QStringLiteral("ROWS REMOVED"),
                     QStringLiteral("ROWS RESTORED"), QStringLiteral("RESTORED")},
                    {false, true, true, false});
    for (const auto &p : r->partitions)
        table.add({partitionLabel(p.partition), thousands(p.rowsRemoved), thousands(p.rowsRestored),
                   p.restored ? QStringLiteral("yes") : QStringLiteral("no")});
    table.print(ctx.out);
    if (!r->schemaChange.empty())
        ctx.out << "\nSchema: the run " << r->schemaChange.describe() << "; "
                << (r->executed ? "undone" : "the rollback undoes it") << ".\n";
    if (!r->executed)
        ctx.out << "\nDry run: nothing changed. Add --execute to restore these partitions to their "
                   "state before run "
                << r->runId << ".\n";
    return {};
}

Status runPrune(Context &ctx) {
    auto wd = datasetOf(ctx);
    if (!wd)
        return fail(wd.error());
    PruneOptions o;
    o.dataset = wd->second->name;
    o.execute = ctx.given(QStringLiteral("execute"));
    if (ctx.given(QStringLiteral("before")))
        o.before = ctx.parser.value(kBefore);
    if (ctx.given(QStringLiteral("keep"))) {
        auto keep =
            intOption(ctx, kKeep, 0, INT_MAX, QStringLiteral("a number of runs, 0 or more"));
        if (!keep)
            return fail(keep.error());
        o.keep = *keep;
    }
    auto r = pruneImages(wd->first.db, wd->first.spec, o);
    if (!r)
        return fail(r.error());
    qint64 rows = 0, leaves = 0;
    for (const PrunedRun &p : r->runs) {
        rows += p.imageRows;
        leaves += p.savedLeaves;
    }
    if (ctx.json) {
        Json runs = Json::array();
        for (const PrunedRun &p : r->runs)
            runs.push_back({{"run_id", p.runId},
                            {"status", s(p.status)},
                            {"finished_at", s(p.finishedAt)},
                            {"image_rows", p.imageRows},
                            {"saved_leaves", p.savedLeaves}});
        ctx.print(
            {{"dataset", s(r->dataset)},
             {"executed", r->executed},
             {"before", r->before.isEmpty() ? Json(nullptr) : Json(s(r->before))},
             {"keep", r->keep ? Json(*r->keep) : Json(nullptr)},
             {"runs", runs},
             {"totals",
              {{"runs", qint64(r->runs.size())}, {"image_rows", rows}, {"saved_leaves", leaves}}}});
        return {};
    }
    if (r->runs.empty()) {
        ctx.out << "No finished run of " << r->dataset
                << " has before-images to prune with these limits.\n";
        return {};
    }
    TextTable table({QStringLiteral("RUN"), QStringLiteral("STATUS"), QStringLiteral("FINISHED"),
                     QStringLiteral("IMAGE ROWS"), QStringLiteral("SAVED LEAVES")},
                    {true, false, false, true, true});
    for (const PrunedRun &p : r->runs)
        table.add({QString::number(p.runId), p.status, p.finishedAt, thousands(p.imageRows),
                   QString::number(p.savedLeaves)});
    table.print(ctx.out);
    ctx.out << "\n"
            << (r->executed ? "Pruned: " : "Would prune: ") << r->runs.size() << " run"
            << (r->runs.size() == 1 ? "" : "s") << ", " << thousands(rows) << " image rows, "
            << leaves << " saved leaves. "
            << (r->executed ? "These runs can no longer be rolled back.\n"
                            : "They could no longer be rolled back.\n\nDry run: nothing "
                              "changed. Add --execute to drop them.\n");
    return {};
}

} // namespace

std::vector<Command> recoveryCommands() {
    return {
        {QStringLiteral("duplicates"),
         QStringLiteral(
             "Duplicate keys in a dataset's target: per partition, with examples. Reads only."),
         withWorkspace({kDataset, kSamplesOpt}), runDuplicates},
        {QStringLiteral("freeze"),
         QStringLiteral(
             "Freeze a dataset's target: the database refuses every other writer, Rewind's runs "
             "refuse it, its recovery writes on (a dry run unless --execute)."),
         withWorkspace({kDataset, kReason, kExecute}),
         [](Context &ctx) { return runFreeze(ctx, true); }},
        {QStringLiteral("unfreeze"),
         QStringLiteral("Lift a dataset's freeze (a dry run unless --execute)."),
         withWorkspace({kDataset, kReason, kExecute}),
         [](Context &ctx) { return runFreeze(ctx, false); }},
        {QStringLiteral("recover"),
         QStringLiteral("Duplicate incident: freeze, find duplicates, re-run them by overwrite, "
                        "check totals, add a unique index, unfreeze."),
         withWorkspace({kDataset, kSamplesOpt, kReport, kExecute}), runRecover},
        {QStringLiteral("rollback"),
         QStringLiteral("Restore every partition a run published to its state before the run (dry "
                        "run unless --execute)."),
         withWorkspace({kRun, kExecute}), runRollback},
        {QStringLiteral("prune"),
         QStringLiteral("Drop the before-images (and a swap's saved leaves) of a dataset's "
                        "finished runs, which then cannot be rolled back (dry run unless "
                        "--execute)."),
         withWorkspace({kDataset, kBefore, kKeep, kExecute}), runPrune},
    };
}

} // namespace rw::cli
