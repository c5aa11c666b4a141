#pragma once

#include "core/batch/batch.h"
#include "ui/common/tablemodel.h"

#include <QHash>
#include <vector>

namespace rw {

// The per-partition diff of a preview (or a run): what a re-run would stage,
// drop as duplicates, insert, update, delete and leave unchanged, and how
// its gates went. Takes an immutable snapshot with resetData().
class PreviewDiffModel : public SnapshotTableModel<PartitionResult> {
    Q_OBJECT
public:
    enum Column {
        PartitionColumn,
        SourceColumn,
        StagedColumn,
        DuplicatesColumn,
        InsertedColumn,
        UpdatedColumn,
        DeletedColumn,
        UnchangedColumn,
        GatesColumn,
        PublishColumn,
        ColumnCount
    };

    explicit PreviewDiffModel(QObject *parent = nullptr);

    void resetData(std::vector<PartitionResult> partitions, std::vector<CheckResult> checks);
    const std::vector<PartitionResult> &partitions() const { return m_rows; }
    // Failed gates of the partition in `row`.
    int failedGates(int row) const;

protected:
    QVariant cellData(const PartitionResult &partition, int column, int role) const override;

private:
    int failedGatesOf(const PartitionResult &partition) const;

    // Failed gates by partitionKey(), and those of no partition (they count
    // for every partition): counted once per reset, not per cell.
    QHash<QString, int> m_failedOf;
    int m_failedEverywhere = 0;
};

} // namespace rw
