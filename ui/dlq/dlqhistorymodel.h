#pragma once

#include "core/dlq/dlq.h"
#include "ui/common/tablemodel.h"

#include <vector>

namespace rw {

// One DLQ record's history (capture, fixes, replays, discards), oldest
// first, from a snapshot (rw::showDlq) taken off the GUI thread.
class DlqHistoryModel : public SnapshotTableModel<DlqHistoryEntry> {
    Q_OBJECT
public:
    enum Column { AtColumn, UserColumn, ActionColumn, TransitionColumn, ReasonColumn, ColumnCount };

    explicit DlqHistoryModel(QObject *parent = nullptr);

protected:
    QVariant cellData(const DlqHistoryEntry &entry, int column, int role) const override;
};

} // namespace rw
