#include "ui/batch/previewdiffmodel.h"

#include "ui/common/format.h"
#include "core/batch/partitions.h"

#include <QBrush>

#include <algorithm>
#include <QColor>
#include <QFont>

namespace rw {

PreviewDiffModel::PreviewDiffModel(QObject *parent) : QAbstractTableModel(parent) {}

void PreviewDiffModel::resetData(std::vector<PartitionResult> partitions, std::vector<CheckResult> checks)
{
    beginResetModel();
    m_rows = std::move(partitions);
    m_checks = std::move(checks);
    endResetModel();
}

int PreviewDiffModel::failedGates(int row) const
{
    if (row < 0 || row >= int(m_rows.size()))
        return 0;
    const auto &partition = m_rows[std::size_t(row)].partition;
    int failed = 0;
    for (const CheckResult &c : m_checks)
        if (!c.passed && (!c.partition || c.partition == partition))
            ++failed;
    return failed;
}

int PreviewDiffModel::rowCount(const QModelIndex &parent) const { return parent.isValid() ? 0 : int(m_rows.size()); }

int PreviewDiffModel::columnCount(const QModelIndex &parent) const { return parent.isValid() ? 0 : ColumnCount; }

QVariant PreviewDiffModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal)
        return {};
    if (role == Qt::TextAlignmentRole)
        return QVariant::fromValue(Qt::Alignment((section == PartitionColumn ? Qt::AlignLeft : Qt::AlignRight) | Qt::AlignVCenter));
    if (role == Qt::ToolTipRole && section == DuplicatesColumn)
        return tr("Duplicates dropped: source rows that a later row with the same key replaced");
    if (role != Qt::DisplayRole)
        return {};
    switch (section) {
    case PartitionColumn: return tr("Partition");
    case SourceColumn: return tr("Source");
    case StagedColumn: return tr("Staged");
    case DuplicatesColumn: return tr("Dupes");
    case InsertedColumn: return tr("Inserted");
    case UpdatedColumn: return tr("Updated");
    case DeletedColumn: return tr("Deleted");
    case UnchangedColumn: return tr("Unchanged");
    case GatesColumn: return tr("Gates");
    default: return {};
    }
}

qint64 PreviewDiffModel::value(const PartitionResult &p, int column) const
{
    switch (column) {
    case SourceColumn: return p.sourceRows;
    case StagedColumn: return p.stagedRows;
    case DuplicatesColumn: return p.duplicatesDropped;
    case InsertedColumn: return p.inserted;
    case UpdatedColumn: return p.updated;
    case DeletedColumn: return p.deleted;
    case UnchangedColumn: return p.unchanged;
    default: return 0;
    }
}

QVariant PreviewDiffModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const PartitionResult &p = m_rows[std::size_t(index.row())];
    const int column = index.column();
    const int failed = failedGates(index.row());
    switch (role) {
    case Qt::DisplayRole:
        if (column == PartitionColumn)
            return partitionLabel(p.partition);
        if (column == GatesColumn)
            return failed ? tr("%1 failed").arg(failed) : tr("pass");
        return fmt::number(value(p, column));
    case SortRole:
        if (column == PartitionColumn)
            return p.partition ? QVariant(*p.partition) : QVariant();
        if (column == GatesColumn)
            return failed;
        return value(p, column);
    case Qt::TextAlignmentRole:
        return QVariant::fromValue(Qt::Alignment((column == PartitionColumn ? Qt::AlignLeft : Qt::AlignRight) | Qt::AlignVCenter));
    case Qt::ForegroundRole:
        if (column == GatesColumn)
            return QBrush(failed ? QColor(0xc0, 0x1c, 0x1c) : QColor(0x2e, 0x7d, 0x32));
        if (column == DeletedColumn && p.deleted > 0)
            return QBrush(QColor(0xc0, 0x1c, 0x1c));
        if (column != PartitionColumn && value(p, column) == 0)
            return QBrush(QColor(0x9a, 0x9e, 0xa6));
        return {};
    case Qt::FontRole:
        if (column == GatesColumn || ((column == InsertedColumn || column == UpdatedColumn || column == DeletedColumn) && value(p, column) > 0)) {
            QFont f;
            f.setBold(true);
            return f;
        }
        return {};
    default: return {};
    }
}

} // namespace rw
