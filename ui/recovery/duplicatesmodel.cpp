#include "ui/recovery/duplicatesmodel.h"

#include "ui/common/format.h"
#include "core/batch/partitions.h"

namespace rw {

DuplicatesModel::DuplicatesModel(QObject *parent)
    : SnapshotTableModel({
        {tr("Partition")},
        {tr("Duplicate keys")},
        {tr("Extra rows")},
    }, parent)
{
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
