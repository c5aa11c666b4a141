#pragma once

#include "core/streams/streams.h"

#include "ui/common/tablemodel.h"
#include <QLocale>

#include <vector>

namespace rw {

// The log partitions of one stream, from an immutable snapshot taken off
// the GUI thread (rw::listStreamPartitions).
class StreamPartitionsModel : public SnapshotTableModel<StreamPartitionInfo> {
    Q_OBJECT
public:
    enum Column { PartitionColumn, LogStartColumn, LogEndColumn, EventsColumn, FirstRecordColumn, LastRecordColumn,
                  ColumnCount };

    explicit StreamPartitionsModel(QObject *parent = nullptr);

    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;

private:
    QLocale m_locale;
};

} // namespace rw
