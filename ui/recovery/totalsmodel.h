#pragma once

#include "core/recovery/recovery.h"
#include "ui/common/tablemodel.h"

#include <vector>

namespace rw {

// One line of the totals table: a measure of a partition, source against target.
struct TotalsLine {
    QString partition;
    QString measure;
    QVariant source;
    QVariant target;
    bool match = true;
};

// Business totals of a recovery: per partition the row count and the sum of
// each numeric column, deduped source against target, and whether they
// match. One row per (partition, measure). Takes a snapshot with resetData().
class TotalsModel : public SnapshotTableModel<TotalsLine> {
    Q_OBJECT
public:
    enum Column {
        PartitionColumn,
        MeasureColumn,
        SourceColumn,
        TargetColumn,
        MatchColumn,
        ColumnCount
    };
    enum Role { MatchRole = FirstCustomRole };

    explicit TotalsModel(QObject *parent = nullptr);

    void resetData(const std::vector<TotalsRow> &totals);
    int mismatches() const;

protected:
    QVariant cellData(const TotalsLine &line, int column, int role) const override;
};

} // namespace rw
