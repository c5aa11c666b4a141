#include "runspage.h"

#include "background.h"
#include "batchjson.h"
#include "liverunwidget.h"
#include "runmanager.h"
#include "runreport.h"
#include "runsmodel.h"

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
#include <QTextBrowser>
#include <QTextDocument>
#include <QVBoxLayout>

namespace rw {

namespace {

QLabel *heading(const QString &text, QWidget *parent)
{
    auto *label = new QLabel(text, parent);
    QFont f = label->font();
    f.setBold(true);
    f.setPointSizeF(f.pointSizeF() * 1.15);
    label->setFont(f);
    return label;
}

} // namespace

RunsPage::RunsPage(QWidget *parent)
    : Page(parent), m_liveTitle(heading(tr("In progress"), this)), m_noLive(new QLabel(this)), m_liveBox(new QVBoxLayout),
      m_log(new QPlainTextEdit(this)), m_historyStack(new QStackedWidget(this)), m_empty(new QLabel(this)),
      m_view(new QTableView(this)), m_report(new QTextBrowser(this)), m_resume(new QPushButton(tr("Resume"), this)),
      m_exportJson(new QPushButton(tr("Export JSON\u2026"), this)),
      m_exportMarkdown(new QPushButton(tr("Export Markdown\u2026"), this)), m_model(new RunsModel(this)),
      m_proxy(new QSortFilterProxyModel(this))
{
    setObjectName(QStringLiteral("runsPage"));
    auto *title = new QLabel(tr("Runs"), this);
    QFont titleFont = title->font();
    titleFont.setPointSizeF(titleFont.pointSizeF() * 1.6);
    titleFont.setBold(true);
    title->setFont(titleFont);

    m_noLive->setText(tr("No run in progress. Start one from a preview (Run this plan\u2026, Ctrl+R)."));
    m_noLive->setStyleSheet(QStringLiteral("color: #5f6670;"));
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
    m_view->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_view->setSelectionMode(QAbstractItemView::SingleSelection);
    m_view->setAlternatingRowColors(true);
    m_view->setWordWrap(false);
    m_view->verticalHeader()->hide();
    m_view->verticalHeader()->setDefaultSectionSize(m_view->fontMetrics().height() + 8);
    m_view->horizontalHeader()->setStretchLastSection(true);
    m_view->setStyleSheet(QStringLiteral("QTableView { border: 1px solid #dfe2e7; gridline-color: #eceef1; }"));
    connect(m_view->selectionModel(), &QItemSelectionModel::selectionChanged, this, &RunsPage::updateSelection);

    m_empty->setObjectName(QStringLiteral("runsEmpty"));
    m_empty->setAlignment(Qt::AlignCenter);
    m_empty->setText(tr("<h3>No runs yet</h3><p style='color:#5f6670'>Preview a re-run from a dataset's partitions "
                        "(Ctrl+P), then confirm it (Ctrl+R).<br>Every run, its counts and its gates appear here.</p>"));
    m_report->setObjectName(QStringLiteral("runReport"));
    m_report->setOpenLinks(false);
    m_report->setPlaceholderText(tr("Select a run to see its report."));

    m_resume->setObjectName(QStringLiteral("resumeRun"));
    m_resume->setToolTip(tr("Continue the run from its first unfinished partition, with the same plan"));
    m_exportJson->setToolTip(tr("Save the selected run's report as JSON (the rewindctl run-show shape)"));
    m_exportMarkdown->setToolTip(tr("Save the selected run's report as Markdown: what, by whom, counts, gates"));
    connect(m_resume, &QPushButton::clicked, this, &RunsPage::resumeSelected);
    connect(m_exportJson, &QPushButton::clicked, this, [this] { exportWithDialog(ReportFormat::Json); });
    connect(m_exportMarkdown, &QPushButton::clicked, this, [this] { exportWithDialog(ReportFormat::Markdown); });

    auto *buttons = new QHBoxLayout;
    buttons->addWidget(heading(tr("History"), this));
    buttons->addStretch(1);
    buttons->addWidget(m_resume);
    buttons->addWidget(m_exportJson);
    buttons->addWidget(m_exportMarkdown);

    auto *historySplit = new QSplitter(Qt::Vertical, this);
    historySplit->addWidget(m_view);
    historySplit->addWidget(m_report);
    historySplit->setStretchFactor(0, 2);
    historySplit->setStretchFactor(1, 3);
    historySplit->setChildrenCollapsible(false);
    m_historyStack->addWidget(m_empty);
    m_historyStack->addWidget(historySplit);

    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(16, 12, 16, 12);
    layout->setSpacing(8);
    layout->addWidget(title);
    layout->addWidget(m_liveTitle);
    layout->addWidget(m_noLive);
    layout->addLayout(m_liveBox);
    layout->addWidget(m_log);
    layout->addLayout(buttons);
    layout->addWidget(m_historyStack, 1);
    clear();
}

void RunsPage::setRunManager(RunManager *runs)
{
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

void RunsPage::setWorkspace(const Database &db, const Spec &spec)
{
    m_db = db;
    m_spec = spec;
    refresh();
}

void RunsPage::clear()
{
    cancelLoad();
    m_db.reset();
    m_spec.reset();
    m_model->resetData({});
    m_historyStack->setCurrentWidget(m_empty);
    showReport(QString());
    updateSelection();
    updateLiveSection();
}

QString RunsPage::statusText() const
{
    return tr("%1 runs in the history, %2 in progress").arg(m_model->rowCount()).arg(m_runs ? m_runs->activeRuns().size() : 0);
}

QString RunsPage::emptyText() const { return m_empty->text(); }

bool RunsPage::showsEmptyState() const { return m_historyStack->currentWidget() == m_empty; }

QString RunsPage::reportText() const { return m_report->toPlainText(); }

void RunsPage::refresh()
{
    if (!m_db)
        return;
    const quint64 generation = beginLoad(tr("Loading runs\u2026"));
    runInBackground(
        this,
        [db = *m_db]() -> Result<std::vector<RunSummary>> {
            auto runs = listRuns(db, 200);
            if (!runs)
                return fail(runs.error());
            std::vector<RunSummary> out;
            out.reserve(runs->size());
            for (RunInfo &info : *runs) {
                auto result = runResult(db, info.runId);
                if (!result)
                    return fail(result.error());
                result->status = info.status; // "interrupted" is derived in listRuns
                out.push_back({std::move(info), std::move(*result)});
            }
            return out;
        },
        [this, generation](Result<std::vector<RunSummary>> result) {
            if (!finishLoad(generation))
                return;
            if (!result) {
                Q_EMIT loadFailed(tr("Could not load the runs: %1").arg(result.error().message));
                return;
            }
            const qint64 keep = m_pendingSelect ? m_pendingSelect : selectedRunId();
            m_model->resetData(std::move(*result));
            m_historyStack->setCurrentIndex(m_model->rowCount() == 0 ? 0 : 1);
            m_view->resizeColumnsToContents();
            if (keep > 0)
                showRun(keep);
            else if (m_proxy->rowCount() > 0)
                m_view->selectRow(0);
            updateSelection();
            Q_EMIT pageLoaded();
        });
}

void RunsPage::showRun(qint64 runId)
{
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

qint64 RunsPage::selectedRunId() const
{
    const QModelIndexList rows = m_view->selectionModel()->selectedRows();
    return rows.isEmpty() ? 0 : rows.first().data(RunsModel::RunIdRole).toLongLong();
}

void RunsPage::updateSelection()
{
    const qint64 id = selectedRunId();
    const int row = m_model->rowOf(id);
    const bool has = row >= 0;
    QString status;
    if (has) {
        const RunSummary &r = m_model->snapshot()[std::size_t(row)];
        status = r.info.status;
        showReport(status == QLatin1String("running")
                       ? tr("Run %1 is in progress: the panel above follows it, and its report is written here when it ends.").arg(id)
                       : runReportMarkdown(r.info, r.result));
    } else {
        showReport(QString());
    }
    m_resume->setEnabled(has && RunsModel::resumable(status) && m_spec.has_value());
    m_exportJson->setEnabled(has);
    m_exportMarkdown->setEnabled(has);
}

void RunsPage::showReport(const QString &markdown)
{
    if (markdown == m_reportMarkdown)
        return;
    m_reportMarkdown = markdown;
    if (markdown.isEmpty()) {
        m_report->clear();
        return;
    }
    // Parsed into a document no view shows, then handed over: setMarkdown on
    // the visible browser lays the tables out again after every block it
    // inserts (seconds for a 30-partition report on Qt 6.4).
    // The browser owns a document parented to it and deletes the one it replaces.
    auto *document = new QTextDocument(m_report);
    document->setMarkdown(markdown);
    m_report->setDocument(document);
}

bool RunsPage::resumeSelected()
{
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

bool RunsPage::exportReport(qint64 runId, const QString &path, ReportFormat format)
{
    const int row = m_model->rowOf(runId);
    if (row < 0)
        return false;
    const RunSummary &r = m_model->snapshot()[std::size_t(row)];
    QByteArray content;
    if (format == ReportFormat::Json) {
        nlohmann::ordered_json j = toJson(r.result);
        j["os_user"] = r.info.osUser.toStdString();
        j["host"] = r.info.host.toStdString();
        content = QByteArray::fromStdString(j.dump(2)) + '\n';
    } else {
        content = runReportMarkdown(r.info, r.result).toUtf8();
    }
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly | QIODevice::Truncate) || file.write(content) != content.size()) {
        Q_EMIT loadFailed(tr("Could not write %1: %2").arg(path, file.errorString()));
        return false;
    }
    return true;
}

void RunsPage::exportWithDialog(ReportFormat format)
{
    const qint64 id = selectedRunId();
    if (id <= 0)
        return;
    const bool json = format == ReportFormat::Json;
    const QString path = QFileDialog::getSaveFileName(this, json ? tr("Export run report as JSON") : tr("Export run report as Markdown"),
                                                      QStringLiteral("run-%1.%2").arg(id).arg(json ? QStringLiteral("json") : QStringLiteral("md")),
                                                      json ? tr("JSON (*.json)") : tr("Markdown (*.md)"));
    if (!path.isEmpty())
        exportReport(id, path, format);
}

void RunsPage::onRunAdded(int id)
{
    auto *w = new LiveRunWidget(id, this);
    connect(w, &LiveRunWidget::cancelRequested, m_runs, &RunManager::cancel);
    m_live.insert(id, w);
    m_liveBox->addWidget(w);
    if (const LiveRun *run = m_runs->run(id))
        w->update(*run);
    updateLiveSection();
}

void RunsPage::onRunProgressed(int id)
{
    LiveRunWidget *w = m_live.value(id);
    const LiveRun *run = m_runs->run(id);
    if (w && run)
        w->update(*run);
    if (run && run->started && run->progress.partitionsDone == 0 && run->progress.phase == QLatin1String("stage"))
        refresh(); // the new run row is in the database: show it as running
}

void RunsPage::onRunFinished(int id)
{
    if (LiveRunWidget *w = m_live.take(id))
        w->deleteLater();
    const LiveRun *run = m_runs->run(id);
    if (run && run->result && !run->result->runId.isNull())
        m_pendingSelect = run->result->runId.toLongLong();
    updateLiveSection();
    refresh();
}

void RunsPage::updateLiveSection() { m_noLive->setVisible(m_live.isEmpty()); }

} // namespace rw
