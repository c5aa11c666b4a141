#pragma once

#include "core/batch/partitions.h"
#include "ui/common/tablemodel.h"

#include <vector>

namespace rw {

// The partitions of one dataset, from an immutable snapshot taken off the
// GUI thread (rw::listPartitions) and handed over whole with resetData().
class PartitionsModel : public SnapshotTableModel<PartitionInfo> {
    Q_OBJECT
public:
    enum Column {
        PartitionColumn,
        StatusColumn,
        SourceRowsColumn,
        TargetRowsColumn,
        DifferenceColumn,
        DuplicateKeysColumn,
        LastRunColumn,
        LastPublishedColumn,
        LeafColumn,     // a partitioned PostgreSQL target's leaf (its bound in the tooltip)
        SnapshotColumn, // an Iceberg target's last snapshot of the partition, and who made it
        SchemaBehindColumn,
        DbtColumn, // dbt's run failed it (PartitionsPage::loadDbtResults); hidden until then
        ColumnCount
    };
    // SortRole: raw values: numbers as qint64, status as a severity rank, partition as text or
    // null.
    enum Role {
        StatusRole = FirstCustomRole, // the PartitionStatus, whatever the column
        AttentionRole,                // bool: see needsAttention()
        RankRole,                     // int: the row's place in partition order (rw::partitionLess)
    };

    explicit PartitionsModel(QObject *parent = nullptr);

    // Each row's place in partition order (rw::partitionLess, which parses
    // every label as a number: 10,000 rows sorted by it took the GUI thread
    // 170 ms). Any thread: the page ranks them with the load, off the GUI thread.
    static std::vector<int> ranks(const std::vector<PartitionInfo> &rows);
    // Takes `rows` and their ranks(); without ranks they are computed here.
    void resetData(std::vector<PartitionInfo> rows, std::vector<int> ranks);
    void resetData(std::vector<PartitionInfo> rows);

    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;

    // The first rank whose partition is not before `bound` (`after`: whose
    // partition is after it), by binary search in partition order: a range
    // filter is two of these per change, not two comparisons per row.
    int rankOf(const std::optional<QString> &bound, bool after) const;
    int rank(int row) const { return m_ranks[std::size_t(row)]; }
    // Changes with every reset, so that what was worked out from the rows can be kept until then.
    quint64 generation() const { return m_generation; }

    // Target rows differ from source rows on a published partition, or the
    // target holds duplicate keys.
    static bool rowCountsDisagree(const PartitionInfo &p);
    // What an operator should look at: stale or failed, duplicate keys, more
    // target rows than source rows, or a published partition left empty. (A
    // keyed target may hold fewer rows than its source: dedupe drops some.)
    static bool needsAttention(const PartitionInfo &p);

protected:
    QVariant cellData(const PartitionInfo &partition, int column, int role) const override;

private:
    QVariant toolTip(const PartitionInfo &p, int column) const;

    std::vector<int> m_ranks; // one per row
    std::vector<int> m_order; // the row of each rank
    quint64 m_generation = 0;
};

} // namespace rw
