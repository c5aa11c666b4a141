#include "ui/recovery/duplicatesmodel.h"

#include "ui/common/format.h"
#include "core/batch/partitions.h"

namespace rw {

DuplicatesModel::DuplicatesModel(QObject *parent) : QAbstractTableModel(parent) {}

void DuplicatesModel::resetData(std::vector<DuplicatePartition> partitions)
{
    beginResetModel();
    m_rows = std::move(partitions);
    endResetModel();
}

int DuplicatesModel::rowCount(const QModelIndex &parent) const { return parent.isValid() ? 0 : int(m_rows.size()); }

int DuplicatesModel::columnCount(const QModelIndex &parent) const { return parent.isValid() ? 0 : ColumnCount; }

QVariant DuplicatesModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case PartitionColumn: return tr("Partition");
    case KeysColumn: return tr("Duplicate keys");
    case ExtraRowsColumn: return tr("Extra rows");
    default: return {};
    }
}

QVariant DuplicatesModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const DuplicatePartition &p = m_rows[std::size_t(index.row())];
    switch (role) {
    case Qt::DisplayRole:
        switch (index.column()) {
        case PartitionColumn: return partitionLabel(p.partition);
        case KeysColumn: return fmt::number(p.duplicateKeys);
        case ExtraRowsColumn: return fmt::number(p.extraRows);
        default: return {};
        }
    case SortRole:
        switch (index.column()) {
        case PartitionColumn: return p.partition ? QVariant(*p.partition) : QVariant();
        case KeysColumn: return p.duplicateKeys;
        case ExtraRowsColumn: return p.extraRows;
        default: return {};
        }
    case Qt::TextAlignmentRole:
        return index.column() == PartitionColumn ? QVariant(Qt::AlignLeft | Qt::AlignVCenter) : QVariant(Qt::AlignRight | Qt::AlignVCenter);
    default: return {};
    }
}

} // namespace rw
