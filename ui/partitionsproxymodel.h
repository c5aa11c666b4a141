#pragma once

#include <QSortFilterProxyModel>
#include <QStringList>

namespace rw {

// Sorts PartitionsModel by its SortRole (raw numbers, so 9 comes before 10;
// partitions in core's order, see rw::partitionLess)
// and filters by partition text, status and "needs attention".
class PartitionsProxyModel : public QSortFilterProxyModel {
    Q_OBJECT
public:
    explicit PartitionsProxyModel(QObject *parent = nullptr);

    // Case-insensitive substring of the partition label; empty shows all.
    void setPartitionFilter(const QString &text);
    // Only these statuses; empty shows all.
    void setStatusFilter(const QStringList &statuses);
    // Only partitions that are stale or failed, or whose counts disagree.
    void setAttentionOnly(bool on);

protected:
    bool filterAcceptsRow(int sourceRow, const QModelIndex &sourceParent) const override;
    bool lessThan(const QModelIndex &left, const QModelIndex &right) const override;

private:
    QString m_partitionFilter;
    QStringList m_statuses;
    bool m_attentionOnly = false;
};

} // namespace rw
