#include "ui/streams/consumergroupsmodel.h"

#include "ui/common/style.h"
#include "ui/common/format.h"

#include <QBrush>

namespace rw {

ConsumerGroupsModel::ConsumerGroupsModel(QObject *parent)
    : SnapshotTableModel({
        {tr("Group"), kAlignText},
        {tr("Lag"), kAlignNumber},
        {tr("Committed in"), kAlignNumber},
        {tr("Last commit"), kAlignText},
    }, parent)
{
}

int ConsumerGroupsModel::rowOf(const QString &group) const
{
    for (std::size_t i = 0; i < m_rows.size(); ++i)
        if (m_rows[i].group == group)
            return int(i);
    return -1;
}

QVariant ConsumerGroupsModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const ConsumerGroupInfo &g = m_rows[std::size_t(index.row())];
    const int column = index.column();
    switch (role) {
    case Qt::DisplayRole:
        switch (column) {
        case GroupColumn: return g.group;
        case LagColumn: return fmt::number(g.lag);
        case PartitionsColumn: return tr("%n partition(s)", nullptr, int(g.partitions));
        case LastCommitColumn: return fmt::timestamp(g.lastCommitAt);
        default: return {};
        }
    case SortRole:
        switch (column) {
        case GroupColumn: return g.group;
        case LagColumn: return g.lag;
        case PartitionsColumn: return g.partitions;
        case LastCommitColumn: return g.lastCommitAt;
        default: return {};
        }
    case Qt::TextAlignmentRole:
        return alignment(column);
    case Qt::ForegroundRole:
        if (column == LagColumn && g.lag > 0)
            return QBrush(style::qcolor(style::Colour::Warning));
        return {};
    case Qt::ToolTipRole:
        return tr("Group %1: %2 events behind the log end; committed in %n partition(s)", nullptr, int(g.partitions))
            .arg(g.group, fmt::number(g.lag));
    default: return {};
    }
}

} // namespace rw
