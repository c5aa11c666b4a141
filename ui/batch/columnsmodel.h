#pragma once

#include "core/batch/columnchange.h"
#include "ui/common/tablemodel.h"

#include <vector>

namespace rw {

// A preview's per-column change summary (its totals): one row per column,
// its changed share drawn as a bar behind the count, the figures an
// operator checks (NULLs and the sum before and after, the change's shape:
// one ratio or offset, the most common shift or pair) and the rest in the
// row's tooltip and details(). Takes an immutable snapshot with resetData().
class ColumnsModel : public SnapshotTableModel<ColumnChange> {
    Q_OBJECT
public:
    enum Column {
        NameColumn,
        ChangedColumn,
        OnlyColumn,
        NullsColumn,
        SumColumn,
        ShapeColumn,
        ColumnCount
    };
    enum Role { ShareRole = FirstCustomRole }; // the changed share, 0 to 1

    explicit ColumnsModel(QObject *parent = nullptr);

    // A figure as the console shows it: whole numbers grouped, others to
    // twelve significant digits; a dash for none.
    static QString figure(const std::optional<double> &v);
    // Every figure of `c` as rich text: the counts, a number's sums and
    // extremes, a text or time's most common pairs and shift, example keys.
    static QString details(const ColumnChange &c);

protected:
    QVariant cellData(const ColumnChange &c, int column, int role) const override;
};

} // namespace rw
