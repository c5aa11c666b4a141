#include "core/workspace/workspace.h"

#include "core/sql/controlschema.h"

#include <QStringBuilder>
#include <QtGlobal>

namespace rw {

Result<Workspace> openWorkspace(const QString &dbUrl, const QString &specPath,
                                const QList<Touch> &touches) {
    if (specPath.isEmpty())
        return badInput(QStringLiteral("--spec: no pipeline spec given"));
    auto db = Database::open(dbUrl);
    if (!db)
        return fail(db.error());
    auto spec = loadSpec(specPath);
    if (!spec)
        return fail(spec.error());
    // A dataset or stream that does not resolve is flagged, not fatal: the
    // commands that touch it refuse it (Spec::requireDataset), the rest work.
    auto problems = catalogProblems(*spec, *db);
    if (!problems)
        return fail(problems.error());
    spec->broken = std::move(*problems);
    // What the command names is checked before anything is made (a Trino
    // workspace's control_db included).
    for (const Touch &t : touches) {
        if (t.kind == QLatin1String("stream")) {
            if (auto s = spec->requireStream(t.name); !s)
                return fail(s.error());
        } else if (auto d = spec->requireDataset(t.name); !d) {
            return fail(d.error());
        }
    }
    // A Trino warehouse keeps its control tables in a transactional store
    // of its own; SQLite and PostgreSQL keep them beside the data.
    if (db->dialect().keepsControlApart()) {
        if (spec->controlDb.isEmpty())
            return badInput(QStringLiteral("--db %1: a Trino warehouse keeps Rewind's plans, runs, "
                                           "checkpoints and audit in a "
                                           "transactional store of its own: name it in the spec's "
                                           "\"control_db\" (a SQLite "
                                           "file, or postgresql://... for a team)")
                                .arg(db->url().display()));
        auto control = Database::open(spec->controlDb, Database::OpenMode::CreateIfMissing);
        if (!control)
            return fail(control.error());
        if (control->dialect().keepsControlApart())
            return badInput(QStringLiteral("spec %1: \"control_db\" must be SQLite or PostgreSQL, "
                                           "not Trino: Trino commits one statement at a time")
                                .arg(spec->path));
        db->attachControl(*control);
    } else if (!spec->controlDb.isEmpty()) {
        return badInput(QStringLiteral("spec %1: \"control_db\" is for a Trino --db; on %2 the "
                                       "control tables live in the database itself")
                            .arg(spec->path, db->dialect().name()));
    }
    const bool nothingResolves =
        !spec->broken.isEmpty() &&
        spec->broken.size() == qsizetype(spec->datasets.size() + spec->streams.size());
    if (nothingResolves) {
        auto rewinds = db->control().hasRelation(QStringLiteral("rewind_meta"));
        if (!rewinds)
            return fail(rewinds.error());
        if (!*rewinds) // not Rewind's database, it seems: nothing is written to it
            return Workspace{std::move(*db), std::move(*spec), false};
    }
    if (auto migrated = controlschema::migrate(db->control()); !migrated)
        return fail(migrated.error());
    return Workspace{std::move(*db), std::move(*spec)};
}

} // namespace rw
