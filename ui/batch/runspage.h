#pragma once

#include "core/batch/rollback.h"
#include "core/sql/database.h"
#include "core/workspace/spec.h"
#include "ui/common/page.h"

#include <QHash>
#include <QMap>
#include <QPointer>
#include <optional>

class QLabel;
class QPlainTextEdit;
class QPushButton;
class QSortFilterProxyModel;
class QStackedWidget;
class QTableView;
class QVBoxLayout;

namespace rw {

class ConfirmDialog;
class LiveRunWidget;
class RunManager;
class RunReportView;
class RunsModel;

// Runs: those in progress in this console (progress per run and for the
// current partition, rows per second, ETA, a live log, Cancel), and the
// history from the database (status, timings, counts) with a report of the
// selected run, Resume, Rollback, and export of the report as JSON or Markdown.
class RunsPage : public Page {
    Q_OBJECT
public:
    enum class ReportFormat { Json, Markdown };

    explicit RunsPage(QWidget *parent = nullptr);

    void setRunManager(RunManager *runs);
    void setWorkspace(const Database &db, const Spec &spec);
    // Selects `runId` once the history has it.
    void showRun(qint64 runId);
    qint64 selectedRunId() const;
    // Resumes the selected run (interrupted, cancelled or failed only).
    bool resumeSelected();
    // Rollback of the selected run: a dry run in the background, then a
    // typed confirmation (the dataset name) showing what each partition gets
    // back, then the rollback itself. A refusal (a later run touched the
    // partitions) comes back as actionFailed() with the core's message.
    bool rollbackSelected();
    // The confirmation of the rollback in progress, if any.
    ConfirmDialog *rollbackDialog() const;
    static bool canRollBack(RunStatus status);
    // Writes run `runId`'s report to `path` in the background (the Markdown of
    // rw::runReportMarkdown, or the JSON of rewindctl run-show): complete, every
    // partition in run order. reportExported() or loadFailed() tells how it
    // went; false when the run is not in the history.
    bool exportReport(qint64 runId, const QString &path, ReportFormat format);

    void refresh() override;
    void clear() override;
    QString title() const override { return tr("Runs"); }
    QString statusText() const override;

    RunsModel *model() const { return m_model; }
    QTableView *view() const { return m_view; }
    QPlainTextEdit *log() const { return m_log; }
    QString emptyText() const;
    bool showsEmptyState() const;
    QList<LiveRunWidget *> liveWidgets() const { return m_live.values(); }
    QPushButton *resumeButton() const { return m_resume; }
    QPushButton *rollbackButton() const { return m_rollback; }
    // The selected run's report: its facts and totals as text, and the view
    // with its partitions (failed first) and gates.
    QString reportText() const;
    RunReportView *reportView() const { return m_report; }

Q_SIGNALS:
    // For the window's banner: something worth saying that is not an error,
    // and an action refused or failed (not a load).
    void notice(const QString &message);
    void actionFailed(const QString &message);
    // Run `runId` of `dataset` was rolled back: its partitions changed.
    void rolledBack(qint64 runId, const QString &dataset);
    // exportReport() wrote `path`.
    void reportExported(const QString &path);

private:
    void showRollbackPlan(const RollbackResult &plan);
    void onRunAdded(int id);
    void onRunProgressed(int id);
    void onRunFinished(int id);
    void updateLiveSection();
    void updateSelection();
    void exportWithDialog(ReportFormat format);

    std::optional<Database> m_db;
    std::optional<Spec> m_spec;
    RunManager *m_runs = nullptr;
    qint64 m_pendingSelect = 0;
    bool m_reportPending = false; // pageLoaded() waits for the report of the run selected on load

    QLabel *m_liveTitle;
    QLabel *m_noLive;
    QVBoxLayout *m_liveBox;
    QMap<int, LiveRunWidget *> m_live;
    QPlainTextEdit *m_log;
    QStackedWidget *m_historyStack;
    QLabel *m_empty;
    QTableView *m_view;
    RunReportView *m_report;
    QPushButton *m_resume;
    QPushButton *m_rollback;
    QPointer<ConfirmDialog> m_rollbackDialog;
    // Why this role may not resume or roll back runs of a dataset (by name;
    // absent: it may), asked with each load of the history.
    struct Refusals {
        QString resume, rollback;
    };
    QHash<QString, Refusals> m_refusals;
    struct Loaded; // what a load of the history brings
    JobTracker m_rollbackJobs{this};
    QPushButton *m_exportJson;
    QPushButton *m_exportMarkdown;
    RunsModel *m_model;
    QSortFilterProxyModel *m_proxy;
};

} // namespace rw
