#pragma once

#include "core/dbt/dbtmap.h"
#include "core/dbt/dbtproject.h"
#include "core/util/error.h"

#include <QHash>

// Importing a dbt project: a spec from its manifest (rewindctl init --dbt,
// the console's File > Import dbt project...), in two steps so that a
// person sees the mapping before anything is written.
namespace rw::dbt {

struct ImportOptions {
    QString manifest; // the project's target/manifest.json; or:
    // a project folder (project.projectDir): dbt compiles it first, into
    // project.outputDir (empty: outputDirFor(out, ...)), and the manifest it
    // writes is mapped
    ProjectOptions project;
    QString out;    // the spec to write (with `update` empty: must not exist unless `force`)
    QString db;     // a warehouse: relation names read as its engine names tables, and the
                    // spec checked against it once written; empty: the manifest's adapter
    QString update; // an existing spec to import again into (init --update); empty: a new one
    bool force = false;
};

// What an import would write: nothing is written yet.
struct ImportPlan {
    Manifest manifest;
    QString manifestPath; // the one mapped (from a project folder: the one dbt wrote)
    // From a project folder: where dbt wrote (ProjectOptions::outputDir), and
    // where the spec keeps it (outputDirFor(out, ...)); writeImport copies
    // the one to the other where they differ (a dialog plans into a
    // temporary folder: planning writes nothing beside the spec).
    QString compiledDir, keptDir;
    std::vector<MappedNode> nodes;
    SpecUpdate update;           // with ImportOptions::update
    nlohmann::ordered_json spec; // the spec's JSON, loaded back as any spec is
};

// Reads and maps the manifest (BadInput naming the file, the node and the
// field, or the existing --out, before anything is written).
Result<ImportPlan> planImport(const ImportOptions &options);

// Writes the plan's spec. With a database, the spec is checked against it
// as any spec is (on a copy beside `out`, which then takes its place): each
// mapped node whose dataset does not check, by unique_id, with the reason.
Result<QHash<QString, QString>> writeImport(const ImportPlan &plan, const ImportOptions &options);

} // namespace rw::dbt
