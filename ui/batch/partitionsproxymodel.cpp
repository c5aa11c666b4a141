#include "ui/batch/partitionsproxymodel.h"

#include "core/batch/partitions.h"
#include "ui/batch/partitionsmodel.h"
#include "ui/common/statusstyle.h"

namespace rw {

PartitionsProxyModel::PartitionsProxyModel(QObject *parent)
    : QSortFilterProxyModel(parent) {
    setSortRole(PartitionsModel::SortRole);
    setSortCaseSensitivity(Qt::CaseInsensitive);
    setDynamicSortFilter(true);
}

bool PartitionsProxyModel::setPartitionFilter(const QString &text) {
    if (text == m_partitionFilter)
        return m_filterError.isEmpty();
    m_partitionFilter = text;
    m_filterError.clear();
    m_range = false;
    m_rangeFrom.reset();
    m_rangeTo.reset();
    m_regex = QRegularExpression();
    m_rankedFor = 0;
    if (const qsizetype dots = text.indexOf(QLatin1String("..")); dots >= 0 && !text.isEmpty()) {
        m_range = true;
        const QString from = text.left(dots).trimmed();
        const QString to = text.mid(dots + 2).trimmed();
        if (!from.isEmpty())
            m_rangeFrom = from;
        if (!to.isEmpty())
            m_rangeTo = to;
    } else if (!text.isEmpty()) {
        QRegularExpression re(text, QRegularExpression::CaseInsensitiveOption |
                                        QRegularExpression::DontCaptureOption);
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

void PartitionsProxyModel::setStatusFilter(const QList<PartitionStatus> &statuses) {
    if (statuses == m_statuses)
        return;
    m_statuses = statuses;
    invalidateRowsFilter();
}

void PartitionsProxyModel::setAttentionOnly(bool on) {
    if (on == m_attentionOnly)
        return;
    m_attentionOnly = on;
    invalidateRowsFilter();
}

void PartitionsProxyModel::setSourceModel(QAbstractItemModel *model) {
    m_partitions = qobject_cast<const PartitionsModel *>(model);
    Q_ASSERT(!model || m_partitions);
    m_rankedFor = 0;
    QSortFilterProxyModel::setSourceModel(model);
}

bool PartitionsProxyModel::lessThan(const QModelIndex &left, const QModelIndex &right) const {
    if (left.column() != PartitionsModel::PartitionColumn)
        return QSortFilterProxyModel::lessThan(left, right);
    // Ranked once per load (rw::partitionLess, off the GUI thread).
    return left.data(PartitionsModel::RankRole).toInt() <
           right.data(PartitionsModel::RankRole).toInt();
}

bool PartitionsProxyModel::filterAcceptsRow(int sourceRow, const QModelIndex &sourceParent) const {
    if (!m_partitions || sourceParent.isValid())
        return false;
    const PartitionInfo &p = m_partitions->snapshot()[std::size_t(sourceRow)];
    if (!m_statuses.isEmpty() && !m_statuses.contains(p.status))
        return false;
    if (m_attentionOnly && !StatusStyle::needsAttention(p.status) &&
        !PartitionsModel::needsAttention(p))
        return false;
    if (m_range) {
        if (!p.partition)
            return false; // the unpartitioned whole is in no range
        if (m_rankedFor != m_partitions->generation() + 1) {
            // Generation + 1: 0 means "not worked out" even for a model never reset.
            m_rankFrom = m_rangeFrom ? m_partitions->rankOf(m_rangeFrom, false) : 0;
            m_rankTo = m_rangeTo ? m_partitions->rankOf(m_rangeTo, true) : m_partitions->rowCount();
            m_rankedFor = m_partitions->generation() + 1;
        }
        const int rank = m_partitions->rank(sourceRow);
        return rank >= m_rankFrom && rank < m_rankTo;
    }
    if (m_regex.isValid() && !m_regex.pattern().isEmpty())
        return m_regex.match(partitionLabel(p.partition)).hasMatch();
    return true;
}

} // namespace rw
