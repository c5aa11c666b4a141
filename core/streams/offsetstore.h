#pragma once

// The one writer of rewind_offsets (scripts/check-layout refuses a write from
// anywhere else): the workspace's record of each consumer group's committed
// offset (the next offset to read) per stream partition, the truth for what
// reached a sink. Every call runs inside the caller's write transaction, with
// the sink rows or the reset it records.
//
// Threading: the calling thread, with its connection.

#include "core/sql/database.h"

#include <utility>
#include <vector>

namespace rw::offsetstore {

// Sets the group's committed offsets (partition, offset), now.
Status commit(const Database &db, const QString &stream, const QString &group,
              const std::vector<std::pair<qint64, qint64>> &offsets);

// Sets the group's committed offsets from `relation`, a table of (p, hi):
// the offset each partition's batch reached.
Status commitReached(const Database &db, const QString &stream, const QString &group,
                     const QString &relation);

// Rows of (stream, group_id, partition_id, committed_offset, updated_at) that
// `select` yields, as a consumer outside Rewind committed them (the demo's
// history of its consumer groups).
Status recordHistory(const Database &db, const QString &select, const QVariantList &binds = {});

} // namespace rw::offsetstore
