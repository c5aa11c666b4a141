// rewindctl init --dbt: a spec from a dbt project's manifest.
#include "app/rewindctl/clisupport.h"
#include "core/dbt/dbtimport.h"

#include <QStringBuilder>

namespace rw::cli {

namespace {

const QCommandLineOption kDbt({QStringLiteral("dbt")},
                              QStringLiteral("The project's target/manifest.json (dbt schema "
                                             "v10, v11 or v12)."),
                              QStringLiteral("MANIFEST"));
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

Status runInit(Context &ctx) {
    auto manifestPath = required(ctx, kDbt);
    if (!manifestPath)
        return fail(manifestPath.error());
    dbt::ImportOptions options;
    options.manifest = *manifestPath;
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
                      {"dbt_version", s(manifest->dbtVersion)}}},
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
                 p.addOptions({kDbt, kOut, kDb, kForce, kUpdate});
             },
             runInit}};
}

} // namespace rw::cli
