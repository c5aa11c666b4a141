#include "ui/streams/consumergroupsmodel.h"

#include "ui/common/style.h"
#include "ui/common/format.h"

#include <QBrush>

namespace rw {

ConsumerGroupsModel::ConsumerGroupsModel(QObject *parent)
    : SnapshotTableModel({
        {tr("Group"), kAlignText, [](const ConsumerGroupInfo &g) { return g.group; }},
        numberColumn(tr("Lag"), &ConsumerGroupInfo::lag),
        {tr("Committed in"), kAlignNumber, [](const ConsumerGroupInfo &g) { return tr("%n partition(s)", nullptr, int(g.partitions)); },
         [](const ConsumerGroupInfo &g) { return g.partitions; }},
        {tr("Last commit"), kAlignText, [](const ConsumerGroupInfo &g) { return fmt::timestamp(g.lastCommitAt); },
         [](const ConsumerGroupInfo &g) { return g.lastCommitAt; }},
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

QVariant ConsumerGroupsModel::cellData(const ConsumerGroupInfo &g, int column, int role) const
{
    switch (role) {
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
