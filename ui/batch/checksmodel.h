#pragma once

#include "core/batch/batch.h"

#include <QAbstractTableModel>

#include <vector>

namespace rw {

// Quality gates of a preview or run: name, partition, pass/fail, detail.
// Failing gates sort first. Takes an immutable snapshot with resetData().
class ChecksModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { ResultColumn, NameColumn, PartitionColumn, DetailColumn, ColumnCount };
    enum Role { SortRole = Qt::UserRole + 1, PassedRole };

    explicit ChecksModel(QObject *parent = nullptr);

    void resetData(std::vector<CheckResult> checks);
    int failedCount() const;

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    std::vector<CheckResult> m_rows;
};

} // namespace rw
