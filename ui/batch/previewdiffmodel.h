#pragma once

#include "core/batch/batch.h"

#include <QAbstractTableModel>

#include <vector>

namespace rw {

// The per-partition diff of a preview (or a run): what a re-run would stage,
// drop as duplicates, insert, update, delete and leave unchanged, and how
// its gates went. Takes an immutable snapshot with resetData().
class PreviewDiffModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { PartitionColumn, SourceColumn, StagedColumn, DuplicatesColumn, InsertedColumn, UpdatedColumn,
                  DeletedColumn, UnchangedColumn, GatesColumn, ColumnCount };
    enum Role { SortRole = Qt::UserRole + 1 };

    explicit PreviewDiffModel(QObject *parent = nullptr);

    void resetData(std::vector<PartitionResult> partitions, std::vector<CheckResult> checks);
    const std::vector<PartitionResult> &partitions() const { return m_rows; }
    // Failed gates of the partition in `row`.
    int failedGates(int row) const;

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    qint64 value(const PartitionResult &p, int column) const;

    std::vector<PartitionResult> m_rows;
    std::vector<CheckResult> m_checks;
};

} // namespace rw
