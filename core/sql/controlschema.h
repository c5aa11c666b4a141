#pragma once

#include "core/sql/database.h"

namespace rw {

// Rewind's own tables live in the same database as the data, under the
// `rewind_` prefix, so that a publish, its checkpoint and its audit row can
// commit in one transaction. They are created and migrated step by step; the
// version is kept in rewind_meta.
namespace controlschema {

inline constexpr auto kPrefix = "rewind_";
int latestVersion();

// 0 when the database has no control schema yet.
Result<int> currentVersion(const Database &db);

// Applies every step above the current version up to `targetVersion` (default:
// latest), each step in its own write transaction. Refuses a database written
// by a newer Rewind.
Status migrate(const Database &db, int targetVersion = -1);

// True for names Rewind owns; specs may not point at them.
bool isControlTable(const QString &name);

} // namespace controlschema
} // namespace rw
