#include "cli.h"

#include "batch.h"
#include "batchjson.h"
#include "demo.h"
#include "runs.h"
#include "partitions.h"
#include "spec.h"
#include "workspace.h"

#include <QCommandLineParser>
#include <QLocale>
#include <QStringBuilder>

#include <nlohmann/json.hpp>

#include <functional>

#include <unistd.h>

namespace rw::cli {

namespace {

using Json = nlohmann::ordered_json;

std::string s(const QString &text) { return text.toStdString(); }

Json nullable(const std::optional<QString> &value) { return value ? Json(s(*value)) : Json(nullptr); }

QString thousands(qint64 n)
{
    static const QLocale english(QLocale::English, QLocale::UnitedStates);
    return english.toString(n);
}

// A plain text table for people: left-aligned text, right-aligned numbers.
class TextTable {
public:
    explicit TextTable(QStringList header, QList<bool> numeric) : m_header(std::move(header)), m_numeric(std::move(numeric)) {}
    void add(QStringList row) { m_rows << std::move(row); }
    void print(QTextStream &out) const
    {
        QList<qsizetype> width;
        for (const QString &h : m_header)
            width << h.size();
        for (const auto &row : m_rows)
            for (qsizetype i = 0; i < row.size() && i < width.size(); ++i)
                width[i] = std::max(width[i], row[i].size());
        auto line = [&](const QStringList &cells) {
            QStringList padded;
            for (qsizetype i = 0; i < cells.size(); ++i)
                padded << (m_numeric.value(i) ? cells[i].rightJustified(width[i]) : cells[i].leftJustified(width[i]));
            out << padded.join(QStringLiteral("  ")).trimmed() << '\n';
        };
        line(m_header);
        for (const auto &row : m_rows)
            line(row);
    }

private:
    QStringList m_header;
    QList<bool> m_numeric;
    QList<QStringList> m_rows;
};

struct Context {
    QCommandLineParser &parser;
    QTextStream &out;
    QTextStream &err;
    bool json = false;
    bool reported = false; // the command already printed its result document

    void print(const Json &document) { out << QString::fromStdString(document.dump(2)) << '\n'; }
};

struct Command {
    QString name;
    QString summary;
    std::function<void(QCommandLineParser &)> options;
    std::function<Status(Context &)> run;
};

const QCommandLineOption kDb({QStringLiteral("db")}, QStringLiteral("Database: a SQLite path or sqlite:PATH."), QStringLiteral("DB"));
const QCommandLineOption kSpec({QStringLiteral("spec")}, QStringLiteral("Pipeline spec (JSON)."), QStringLiteral("SPEC"));
const QCommandLineOption kJson({QStringLiteral("json")}, QStringLiteral("Print exactly one JSON document on stdout."));
const QCommandLineOption kDataset({QStringLiteral("dataset")}, QStringLiteral("Dataset name from the spec."), QStringLiteral("D"));

void workspaceOptions(QCommandLineParser &p)
{
    p.addOption(kDb);
    p.addOption(kSpec);
}

Result<QString> required(const Context &ctx, const QCommandLineOption &option)
{
    const QString name = option.names().constFirst();
    if (!ctx.parser.isSet(option) || ctx.parser.value(option).isEmpty())
        return badInput(QStringLiteral("--%1 is required").arg(name));
    return ctx.parser.value(option);
}

Result<Workspace> workspace(const Context &ctx)
{
    auto db = required(ctx, kDb);
    if (!db)
        return fail(db.error());
    auto spec = required(ctx, kSpec);
    if (!spec)
        return fail(spec.error());
    return openWorkspace(*db, *spec);
}

// --- demo -------------------------------------------------------------------

const QCommandLineOption kOutDb({QStringLiteral("out-db")}, QStringLiteral("SQLite file to create."), QStringLiteral("PATH"));
const QCommandLineOption kOutSpec({QStringLiteral("out-spec")}, QStringLiteral("Spec file to write."), QStringLiteral("PATH"));
const QCommandLineOption kSeed({QStringLiteral("seed")}, QStringLiteral("Random seed (default 1): the same seed gives the same data."), QStringLiteral("N"), QStringLiteral("1"));
const QCommandLineOption kScale({QStringLiteral("scale")}, QStringLiteral("Size factor (default 1: about a million rows)."), QStringLiteral("N"), QStringLiteral("1"));
const QCommandLineOption kForce({QStringLiteral("force")}, QStringLiteral("Replace an existing --out-db."));

Status runDemo(Context &ctx)
{
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
        return badInput(QStringLiteral("--seed \"%1\": expected a non-negative integer").arg(ctx.parser.value(kSeed)));
    options.seed = seed;
    options.scale = ctx.parser.value(kScale).toDouble(&ok);
    if (!ok || options.scale <= 0)
        return badInput(QStringLiteral("--scale \"%1\": expected a positive number").arg(ctx.parser.value(kScale)));
    options.overwrite = ctx.parser.isSet(kForce);
    auto summary = demo::generate(options);
    if (!summary)
        return fail(summary.error());
    if (ctx.json) {
        Json tables = Json::array();
        for (const auto &t : summary->tables)
            tables.push_back({{"table", s(t.table)}, {"rows", t.rows}});
        ctx.print({{"db", s(options.dbPath)}, {"spec", s(options.specPath)}, {"seed", options.seed},
                   {"scale", options.scale}, {"tables", tables}, {"total_rows", summary->totalRows}});
        return {};
    }
    TextTable table({QStringLiteral("TABLE"), QStringLiteral("ROWS")}, {false, true});
    for (const auto &t : summary->tables)
        table.add({t.table, thousands(t.rows)});
    table.print(ctx.out);
    ctx.out << "\nWrote " << thousands(summary->totalRows) << " rows to " << options.dbPath << " and the spec to "
            << options.specPath << ".\nOpen it with:  rewind --db " << options.dbPath << " --spec " << options.specPath
            << '\n';
    return {};
}

// --- datasets, streams -------------------------------------------------------

Status runDatasets(Context &ctx)
{
    auto ws = workspace(ctx);
    if (!ws)
        return fail(ws.error());
    if (ctx.json) {
        Json list = Json::array();
        for (const auto &d : ws->spec.datasets) {
            Json key = Json::array();
            for (const QString &k : d.key)
                key.push_back(s(k));
            list.push_back({{"name", s(d.name)},
                            {"target", s(d.target)},
                            {"write", s(d.write)},
                            {"source", d.source.isEmpty() ? Json(nullptr) : Json(s(d.source))},
                            {"partition_column", d.partitioned() ? Json(s(d.partitionColumn)) : Json(nullptr)},
                            {"key", key}});
        }
        ctx.print({{"datasets", list}});
        return {};
    }
    TextTable table({QStringLiteral("DATASET"), QStringLiteral("SOURCE"), QStringLiteral("TARGET"), QStringLiteral("WRITE"),
                     QStringLiteral("PARTITION BY"), QStringLiteral("KEY")},
                    {});
    for (const auto &d : ws->spec.datasets)
        table.add({d.name, d.source.isEmpty() ? QStringLiteral("(transform)") : d.source, d.target, d.write,
                   d.partitioned() ? d.partitionColumn : QStringLiteral("-"), d.key.join(u',')});
    table.print(ctx.out);
    return {};
}

Status runStreams(Context &ctx)
{
    auto ws = workspace(ctx);
    if (!ws)
        return fail(ws.error());
    if (ctx.json) {
        Json list = Json::array();
        for (const auto &st : ws->spec.streams)
            list.push_back({{"name", s(st.name)}, {"log", s(st.log)}, {"sink", s(st.sink)}});
        ctx.print({{"streams", list}});
        return {};
    }
    TextTable table({QStringLiteral("STREAM"), QStringLiteral("LOG"), QStringLiteral("SINK"), QStringLiteral("FIELDS")}, {});
    for (const auto &st : ws->spec.streams) {
        QStringList fields;
        for (const auto &[name, path] : st.fields)
            fields << name;
        table.add({st.name, st.log, st.sink, fields.join(u',')});
    }
    table.print(ctx.out);
    return {};
}

// --- partitions ---------------------------------------------------------------

Status runPartitions(Context &ctx)
{
    auto name = required(ctx, kDataset);
    if (!name)
        return fail(name.error());
    auto ws = workspace(ctx);
    if (!ws)
        return fail(ws.error());
    auto dataset = ws->spec.requireDataset(*name);
    if (!dataset)
        return fail(dataset.error());
    auto parts = listPartitions(ws->db, **dataset);
    if (!parts)
        return fail(parts.error());
    if (ctx.json) {
        Json list = Json::array();
        for (const auto &p : *parts)
            list.push_back({{"partition", nullable(p.partition)},
                            {"source_rows", p.sourceRows},
                            {"target_rows", p.targetRows},
                            {"duplicate_keys", p.duplicateKeys},
                            {"status", s(p.status)},
                            {"last_run_id", p.lastRunId.isNull() ? Json(nullptr) : Json(p.lastRunId.toLongLong())},
                            {"last_published", p.lastPublished.isEmpty() ? Json(nullptr) : Json(s(p.lastPublished))}});
        ctx.print({{"dataset", s(*name)}, {"partitions", list}});
        return {};
    }
    TextTable table({QStringLiteral("PARTITION"), QStringLiteral("STATUS"), QStringLiteral("SOURCE ROWS"),
                     QStringLiteral("TARGET ROWS"), QStringLiteral("DUP KEYS"), QStringLiteral("LAST RUN"),
                     QStringLiteral("LAST PUBLISHED")},
                    {false, false, true, true, true, true, false});
    qint64 source = 0, target = 0, dupes = 0;
    for (const auto &p : *parts) {
        table.add({partitionLabel(p.partition), p.status, thousands(p.sourceRows), thousands(p.targetRows),
                   thousands(p.duplicateKeys), p.lastRunId.isNull() ? QStringLiteral("-") : p.lastRunId.toString(),
                   p.lastPublished.isEmpty() ? QStringLiteral("-") : p.lastPublished});
        source += p.sourceRows;
        target += p.targetRows;
        dupes += p.duplicateKeys;
    }
    const DatasetSpec &d = **dataset;
    ctx.out << d.name << ": " << (d.source.isEmpty() ? QStringLiteral("(transform)") : d.source) << " -> " << d.target
            << " (" << d.write << "), " << parts->size() << " partitions\n\n";
    table.print(ctx.out);
    ctx.out << "\ntotal: " << thousands(source) << " source rows, " << thousands(target) << " target rows, "
            << thousands(dupes) << " duplicate keys\n";
    return {};
}


// --- preview, run, resume, runs, run-show ------------------------------------

const QCommandLineOption kPartition({QStringLiteral("partition")}, QStringLiteral("A partition to cover (repeatable)."), QStringLiteral("P"));
const QCommandLineOption kFrom({QStringLiteral("from")}, QStringLiteral("First partition of a range (inclusive)."), QStringLiteral("P"));
const QCommandLineOption kTo({QStringLiteral("to")}, QStringLiteral("Last partition of a range (inclusive)."), QStringLiteral("P"));
const QCommandLineOption kStale({QStringLiteral("stale")}, QStringLiteral("Every stale partition (source changed since its publish)."));
const QCommandLineOption kSamples({QStringLiteral("samples")}, QStringLiteral("Add up to N example rows per category."), QStringLiteral("N"), QStringLiteral("0"));
const QCommandLineOption kPlan({QStringLiteral("plan")}, QStringLiteral("Execute exactly this stored plan (from preview); refused, exit 4, if its source changed."), QStringLiteral("ID"));
const QCommandLineOption kExecute({QStringLiteral("execute")}, QStringLiteral("Publish. Without it nothing is written but a plan."));
const QCommandLineOption kRun({QStringLiteral("run")}, QStringLiteral("Run id (from rewindctl runs)."), QStringLiteral("ID"));
const QCommandLineOption kLimit({QStringLiteral("limit")}, QStringLiteral("At most N rows (default 50)."), QStringLiteral("N"), QStringLiteral("50"));

void scopeOptions(QCommandLineParser &p)
{
    workspaceOptions(p);
    p.addOptions({kDataset, kPartition, kFrom, kTo, kStale, kSamples});
}

Result<BatchOptions> batchOptions(const Context &ctx, bool withScope)
{
    BatchOptions o;
    if (withScope) {
        o.scope.partitions = ctx.parser.values(kPartition);
        if (ctx.parser.isSet(kFrom))
            o.scope.from = ctx.parser.value(kFrom);
        if (ctx.parser.isSet(kTo))
            o.scope.to = ctx.parser.value(kTo);
        o.scope.stale = ctx.parser.isSet(kStale);
    }
    bool ok = false;
    o.samples = ctx.parser.value(kSamples).toInt(&ok);
    if (!ok || o.samples < 0 || o.samples > 1000)
        return badInput(QStringLiteral("--samples \"%1\": expected a number from 0 to 1000").arg(ctx.parser.value(kSamples)));
    if (ctx.parser.optionNames().contains(QStringLiteral("plan")))
        o.planId = ctx.parser.value(kPlan);
    o.execute = ctx.parser.optionNames().contains(QStringLiteral("execute"));
    // A live progress line on a terminal, unless the output is JSON.
    if (!ctx.json && ctx.err.device() != nullptr && ::isatty(STDERR_FILENO)) {
        QTextStream *err = &ctx.err;
        o.progress = [err](const Progress &p) {
            *err << "\r\033[K[" << p.partitionsDone << '/' << p.partitionsTotal << "] " << p.partition << ' ' << p.phase
                 << ", " << thousands(p.rowsDone) << " rows done";
            err->flush();
        };
    }
    return o;
}

void printRunText(Context &ctx, const RunResult &r)
{
    if (!ctx.json && ctx.err.device() != nullptr && ::isatty(STDERR_FILENO))
        ctx.err << "\r\033[K";
    ctx.out << r.dataset << " (" << r.mode << "): " << r.status;
    if (!r.runId.isNull())
        ctx.out << ", run " << r.runId.toString();
    ctx.out << ", plan " << r.planId << "\n\n";
    TextTable table({QStringLiteral("PARTITION"), QStringLiteral("SOURCE"), QStringLiteral("STAGED"), QStringLiteral("DUPES DROPPED"),
                     QStringLiteral("INSERT"), QStringLiteral("UPDATE"), QStringLiteral("DELETE"), QStringLiteral("UNCHANGED"),
                     QStringLiteral("PUBLISHED")},
                    {false, true, true, true, true, true, true, true, false});
    for (const auto &p : r.partitions)
        table.add({partitionLabel(p.partition), thousands(p.sourceRows), thousands(p.stagedRows), thousands(p.duplicatesDropped),
                   thousands(p.inserted), thousands(p.updated), thousands(p.deleted), thousands(p.unchanged),
                   p.published ? QStringLiteral("yes") : QStringLiteral("no")});
    const PartitionResult t = r.totals();
    table.add({QStringLiteral("total"), thousands(t.sourceRows), thousands(t.stagedRows), thousands(t.duplicatesDropped),
               thousands(t.inserted), thousands(t.updated), thousands(t.deleted), thousands(t.unchanged), QString()});
    table.print(ctx.out);
    int failed = 0;
    for (const auto &c : r.checks) {
        if (c.passed)
            continue;
        if (failed++ == 0)
            ctx.out << "\nFailed checks:\n";
        ctx.out << "  " << partitionLabel(c.partition) << "  " << c.name << ": " << c.detail << '\n';
    }
    if (!r.checks.empty() && failed == 0)
        ctx.out << '\n' << r.checks.size() << " checks passed.\n";
    if (!r.error.isEmpty())
        ctx.out << "\nError: " << r.error << '\n';
    if (!r.executed)
        ctx.out << "\nNothing was written but plan " << r.planId << ". To publish exactly this:\n  rewindctl run --db "
                << ctx.parser.value(kDb) << " --spec " << ctx.parser.value(kSpec) << " --dataset " << r.dataset << " --plan "
                << r.planId << " --execute\n";
    else if (r.status == QLatin1String("failed") || r.status == QLatin1String("cancelled"))
        ctx.out << "\nResume with: rewindctl resume --db " << ctx.parser.value(kDb) << " --spec " << ctx.parser.value(kSpec)
                << " --run " << r.runId.toString() << " --execute\n";
}

// Prints a run result and turns its status into the exit code.
Status report(Context &ctx, const RunResult &r)
{
    if (ctx.json)
        ctx.print(toJson(r));
    else
        printRunText(ctx, r);
    const int code = exitCodeOf(r);
    if (code == 0)
        return {};
    Error e{static_cast<Error::Code>(code), r.error.isEmpty() ? QStringLiteral("run %1: %2").arg(r.runId.toString(), r.status) : r.error};
    return fail(e);
}

Status runBatch(Context &ctx, bool forcePreview)
{
    auto name = required(ctx, kDataset);
    if (!name)
        return fail(name.error());
    auto options = batchOptions(ctx, true);
    if (!options)
        return fail(options.error());
    auto ws = workspace(ctx);
    if (!ws)
        return fail(ws.error());
    auto dataset = ws->spec.requireDataset(*name);
    if (!dataset)
        return fail(dataset.error());
    if (forcePreview)
        options->execute = false;
    auto result = forcePreview ? preview(ws->db, **dataset, *options) : run(ws->db, **dataset, *options);
    if (!result)
        return fail(result.error());
    ctx.reported = true;
    return report(ctx, *result);
}

Status runPreview(Context &ctx) { return runBatch(ctx, true); }
Status runRun(Context &ctx) { return runBatch(ctx, false); }

Result<qint64> runIdOption(const Context &ctx)
{
    auto text = required(ctx, kRun);
    if (!text)
        return fail(text.error());
    bool ok = false;
    const qint64 id = text->toLongLong(&ok);
    if (!ok || id <= 0)
        return badInput(QStringLiteral("--run \"%1\": expected a run id (a positive number)").arg(*text));
    return id;
}

Status runResume(Context &ctx)
{
    auto id = runIdOption(ctx);
    if (!id)
        return fail(id.error());
    auto options = batchOptions(ctx, false);
    if (!options)
        return fail(options.error());
    auto ws = workspace(ctx);
    if (!ws)
        return fail(ws.error());
    auto result = resume(ws->db, ws->spec, *id, *options);
    if (!result)
        return fail(result.error());
    ctx.reported = true;
    return report(ctx, *result);
}

Status runRuns(Context &ctx)
{
    bool ok = false;
    const int limit = ctx.parser.value(kLimit).toInt(&ok);
    if (!ok || limit <= 0)
        return badInput(QStringLiteral("--limit \"%1\": expected a positive number").arg(ctx.parser.value(kLimit)));
    auto ws = workspace(ctx);
    if (!ws)
        return fail(ws.error());
    auto runs = listRuns(ws->db, limit);
    if (!runs)
        return fail(runs.error());
    if (ctx.json) {
        Json list = Json::array();
        for (const auto &r : *runs)
            list.push_back({{"run_id", r.runId},
                            {"dataset", s(r.dataset)},
                            {"status", s(r.status)},
                            {"started_at", s(r.startedAt)},
                            {"finished_at", r.finishedAt.isEmpty() ? Json(nullptr) : Json(s(r.finishedAt))},
                            {"kind", s(r.kind)},
                            {"plan_id", r.planId.isEmpty() ? Json(nullptr) : Json(s(r.planId))},
                            {"os_user", s(r.osUser)}});
        ctx.print({{"runs", list}});
        return {};
    }
    TextTable table({QStringLiteral("RUN"), QStringLiteral("DATASET"), QStringLiteral("KIND"), QStringLiteral("STATUS"),
                     QStringLiteral("STARTED"), QStringLiteral("FINISHED"), QStringLiteral("USER")},
                    {true, false, false, false, false, false, false});
    for (const auto &r : *runs)
        table.add({QString::number(r.runId), r.dataset, r.kind, r.status, r.startedAt,
                   r.finishedAt.isEmpty() ? QStringLiteral("-") : r.finishedAt, r.osUser});
    table.print(ctx.out);
    return {};
}

Status runShow(Context &ctx)
{
    auto id = runIdOption(ctx);
    if (!id)
        return fail(id.error());
    auto ws = workspace(ctx);
    if (!ws)
        return fail(ws.error());
    auto result = runResult(ws->db, *id);
    if (!result)
        return fail(result.error());
    if (ctx.json) {
        ctx.print(toJson(*result));
        return {};
    }
    printRunText(ctx, *result);
    return {};
}

// --- the frame ------------------------------------------------------------------

const std::vector<Command> &commands()
{
    static const std::vector<Command> list = {
        {QStringLiteral("demo"), QStringLiteral("Write a demo warehouse and its spec, with staged incidents."),
         [](QCommandLineParser &p) { p.addOptions({kOutDb, kOutSpec, kSeed, kScale, kForce}); }, runDemo},
        {QStringLiteral("datasets"), QStringLiteral("List the spec's datasets."), workspaceOptions, runDatasets},
        {QStringLiteral("streams"), QStringLiteral("List the spec's streams."), workspaceOptions, runStreams},
        {QStringLiteral("partitions"), QStringLiteral("Source rows, target rows, duplicate keys and status per partition."),
         [](QCommandLineParser &p) {
             workspaceOptions(p);
             p.addOption(kDataset);
         },
         runPartitions},
        {QStringLiteral("preview"), QStringLiteral("Stage, dedupe, diff and check partitions; store a plan. Writes no data."), scopeOptions, runPreview},
        {QStringLiteral("run"), QStringLiteral("Re-run partitions: a preview unless --execute; publishes each partition atomically."),
         [](QCommandLineParser &p) {
             scopeOptions(p);
             p.addOptions({kPlan, kExecute});
         },
         runRun},
        {QStringLiteral("resume"), QStringLiteral("Continue an interrupted, cancelled or failed run from its first unfinished partition."),
         [](QCommandLineParser &p) {
             workspaceOptions(p);
             p.addOptions({kRun, kExecute, kSamples});
         },
         runResume},
        {QStringLiteral("runs"), QStringLiteral("List runs, newest first."),
         [](QCommandLineParser &p) {
             workspaceOptions(p);
             p.addOption(kLimit);
         },
         runRuns},
        {QStringLiteral("run-show"), QStringLiteral("One run: its plan, per-partition results, gate results and error."),
         [](QCommandLineParser &p) {
             workspaceOptions(p);
             p.addOption(kRun);
         },
         runShow},
    };
    return list;
}

QString usage()
{
    QString text = QStringLiteral("Usage: rewindctl COMMAND [options]\n\n"
                                  "Rewind's command-line twin: browse, preview and safely re-run data pipelines.\n\n"
                                  "Commands:\n");
    for (const auto &c : commands())
        text += QStringLiteral("  ") % c.name.leftJustified(12) % c.summary % u'\n';
    text += QStringLiteral("\nRun 'rewindctl COMMAND --help' for a command's options.\n"
                           "Exit codes: 0 success (a dry run included), 1 failure, 2 bad input, 3 a quality check "
                           "failed, 4 the plan is stale.\n");
    return text;
}

} // namespace

int run(const QStringList &arguments, QTextStream &out, QTextStream &err)
{
    const QStringList args = arguments.mid(1);
    if (args.isEmpty()) {
        err << usage();
        return 2;
    }
    const QString name = args.constFirst();
    if (name == QLatin1String("--help") || name == QLatin1String("-h") || name == QLatin1String("help")) {
        out << usage();
        return 0;
    }
    const auto &all = commands();
    const auto command = std::find_if(all.begin(), all.end(), [&](const Command &c) { return c.name == name; });
    if (command == all.end()) {
        err << "rewindctl: unknown command \"" << name << "\"\n\n" << usage();
        return 2;
    }

    QCommandLineParser parser;
    parser.setApplicationDescription(command->summary);
    parser.setSingleDashWordOptionMode(QCommandLineParser::ParseAsLongOptions);
    const QCommandLineOption help({QStringLiteral("h"), QStringLiteral("help")}, QStringLiteral("Show this help."));
    parser.addOption(help);
    parser.addOption(kJson);
    command->options(parser);
    QStringList toParse = args;
    toParse[0] = QStringLiteral("rewindctl ") + name; // argv[0] for the help text
    if (!parser.parse(toParse)) {
        err << "rewindctl " << name << ": " << parser.errorText() << "\nRun 'rewindctl " << name << " --help'.\n";
        return 2;
    }
    if (parser.isSet(help)) {
        out << parser.helpText();
        return 0;
    }
    if (!parser.positionalArguments().isEmpty()) {
        err << "rewindctl " << name << ": unexpected argument \"" << parser.positionalArguments().constFirst()
            << "\"\nRun 'rewindctl " << name << " --help'.\n";
        return 2;
    }

    Context ctx{parser, out, err, parser.isSet(kJson)};
    const Status result = command->run(ctx);
    if (result)
        return 0;
    const Error &error = result.error();
    err << "rewindctl " << name << ": " << error.message << '\n';
    if (ctx.json && !ctx.reported)
        ctx.print({{"error", {{"exit_code", error.exitCode()}, {"message", s(error.message)}}}});
    return error.exitCode();
}

int run(const QStringList &arguments)
{
    QTextStream out(stdout);
    QTextStream err(stderr);
    return run(arguments, out, err);
}

} // namespace rw::cli
