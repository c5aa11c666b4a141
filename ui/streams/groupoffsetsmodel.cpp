#include "ui/streams/groupoffsetsmodel.h"

#include "ui/common/format.h"

#include <QBrush>

namespace rw {

GroupOffsetsModel::GroupOffsetsModel(QObject *parent) : QAbstractTableModel(parent) {}

void GroupOffsetsModel::resetData(std::vector<PartitionOffsets> snapshot)
{
    beginResetModel();
    m_rows = std::move(snapshot);
    endResetModel();
}

int GroupOffsetsModel::rowCount(const QModelIndex &parent) const { return parent.isValid() ? 0 : int(m_rows.size()); }

int GroupOffsetsModel::columnCount(const QModelIndex &parent) const { return parent.isValid() ? 0 : ColumnCount; }

QVariant GroupOffsetsModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal)
        return {};
    if (role == Qt::TextAlignmentRole)
        return QVariant::fromValue(Qt::Alignment(Qt::AlignRight | Qt::AlignVCenter));
    if (role == Qt::ToolTipRole && section == CommittedColumn)
        return tr("The next offset the group reads, as in Kafka");
    if (role != Qt::DisplayRole)
        return {};
    switch (section) {
    case PartitionColumn: return tr("Partition");
    case CommittedColumn: return tr("Committed");
    case LogStartColumn: return tr("Log start");
    case LogEndColumn: return tr("Log end");
    case LagColumn: return tr("Lag");
    default: return {};
    }
}

QVariant GroupOffsetsModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const PartitionOffsets &p = m_rows[std::size_t(index.row())];
    const int column = index.column();
    const qint64 values[] = {p.partition, p.committed, p.logStart, p.logEnd, p.lag};
    switch (role) {
    case Qt::DisplayRole:
        if (column == PartitionColumn)
            return QString::number(p.partition);
        if (column == CommittedColumn && !p.stored)
            return tr("%1 (none)").arg(fmt::number(p.committed));
        return fmt::number(values[column]);
    case SortRole:
        return values[column];
    case Qt::TextAlignmentRole:
        return QVariant::fromValue(Qt::Alignment(Qt::AlignRight | Qt::AlignVCenter));
    case Qt::ForegroundRole:
        if (column == LagColumn && p.lag > 0)
            return QBrush(QColor(0xb3, 0x4a, 0x00));
        if (column == CommittedColumn && !p.stored)
            return QBrush(QColor(0x80, 0x86, 0x8f));
        return {};
    case Qt::ToolTipRole:
        if (column == CommittedColumn && !p.stored)
            return tr("Nothing committed in this partition: the group starts at the log start");
        return {};
    default: return {};
    }
}

} // namespace rw
