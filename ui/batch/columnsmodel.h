#pragma once

#include "core/batch/columnchange.h"
#include "ui/common/tablemodel.h"

#include <vector>

namespace rw {

// A preview's per-column change summary (its totals): one row per column,
// its changed share drawn as a bar behind the count, the figures an
// operator checks (NULLs and the sum before and after, every change's one
// ratio or offset) and the rest in the row's tooltip. Takes an immutable
// snapshot with resetData().
class ColumnsModel : public SnapshotTableModel<ColumnChange> {
    Q_OBJECT
public:
    enum Column {
        NameColumn,
        ChangedColumn,
        OnlyColumn,
        NullsColumn,
        SumColumn,
        EveryColumn,
        ColumnCount
    };
    enum Role { ShareRole = FirstCustomRole }; // the changed share, 0 to 1

    explicit ColumnsModel(QObject *parent = nullptr);

    // A figure as the console shows it: whole numbers grouped, others to
    // twelve significant digits; a dash for none.
    static QString figure(const std::optional<double> &v);
    // "x0.5", "+3600", or empty when the changes share no one ratio or offset.
    static QString everyChange(const ColumnChange &c);

protected:
    QVariant cellData(const ColumnChange &c, int column, int role) const override;
};

} // namespace rw
