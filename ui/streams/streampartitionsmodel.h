#pragma once

#include "core/streams/streams.h"

#include <QAbstractTableModel>
#include <QLocale>

#include <vector>

namespace rw {

// The log partitions of one stream, from an immutable snapshot taken off
// the GUI thread (rw::listStreamPartitions).
class StreamPartitionsModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { PartitionColumn, LogStartColumn, LogEndColumn, EventsColumn, FirstRecordColumn, LastRecordColumn,
                  ColumnCount };
    enum Role { SortRole = Qt::UserRole + 1 };

    explicit StreamPartitionsModel(QObject *parent = nullptr);

    void resetData(std::vector<StreamPartitionInfo> snapshot);
    const std::vector<StreamPartitionInfo> &snapshot() const { return m_rows; }

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    std::vector<StreamPartitionInfo> m_rows;
    QLocale m_locale;
};

} // namespace rw
