#pragma once

#include "core/streams/offsets.h"

#include <QAbstractTableModel>

#include <vector>

namespace rw {

// A stream's consumer groups with their total lag, from a snapshot
// (rw::listConsumerGroups) taken off the GUI thread.
class ConsumerGroupsModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { GroupColumn, LagColumn, PartitionsColumn, LastCommitColumn, ColumnCount };
    enum Role { SortRole = Qt::UserRole + 1 };

    explicit ConsumerGroupsModel(QObject *parent = nullptr);

    void resetData(std::vector<ConsumerGroupInfo> snapshot);
    const std::vector<ConsumerGroupInfo> &snapshot() const { return m_rows; }
    // Row of `group`, -1 when absent.
    int rowOf(const QString &group) const;

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    std::vector<ConsumerGroupInfo> m_rows;
};

} // namespace rw
