#pragma once

#include "core/recovery/recovery.h"

#include "ui/common/tablemodel.h"

#include <vector>

namespace rw {

// Business totals of a recovery: per partition the row count and the sum of
// each numeric column, deduped source against target, and whether they
// match. One row per (partition, measure). Takes a snapshot with resetData().
class TotalsModel : public TableModel {
    Q_OBJECT
public:
    enum Column { PartitionColumn, MeasureColumn, SourceColumn, TargetColumn, MatchColumn, ColumnCount };
    enum Role { MatchRole = FirstCustomRole };

    explicit TotalsModel(QObject *parent = nullptr);

    void resetData(const std::vector<TotalsRow> &totals);
    int mismatches() const;

    int rowCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;

private:
    struct Row {
        QString partition;
        QString measure;
        QVariant source;
        QVariant target;
        bool match = true;
    };
    std::vector<Row> m_rows;
};

} // namespace rw
