#pragma once

#include "core/batch/rollback.h"

#include <QAbstractTableModel>

#include <vector>

namespace rw {

// What a rollback restores (dry run) or restored, per partition: rows the
// run wrote that go, rows it replaced that come back. Takes a snapshot with
// resetData().
class RollbackModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { PartitionColumn, RemovedColumn, RestoredColumn, StateColumn, ColumnCount };
    enum Role { SortRole = Qt::UserRole + 1 };

    explicit RollbackModel(QObject *parent = nullptr);

    void resetData(std::vector<RollbackPartition> partitions);
    const std::vector<RollbackPartition> &snapshot() const { return m_rows; }

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    std::vector<RollbackPartition> m_rows;
};

} // namespace rw
