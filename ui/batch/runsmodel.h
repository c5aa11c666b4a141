#pragma once

#include "core/batch/runs.h"
#include "ui/common/tablemodel.h"

#include <vector>

namespace rw {

// One run of the history: who, when, how it ended, and its counts. Not the
// per-partition results: 200 runs of 10,000 partitions would hold 2 million
// of them; the selected run's report loads its own (RunReportView).
struct RunSummary {
    RunInfo info;
    PartitionResult totals; // summed over its partitions
    int partitions = 0;
    int published = 0;
    int failedGates = 0;

    static RunSummary of(RunInfo info, const RunResult &result);
};

// The run history, newest first, from a snapshot taken off the GUI thread.
class RunsModel : public SnapshotTableModel<RunSummary> {
    Q_OBJECT
public:
    enum Column {
        RunColumn,
        DatasetColumn,
        StatusColumn,
        StartedColumn,
        DurationColumn,
        UserColumn,
        PartitionsColumn,
        InsertedColumn,
        UpdatedColumn,
        DeletedColumn,
        UnchangedColumn,
        GatesColumn,
        ColumnCount
    };
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
