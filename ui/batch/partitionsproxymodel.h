#pragma once

#include "core/batch/partitions.h"

#include <QList>
#include <QRegularExpression>
#include <QSortFilterProxyModel>
#include <optional>

namespace rw {

class PartitionsModel;

// Sorts PartitionsModel by its SortRole (raw numbers, so 9 comes before 10;
// partitions in core's order, see rw::partitionLess)
// and filters by partition text, status and "needs attention".
class PartitionsProxyModel : public QSortFilterProxyModel {
    Q_OBJECT
public:
    explicit PartitionsProxyModel(QObject *parent = nullptr);

    // A range "FROM..TO" (inclusive, in partition order; either end may be
    // left out: "2025-05-10.." or "..2025-05-03"), or else a case-insensitive
    // regular expression searched in the partition label. Empty shows all.
    // Returns false (and filters nothing out) for an invalid expression.
    bool setPartitionFilter(const QString &text);
    // Why the last filter text was refused; empty when it was accepted.
    QString partitionFilterError() const { return m_filterError; }
    // Only these statuses; empty shows all.
    void setStatusFilter(const QList<PartitionStatus> &statuses);
    // Only partitions that are stale or failed, or whose counts disagree.
    void setAttentionOnly(bool on);

    // The source must be a PartitionsModel: rows are read from its snapshot
    // (10,000 rows filtered per keystroke, without a QVariant per cell).
    void setSourceModel(QAbstractItemModel *model) override;

protected:
    bool filterAcceptsRow(int sourceRow, const QModelIndex &sourceParent) const override;
    bool lessThan(const QModelIndex &left, const QModelIndex &right) const override;

private:
    const PartitionsModel *m_partitions = nullptr;
    // The range as ranks [from, to) of the model's generation `m_rankedFor`.
    mutable quint64 m_rankedFor = 0;
    mutable int m_rankFrom = 0, m_rankTo = 0;
    QString m_partitionFilter;
    QString m_filterError;
    QRegularExpression m_regex; // invalid when no regex applies
    std::optional<QString> m_rangeFrom;
    std::optional<QString> m_rangeTo;
    bool m_range = false;
    QList<PartitionStatus> m_statuses;
    bool m_attentionOnly = false;
};

} // namespace rw
