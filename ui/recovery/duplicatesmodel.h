#pragma once

#include "core/recovery/recovery.h"
#include "ui/common/tablemodel.h"

#include <vector>

namespace rw {

// Duplicate keys per partition of a dataset's target: keys with more than
// one row and the rows beyond the first. Takes a snapshot with resetData().
class DuplicatesModel : public SnapshotTableModel<DuplicatePartition> {
    Q_OBJECT
public:
    enum Column { PartitionColumn, KeysColumn, ExtraRowsColumn, ColumnCount };

    explicit DuplicatesModel(QObject *parent = nullptr);
};

} // namespace rw
