#pragma once

#include "core/util/error.h"

#include <QString>
#include <QStringList>

// A dbt project folder, compiled by the project's own dbt (rewindctl init
// --dbt PROJECT_DIR, datasets --dbt PROJECT_DIR): dbt renders the project's
// macros, packages, ephemeral models, vars and is_incremental() itself, and
// Rewind maps the manifest it writes. dbt is a program Rewind starts, never
// a library it links: where none is installed, the command says so.
namespace rw::dbt {

struct ProjectOptions {
    QString projectDir;  // a folder with dbt_project.yml
    QString profilesDir; // --profiles-dir; empty: dbt's own search
    QString target;      // --target; empty: the profile's default
    QString vars;        // --vars (YAML or JSON text); empty: none
    QString executable;  // the dbt program; empty: `dbt` on PATH
    // Where dbt writes (its --target-path and --log-path): a folder of
    // Rewind's own, never the project's target/.
    QString outputDir;
};

// Whether `path` is a dbt project folder (holds dbt_project.yml).
bool isProjectDir(const QString &path);

// The folder beside `spec` where a project's compiled manifest is kept
// (".rewind-dbt/<project folder name>"), so that later drift checks read it.
QString outputDirFor(const QString &spec, const QString &projectDir);

// Runs `dbt compile --full-refresh` (every model and snapshot compiled as a
// first build: is_incremental() false) or, with `parseOnly`, `dbt parse`
// (checksums, no warehouse needed), writing into options.outputDir, which it
// replaces only when dbt succeeded. Returns the manifest's path. No dbt,
// a profile that does not connect, a compile error: BadInput with dbt's own
// message (which names the model), and options.outputDir left as it was.
Result<QString> compileProject(const ProjectOptions &options, bool parseOnly = false);

} // namespace rw::dbt
