#include "partitionsproxymodel.h"

#include "partitions.h"
#include "partitionsmodel.h"
#include "statusstyle.h"

namespace rw {

PartitionsProxyModel::PartitionsProxyModel(QObject *parent) : QSortFilterProxyModel(parent)
{
    setSortRole(PartitionsModel::SortRole);
    setSortCaseSensitivity(Qt::CaseInsensitive);
    setDynamicSortFilter(true);
}

void PartitionsProxyModel::setPartitionFilter(const QString &text)
{
    if (text == m_partitionFilter)
        return;
    m_partitionFilter = text;
    invalidateRowsFilter();
}

void PartitionsProxyModel::setStatusFilter(const QStringList &statuses)
{
    if (statuses == m_statuses)
        return;
    m_statuses = statuses;
    invalidateRowsFilter();
}

void PartitionsProxyModel::setAttentionOnly(bool on)
{
    if (on == m_attentionOnly)
        return;
    m_attentionOnly = on;
    invalidateRowsFilter();
}

bool PartitionsProxyModel::lessThan(const QModelIndex &left, const QModelIndex &right) const
{
    if (left.column() != PartitionsModel::PartitionColumn)
        return QSortFilterProxyModel::lessThan(left, right);
    const auto partition = [](const QModelIndex &index) -> std::optional<QString> {
        const QVariant v = index.data(PartitionsModel::SortRole);
        return v.isNull() ? std::nullopt : std::optional<QString>(v.toString());
    };
    return partitionLess(partition(left), partition(right));
}

bool PartitionsProxyModel::filterAcceptsRow(int sourceRow, const QModelIndex &sourceParent) const
{
    const QAbstractItemModel *m = sourceModel();
    const QModelIndex statusIndex = m->index(sourceRow, PartitionsModel::StatusColumn, sourceParent);
    const QString status = statusIndex.data(PartitionsModel::StatusRole).toString();
    if (!m_statuses.isEmpty() && !m_statuses.contains(status))
        return false;
    if (m_attentionOnly && !StatusStyle::needsAttention(status)
        && !statusIndex.data(PartitionsModel::AttentionRole).toBool())
        return false;
    if (!m_partitionFilter.isEmpty()) {
        const QString label = m->index(sourceRow, PartitionsModel::PartitionColumn, sourceParent).data().toString();
        if (!label.contains(m_partitionFilter, Qt::CaseInsensitive))
            return false;
    }
    return true;
}

} // namespace rw
