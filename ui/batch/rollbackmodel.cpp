#include "ui/batch/rollbackmodel.h"

#include "ui/common/format.h"
#include "core/batch/partitions.h"

namespace rw {

RollbackModel::RollbackModel(QObject *parent)
    : SnapshotTableModel({
        {tr("Partition")},
        {tr("Rows removed")},
        {tr("Rows restored")},
        {tr("State")},
    }, parent)
{
}

QVariant RollbackModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const RollbackPartition &p = m_rows[std::size_t(index.row())];
    switch (role) {
    case Qt::DisplayRole:
        switch (index.column()) {
        case PartitionColumn: return partitionLabel(p.partition);
        case RemovedColumn: return fmt::number(p.rowsRemoved);
        case RestoredColumn: return fmt::number(p.rowsRestored);
        case StateColumn: return p.restored ? tr("restored") : tr("would be restored");
        default: return {};
        }
    case SortRole:
        switch (index.column()) {
        case PartitionColumn: return p.partition ? QVariant(*p.partition) : QVariant();
        case RemovedColumn: return p.rowsRemoved;
        case RestoredColumn: return p.rowsRestored;
        case StateColumn: return p.restored ? 1 : 0;
        default: return {};
        }
    case Qt::TextAlignmentRole:
        return index.column() == RemovedColumn || index.column() == RestoredColumn ? QVariant(Qt::AlignRight | Qt::AlignVCenter)
                                                                                   : QVariant(Qt::AlignLeft | Qt::AlignVCenter);
    default: return {};
    }
}

} // namespace rw
