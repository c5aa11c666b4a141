#pragma once

#include "core/sql/database.h"
#include "core/workspace/spec.h"

namespace rw {

// What a preview of `dataset` needs of the session's role (reading its
// source, target and the tables its gates read; writing its plan and audit
// row; temporary tables), checked before it starts: exit 2 naming each
// privilege lacking (core/sql/privileges.h).
Status requirePreviewPrivileges(const Database &db, const DatasetSpec &dataset);

// What a run, resume or finalize of `dataset` needs besides: writing its
// target as its write mode does (or creating it in its schema), its
// before-images, and Rewind's run log, checkpoints and partition states.
// `operation` names it in the refusal ("run of fact_sales").
Status requireRunPrivileges(const Database &db, const DatasetSpec &dataset,
                            const QString &operation);

} // namespace rw
