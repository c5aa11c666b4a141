#pragma once

#include "core/streams/offsets.h"
#include "ui/common/tablemodel.h"

#include <vector>

namespace rw {

// The dry run of an offsets reset: per partition the current and new
// offsets and the events the group would (re)read from the new offset.
class ResetPlanModel : public SnapshotTableModel<ResetPartition> {
    Q_OBJECT
public:
    enum Column {
        PartitionColumn,
        CurrentColumn,
        NewColumn,
        ReplayColumn,
        LogStartColumn,
        LogEndColumn,
        NoteColumn,
        ColumnCount
    };

    explicit ResetPlanModel(QObject *parent = nullptr);

    // Offsets from the new position to the log end: what a replay reads.
    static qint64 toReplay(const ResetPartition &p);
    qint64 totalToReplay() const;

protected:
    QVariant cellData(const ResetPartition &partition, int column, int role) const override;
};

} // namespace rw
