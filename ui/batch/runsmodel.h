#pragma once

#include "core/batch/runs.h"

#include <QAbstractTableModel>

#include <vector>

namespace rw {

// One run of the history: who, when, how it ended, and its counts.
struct RunSummary {
    RunInfo info;
    RunResult result; // from rw::runResult: per-partition counts and gates
};

// The run history, newest first, from a snapshot taken off the GUI thread.
class RunsModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { RunColumn, DatasetColumn, StatusColumn, StartedColumn, DurationColumn, UserColumn, PartitionsColumn,
                  InsertedColumn, UpdatedColumn, DeletedColumn, UnchangedColumn, GatesColumn, ColumnCount };
    enum Role { SortRole = Qt::UserRole + 1, RunIdRole, StatusRole };

    explicit RunsModel(QObject *parent = nullptr);

    void resetData(std::vector<RunSummary> runs);
    const std::vector<RunSummary> &snapshot() const { return m_rows; }
    // Row of a run id, or -1.
    int rowOf(qint64 runId) const;
    // Interrupted, cancelled and failed runs can be resumed.
    static bool resumable(const QString &status);

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    std::vector<RunSummary> m_rows;
};

} // namespace rw
