#pragma once

#include "core/streams/streams.h"
#include "ui/common/tablemodel.h"

#include <vector>

namespace rw {

// The log partitions of one stream, from an immutable snapshot taken off
// the GUI thread (rw::listStreamPartitions).
class StreamPartitionsModel : public SnapshotTableModel<StreamPartitionInfo> {
    Q_OBJECT
public:
    enum Column {
        PartitionColumn,
        LogStartColumn,
        LogEndColumn,
        EventsColumn,
        FirstRecordColumn,
        LastRecordColumn,
        ColumnCount
    };

    explicit StreamPartitionsModel(QObject *parent = nullptr);

protected:
    QVariant cellData(const StreamPartitionInfo &partition, int column, int role) const override;
};

} // namespace rw
