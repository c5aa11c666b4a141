#include "ui/streams/consumergroupsmodel.h"

#include "ui/common/format.h"

#include <QBrush>

namespace rw {

namespace {

bool numeric(int column) { return column == ConsumerGroupsModel::LagColumn || column == ConsumerGroupsModel::PartitionsColumn; }

} // namespace

ConsumerGroupsModel::ConsumerGroupsModel(QObject *parent) : QAbstractTableModel(parent) {}

void ConsumerGroupsModel::resetData(std::vector<ConsumerGroupInfo> snapshot)
{
    beginResetModel();
    m_rows = std::move(snapshot);
    endResetModel();
}

int ConsumerGroupsModel::rowOf(const QString &group) const
{
    for (std::size_t i = 0; i < m_rows.size(); ++i)
        if (m_rows[i].group == group)
            return int(i);
    return -1;
}

int ConsumerGroupsModel::rowCount(const QModelIndex &parent) const { return parent.isValid() ? 0 : int(m_rows.size()); }

int ConsumerGroupsModel::columnCount(const QModelIndex &parent) const { return parent.isValid() ? 0 : ColumnCount; }

QVariant ConsumerGroupsModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal)
        return {};
    if (role == Qt::TextAlignmentRole)
        return QVariant::fromValue(Qt::Alignment((numeric(section) ? Qt::AlignRight : Qt::AlignLeft) | Qt::AlignVCenter));
    if (role != Qt::DisplayRole)
        return {};
    switch (section) {
    case GroupColumn: return tr("Group");
    case LagColumn: return tr("Lag");
    case PartitionsColumn: return tr("Committed in");
    case LastCommitColumn: return tr("Last commit");
    default: return {};
    }
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
        return QVariant::fromValue(Qt::Alignment((numeric(column) ? Qt::AlignRight : Qt::AlignLeft) | Qt::AlignVCenter));
    case Qt::ForegroundRole:
        if (column == LagColumn && g.lag > 0)
            return QBrush(QColor(0xb3, 0x4a, 0x00));
        return {};
    case Qt::ToolTipRole:
        return tr("Group %1: %2 events behind the log end; committed in %n partition(s)", nullptr, int(g.partitions))
            .arg(g.group, fmt::number(g.lag));
    default: return {};
    }
}

} // namespace rw
