#pragma once

#include "core/streams/offsets.h"

#include <QAbstractTableModel>

#include <vector>

namespace rw {

// The dry run of an offsets reset: per partition the current and new
// offsets and the events the group would (re)read from the new offset.
class ResetPlanModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { PartitionColumn, CurrentColumn, NewColumn, ReplayColumn, LogStartColumn, LogEndColumn, NoteColumn, ColumnCount };
    enum Role { SortRole = Qt::UserRole + 1 };

    explicit ResetPlanModel(QObject *parent = nullptr);

    void resetData(std::vector<ResetPartition> snapshot);
    const std::vector<ResetPartition> &snapshot() const { return m_rows; }
    // Offsets from the new position to the log end: what a replay reads.
    static qint64 toReplay(const ResetPartition &p);
    qint64 totalToReplay() const;

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    std::vector<ResetPartition> m_rows;
};

} // namespace rw
