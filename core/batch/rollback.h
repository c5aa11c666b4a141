#pragma once

#include "core/batch/batch.h"
#include "core/sql/database.h"
#include "core/workspace/spec.h"

#include <optional>
#include <vector>

namespace rw {

// Undoing a publish from the before-images the batch core kept
// (rewind_images_<dataset>): every partition the run published goes back to
// exactly its state before the run.
//
// Refused (BadInput) when a later run published one of those partitions
// (for scd2: any later month, whose history builds on the run's): the
// message names the later run, which must be rolled back first. A run that
// added columns (on_schema_change) drops them again in its rollback's last
// transaction; refused while a later run of the dataset published anything
// (it may have filled them anywhere).
// Each partition is restored in one transaction with its audit row and its
// checkpoint marked rolled_back, so an interrupted rollback continues where
// it stopped when started again. Partitions are restored last first.
//
// Threading: runs on the calling thread with that thread's connection.

struct RollbackPartition {
    std::optional<QString> partition;
    qint64 rowsRemoved = 0;  // rows the run wrote that go
    qint64 rowsRestored = 0; // rows it replaced that come back
    bool restored = false;
};

// What a rollback did, or would do.
enum class RollbackStatus {
    WouldRestore, // a dry run with partitions to restore
    RolledBack,
    NothingToRestore, // the run published nothing (left)
};
template <> struct EnumNames<RollbackStatus> {
    static constexpr std::pair<RollbackStatus, std::string_view> names[] = {
        {RollbackStatus::WouldRestore, "would_restore"},
        {RollbackStatus::RolledBack, "rolled_back"},
        {RollbackStatus::NothingToRestore, "nothing_to_restore"}};
};

struct RollbackResult {
    qint64 runId = 0;
    QString dataset;
    WriteMode mode = WriteMode::Merge;
    bool executed = false;
    RollbackStatus status = RollbackStatus::WouldRestore;
    std::vector<RollbackPartition> partitions;
    // The schema change the run made (on_schema_change), undone with it: its
    // columns dropped in the rollback's last transaction. Empty when the run
    // changed no schema.
    SchemaChange schemaChange;
    // A dry run's: why this role could not carry it out (core/sql/privileges.h),
    // else empty. An executed rollback is refused instead.
    QString refused;
};

Result<RollbackResult> rollback(const Database &db, const Spec &spec, qint64 runId, bool execute);

// What rolling back a run of `dataset` needs of the session's role: its
// target's rows, the before-images (their ownership: rollback indexes them),
// the run log. `altersTarget`: the run swapped partitions or changed the
// target's schema, which only the target's owner undoes. Exit 2 naming what
// is lacking.
Status requireRollbackPrivileges(const Database &db, const DatasetSpec &dataset,
                                 const QString &operation, bool altersTarget = false);

} // namespace rw
