#include "ui/batch/partitionsproxymodel.h"

#include "core/batch/partitions.h"
#include "ui/batch/partitionsmodel.h"
#include "ui/common/statusstyle.h"

namespace rw {

PartitionsProxyModel::PartitionsProxyModel(QObject *parent) : QSortFilterProxyModel(parent)
{
    setSortRole(PartitionsModel::SortRole);
    setSortCaseSensitivity(Qt::CaseInsensitive);
    setDynamicSortFilter(true);
}

bool PartitionsProxyModel::setPartitionFilter(const QString &text)
{
    if (text == m_partitionFilter)
        return m_filterError.isEmpty();
    m_partitionFilter = text;
    m_filterError.clear();
    m_range = false;
    m_rangeFrom.reset();
    m_rangeTo.reset();
    m_regex = QRegularExpression();
    if (const qsizetype dots = text.indexOf(QLatin1String("..")); dots >= 0 && !text.isEmpty()) {
        m_range = true;
        const QString from = text.left(dots).trimmed();
        const QString to = text.mid(dots + 2).trimmed();
        if (!from.isEmpty())
            m_rangeFrom = from;
        if (!to.isEmpty())
            m_rangeTo = to;
    } else if (!text.isEmpty()) {
        QRegularExpression re(text, QRegularExpression::CaseInsensitiveOption | QRegularExpression::DontCaptureOption);
        if (re.isValid()) {
            re.optimize();
            m_regex = re;
        } else {
            m_filterError = tr("Not a valid regular expression: %1").arg(re.errorString());
        }
    }
    invalidateRowsFilter();
    return m_filterError.isEmpty();
}

void PartitionsProxyModel::setStatusFilter(const QList<PartitionStatus> &statuses)
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
    const auto status = statusIndex.data(PartitionsModel::StatusRole).value<PartitionStatus>();
    if (!m_statuses.isEmpty() && !m_statuses.contains(status))
        return false;
    if (m_attentionOnly && !StatusStyle::needsAttention(status)
        && !statusIndex.data(PartitionsModel::AttentionRole).toBool())
        return false;
    if (m_range) {
        const QVariant v = m->index(sourceRow, PartitionsModel::PartitionColumn, sourceParent).data(PartitionsModel::SortRole);
        const std::optional<QString> partition = v.isNull() ? std::nullopt : std::optional<QString>(v.toString());
        if (!partition)
            return false; // the unpartitioned whole is in no range
        if (m_rangeFrom && partitionLess(partition, m_rangeFrom))
            return false;
        if (m_rangeTo && partitionLess(m_rangeTo, partition))
            return false;
    } else if (m_regex.isValid() && !m_regex.pattern().isEmpty()) {
        const QString label = m->index(sourceRow, PartitionsModel::PartitionColumn, sourceParent).data().toString();
        if (!m_regex.match(label).hasMatch())
            return false;
    }
    return true;
}

} // namespace rw
