#pragma once

#include "core/streams/offsets.h"
#include "ui/common/tablemodel.h"

#include <vector>

namespace rw {

// One consumer group's offsets per log partition (rw::listOffsets snapshot).
class GroupOffsetsModel : public SnapshotTableModel<PartitionOffsets> {
    Q_OBJECT
public:
    enum Column {
        PartitionColumn,
        CommittedColumn,
        LogStartColumn,
        LogEndColumn,
        LagColumn,
        ColumnCount
    };

    explicit GroupOffsetsModel(QObject *parent = nullptr);

protected:
    QVariant cellData(const PartitionOffsets &offsets, int column, int role) const override;
};

} // namespace rw
