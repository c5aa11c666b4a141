#pragma once

#include "core/sql/audit.h"
#include "core/sql/database.h"
#include "core/workspace/spec.h"

namespace rw {

// An opened database plus the spec validated against it.
struct Workspace {
    Database db;
    Spec spec;
    // False when nothing in the spec resolves against the database and it
    // holds no Rewind workspace either (most likely the wrong database): the
    // control schema is then not created, and only the spec can be shown.
    bool controlSchema = true;
};

// Opens the database, loads the spec, checks it against the catalog, then
// creates or migrates the control schema. A spec that is not JSON or not the
// right shape is refused before anything is written; a dataset or stream
// whose names do not resolve is flagged in spec.broken with its reason, and
// the others work. `touches` names what the caller is about to use
// ({"dataset", NAME} or {"stream", NAME}): an unknown or broken one is refused
// (Spec::requireDataset's message) before anything is written either. When
// nothing resolves and the database has no control schema, none is made
// (Workspace::controlSchema).
struct Touch {
    QString kind; // "dataset" or "stream"
    QString name;
};
Result<Workspace> openWorkspace(const QString &dbUrl, const QString &specPath,
                                const QList<Touch> &touches = {});

} // namespace rw
