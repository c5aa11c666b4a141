#pragma once

#include "core/sql/database.h"
#include "core/workspace/spec.h"

namespace rw {

// An opened database plus the spec validated against it.
struct Workspace {
    Database db;
    Spec spec;
};

// Opens the database, loads the spec, validates the spec against the
// catalog, then creates or migrates the control schema. A bad spec is
// reported before anything is written.
Result<Workspace> openWorkspace(const QString &dbUrl, const QString &specPath);

// The operating-system user, for audit rows.
QString osUser();

// Appends one row to the audit log. Call inside the transaction of the
// change it records.
Status writeAudit(const Database &db, const QString &action, const QString &dataset, const QString &stream,
                  const QVariant &runId, const QString &detailJson);
// One row per detail, as writeAudit each (a chunk's publishes), in one statement.
Status writeAudits(const Database &db, const QString &action, const QString &dataset, const QVariant &runId,
                   const QStringList &detailJsons);

} // namespace rw
