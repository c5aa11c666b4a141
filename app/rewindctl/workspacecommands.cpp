// rewindctl demo, datasets, streams, partitions.
#include "app/rewindctl/clisupport.h"
#include "core/batch/partitions.h"
#include "core/dbt/dbtproject.h"
#include "core/dbt/drift.h"
#include "core/dbt/runresults.h"
#include "core/demo/demo.h"
#include "core/recovery/recovery.h"

#include <QHash>
#include <QStringBuilder>
#include <algorithm>

namespace rw::cli {

namespace {

// --- demo -------------------------------------------------------------------

const QCommandLineOption
    kOutDb({QStringLiteral("out-db")},
           QStringLiteral("SQLite file to create, or an existing PostgreSQL database "
                          "(postgresql://user@host:port/db) to fill."),
           QStringLiteral("PATH"));
const QCommandLineOption kOutSpec({QStringLiteral("out-spec")},
                                  QStringLiteral("Spec file to write."), QStringLiteral("PATH"));
const QCommandLineOption
    kSeed({QStringLiteral("seed")},
          QStringLiteral("Random seed (default 1): the same seed gives the same data."),
          QStringLiteral("N"), QStringLiteral("1"));
const QCommandLineOption kScale({QStringLiteral("scale")},
                                QStringLiteral("Size factor (default 1: about a million rows)."),
                                QStringLiteral("N"), QStringLiteral("1"));
const QCommandLineOption kForce({QStringLiteral("force")},
                                QStringLiteral("Replace an existing --out-db (PostgreSQL: drop the "
                                               "demo's tables and the schema rewind first)."));

Status runDemo(Context &ctx) {
    demo::Options options;
    auto outDb = required(ctx, kOutDb);
    if (!outDb)
        return fail(outDb.error());
    auto outSpec = required(ctx, kOutSpec);
    if (!outSpec)
        return fail(outSpec.error());
    options.dbPath = *outDb;
    options.specPath = *outSpec;
    bool ok = false;
    const uint seed = ctx.parser.value(kSeed).toUInt(&ok);
    if (!ok)
        return badInput(QStringLiteral("--seed \"%1\": expected a non-negative integer")
                            .arg(ctx.parser.value(kSeed)));
    options.seed = seed;
    options.scale = ctx.parser.value(kScale).toDouble(&ok);
    if (!ok || options.scale <= 0)
        return badInput(QStringLiteral("--scale \"%1\": expected a positive number")
                            .arg(ctx.parser.value(kScale)));
    options.overwrite = ctx.parser.isSet(kForce);
    auto summary = demo::generate(options);
    if (!summary)
        return fail(summary.error());
    // Never a password: the database as it may be written down.
    const auto parsed = DatabaseUrl::parse(options.dbPath);
    const QString shownDb = parsed ? parsed->withoutPassword() : options.dbPath;
    if (ctx.json) {
        Json tables = Json::array();
        for (const auto &t : summary->tables)
            tables.push_back({{"table", s(t.table)}, {"rows", t.rows}});
        ctx.print({{"db", s(shownDb)},
                   {"spec", s(options.specPath)},
                   {"seed", options.seed},
                   {"scale", options.scale},
                   {"tables", tables},
                   {"total_rows", summary->totalRows}});
        return {};
    }
    TextTable table({QStringLiteral("TABLE"), QStringLiteral("ROWS")}, {false, true});
    for (const auto &t : summary->tables)
        table.add({t.table, thousands(t.rows)});
    table.print(ctx.out);
    ctx.out << "\nWrote " << thousands(summary->totalRows) << " rows to " << shownDb
            << " and the spec to " << options.specPath << ".\nOpen it with:  rewind --db "
            << shownDb << " --spec " << options.specPath << '\n';
    return {};
}

// --- datasets, streams -------------------------------------------------------

const QCommandLineOption
    kDbtManifest({QStringLiteral("dbt")},
                 QStringLiteral("A newer dbt manifest, or the project's folder (dbt parses it: "
                                "dbt on PATH), to flag the datasets whose model changed since "
                                "their import (default: the manifest the spec names)."),
                 QStringLiteral("MANIFEST|PROJECT_DIR"));

// The spec's dbt datasets against a manifest: --dbt, or the spec's own
// (which may have moved: then a note, not a failure).
struct DbtDrift {
    QString manifest;
    QHash<QString, dbt::ModelDrift> byDataset;
    QString note; // why the spec's own manifest was not compared

    Json json(const DatasetSpec &d) const {
        if (!d.dbt)
            return nullptr;
        Json o{{"unique_id", s(d.dbt->uniqueId)},
               {"checksum", d.dbt->checksum.isEmpty() ? Json(nullptr) : Json(s(d.dbt->checksum))},
               {"manifest_checksum", nullptr},
               {"model", nullptr}};
        if (const auto it = byDataset.constFind(d.name); it != byDataset.cend()) {
            if (!it->current.isEmpty())
                o["manifest_checksum"] = s(it->current);
            o["model"] = s(dbt::stateName(it->state));
        }
        return o;
    }
};

Result<DbtDrift> dbtDrift(Context &ctx, const Spec &spec) {
    DbtDrift out;
    QString given = ctx.given(QStringLiteral("dbt")) ? ctx.parser.value(kDbtManifest) : QString();
    if (dbt::isProjectDir(given)) {
        // The models' checksums as the project holds them now: dbt parse
        // (no warehouse needed) into a folder of its own beside the spec.
        dbt::ProjectOptions project;
        project.projectDir = given;
        project.outputDir = dbt::outputDirFor(spec.path, given) % QStringLiteral(".parsed");
        auto parsed = dbt::compileProject(project, true);
        if (!parsed)
            return fail(parsed.error());
        given = *parsed;
    }
    out.manifest = dbt::manifestFor(spec, given);
    if (out.manifest.isEmpty() ||
        std::none_of(spec.datasets.begin(), spec.datasets.end(),
                     [](const DatasetSpec &d) { return d.dbt.has_value(); }))
        return out;
    auto models = dbt::modelDrift(spec, out.manifest);
    if (!models && !given.isEmpty())
        return fail(models.error());
    if (models)
        for (const auto &m : *models)
            out.byDataset.insert(m.dataset, m);
    else
        out.note = models.error().message;
    return out;
}

Status runDatasets(Context &ctx) {
    auto ws = specWorkspace(ctx);
    if (!ws)
        return fail(ws.error());
    auto found = dbtDrift(ctx, ws->spec);
    if (!found)
        return fail(found.error());
    const QString &manifest = found->manifest;
    const QHash<QString, dbt::ModelDrift> &drift = found->byDataset;
    const QString &driftNote = found->note;
    const auto dbtJson = [&](const DatasetSpec &d) { return found->json(d); };
    if (ctx.json) {
        Json list = Json::array();
        for (const auto &d : ws->spec.datasets) {
            Json key = Json::array();
            for (const QString &k : d.key)
                key.push_back(s(k));
            Json fedBy = Json::array();
            for (const StreamSpec &st : d.feeds)
                fedBy.push_back(s(st.name));
            list.push_back(
                {{"name", s(d.name)},
                 {"target", s(d.target)},
                 {"write", s(enumName(d.write))},
                 {"source", d.source.isEmpty() ? Json(nullptr) : Json(s(d.source))},
                 {"partition_column", d.partitioned() ? Json(s(d.partitionColumn)) : Json(nullptr)},
                 {"key", key},
                 {"fed_by", fedBy},
                 {"broken", ws->spec.broken.contains(QStringLiteral("dataset:") + d.name)
                                ? Json(s(ws->spec.brokenReason(QStringLiteral("dataset"), d.name)))
                                : Json(nullptr)},
                 {"dbt", dbtJson(d)}});
        }
        Json out{{"datasets", list}};
        if (!manifest.isEmpty())
            out["dbt_manifest"] = s(manifest);
        ctx.print(out);
        return {};
    }
    const bool anyDbt = std::any_of(ws->spec.datasets.begin(), ws->spec.datasets.end(),
                                    [](const DatasetSpec &d) { return d.dbt.has_value(); });
    QStringList headers{QStringLiteral("DATASET"),      QStringLiteral("SOURCE"),
                        QStringLiteral("TARGET"),       QStringLiteral("WRITE"),
                        QStringLiteral("PARTITION BY"), QStringLiteral("KEY")};
    const bool anyFed = std::any_of(ws->spec.datasets.begin(), ws->spec.datasets.end(),
                                    [](const DatasetSpec &d) { return !d.feeds.empty(); });
    if (anyFed)
        headers << QStringLiteral("FED BY");
    if (anyDbt)
        headers << QStringLiteral("DBT MODEL");
    TextTable table(headers, {});
    for (const auto &d : ws->spec.datasets) {
        QStringList row{d.name,
                        d.source.isEmpty() ? QStringLiteral("(transform)") : d.source,
                        d.target,
                        enumName(d.write),
                        d.partitioned() ? (d.partitionGranularity.isEmpty()
                                               ? d.partitionColumn
                                               : d.partitionGranularity % QStringLiteral(" of ") %
                                                     d.partitionColumn)
                                        : QStringLiteral("-"),
                        d.key.join(u',')};
        if (anyFed) {
            QStringList feeds;
            for (const StreamSpec &st : d.feeds)
                feeds << st.name;
            row << (feeds.isEmpty() ? QStringLiteral("-") : feeds.join(u','));
        }
        if (anyDbt) {
            const auto it = drift.constFind(d.name);
            row << (!d.dbt               ? QStringLiteral("-")
                    : it == drift.cend() ? QStringLiteral("imported")
                    : it->state == dbt::ModelDrift::State::Changed
                        ? QStringLiteral("CHANGED since import")
                    : it->state == dbt::ModelDrift::State::Gone
                        ? QStringLiteral("GONE from manifest")
                        : QStringLiteral("current"));
        }
        table.add(row);
    }
    table.print(ctx.out);
    if (!driftNote.isEmpty())
        ctx.out << "\ndbt manifest not compared: " << driftNote << "\n";
    if (std::any_of(drift.cbegin(), drift.cend(), [](const dbt::ModelDrift &m) {
            return m.state != dbt::ModelDrift::State::Current;
        }))
        ctx.out << "\nSome dbt models changed since their import: `rewindctl init --dbt "
                << manifest << " --update " << ws->spec.path << "` imports them again.\n";
    for (const auto &d : ws->spec.datasets)
        if (const QString why = ws->spec.brokenReason(QStringLiteral("dataset"), d.name);
            !why.isEmpty())
            ctx.out << "\nBROKEN " << d.name << ": " << why << " (commands on it are refused)\n";
    return {};
}

Status runStreams(Context &ctx) {
    auto ws = specWorkspace(ctx);
    if (!ws)
        return fail(ws.error());
    if (ctx.json) {
        Json list = Json::array();
        for (const auto &st : ws->spec.streams) {
            Json one = {{"name", s(st.name)},
                        {"log", st.kafka ? Json(nullptr) : Json(s(st.log))},
                        {"sink", s(st.sink)}};
            if (st.kafka) { // never its config's values: they may be secrets
                Json groups = Json::array();
                for (const QString &g : st.kafka->groups)
                    groups.push_back(s(g));
                one["kafka"] = {{"bootstrap", s(st.kafka->bootstrap)},
                                {"topic", s(st.kafka->topic)},
                                {"groups", groups},
                                {"dlq_topic", st.kafka->dlqTopic.isEmpty()
                                                  ? Json(nullptr)
                                                  : Json(s(st.kafka->dlqTopic))}};
                one["event_id"] = s(st.eventId);
            }
            one["broken"] = ws->spec.broken.contains(QStringLiteral("stream:") + st.name)
                                ? Json(s(ws->spec.brokenReason(QStringLiteral("stream"), st.name)))
                                : Json(nullptr);
            list.push_back(one);
        }
        ctx.print({{"streams", list}});
        return {};
    }
    TextTable table({QStringLiteral("STREAM"), QStringLiteral("LOG OR TOPIC"),
                     QStringLiteral("SINK"), QStringLiteral("FIELDS")},
                    {});
    for (const auto &st : ws->spec.streams) {
        QStringList fields;
        for (const auto &[name, path] : st.fields)
            fields << name;
        table.add({st.name, st.kafka ? QStringLiteral("kafka:") % st.kafka->topic : st.log, st.sink,
                   fields.join(u',')});
    }
    table.print(ctx.out);
    for (const auto &st : ws->spec.streams)
        if (const QString why = ws->spec.brokenReason(QStringLiteral("stream"), st.name);
            !why.isEmpty())
            ctx.out << "\nBROKEN " << st.name << ": " << why << " (commands on it are refused)\n";
    return {};
}

// --- partitions ---------------------------------------------------------------

const QCommandLineOption
    kDbtResults({QStringLiteral("dbt-results")},
                QStringLiteral("dbt's run_results.json: mark the partitions of the batches, and "
                               "the models, its run failed (a test's model by the manifest.json "
                               "beside it, else the spec's)."),
                QStringLiteral("RUN_RESULTS"));

Status runPartitions(Context &ctx) {
    auto wd = datasetOf(ctx);
    if (!wd)
        return fail(wd.error());
    const DatasetSpec &d = *wd->second;
    auto drift = dbtDrift(ctx, wd->first.spec);
    if (!drift)
        return fail(drift.error());
    auto parts = listPartitions(wd->first.db, d);
    if (!parts)
        return fail(parts.error());
    auto frozen = freezeInfo(wd->first.db, d.name);
    if (!frozen)
        return fail(frozen.error());
    std::optional<dbt::RunResults> results;
    if (ctx.given(QStringLiteral("dbt-results"))) {
        if (!d.dbt)
            return badInput(QStringLiteral("--dbt-results: dataset \"%1\" was not imported from a "
                                           "dbt model (its spec has no \"dbt\")")
                                .arg(d.name));
        auto read = dbt::loadRunResults(ctx.parser.value(kDbtResults),
                                        dbt::manifestFor(wd->first.spec, QString()));
        if (!read)
            return fail(read.error());
        results = std::move(*read);
    }
    const auto dbtFailure = [&](const PartitionInfo &p) -> std::optional<QString> {
        return results ? dbt::failureOf(*results, d, p.partition) : std::nullopt;
    };
    if (ctx.json) {
        Json list = Json::array();
        for (const auto &p : *parts)
            list.push_back({{"partition", nullable(p.partition)},
                            {"source_rows", p.sourceRows},
                            {"target_rows", p.targetRows},
                            {"duplicate_keys", p.duplicateKeys},
                            {"status", s(enumName(p.status))},
                            {"last_run_id",
                             p.lastRunId.isNull() ? Json(nullptr) : Json(p.lastRunId.toLongLong())},
                            {"last_published",
                             p.lastPublished.isEmpty() ? Json(nullptr) : Json(s(p.lastPublished))},
                            {"schema_behind", strings(p.schemaBehind)}});
        for (std::size_t i = 0; i < parts->size(); ++i) {
            const PartitionInfo &p = (*parts)[i];
            if (!p.leaf.isEmpty()) {
                list[i]["leaf"] = s(p.leaf);
                list[i]["leaf_bounds"] = s(p.leafBounds);
            }
            if (!p.snapshot.isEmpty())
                list[i]["last_snapshot"] = {{"snapshot_id", s(p.snapshot)},
                                            {"committed_at", s(p.snapshotAt)},
                                            {"committed_by", s(p.snapshotBy)}};
            if (results) {
                const auto why = dbtFailure(p);
                list[i]["dbt_failed"] = why.has_value();
                if (why)
                    list[i]["dbt_message"] = s(*why);
            }
        }
        Json j{{"dataset", s(d.name)}, {"partitions", list}};
        if (results)
            j["dbt_results"] = {{"path", s(results->path)},
                                {"dbt_version", s(results->dbtVersion)},
                                {"generated_at", s(results->generatedAt)},
                                {"unattributed_tests", strings(results->unattributedTests)}};
        if (d.dbt)
            j["dbt"] = drift->json(d);
        j["frozen"] = *frozen ? Json{{"frozen_at", s((*frozen)->frozenAt)},
                                     {"os_user", s((*frozen)->osUser)},
                                     {"reason", s((*frozen)->reason)}}
                              : Json(nullptr);
        ctx.print(j);
        return {};
    }
    // A partitioned PostgreSQL target: each partition's leaf and its bound too.
    const bool leaves = std::any_of(parts->begin(), parts->end(),
                                    [](const PartitionInfo &p) { return !p.leaf.isEmpty(); });
    QStringList header{QStringLiteral("PARTITION"),      QStringLiteral("STATUS"),
                       QStringLiteral("SOURCE ROWS"),    QStringLiteral("TARGET ROWS"),
                       QStringLiteral("DUP KEYS"),       QStringLiteral("LAST RUN"),
                       QStringLiteral("LAST PUBLISHED"), QStringLiteral("SCHEMA BEHIND")};
    QList<bool> numeric{false, false, true, true, true, true, false, false};
    if (leaves) {
        header << QStringLiteral("LEAF") << QStringLiteral("BOUNDS");
        numeric << false << false;
    }
    // An Iceberg target (Trino): each partition's last snapshot and what committed it.
    const bool snapshots = std::any_of(
        parts->begin(), parts->end(), [](const PartitionInfo &p) { return !p.snapshot.isEmpty(); });
    if (snapshots) {
        header << QStringLiteral("LAST SNAPSHOT") << QStringLiteral("COMMITTED BY");
        numeric << false << false;
    }
    if (results) {
        header << QStringLiteral("DBT");
        numeric << false;
    }
    QStringList dbtFailed; // "partition: why", listed under the table
    TextTable table(header, numeric);
    qint64 source = 0, target = 0, dupes = 0;
    for (const auto &p : *parts) {
        QStringList row{partitionLabel(p.partition),
                        enumName(p.status),
                        thousands(p.sourceRows),
                        thousands(p.targetRows),
                        thousands(p.duplicateKeys),
                        p.lastRunId.isNull() ? QStringLiteral("-") : p.lastRunId.toString(),
                        p.lastPublished.isEmpty() ? QStringLiteral("-") : p.lastPublished,
                        p.schemaBehind.isEmpty() ? QStringLiteral("-")
                                                 : p.schemaBehind.join(QStringLiteral(","))};
        if (leaves)
            row << (p.leaf.isEmpty() ? QStringLiteral("-") : p.leaf)
                << (p.leafBounds.isEmpty()
                        ? QStringLiteral("-")
                        : QString(p.leafBounds).remove(QStringLiteral("FOR VALUES ")));
        if (snapshots)
            row << (p.snapshotAt.isEmpty() ? QStringLiteral("-") : p.snapshotAt)
                << (p.snapshotBy.isEmpty() ? QStringLiteral("-") : p.snapshotBy);
        if (results) {
            const auto why = dbtFailure(p);
            row << (why ? QStringLiteral("failed") : QStringLiteral("-"));
            if (why)
                dbtFailed << partitionLabel(p.partition) % QStringLiteral(": ") % *why;
        }
        table.add(row);
        source += p.sourceRows;
        target += p.targetRows;
        dupes += p.duplicateKeys;
    }
    ctx.out << d.name << ": " << (d.source.isEmpty() ? QStringLiteral("(transform)") : d.source)
            << " -> " << d.target << " (" << enumName(d.write) << "), " << parts->size()
            << " partitions\n\n";
    if (const auto it = drift->byDataset.constFind(d.name);
        it != drift->byDataset.cend() && it->state != dbt::ModelDrift::State::Current)
        ctx.out << "dbt model " << it->uniqueId
                << (it->state == dbt::ModelDrift::State::Gone
                        ? QStringLiteral(" is gone from ") % drift->manifest
                        : QStringLiteral(" changed since its import (checksum %1, now %2)")
                              .arg(it->imported, it->current))
                << ": `rewindctl init --dbt " << drift->manifest << " --update "
                << wd->first.spec.path << "` imports it again\n\n";
    if (*frozen)
        ctx.out << "FROZEN since " << (*frozen)->frozenAt << " by " << (*frozen)->osUser
                << ((*frozen)->reason.isEmpty() ? QString()
                                                : QStringLiteral(" (") % (*frozen)->reason % u')')
                << ": every writer but Rewind's recovery is refused; rewindctl unfreeze --dataset "
                << d.name << " --execute lifts it\n\n";
    table.print(ctx.out);
    ctx.out << "\ntotal: " << thousands(source) << " source rows, " << thousands(target)
            << " target rows, " << thousands(dupes) << " duplicate keys\n";
    if (results) {
        ctx.out << "\ndbt's run (" << results->path << ", " << results->generatedAt
                << "): " << dbtFailed.size() << " partitions to redo\n";
        for (const QString &line : dbtFailed)
            ctx.out << "  " << line << '\n';
        for (const QString &test : results->unattributedTests)
            ctx.out << "  a failed test no manifest attributes to a model: " << test << '\n';
        if (!dbtFailed.isEmpty())
            ctx.out << "Preview them: rewindctl preview --db " << shownDb(ctx) << " --spec "
                    << wd->first.spec.path << " --dataset " << d.name << " --dbt-results "
                    << results->path << '\n';
    }
    return {};
}

} // namespace

std::vector<Command> workspaceCommands() {
    return {
        {QStringLiteral("demo"),
         QStringLiteral("Write a demo warehouse and its spec, with staged incidents."),
         [](QCommandLineParser &p) {
             p.addOptions({kOutDb, kOutSpec, kSeed, kScale, kForce});
         },
         runDemo},
        {QStringLiteral("datasets"),
         QStringLiteral("List the spec's datasets (and dbt models changed since their import)."),
         withWorkspace({kDbtManifest}), runDatasets},
        {QStringLiteral("streams"), QStringLiteral("List the spec's streams."), workspaceOptions,
         runStreams},
        {QStringLiteral("partitions"),
         QStringLiteral("Source rows, target rows, duplicate keys and status per partition."),
         withWorkspace({kDataset, kDbtManifest, kDbtResults}), runPartitions},
    };
}

} // namespace rw::cli
