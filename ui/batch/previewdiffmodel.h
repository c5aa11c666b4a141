#pragma once

#include "core/batch/batch.h"

#include "ui/common/tablemodel.h"

#include <vector>

namespace rw {

// The per-partition diff of a preview (or a run): what a re-run would stage,
// drop as duplicates, insert, update, delete and leave unchanged, and how
// its gates went. Takes an immutable snapshot with resetData().
class PreviewDiffModel : public SnapshotTableModel<PartitionResult> {
    Q_OBJECT
public:
    enum Column { PartitionColumn, SourceColumn, StagedColumn, DuplicatesColumn, InsertedColumn, UpdatedColumn,
                  DeletedColumn, UnchangedColumn, GatesColumn, ColumnCount };

    explicit PreviewDiffModel(QObject *parent = nullptr);

    void resetData(std::vector<PartitionResult> partitions, std::vector<CheckResult> checks);
    const std::vector<PartitionResult> &partitions() const { return m_rows; }
    // Failed gates of the partition in `row`.
    int failedGates(int row) const;

protected:
    QVariant cellData(const PartitionResult &partition, int column, int role) const override;

private:
    int failedGatesOf(const PartitionResult &partition) const;

    std::vector<CheckResult> m_checks;
};

} // namespace rw
