#pragma once

#include "core/batch/runs.h"

#include "ui/common/tablemodel.h"

#include <vector>

namespace rw {

// One run of the history: who, when, how it ended, and its counts.
struct RunSummary {
    RunInfo info;
    RunResult result; // from rw::runResult: per-partition counts and gates
};

// The run history, newest first, from a snapshot taken off the GUI thread.
class RunsModel : public SnapshotTableModel<RunSummary> {
    Q_OBJECT
public:
    enum Column { RunColumn, DatasetColumn, StatusColumn, StartedColumn, DurationColumn, UserColumn, PartitionsColumn,
                  InsertedColumn, UpdatedColumn, DeletedColumn, UnchangedColumn, GatesColumn, ColumnCount };
    enum Role { RunIdRole = FirstCustomRole, StatusRole /* the RunStatus */ };

    explicit RunsModel(QObject *parent = nullptr);

    // Row of a run id, or -1.
    int rowOf(qint64 runId) const;
    // Interrupted, cancelled and failed runs can be resumed.
    static bool resumable(RunStatus status);

protected:
    QVariant cellData(const RunSummary &run, int column, int role) const override;
};

} // namespace rw
