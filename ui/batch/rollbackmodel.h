#pragma once

#include "core/batch/rollback.h"
#include "ui/common/tablemodel.h"

#include <vector>

namespace rw {

// What a rollback restores (dry run) or restored, per partition: rows the
// run wrote that go, rows it replaced that come back. Takes a snapshot with
// resetData().
class RollbackModel : public SnapshotTableModel<RollbackPartition> {
    Q_OBJECT
public:
    enum Column { PartitionColumn, RemovedColumn, RestoredColumn, StateColumn, ColumnCount };

    explicit RollbackModel(QObject *parent = nullptr);
};

} // namespace rw
