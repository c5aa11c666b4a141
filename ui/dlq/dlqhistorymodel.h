#pragma once

#include "core/dlq/dlq.h"

#include <QAbstractTableModel>

#include <vector>

namespace rw {

// One DLQ record's history (capture, fixes, replays, discards), oldest
// first, from a snapshot (rw::showDlq) taken off the GUI thread.
class DlqHistoryModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { AtColumn, UserColumn, ActionColumn, TransitionColumn, ReasonColumn, ColumnCount };

    explicit DlqHistoryModel(QObject *parent = nullptr);

    void resetData(std::vector<DlqHistoryEntry> entries);
    const std::vector<DlqHistoryEntry> &snapshot() const { return m_entries; }

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    std::vector<DlqHistoryEntry> m_entries;
};

} // namespace rw
