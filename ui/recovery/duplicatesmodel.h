#pragma once

#include "core/recovery/recovery.h"

#include <QAbstractTableModel>

#include <vector>

namespace rw {

// Duplicate keys per partition of a dataset's target: keys with more than
// one row and the rows beyond the first. Takes a snapshot with resetData().
class DuplicatesModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { PartitionColumn, KeysColumn, ExtraRowsColumn, ColumnCount };
    enum Role { SortRole = Qt::UserRole + 1 };

    explicit DuplicatesModel(QObject *parent = nullptr);

    void resetData(std::vector<DuplicatePartition> partitions);
    const std::vector<DuplicatePartition> &snapshot() const { return m_rows; }

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    std::vector<DuplicatePartition> m_rows;
};

} // namespace rw
