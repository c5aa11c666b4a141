// rewindctl init --dbt: a spec from a dbt project's manifest, or from its
// folder (dbt compiles it first).
#include "app/rewindctl/clisupport.h"
#include "core/dbt/dbtimport.h"

#include <QFileInfo>
#include <QStringBuilder>

namespace rw::cli {

namespace {

const QCommandLineOption
    kDbt({QStringLiteral("dbt")},
         QStringLiteral("The project's folder (with dbt_project.yml: dbt compiles it, a full "
                        "refresh, into .rewind-dbt/ beside the spec) or its compiled "
                        "target/manifest.json (dbt schema v10, v11 or v12). Given a second "
                        "time: the dbt program (default: dbt on PATH)."),
         QStringLiteral("PROJECT_DIR|MANIFEST"));
const QCommandLineOption kProfilesDir({QStringLiteral("profiles-dir")},
                                      QStringLiteral("dbt's --profiles-dir for the project."),
                                      QStringLiteral("DIR"));
const QCommandLineOption kTarget({QStringLiteral("target")},
                                 QStringLiteral("dbt's --target (a profile's output)."),
                                 QStringLiteral("T"));
const QCommandLineOption kVars({QStringLiteral("vars")},
                               QStringLiteral("dbt's --vars, YAML or JSON text."),
                               QStringLiteral("YAML"));
const QCommandLineOption
    kOut({QStringLiteral("out")},
         QStringLiteral("The spec to write (default: rewind.json in the current "
                        "directory)."),
         QStringLiteral("SPEC"));
const QCommandLineOption kForce({QStringLiteral("force")},
                                QStringLiteral("Replace an existing --out."));

const QCommandLineOption kUpdate({QStringLiteral("update")},
                                 QStringLiteral("Import again into this spec: its dbt datasets "
                                                "refreshed, the ones written by hand kept."),
                                 QStringLiteral("SPEC"));

Json notMapped(const dbt::MappedNode &n) {
    Json out = Json::array();
    for (const auto &[id, why] : n.unmappedTests)
        out.push_back({{"unique_id", s(id)}, {"reason", s(why)}});
    return out;
}

// --dbt given once or twice: the project folder or manifest, and the dbt
// program, told apart by what each names (in either order).
Status readDbtPaths(Context &ctx, dbt::ImportOptions &options) {
    const QStringList given = ctx.parser.values(kDbt);
    if (given.isEmpty())
        return badInput(QStringLiteral("--dbt is required (a dbt project folder or its "
                                       "target/manifest.json)"));
    if (given.size() > 2)
        return badInput(QStringLiteral("--dbt given %1 times: give the project folder or "
                                       "manifest, and at most once more the dbt program")
                            .arg(given.size()));
    QString source, program;
    for (const QString &path : given) {
        const QFileInfo info(path);
        const bool isProgram = info.isFile() && info.isExecutable() &&
                               !path.endsWith(QLatin1String(".json"), Qt::CaseInsensitive);
        QString &slot = isProgram && given.size() == 2 ? program : source;
        if (!slot.isEmpty())
            return badInput(QStringLiteral("--dbt %1 and --dbt %2: give one project folder or "
                                           "manifest, and one dbt program")
                                .arg(given[0], given[1]));
        slot = path;
    }
    if (source.isEmpty())
        return badInput(QStringLiteral("--dbt: no project folder or manifest among %1")
                            .arg(given.join(QStringLiteral(", "))));
    const bool folder = QFileInfo(source).isDir();
    if (folder && !dbt::isProjectDir(source))
        return badInput(QStringLiteral("--dbt %1: a folder without dbt_project.yml (give a dbt "
                                       "project folder or its target/manifest.json)")
                            .arg(source));
    for (const QString &name :
         {QStringLiteral("profiles-dir"), QStringLiteral("target"), QStringLiteral("vars")})
        if (!folder && ctx.given(name))
            return badInput(QStringLiteral("--%1 is for a project folder (dbt compiles it), and "
                                           "--dbt %2 is a manifest")
                                .arg(name, source));
    if (!folder && !program.isEmpty())
        return badInput(QStringLiteral("--dbt %1: a dbt program is for a project folder, and "
                                       "--dbt %2 is a manifest")
                            .arg(program, source));
    if (folder) {
        options.project.projectDir = source;
        options.project.executable = program;
        if (ctx.given(QStringLiteral("profiles-dir")))
            options.project.profilesDir = ctx.parser.value(kProfilesDir);
        if (ctx.given(QStringLiteral("target")))
            options.project.target = ctx.parser.value(kTarget);
        if (ctx.given(QStringLiteral("vars")))
            options.project.vars = ctx.parser.value(kVars);
    } else {
        options.manifest = source;
    }
    return {};
}

Status runInit(Context &ctx) {
    dbt::ImportOptions options;
    if (auto s = readDbtPaths(ctx, options); !s)
        return s;
    options.update = ctx.given(QStringLiteral("update")) ? ctx.parser.value(kUpdate) : QString();
    options.out = ctx.given(QStringLiteral("out")) ? ctx.parser.value(kOut)
                  : !options.update.isEmpty()      ? options.update
                                                   : QStringLiteral("rewind.json");
    options.db = ctx.given(QStringLiteral("db")) ? ctx.parser.value(kDb) : QString();
    options.force = ctx.given(QStringLiteral("force"));
    auto plan = dbt::planImport(options);
    if (!plan)
        return fail(plan.error());
    auto broken = dbt::writeImport(*plan, options);
    if (!broken)
        return fail(broken.error());
    const dbt::Manifest *manifest = &plan->manifest;
    const std::vector<dbt::MappedNode> &nodes = plan->nodes;
    const dbt::SpecUpdate &report = plan->update;
    const QString &out = options.out;
    const QString &update = options.update;

    if (ctx.json) {
        Json list = Json::array();
        for (const dbt::MappedNode &n : nodes) {
            Json key = Json::array();
            for (const QString &k : n.key)
                key.push_back(s(k));
            list.push_back(
                {{"unique_id", s(n.uniqueId)},
                 {"resource_type", s(n.resourceType)},
                 {"mapped", n.mapped},
                 {"dataset", n.mapped ? Json(s(n.dataset)) : Json(nullptr)},
                 {"write", n.mapped ? Json(s(n.write)) : Json(nullptr)},
                 {"key", key},
                 {"partition", n.partition.isEmpty() ? Json(nullptr) : Json(s(n.partition))},
                 {"checks", n.checks},
                 {"tests_not_mapped", notMapped(n)},
                 {"reason", n.mapped
                                ? (broken->contains(n.uniqueId) ? Json(s(broken->value(n.uniqueId)))
                                                                : Json(nullptr))
                                : Json(s(n.reason))}});
        }
        Json result{{"manifest",
                     {{"schema_version", s(manifest->schemaVersion)},
                      {"adapter", s(manifest->adapter)},
                      {"dbt_version", s(manifest->dbtVersion)},
                      {"path", s(plan->manifestPath)}}},
                    {"nodes", list},
                    {"spec", s(out)}};
        if (!update.isEmpty()) {
            const auto names = [](const QStringList &l) {
                Json a = Json::array();
                for (const QString &n : l)
                    a.push_back(s(n));
                return a;
            };
            const auto why = [](const std::vector<std::pair<QString, QString>> &l,
                                const char *what) {
                Json a = Json::array();
                for (const auto &[name, reason] : l)
                    a.push_back({{what, s(name)}, {"reason", s(reason)}});
                return a;
            };
            result["update"] = {{"kept", names(report.kept)},
                                {"replaced", names(report.replaced)},
                                {"added", names(report.added)},
                                {"removed", why(report.removed, "dataset")},
                                {"skipped", why(report.skipped, "unique_id")}};
        }
        ctx.print(result);
        return {};
    }
    TextTable table({QStringLiteral("NODE"), QStringLiteral("BECAME"), QStringLiteral("WRITE"),
                     QStringLiteral("KEY"), QStringLiteral("PARTITION"), QStringLiteral("CHECKS"),
                     QStringLiteral("WHY")},
                    {false, false, false, false, false, true, false});
    int mapped = 0;
    for (const dbt::MappedNode &n : nodes) {
        mapped += n.mapped ? 1 : 0;
        table.add({n.uniqueId, n.mapped ? n.dataset : QStringLiteral("(left out)"),
                   n.mapped ? n.write : QStringLiteral("-"),
                   n.key.isEmpty() ? QStringLiteral("-") : n.key.join(u','),
                   n.partition.isEmpty()     ? QStringLiteral("-")
                   : n.granularity.isEmpty() ? n.partition
                                             : n.granularity % QStringLiteral(" of ") % n.partition,
                   QString::number(n.checks), n.mapped ? broken->value(n.uniqueId) : n.reason});
    }
    table.print(ctx.out);
    bool header = false;
    for (const dbt::MappedNode &n : nodes)
        for (const auto &[id, why] : n.unmappedTests) {
            if (!std::exchange(header, true))
                ctx.out << "\nTests with no gate:\n";
            ctx.out << "  " << id << ": " << why << '\n';
        }
    ctx.out << "\nManifest " << manifest->schemaVersion << " (dbt " << manifest->dbtVersion << ", "
            << (manifest->adapter.isEmpty() ? QStringLiteral("adapter not recorded")
                                            : manifest->adapter)
            << "): " << mapped << " of " << nodes.size() << " nodes became datasets; wrote " << out
            << ".\n";
    if (!options.project.projectDir.isEmpty())
        ctx.out << "Compiled by dbt from " << options.project.projectDir
                << " (a full refresh) into " << plan->keptDir << ".\n";
    if (!update.isEmpty()) {
        ctx.out << "Updated: " << report.replaced.size() << " imported again, "
                << report.added.size() << " added, " << report.kept.size()
                << " written by hand kept";
        if (!report.kept.isEmpty())
            ctx.out << " (" << report.kept.join(QStringLiteral(", ")) << ")";
        ctx.out << ".\n";
        for (const auto &[name, reason] : report.removed)
            ctx.out << "  removed " << name << ": " << reason << '\n';
        for (const auto &[id, reason] : report.skipped)
            ctx.out << "  not added " << id << ": " << reason << '\n';
    }
    return {};
}

} // namespace

std::vector<Command> dbtCommands() {
    return {{QStringLiteral("init"),
             QStringLiteral("Write a spec from a dbt project's manifest: each incremental or "
                            "table model a dataset, its tests gates; what is left out, and why."),
             [](QCommandLineParser &p) {
                 p.addOptions({kDbt, kProfilesDir, kTarget, kVars, kOut, kDb, kForce, kUpdate});
             },
             runInit}};
}

} // namespace rw::cli
