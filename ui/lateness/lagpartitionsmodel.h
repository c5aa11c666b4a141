#pragma once

#include "ui/common/tablemodel.h"
#include "ui/lateness/latenesssnapshot.h"

#include <vector>

namespace rw {

// The lag page's partitions: status, lateness percentiles and how many
// events would be late at the watermark slider's allowed lateness. Takes a
// snapshot (resetData); moving the slider (setWhatIf) only re-reads counts
// already in it.
class LagPartitionsModel : public SnapshotTableModel<LagPartitionRow> {
    Q_OBJECT
public:
    enum Column {
        PartitionColumn,
        StatusColumn,
        EventsColumn,
        P50Column,
        P99Column,
        MaxColumn,
        LateColumn,
        LateShareColumn,
        ColumnCount
    };

    explicit LagPartitionsModel(QObject *parent = nullptr);

    void resetData(std::vector<LagPartitionRow> rows);
    const std::vector<LagPartitionRow> &rows() const { return m_rows; }
    // The slider step: an index into each row's lateness.whatIfLate; -1 for none.
    void setWhatIf(int index, qint64 seconds);
    int whatIfIndex() const { return m_whatIf; }
    // Events of `row` later than the slider's allowed lateness (0 without one).
    qint64 lateAt(int row) const;

    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

protected:
    QVariant cellData(const LagPartitionRow &row, int column, int role) const override;

private:
    qint64 lateOf(const LagPartitionRow &row) const;
    double lateShare(const LagPartitionRow &row) const;

    int m_whatIf = -1;
    qint64 m_whatIfSeconds = 0;
};

} // namespace rw
