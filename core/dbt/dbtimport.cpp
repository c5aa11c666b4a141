#include "core/dbt/dbtimport.h"

#include "core/sql/database.h"
#include "core/workspace/workspace.h"

#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QFileInfo>
#include <QSaveFile>
#include <QStringBuilder>
#include <cerrno>
#include <cstdio>
#include <cstring>

namespace rw::dbt {

namespace {

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

// An existing spec's JSON, as written (BadInput naming it).
Result<nlohmann::ordered_json> readSpecJson(const QString &path) {
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return badInput(
            QStringLiteral("--update %1: cannot read: %2").arg(path, file.errorString()));
    try {
        auto j = nlohmann::ordered_json::parse(file.readAll().toStdString());
        if (!j.is_object())
            return badInput(QStringLiteral("--update %1: not a spec (a JSON object)").arg(path));
        return j;
    } catch (const nlohmann::ordered_json::parse_error &e) {
        return badInput(
            QStringLiteral("--update %1: invalid JSON: %2").arg(path, QString::fromUtf8(e.what())));
    }
}

} // namespace

Result<ImportPlan> planImport(const ImportOptions &given) {
    ImportOptions o = given;
    if (QFileInfo::exists(o.out) && !o.force && o.out != o.update)
        return badInput(
            QStringLiteral("%1 exists: give another --out, or --force to replace it").arg(o.out));
    QString kept; // the manifest the spec names
    ImportPlan plan;
    if (!o.project.projectDir.isEmpty()) {
        // dbt renders what Rewind's own Jinja subset cannot: the project's
        // macros, packages, ephemeral models (inlined), vars, and
        // is_incremental() false (a full refresh).
        plan.keptDir = outputDirFor(o.out, o.project.projectDir);
        if (o.project.outputDir.isEmpty())
            o.project.outputDir = plan.keptDir;
        plan.compiledDir = o.project.outputDir;
        auto compiled = compileProject(o.project);
        if (!compiled)
            return fail(compiled.error());
        o.manifest = *compiled;
        kept = QDir(plan.keptDir).filePath(QStringLiteral("target/manifest.json"));
    } else {
        kept = o.manifest;
    }
    auto manifest = loadManifest(o.manifest);
    if (!manifest)
        return fail(manifest.error());
    MapOptions options;
    if (!o.db.isEmpty()) {
        auto url = DatabaseUrl::parse(o.db);
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
    plan.nodes = mapManifest(*manifest, options);
    plan.manifest = std::move(*manifest);
    plan.manifestPath = o.manifest;
    // The manifest, named relative to the spec, for datasets to compare
    // their models with later (rewindctl datasets).
    plan.spec = {{"dbt_manifest", QDir(QFileInfo(o.out).absolutePath())
                                      .relativeFilePath(QFileInfo(kept).absoluteFilePath())
                                      .toStdString()}};
    if (!o.update.isEmpty()) {
        auto existing = readSpecJson(o.update);
        if (!existing)
            return fail(existing.error());
        existing->erase("dbt_manifest");
        const nlohmann::ordered_json updated = updateSpec(*existing, plan.nodes, plan.update);
        for (const auto &[k, v] : updated.items())
            plan.spec[k] = v;
    } else {
        plan.spec["datasets"] = specOf(plan.nodes)["datasets"];
    }
    // The spec is read back as any spec is before it is written: what the
    // import made must load.
    if (auto parsed = parseSpec(QByteArray::fromStdString(plan.spec.dump()), o.out); !parsed) {
        if (!o.update.isEmpty()) // the hand-written part may be what does not load
            return badInput(QStringLiteral("--update %1: the spec with %2's models does not load: "
                                           "%3")
                                .arg(o.update, o.manifest, parsed.error().message));
        return internalError(QStringLiteral("the spec made from %1 does not load: %2")
                                 .arg(o.manifest, parsed.error().message));
    }
    return plan;
}

namespace {

Status copyTree(const QString &from, const QString &to) {
    QDir(to).removeRecursively();
    QDirIterator it(from, QDir::Files | QDir::Hidden, QDirIterator::Subdirectories);
    while (it.hasNext()) {
        const QString file = it.next();
        const QString target = QDir(to).filePath(QDir(from).relativeFilePath(file));
        if (!QDir().mkpath(QFileInfo(target).absolutePath()) || !QFile::copy(file, target))
            return badInput(QStringLiteral("cannot copy dbt's output to %1").arg(target));
    }
    return {};
}

} // namespace

Result<QHash<QString, QString>> writeImport(const ImportPlan &plan, const ImportOptions &o) {
    QHash<QString, QString> broken;
    if (!plan.compiledDir.isEmpty() &&
        QDir(plan.compiledDir).absolutePath() != QDir(plan.keptDir).absolutePath())
        if (auto s = copyTree(plan.compiledDir, plan.keptDir); !s)
            return fail(s.error());
    const QString written = o.db.isEmpty() ? o.out : o.out % QStringLiteral(".checking");
    if (auto s = writeSpec(written, plan.spec); !s)
        return fail(s.error());
    if (o.db.isEmpty())
        return broken;
    auto ws = openWorkspace(o.db, written);
    if (!ws) {
        QFile::remove(written);
        return fail(ws.error());
    }
    for (const MappedNode &n : plan.nodes)
        if (n.mapped)
            if (const QString why = ws->spec.brokenReason(QStringLiteral("dataset"), n.dataset);
                !why.isEmpty())
                broken.insert(n.uniqueId, why);
    // In one step: the spec it replaces (under --update, the only copy) is
    // never gone without the new one in its place.
    if (std::rename(QFile::encodeName(written).constData(), QFile::encodeName(o.out).constData()) !=
        0)
        return badInput(QStringLiteral("cannot write %1: %2 (the new spec is in %3)")
                            .arg(o.out, QString::fromLocal8Bit(std::strerror(errno)), written));
    return broken;
}

} // namespace rw::dbt
