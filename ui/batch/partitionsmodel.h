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
    enum Column { PartitionColumn, StatusColumn, SourceRowsColumn, TargetRowsColumn, DifferenceColumn,
                  DuplicateKeysColumn, LastRunColumn, LastPublishedColumn, ColumnCount };
    // SortRole: raw values: numbers as qint64, status as a severity rank, partition as text or null.
    enum Role {
        StatusRole = FirstCustomRole, // the PartitionStatus, whatever the column
        AttentionRole,                // bool: see needsAttention()
    };

    explicit PartitionsModel(QObject *parent = nullptr);

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
};

} // namespace rw
