#pragma once

#include "core/streams/offsets.h"

#include <QAbstractTableModel>

#include <vector>

namespace rw {

// One consumer group's offsets per log partition (rw::listOffsets snapshot).
class GroupOffsetsModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { PartitionColumn, CommittedColumn, LogStartColumn, LogEndColumn, LagColumn, ColumnCount };
    enum Role { SortRole = Qt::UserRole + 1 };

    explicit GroupOffsetsModel(QObject *parent = nullptr);

    void resetData(std::vector<PartitionOffsets> snapshot);
    const std::vector<PartitionOffsets> &snapshot() const { return m_rows; }

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    std::vector<PartitionOffsets> m_rows;
};

} // namespace rw
