#include "ui/batch/runspage.h"

#include "core/batch/batchjson.h"
#include "core/batch/batchprivileges.h"
#include "core/batch/runreport.h"
#include "core/sql/privileges.h"
#include "ui/batch/liverunwidget.h"
#include "ui/batch/rollbackmodel.h"
#include "ui/batch/runmanager.h"
#include "ui/batch/runreportview.h"
#include "ui/batch/runsmodel.h"
#include "ui/common/confirmdialog.h"
#include "ui/common/format.h"
#include "ui/common/style.h"

#include <QFile>
#include <QFileDialog>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QStackedWidget>
#include <QTableView>
#include <QTimer>
#include <QVBoxLayout>
#include <algorithm>
#include <utility>

namespace rw {

namespace {

QLabel *heading(const QString &text, QWidget *parent) {
    auto *label = new QLabel(text, parent);
    style::makeTitle(label, 1.15);
    return label;
}

} // namespace

struct RunsPage::Loaded {
    std::vector<RunSummary> runs;
    QHash<QString, Refusals> refusals;
};

RunsPage::RunsPage(QWidget *parent)
    : Page(parent)
    , m_liveTitle(heading(tr("In progress"), this))
    , m_noLive(new QLabel(this))
    , m_liveBox(new QVBoxLayout)
    , m_log(new QPlainTextEdit(this))
    , m_historyStack(new QStackedWidget(this))
    , m_empty(new QLabel(this))
    , m_view(new QTableView(this))
    , m_report(new RunReportView(this))
    , m_resume(new QPushButton(tr("Resume"), this))
    , m_rollback(new QPushButton(tr("Rollback\u2026"), this))
    , m_exportJson(new QPushButton(tr("Export JSON\u2026"), this))
    , m_exportMarkdown(new QPushButton(tr("Export Markdown\u2026"), this))
    , m_model(new RunsModel(this))
    , m_proxy(new QSortFilterProxyModel(this)) {
    setObjectName(QStringLiteral("runsPage"));
    auto *title = new QLabel(tr("Runs"), this);
    style::makeTitle(title);

    m_noLive->setText(
        tr("No run in progress. Start one from a preview (Run this plan\u2026, Ctrl+R)."));
    m_noLive->setStyleSheet(style::textColour(style::Colour::Muted));
    m_log->setObjectName(QStringLiteral("runLog"));
    m_log->setReadOnly(true);
    m_log->setMaximumBlockCount(5000);
    m_log->setPlaceholderText(tr("The live log of the runs started here appears in this panel."));
    m_log->setFont(QFont(QStringLiteral("monospace")));
    m_log->setMaximumHeight(130);
    m_log->hide(); // until a run started here logs something

    m_proxy->setSourceModel(m_model);
    m_proxy->setSortRole(RunsModel::SortRole);
    m_view->setObjectName(QStringLiteral("runsView"));
    m_view->setModel(m_proxy);
    m_view->setSortingEnabled(true);
    m_view->sortByColumn(RunsModel::RunColumn, Qt::DescendingOrder);
    measureFirstRowsOnly(m_view);
    m_view->setSelectionMode(QAbstractItemView::SingleSelection);
    style::setupTable(m_view, 8, true);
    connect(m_view->selectionModel(), &QItemSelectionModel::selectionChanged, this,
            &RunsPage::updateSelection);
    connect(m_report, &RunReportView::reportShown, this, [this] {
        if (std::exchange(m_reportPending, false))
            Q_EMIT pageLoaded();
    });

    m_empty->setObjectName(QStringLiteral("runsEmpty"));
    m_empty->setAlignment(Qt::AlignCenter);
    m_empty->setText(
        style::emptyState(tr("No runs yet"), tr("Preview a re-run from a dataset's partitions "
                                                "(Ctrl+P), then confirm it (Ctrl+R).<br>Every run, "
                                                "its counts and its gates appear here.")));
    m_report->setPlaceholderText(tr("Select a run to see its report."));

    m_resume->setObjectName(QStringLiteral("resumeRun"));
    m_resume->setToolTip(
        tr("Continue the run from its first unfinished partition, with the same plan"));
    m_exportJson->setToolTip(
        tr("Save the selected run's report as JSON (the rewindctl run-show shape)"));
    m_exportMarkdown->setToolTip(
        tr("Save the selected run's report as Markdown: what, by whom, counts, gates"));
    m_rollback->setObjectName(QStringLiteral("rollbackRun"));
    connect(m_resume, &QPushButton::clicked, this, &RunsPage::resumeSelected);
    connect(m_rollback, &QPushButton::clicked, this, &RunsPage::rollbackSelected);
    connect(m_exportJson, &QPushButton::clicked, this,
            [this] { exportWithDialog(ReportFormat::Json); });
    connect(m_exportMarkdown, &QPushButton::clicked, this,
            [this] { exportWithDialog(ReportFormat::Markdown); });

    auto *buttons = new QHBoxLayout;
    buttons->addWidget(heading(tr("History"), this));
    buttons->addStretch(1);
    buttons->addWidget(m_resume);
    buttons->addWidget(m_rollback);
    buttons->addWidget(m_exportJson);
    buttons->addWidget(m_exportMarkdown);

    auto *historySplit = style::splitter(Qt::Vertical, {{m_view, 2}, {m_report, 3}}, this);
    m_historyStack->addWidget(m_empty);
    m_historyStack->addWidget(historySplit);

    auto *layout = style::pageLayout(this);
    layout->addWidget(title);
    layout->addWidget(m_liveTitle);
    layout->addWidget(m_noLive);
    layout->addLayout(m_liveBox);
    layout->addWidget(m_log);
    layout->addLayout(buttons);
    layout->addWidget(m_historyStack, 1);
    clear();
}

void RunsPage::setRunManager(RunManager *runs) {
    m_runs = runs;
    connect(runs, &RunManager::runAdded, this, &RunsPage::onRunAdded);
    connect(runs, &RunManager::runStarted, this, &RunsPage::onRunProgressed);
    connect(runs, &RunManager::runProgressed, this, &RunsPage::onRunProgressed);
    connect(runs, &RunManager::runFinished, this, &RunsPage::onRunFinished);
    connect(runs, &RunManager::logAppended, this, [this](int id, const QString &line) {
        const LiveRun *run = m_runs->run(id);
        m_log->appendPlainText(run ? QStringLiteral("[%1] %2").arg(run->dataset, line) : line);
        m_log->show();
    });
}

void RunsPage::setWorkspace(const Database &db, const Spec &spec) {
    m_db = db;
    m_spec = spec;
    refresh();
}

void RunsPage::clear() {
    cancelLoad();
    m_reportPending = false;
    m_db.reset();
    m_spec.reset();
    m_model->resetData({});
    m_historyStack->setCurrentWidget(m_empty);
    m_report->showMessage(QString());
    updateSelection();
    updateLiveSection();
}

QString RunsPage::statusText() const {
    return tr("%1 runs in the history, %2 in progress")
        .arg(m_model->rowCount())
        .arg(m_runs ? m_runs->activeRuns().size() : 0);
}

QString RunsPage::emptyText() const {
    return m_empty->text();
}

bool RunsPage::showsEmptyState() const {
    return m_historyStack->currentWidget() == m_empty;
}

QString RunsPage::reportText() const {
    return m_report->text();
}

void RunsPage::refresh() {
    if (!m_db)
        return;
    startLoad(
        tr("Loading runs\u2026"),
        [db = *m_db, spec = m_spec]() -> Result<Loaded> {
            auto runs = listRuns(db.control(), 200);
            if (!runs)
                return fail(runs.error());
            Loaded out;
            out.runs.reserve(runs->size());
            for (RunInfo &info : *runs) {
                auto result = runResult(db.control(), info.runId);
                if (!result)
                    return fail(result.error());
                // Whether this role may resume or roll back runs of its dataset.
                if (const DatasetSpec *d = spec ? spec->dataset(info.dataset) : nullptr;
                    d && !out.refusals.contains(d->name))
                    out.refusals.insert(
                        d->name, {privileges::refusalOf(requireRunPrivileges(
                                      db, *d, tr("A resume of a run of %1").arg(d->name))),
                                  privileges::refusalOf(requireRollbackPrivileges(
                                      db, *d, tr("A rollback of a run of %1").arg(d->name)))});
                out.runs.push_back(
                    RunSummary::of(std::move(info), *result)); // its partitions dropped here
            }
            return out;
        },
        [this](Result<Loaded> result) {
            if (!result) {
                Q_EMIT loadFailed(tr("Could not load the runs: %1").arg(result.error().message));
                return;
            }
            const qint64 keep = m_pendingSelect ? m_pendingSelect : selectedRunId();
            m_refusals = std::move(result->refusals);
            m_model->resetData(std::move(result->runs));
            m_historyStack->setCurrentIndex(m_model->rowCount() == 0 ? 0 : 1);
            m_view->resizeColumnsToContents();
            if (keep > 0)
                showRun(keep);
            else if (m_proxy->rowCount() > 0)
                m_view->selectRow(0);
            updateSelection();
            // Loaded once the selected run's report is shown too.
            m_reportPending = m_report->isLoading();
            if (!m_reportPending)
                Q_EMIT pageLoaded();
        });
}

void RunsPage::showRun(qint64 runId) {
    const int row = m_model->rowOf(runId);
    if (row < 0) {
        m_pendingSelect = runId; // not loaded yet
        return;
    }
    m_pendingSelect = 0;
    const QModelIndex index = m_proxy->mapFromSource(m_model->index(row, 0));
    m_view->selectRow(index.row());
    m_view->scrollTo(index);
}

qint64 RunsPage::selectedRunId() const {
    const QModelIndexList rows = m_view->selectionModel()->selectedRows();
    return rows.isEmpty() ? 0 : rows.first().data(RunsModel::RunIdRole).toLongLong();
}

void RunsPage::updateSelection() {
    const qint64 id = selectedRunId();
    const int row = m_model->rowOf(id);
    const bool has = row >= 0;
    RunStatus status = RunStatus::Running;
    bool published = false; // rollback only undoes what a run published
    if (has) {
        const RunSummary &r = m_model->snapshot()[std::size_t(row)];
        status = r.info.status;
        published = r.published > 0;
        if (status == RunStatus::Running)
            m_report->showMessage(tr("Run %1 is in progress: the panel above follows it, and its "
                                     "report is shown here when it ends.")
                                      .arg(id));
        else
            m_report->showRun(r.info, *m_db);
    } else {
        m_report->showMessage(QString());
    }
    const Refusals refused =
        has ? m_refusals.value(m_model->snapshot()[std::size_t(row)].info.dataset) : Refusals{};
    m_resume->setEnabled(has && RunsModel::resumable(status) && m_spec.has_value() &&
                         refused.resume.isEmpty());
    m_resume->setToolTip(
        refused.resume.isEmpty()
            ? tr("Continue the run from its first unfinished partition, with the same plan")
            : refused.resume);
    m_rollback->setEnabled(has && published && canRollBack(status) && m_spec.has_value() &&
                           !m_rollbackDialog && refused.rollback.isEmpty());
    m_rollback->setToolTip(
        !refused.rollback.isEmpty() ? refused.rollback
        : has && !published && canRollBack(status)
            ? tr("Run %1 published no partition: there is nothing to roll back").arg(id)
            : tr("Restore every partition the selected run published to its state before the run: "
                 "shows what comes back first, then asks you to type the dataset name"));
    m_exportJson->setEnabled(has);
    m_exportMarkdown->setEnabled(has);
    if (m_reportPending && !m_report->isLoading()) // a message instead of the awaited report
        Q_EMIT pageLoaded();
    m_reportPending = m_reportPending && m_report->isLoading();
}

bool RunsPage::resumeSelected() {
    const qint64 id = selectedRunId();
    const int row = m_model->rowOf(id);
    if (row < 0 || !m_runs || !m_db || !m_spec)
        return false;
    const RunSummary &r = m_model->snapshot()[std::size_t(row)];
    if (!RunsModel::resumable(r.info.status))
        return false;
    m_runs->resumeRun(*m_db, *m_spec, id, r.info.dataset);
    m_resume->setEnabled(false);
    return true;
}

ConfirmDialog *RunsPage::rollbackDialog() const {
    return m_rollbackDialog;
}

bool RunsPage::canRollBack(RunStatus status) {
    // Runs (of every kind) that may have published partitions and are no
    // longer running.
    switch (status) {
    case RunStatus::Succeeded:
    case RunStatus::CheckFailed:
    case RunStatus::Failed:
    case RunStatus::Cancelled:
    case RunStatus::Interrupted:
        return true;
    default:
        return false;
    }
}

bool RunsPage::rollbackSelected() {
    const qint64 id = selectedRunId();
    const int row = m_model->rowOf(id);
    if (row < 0 || !m_db || !m_spec || m_rollbackDialog)
        return false;
    const RunSummary &r = m_model->snapshot()[std::size_t(row)];
    if (!canRollBack(r.info.status))
        return false;
    m_rollback->setEnabled(false);
    Q_EMIT loadingChanged(true, tr("Working out what a rollback of run %1 restores\u2026").arg(id));
    m_rollbackJobs.start(
        [db = *m_db, spec = *m_spec, id] { return rollback(db, spec, id, false); },
        [this, id](Result<RollbackResult> plan) {
            Q_EMIT loadingChanged(false, QString());
            updateSelection();
            if (!plan) {
                Q_EMIT actionFailed(
                    tr("Rollback of run %1 refused: %2").arg(id).arg(plan.error().message));
                return;
            }
            if (!plan->refused.isEmpty()) {
                Q_EMIT actionFailed(plan->refused);
                return;
            }
            if (plan->status == RollbackStatus::NothingToRestore || plan->partitions.empty()) {
                Q_EMIT notice(
                    tr("Run %1 published no partition: there is nothing to roll back.").arg(id));
                return;
            }
            showRollbackPlan(*plan);
        });
    return true;
}

void RunsPage::showRollbackPlan(const RollbackResult &plan) {
    qint64 removed = 0, restored = 0;
    for (const RollbackPartition &p : plan.partitions) {
        removed += p.rowsRemoved;
        restored += p.rowsRestored;
    }
    const QString html =
        tr("<h3>Roll back run %1 of %2</h3>"
           "<p>Every partition run %1 published (%3, %4 partition(s)) goes back to exactly its "
           "state before the run, "
           "from the before-images kept at publish: <b>%5</b> row(s) it wrote are removed and "
           "<b>%6</b> row(s) it replaced "
           "come back. Each partition is restored in its own transaction, with an audit row.</p>")
            .arg(plan.runId)
            .arg(plan.dataset.toHtmlEscaped(), enumName(plan.mode).toHtmlEscaped())
            .arg(plan.partitions.size())
            .arg(fmt::number(removed), fmt::number(restored)) +
        (plan.schemaChange.empty()
             ? QString()
             : style::themed(tr("<p><b style='color:{warning}'>The run %1</b>: the rollback "
                                "undoes it in its last transaction%2.</p>"))
                   .arg(plan.schemaChange.describe().toHtmlEscaped(),
                        plan.schemaChange.dropped.empty()
                            ? QString()
                            : tr(" (the dropped columns come back with their values: the "
                                 "whole table is put back as the run found it)")));
    auto *dialog = new ConfirmDialog(tr("Roll back run %1").arg(plan.runId), html, plan.dataset,
                                     tr("Roll back"), this);
    dialog->setObjectName(QStringLiteral("rollbackDialog"));
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    auto *model = new RollbackModel(dialog);
    model->resetData(plan.partitions);
    auto *table = new QTableView;
    table->setObjectName(QStringLiteral("rollbackPlan"));
    table->setModel(model);
    table->verticalHeader()->hide();
    table->horizontalHeader()->setStretchLastSection(true);
    table->setSelectionMode(QAbstractItemView::NoSelection);
    table->resizeColumnsToContents();
    // As tall as its rows, up to about eight of them.
    const int rows = std::min(model->rowCount(), 8);
    table->setFixedHeight(table->horizontalHeader()->sizeHint().height() +
                          rows * table->verticalHeader()->defaultSectionSize() +
                          2 * table->frameWidth() + 2);
    dialog->addDetail(table);
    m_rollbackDialog = dialog;
    const qint64 id = plan.runId;
    const QString dataset = plan.dataset;
    connect(dialog, &QDialog::finished, this,
            [this] { QTimer::singleShot(0, this, &RunsPage::updateSelection); });
    connect(dialog, &ConfirmDialog::confirmed, this, [this, id, dataset] {
        if (!m_db || !m_spec)
            return;
        Q_EMIT loadingChanged(true, tr("Rolling back run %1\u2026").arg(id));
        m_rollbackJobs.start(
            [db = *m_db, spec = *m_spec, id] { return rollback(db, spec, id, true); },
            [this, id, dataset](Result<RollbackResult> done) {
                Q_EMIT loadingChanged(false, QString());
                if (!done) {
                    if (m_rollbackDialog)
                        m_rollbackDialog->showError(
                            tr("Not rolled back: %1").arg(done.error().message));
                    return;
                }
                qint64 removed = 0, restored = 0;
                for (const RollbackPartition &p : done->partitions) {
                    removed += p.rowsRemoved;
                    restored += p.rowsRestored;
                }
                if (m_rollbackDialog)
                    m_rollbackDialog->finish();
                Q_EMIT notice(tr("Run %1 of %2 rolled back: %3 partition(s) restored, %4 row(s) "
                                 "removed, %5 row(s) restored.")
                                  .arg(id)
                                  .arg(dataset)
                                  .arg(done->partitions.size())
                                  .arg(fmt::number(removed), fmt::number(restored)));
                m_pendingSelect = id;
                refresh();
                Q_EMIT rolledBack(id, dataset);
            });
    });
    dialog->adjustSize();
    dialog->open();
    updateSelection();
}

bool RunsPage::exportReport(qint64 runId, const QString &path, ReportFormat format) {
    const int row = m_model->rowOf(runId);
    if (row < 0)
        return false;
    if (!m_db)
        return false;
    // Reading and formatting 10,000 partitions and writing them is work for a worker.
    tasks().start(
        [info = m_model->snapshot()[std::size_t(row)].info, db = *m_db, path,
         format]() -> Result<bool> {
            auto result = runResult(db.control(), info.runId);
            if (!result)
                return fail(result.error());
            result->status = info.status; // "interrupted" is derived in listRuns
            QByteArray content;
            if (format == ReportFormat::Json) {
                nlohmann::ordered_json j = toJson(*result);
                j["os_user"] = info.osUser.toStdString();
                j["host"] = info.host.toStdString();
                content = QByteArray::fromStdString(j.dump(2)) + '\n';
            } else {
                content = runReportMarkdown(info, *result).toUtf8();
            }
            QFile file(path);
            if (!file.open(QIODevice::WriteOnly | QIODevice::Truncate) ||
                file.write(content) != content.size() || !file.flush())
                return internalError(tr("Could not write %1: %2").arg(path, file.errorString()));
            return true;
        },
        [this, path](Result<bool> written) {
            if (!written) {
                Q_EMIT loadFailed(written.error().message);
                return;
            }
            Q_EMIT reportExported(path);
        });
    return true;
}

void RunsPage::exportWithDialog(ReportFormat format) {
    const qint64 id = selectedRunId();
    if (id <= 0)
        return;
    const bool json = format == ReportFormat::Json;
    const QString path = QFileDialog::getSaveFileName(
        this, json ? tr("Export run report as JSON") : tr("Export run report as Markdown"),
        QStringLiteral("run-%1.%2")
            .arg(id)
            .arg(json ? QStringLiteral("json") : QStringLiteral("md")),
        json ? tr("JSON (*.json)") : tr("Markdown (*.md)"));
    if (!path.isEmpty())
        exportReport(id, path, format);
}

void RunsPage::onRunAdded(int id) {
    auto *w = new LiveRunWidget(id, this);
    connect(w, &LiveRunWidget::cancelRequested, m_runs, &RunManager::cancel);
    m_live.insert(id, w);
    m_liveBox->addWidget(w);
    if (const LiveRun *run = m_runs->run(id))
        w->update(*run);
    updateLiveSection();
}

void RunsPage::onRunProgressed(int id) {
    LiveRunWidget *w = m_live.value(id);
    const LiveRun *run = m_runs->run(id);
    if (w && run)
        w->update(*run);
    if (run && run->started && run->progress.partitionsDone == 0 &&
        run->progress.phase == QLatin1String("stage"))
        refresh(); // the new run row is in the database: show it as running
}

void RunsPage::onRunFinished(int id) {
    if (LiveRunWidget *w = m_live.take(id))
        w->deleteLater();
    const LiveRun *run = m_runs->run(id);
    if (run && run->result && !run->result->runId.isNull())
        m_pendingSelect = run->result->runId.toLongLong();
    updateLiveSection();
    refresh();
}

void RunsPage::updateLiveSection() {
    m_noLive->setVisible(m_live.isEmpty());
}

} // namespace rw
