#pragma once

#include "core/sql/database.h"
#include "core/sql/privileges.h"
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
// `operation` names it in the refusal ("run of fact_sales"). `alters`: the
// schema change the run applies to the target first (SchemaChange::describe),
// which is its owner's to make (ALTER TABLE); empty when none.
Status requireRunPrivileges(const Database &db, const DatasetSpec &dataset,
                            const QString &operation, const QString &alters = {});

// The needs requireRunPrivileges checks, added to `needs`: for an operation
// that runs the dataset among other things (a duplicate recovery).
Status addRunNeeds(const Database &db, const DatasetSpec &dataset,
                   std::vector<privileges::Need> &needs, const QString &alters = {});

} // namespace rw
