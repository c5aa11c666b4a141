#pragma once

#include "ui/batch/runreportsnapshot.h"
#include "ui/common/tablemodel.h"

#include <vector>

namespace rw {

// The partitions of a run's report, in the snapshot's order (failed, changed,
// not published, unchanged): outcome, counts and failed gates. Takes the
// rows built off the GUI thread with resetData() (one model reset).
class RunReportModel : public SnapshotTableModel<RunReportRow> {
    Q_OBJECT
public:
    enum Column {
        OutcomeColumn,
        PartitionColumn,
        PublishedColumn,
        SourceColumn,
        StagedColumn,
        DuplicatesColumn,
        InsertedColumn,
        UpdatedColumn,
        DeletedColumn,
        UnchangedColumn,
        GatesColumn,
        ColumnCount
    };
    enum Role { OutcomeRole = FirstCustomRole /* the PartitionOutcome, as an int */ };

    explicit RunReportModel(QObject *parent = nullptr);

protected:
    QVariant cellData(const RunReportRow &row, int column, int role) const override;
};

} // namespace rw
