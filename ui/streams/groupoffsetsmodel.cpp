#include "ui/streams/groupoffsetsmodel.h"

#include "ui/common/style.h"
#include "ui/common/format.h"

#include <QBrush>

namespace rw {

GroupOffsetsModel::GroupOffsetsModel(QObject *parent)
    : SnapshotTableModel({
        {tr("Partition"), kAlignNumber},
        {tr("Committed"), kAlignNumber, tr("The next offset the group reads, as in Kafka")},
        {tr("Log start"), kAlignNumber},
        {tr("Log end"), kAlignNumber},
        {tr("Lag"), kAlignNumber},
    }, parent)
{
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
            return QBrush(style::qcolor(style::Colour::Warning));
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
