#pragma once

#include "ui/batch/runreportsnapshot.h"
#include "ui/common/jobtracker.h"

#include <QWidget>
#include <optional>

class QComboBox;
class QLabel;
class QSortFilterProxyModel;
class QStackedWidget;
class QTabWidget;
class QTableView;

namespace rw {

class ChecksModel;
class RunReportModel;
class StatTile;

// A run's report as the console shows it: the run's facts and totals (stat
// tiles and a summary line), its partitions in a table, failed first, then
// changed, not published and unchanged, with a filter by outcome, and its
// gates, failed first. Model-backed views, so a run of 10,000 partitions
// shows as fast as one of ten; the report is built off the GUI thread
// (buildRunReport) and handed over in one model reset. The exports (Markdown,
// JSON) are the Runs page's, not this view's. GUI thread only.
class RunReportView : public QWidget {
    Q_OBJECT
public:
    explicit RunReportView(QWidget *parent = nullptr);

    // Builds the report of `info` and `result` in the background and shows
    // it; a report still being built for an earlier call is dropped.
    void showRun(const RunInfo &info, const RunResult &result);
    // The same, the run's result read from `db` in the background too.
    void showRun(const RunInfo &info, const Database &db);
    // Shows `message` instead of a report (empty: the placeholder).
    void showMessage(const QString &message);
    void setPlaceholderText(const QString &text);

    // The run whose report is shown (0 for none) and whether one is being built.
    qint64 runId() const { return m_snapshot ? m_snapshot->info.runId : 0; }
    bool isLoading() const { return m_jobs.isRunning(); }
    const std::optional<RunReportSnapshot> &snapshot() const { return m_snapshot; }
    // What the view says, as plain text: the message, or the run's heading,
    // facts, error and totals (not the partition rows).
    QString text() const;

    // Shows the partitions of one outcome only; nullopt: all of them.
    void setOutcomeFilter(std::optional<PartitionOutcome> outcome);
    RunReportModel *partitionsModel() const { return m_model; }
    QSortFilterProxyModel *partitionsProxy() const { return m_proxy; }
    QTableView *partitionsView() const { return m_partitionsView; }
    ChecksModel *gatesModel() const { return m_gates; }
    QTabWidget *tabs() const { return m_tabs; }
    StatTile *tile(PartitionOutcome outcome) const { return m_outcomeTiles[int(outcome)]; }

Q_SIGNALS:
    // The report of `runId` is on show.
    void reportShown(qint64 runId);

private:
    void apply(RunReportSnapshot snapshot);
    void updateFilterChoices();

    QStackedWidget *m_stack;
    QLabel *m_message;
    QLabel *m_heading;
    QLabel *m_facts;
    QLabel *m_error;
    QLabel *m_totals;
    StatTile *m_outcomeTiles[kPartitionOutcomes];
    StatTile *m_inserted;
    StatTile *m_updated;
    StatTile *m_deleted;
    StatTile *m_gatesTile;
    QComboBox *m_filter;
    QLabel *m_shown;
    QTabWidget *m_tabs;
    QTableView *m_partitionsView;
    QTableView *m_gatesView;
    RunReportModel *m_model;
    QSortFilterProxyModel *m_proxy;
    ChecksModel *m_gates;
    QString m_placeholder;
    std::optional<RunReportSnapshot> m_snapshot;
    JobTracker m_jobs{this};
};

} // namespace rw
