// rewindctl init --dbt: a spec from a dbt project's manifest.
#include "app/rewindctl/clisupport.h"
#include "core/dbt/dbtmap.h"
#include "core/dbt/manifest.h"
#include "core/workspace/workspace.h"

#include <QFile>
#include <QFileInfo>
#include <QSaveFile>
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

Status writeSpec(const QString &path, const nlohmann::ordered_json &spec) {
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly))
        return badInput(QStringLiteral("cannot write %1: %2").arg(path, file.errorString()));
    const std::string text = spec.dump(2) + "\n";
    file.write(text.data(), qint64(text.size()));
    if (!file.commit())
        return badInput(QStringLiteral("cannot write %1: %2").arg(path, file.errorString()));
    return {};
}

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
    auto manifest = dbt::loadManifest(*manifestPath);
    if (!manifest)
        return fail(manifest.error());
    const QString out =
        ctx.given(QStringLiteral("out")) ? ctx.parser.value(kOut) : QStringLiteral("rewind.json");
    dbt::MapOptions options;
    const QString dbUrl = ctx.given(QStringLiteral("db")) ? ctx.parser.value(kDb) : QString();
    if (!dbUrl.isEmpty()) {
        auto url = DatabaseUrl::parse(dbUrl);
        if (!url)
            return fail(url.error());
        options.engine = url->kind == SqlDialect::Kind::Postgres ? QStringLiteral("postgresql")
                                                                 : QStringLiteral("sqlite");
        options.database = url->databaseName;
    } else {
        options.engine = manifest->adapter == QLatin1String("sqlite")
                             ? QStringLiteral("sqlite")
                             : QStringLiteral("postgresql");
    }
    const std::vector<dbt::MappedNode> nodes = dbt::mapManifest(*manifest, options);
    if (QFileInfo::exists(out) && !ctx.given(QStringLiteral("force")))
        return badInput(
            QStringLiteral("%1 exists: give another --out, or --force to replace it").arg(out));
    // The spec is read back as any spec is before it is written: what the
    // import made must load.
    const nlohmann::ordered_json spec = dbt::specOf(nodes);
    if (auto parsed = parseSpec(QByteArray::fromStdString(spec.dump()), out); !parsed)
        return internalError(QStringLiteral("the spec made from %1 does not load: %2")
                                 .arg(*manifestPath, parsed.error().message));
    // With --db, each dataset is checked against the warehouse as any spec
    // is (one that does not resolve is flagged with its reason), on a copy
    // beside --out that then takes its place.
    QHash<QString, QString> broken;
    const QString written = dbUrl.isEmpty() ? out : out % QStringLiteral(".checking");
    if (auto s = writeSpec(written, spec); !s)
        return fail(s.error());
    if (!dbUrl.isEmpty()) {
        auto ws = openWorkspace(dbUrl, written);
        if (!ws) {
            QFile::remove(written);
            return fail(ws.error());
        }
        for (const dbt::MappedNode &n : nodes)
            if (n.mapped)
                if (const QString why = ws->spec.brokenReason(QStringLiteral("dataset"), n.dataset);
                    !why.isEmpty())
                    broken.insert(n.uniqueId, why);
        QFile::remove(out);
        if (!QFile::rename(written, out))
            return badInput(QStringLiteral("cannot write %1").arg(out));
    }

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
                                ? (broken.contains(n.uniqueId) ? Json(s(broken.value(n.uniqueId)))
                                                               : Json(nullptr))
                                : Json(s(n.reason))}});
        }
        ctx.print({{"manifest",
                    {{"schema_version", s(manifest->schemaVersion)},
                     {"adapter", s(manifest->adapter)},
                     {"dbt_version", s(manifest->dbtVersion)}}},
                   {"nodes", list},
                   {"spec", s(out)}});
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
                   QString::number(n.checks), n.mapped ? broken.value(n.uniqueId) : n.reason});
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
    return {};
}

} // namespace

std::vector<Command> dbtCommands() {
    return {{QStringLiteral("init"),
             QStringLiteral("Write a spec from a dbt project's manifest: each incremental or "
                            "table model a dataset, its tests gates; what is left out, and why."),
             [](QCommandLineParser &p) {
                 p.addOptions({kDbt, kOut, kDb, kForce});
             },
             runInit}};
}

} // namespace rw::cli
