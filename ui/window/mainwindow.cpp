#include "ui/window/mainwindow.h"

#include "core/sql/credentials.h"
#include "ui/audit/auditpage.h"
#include "ui/batch/partitionspage.h"
#include "ui/batch/previewpage.h"
#include "ui/batch/runmanager.h"
#include "ui/batch/runspage.h"
#include "ui/common/errorbanner.h"
#include "ui/common/settings.h"
#include "ui/common/style.h"
#include "ui/dlq/dlqpage.h"
#include "ui/lateness/lagpage.h"
#include "ui/recovery/recoverpage.h"
#include "ui/streams/streampage.h"
#include "ui/window/importdbtdialog.h"
#include "ui/window/openworkspacedialog.h"

#include <QAction>
#include <QCloseEvent>
#include <QFileInfo>
#include <QLabel>
#include <QMenuBar>
#include <QMessageBox>
#include <QProgressBar>
#include <QSplitter>
#include <QStackedWidget>
#include <QStatusBar>
#include <QTime>
#include <QVBoxLayout>

namespace rw {

namespace {

// The pages' stack, sized by the page on show only. QStackedWidget asks every
// page for its size hints, so each layout pass of the window (a label that
// changes during a run is enough) laid out the word-wrapped text of all eight
// pages: 20-35 ms of the GUI thread each time, measured with bench/gui.
class PageStack : public QStackedWidget {
public:
    PageStack() {
        connect(this, &QStackedWidget::currentChanged, this, [this] { updateGeometry(); });
    }
    QSize sizeHint() const override {
        return currentWidget() ? currentWidget()->sizeHint() : QStackedWidget::sizeHint();
    }
    QSize minimumSizeHint() const override {
        return currentWidget() ? currentWidget()->minimumSizeHint()
                               : QStackedWidget::minimumSizeHint();
    }
    bool hasHeightForWidth() const override {
        return currentWidget() && currentWidget()->hasHeightForWidth();
    }
    int heightForWidth(int width) const override {
        return currentWidget() ? currentWidget()->heightForWidth(width) : -1;
    }
};

} // namespace

QStringList MainWindow::availablePages() {
    return PageRegistry::names();
}

QStringList MainWindow::plannedPages() {
    return PageRegistry::helpNames();
}

MainWindow::MainWindow(QWidget *parent)
    : QMainWindow(parent)
    , m_navigator(new Navigator)
    , m_stack(new PageStack)
    , m_welcome(nullptr)
    , m_welcomeText(nullptr)
    , m_partitionsPage(new PartitionsPage)
    , m_streamPage(new StreamPage)
    , m_previewPage(new PreviewPage)
    , m_runsPage(new RunsPage)
    , m_auditPage(new AuditPage)
    , m_recoverPage(new RecoverPage)
    , m_lagPage(new LagPage)
    , m_dlqPage(new DlqPage)
    , m_runManager(new RunManager(this))
    , m_banner(new ErrorBanner)
    , m_statusText(new QLabel)
    , m_busy(new QProgressBar)
    , m_dbLabel(new QLabel) {
    setObjectName(QStringLiteral("mainWindow"));
    resize(1400, 860);

    m_welcome = buildWelcome();
    m_stack->addWidget(m_welcome);
    registerPages();
    m_previewPage->setRunManager(m_runManager);
    m_lagPage->setRunManager(m_runManager);
    m_runsPage->setRunManager(m_runManager);

    auto *splitter = style::splitter(Qt::Horizontal, {{m_navigator, 0}, {m_stack, 1}}, nullptr);
    splitter->setSizes({300, 1100});
    m_navigator->setMinimumWidth(220);

    auto *central = new QWidget;
    auto *layout = new QVBoxLayout(central);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(0);
    layout->addWidget(m_banner);
    layout->addWidget(splitter, 1);
    setCentralWidget(central);

    connect(m_navigator, &Navigator::datasetSelected, this, &MainWindow::showDataset);
    connect(m_navigator, &Navigator::streamSelected, this, &MainWindow::showStream);

    connect(m_navigator, &Navigator::pageSelected, this, &MainWindow::showNamedPage);
    for (const PageRegistry::Entry &entry : m_pages.entries())
        wirePage(entry.page);
    connect(m_partitionsPage, &PartitionsPage::previewRequested, this,
            [this](const QStringList &p) { previewPartitions(p); });
    connect(m_partitionsPage, &PartitionsPage::runRequested, this,
            [this](const QStringList &p) { previewPartitions(p, true); });
    connect(m_partitionsPage, &PartitionsPage::openRunRequested, this, [this](qint64 runId) {
        showNamedPage(QStringLiteral("runs"));
        m_runsPage->showRun(runId);
    });
    // Recovery and rollback change a dataset behind the partitions page and the audit log.
    connect(m_partitionsPage, &PartitionsPage::recoverRequested, this,
            [this] { showNamedPage(QStringLiteral("recover")); });
    connect(m_recoverPage, &RecoverPage::backRequested, this,
            [this] { showNamedPage(QStringLiteral("partitions")); });
    const auto datasetChanged = [this](const QString &dataset) {
        if (m_partitionsPage->datasetName() == dataset)
            m_partitionsPage->refresh();
        m_auditPage->refresh();
    };
    connect(m_recoverPage, &RecoverPage::datasetChanged, this, datasetChanged);
    connect(m_runsPage, &RunsPage::rolledBack, this,
            [datasetChanged](qint64, const QString &dataset) { datasetChanged(dataset); });
    connect(m_runsPage, &RunsPage::notice, this, [this](const QString &message) {
        m_banner->showMessage(ErrorBanner::Level::Info, message);
    });
    connect(m_runsPage, &RunsPage::actionFailed, m_banner, &ErrorBanner::showError);
    connect(m_previewPage, &PreviewPage::runLaunched, this,
            [this] { showNamedPage(QStringLiteral("runs")); });
    connect(m_runManager, &RunManager::runFinished, this, &MainWindow::onRunFinished);

    buildMenus();
    buildStatusBar();
    updateTitle();
}

MainWindow::~MainWindow() = default;

void MainWindow::registerPages() {
    // In the stack's order; the View menu's by menuKey.
    m_pages.add({QStringLiteral("partitions"), m_partitionsPage,
                 [this] {
                     const QString dataset = m_partitionsPage->datasetName();
                     if (!dataset.isEmpty() &&
                         m_navigator->select(Navigator::Kind::Dataset, dataset))
                         return true;
                     return !m_workspace->spec.datasets.empty() &&
                            selectDataset(m_workspace->spec.datasets.front().name);
                 },
                 tr("&Partitions"), 1});
    m_pages.add({QStringLiteral("streams"), m_streamPage, [this] {
                     return !m_workspace->spec.streams.empty() &&
                            selectStream(m_workspace->spec.streams.front().name);
                 }});
    m_pages.add({QStringLiteral("preview"), m_previewPage,
                 [this] { return showListedPage(m_previewPage, false); }, tr("Pre&view"), 2});
    // Runs and the audit log change behind our back: they reload when shown.
    m_pages.add({QStringLiteral("runs"), m_runsPage,
                 [this] { return showListedPage(m_runsPage, true); }, tr("R&uns"), 3});
    m_pages.add({QStringLiteral("audit"), m_auditPage,
                 [this] { return showListedPage(m_auditPage, true); }, tr("&Audit log"), 4});
    m_pages.add({QStringLiteral("recover"), m_recoverPage, [this] {
                     // The current dataset's recovery; one under way for it carries on.
                     const auto db = m_partitionsPage->database();
                     const DatasetSpec *dataset = m_partitionsPage->dataset();
                     if (!db || !dataset)
                         return false;
                     showPage(m_recoverPage);
                     if (m_recoverPage->datasetName() != dataset->name ||
                         !m_recoverPage->result() ||
                         m_recoverPage->nextStep() == RecoverPage::ReportStep)
                         m_recoverPage->setDataset(*db, *dataset);
                     return true;
                 }});
    m_pages.add({QStringLiteral("lag"), m_lagPage, [this] { return showLag(); }, tr("&Lateness"), 6,
                 false});
    m_pages.add({QStringLiteral("dlq"), m_dlqPage,
                 [this] { return showListedPage(m_dlqPage, true); }, tr("&Dead-letter queue"), 5});
    for (const PageRegistry::Entry &entry : m_pages.entries())
        m_stack->addWidget(entry.page);
}

bool MainWindow::showListedPage(Page *page, bool reload) {
    if (m_workspace && !m_workspace->controlSchema) {
        // Runs, audit rows and dead letters live in Rewind's tables, which
        // this database does not have (and is not given: see openWorkspace).
        showUnusable(tr("This database holds no Rewind workspace"),
                     tr("none of the spec's datasets and streams resolves against %1, and Rewind "
                        "has never written to it")
                         .arg(m_workspaceDb));
        return true;
    }
    {
        const QSignalBlocker block(m_navigator);
        m_navigator->select(Navigator::Kind::Page, m_pages.nameOf(page));
    }
    showPage(page);
    if (reload)
        page->refresh();
    return true;
}

void MainWindow::wirePage(Page *page) {
    // Only the page on show speaks for the window.
    connect(page, &Page::pageLoaded, this, [this, page] {
        if (currentPage() != page)
            return;
        m_statusText->setText(
            page->statusText() % QStringLiteral("  \u00b7  ") %
            tr("loaded %1").arg(QTime::currentTime().toString(QStringLiteral("HH:mm:ss"))));
        Q_EMIT pageLoaded();
    });
    connect(page, &Page::loadFailed, this, [this, page](const QString &message) {
        if (currentPage() != page)
            return;
        // A page with a banner of its own (the Streams page, which retries)
        // says it there, and clears it once it loads.
        if (!page->property("ownLoadBanner").toBool())
            m_banner->showError(message);
        m_statusText->setText(tr("Loading failed"));
        Q_EMIT pageFailed(message);
    });
    connect(page, &Page::loadingChanged, this, [this, page](bool loading, const QString &what) {
        if (currentPage() == page && !m_opening)
            setBusy(loading, what);
    });
}

QString MainWindow::currentPageName() const {
    return m_pages.nameOf(currentPage());
}

bool MainWindow::showNamedPage(const QString &name) {
    if (!m_workspace)
        return false;
    const PageRegistry::Entry *entry = m_pages.find(name);
    return entry && entry->show();
}

void MainWindow::previewPartitions(const QStringList &partitions, bool launchAfter) {
    const auto db = m_partitionsPage->database();
    const DatasetSpec *dataset = m_partitionsPage->dataset();
    if (!db || !dataset)
        return;
    const DatasetSpec copy = *dataset;
    showNamedPage(QStringLiteral("preview"));
    m_previewPage->preview(*db, copy, partitions, launchAfter);
}

void MainWindow::onRunFinished(int liveRunId) {
    const LiveRun *run = m_runManager->run(liveRunId);
    if (!run)
        return;
    if (run->error && run->error->code != Error::Code::StalePlan)
        m_banner->showError(tr("The run of %1 failed: %2").arg(run->dataset, run->error->message));
    else if (run->result && run->result->status != RunStatus::Succeeded)
        m_banner->showMessage(
            ErrorBanner::Level::Warning,
            tr("Run #%1 of %2 ended %3%4")
                .arg(run->result->runId.toString(), run->dataset, enumName(run->result->status),
                     run->result->error.isEmpty() ? QString()
                                                  : QStringLiteral(": ") % run->result->error));
    // What the run changed: partition counts and statuses, the audit log.
    if (m_partitionsPage->datasetName() == run->dataset)
        m_partitionsPage->refresh();
    m_auditPage->refresh();
}

QWidget *MainWindow::buildWelcome() {
    auto *w = new QWidget;
    m_welcomeText = new QLabel(w);
    m_welcomeText->setObjectName(QStringLiteral("welcomeText"));
    m_welcomeText->setAlignment(Qt::AlignCenter);
    m_welcomeText->setTextFormat(Qt::RichText);
    m_welcomeText->setText(
        style::emptyState(tr("No workspace open"),
                          tr("Use <b>File \u203a Open workspace\u2026</b> (Ctrl+O) to open a "
                             "database and its pipeline spec,<br>or pick one under <b>File \u203a "
                             "Recent workspaces</b>."),
                          2));
    auto *layout = new QVBoxLayout(w);
    layout->addWidget(m_welcomeText);
    return w;
}

void MainWindow::buildMenus() {
    QMenu *file = menuBar()->addMenu(tr("&File"));
    QAction *open = file->addAction(tr("&Open workspace\u2026"), this, &MainWindow::showOpenDialog);
    open->setShortcut(QKeySequence::Open);
    file->addAction(tr("&Import dbt project\u2026"), this, &MainWindow::showImportDbtDialog);
    m_recentMenu = file->addMenu(tr("&Recent workspaces"));
    connect(m_recentMenu, &QMenu::aboutToShow, this, &MainWindow::rebuildRecentMenu);
    rebuildRecentMenu();
    file->addSeparator();
    QAction *quit = file->addAction(tr("&Quit"), this, &QWidget::close);
    quit->setShortcut(QKeySequence::Quit);
    quit->setMenuRole(QAction::QuitRole);

    QMenu *view = menuBar()->addMenu(tr("&View"));
    QAction *refreshAction = view->addAction(tr("&Refresh"), this, &MainWindow::refresh);
    refreshAction->setShortcut(QKeySequence::Refresh);
    refreshAction->setShortcutContext(Qt::ApplicationShortcut);
    view->addSeparator();
    for (const PageRegistry::Entry *entry : m_pages.menuEntries()) {
        QAction *a = view->addAction(entry->menuLabel, this,
                                     [this, name = entry->name] { showNamedPage(name); });
        a->setShortcut(QKeySequence(Qt::CTRL | Qt::Key(Qt::Key_0 + entry->menuKey)));
    }
}

void MainWindow::buildStatusBar() {
    m_busy->setRange(0, 0);
    m_busy->setMaximumWidth(120);
    m_busy->setMaximumHeight(14);
    m_busy->setTextVisible(false);
    m_busy->hide();
    m_dbLabel->setObjectName(QStringLiteral("dbLabel"));
    m_dbLabel->setTextInteractionFlags(Qt::TextSelectableByMouse);
    statusBar()->addWidget(m_busy);
    statusBar()->addWidget(m_statusText, 1);
    statusBar()->addPermanentWidget(m_dbLabel);
    m_statusText->setText(tr("Ready"));
}

void MainWindow::rebuildRecentMenu() {
    m_recentMenu->clear();
    const std::vector<WorkspaceLocation> recents = Settings().recentWorkspaces();
    if (recents.empty()) {
        m_recentMenu->addAction(tr("(none)"))->setEnabled(false);
        return;
    }
    int n = 0;
    for (const WorkspaceLocation &loc : recents) {
        ++n;
        const QString label = QStringLiteral("&%1  %2  \u2014  %3")
                                  .arg(n)
                                  .arg(QFileInfo(loc.spec).fileName(), loc.db);
        QAction *a =
            m_recentMenu->addAction(label, this, [this, loc] { openWorkspace(loc.db, loc.spec); });
        a->setToolTip(loc.spec);
    }
    m_recentMenu->addSeparator();
    m_recentMenu->addAction(tr("Clear list"), this, [] { Settings().clearRecentWorkspaces(); });
}

void MainWindow::showOpenDialog() {
    Settings settings;
    OpenWorkspaceDialog dialog(this);
    dialog.setBrowseDir(settings.lastBrowseDir());
    if (!m_workspaceDb.isEmpty())
        dialog.setPaths(m_workspaceDb, m_workspaceSpec);
    else if (const auto recents = settings.recentWorkspaces(); !recents.empty())
        dialog.setPaths(recents.front().db, recents.front().spec);
    if (dialog.exec() != QDialog::Accepted)
        return;
    settings.setLastBrowseDir(dialog.browseDir());
    openWorkspace(dialog.databasePath(), dialog.specPath());
}

void MainWindow::showImportDbtDialog() {
    Settings settings;
    ImportDbtDialog dialog(this);
    dialog.setBrowseDir(settings.lastBrowseDir());
    dialog.setDatabase(m_workspaceDb);
    if (dialog.exec() != QDialog::Accepted)
        return;
    settings.setLastBrowseDir(dialog.browseDir());
    openWorkspace(dialog.database(), dialog.specPath());
}

void MainWindow::openWorkspace(const QString &db, const QString &spec, const Selection &initial) {
    // A password in the URL is used, never kept: the database is known from
    // here on (title, recent list, pages) by the URL without it.
    openWith(credentials::takePassword(db), spec, initial, PasswordStep::Given);
}

void MainWindow::openWith(const QString &db, const QString &spec, const Selection &initial,
                          PasswordStep step) {
    m_opening = true;
    m_banner->dismiss();
    setBusy(true, tr("Opening %1\u2026").arg(QFileInfo(spec).fileName()));
    m_openJobs.start( // a newer open drops this one's answer
        [db, spec]() -> Result<Opened> {
            auto ws = rw::openWorkspace(db, spec);
            if (!ws)
                return fail(ws.error());
            Opened opened{std::make_shared<const Workspace>(std::move(*ws)), {}};
            const Spec &s = opened.workspace->spec;
            if (!s.dbtManifest.isEmpty() && QFileInfo::exists(s.dbtManifest))
                if (auto drift = dbt::modelDrift(s, s.dbtManifest))
                    opened.drift = std::move(*drift);
            return opened;
        },
        [this, db, spec, initial, step](Result<Opened> result) {
            m_opening = false;
            setBusy(false, QString());
            if (!result) {
                if (!result.error().needsPassword)
                    m_keyringPending.reset(); // a password the server never judged
                if (result.error().needsPassword)
                    return findPassword(db, spec, initial, step, result.error());
                return failOpen(result.error());
            }
            applyWorkspace(*result, db, spec, initial);
            keepInKeyring(db);
        });
}

void MainWindow::failOpen(const Error &error) {
    m_banner->showError(tr("Could not open the workspace: %1").arg(error.message));
    m_statusText->setText(tr("Open failed"));
    Q_EMIT workspaceFailed(error.exitCode(), error.message);
}

void MainWindow::applyWorkspace(const Opened &opened, const QString &db, const QString &spec,
                                const Selection &initial) {
    for (const PageRegistry::Entry &entry : m_pages.entries())
        if (entry.clearOnOpen)
            entry.page->clear();
    m_workspace = opened.workspace;
    m_unusableShown = false;
    if (m_workspace->controlSchema) { // else they have no tables to read (showListedPage says so)
        m_runsPage->setWorkspace(m_workspace->db, m_workspace->spec);
        m_auditPage->setDatabase(m_workspace->db);
        m_dlqPage->setWorkspace(m_workspace->db, m_workspace->spec);
    } else {
        m_runsPage->clear();
        m_auditPage->clear();
        m_dlqPage->clear();
    }
    m_workspaceDb = db;
    m_workspaceSpec = spec;
    Settings().addRecentWorkspace({db, spec});
    m_navigator->setSpec(m_workspace->spec, opened.drift);
    updateTitle();
    m_statusText->setText(tr("Opened %1: %2 datasets, %3 streams")
                              .arg(QFileInfo(spec).fileName())
                              .arg(m_workspace->spec.datasets.size())
                              .arg(m_workspace->spec.streams.size()));

    bool selected = false;
    if (initial.kind == Navigator::Kind::Dataset)
        selected = selectDataset(initial.name);
    else if (initial.kind == Navigator::Kind::Stream)
        selected = selectStream(initial.name);
    if (!selected && initial.kind != Navigator::Kind::None) {
        const auto error = initial.kind == Navigator::Kind::Dataset
                               ? m_workspace->spec.requireDataset(initial.name).error()
                               : m_workspace->spec.requireStream(initial.name).error();
        m_banner->showMessage(ErrorBanner::Level::Warning, error.message);
    }
    // The first dataset that can be used, else the first stream that can,
    // else the first of all (its reason shown).
    const Spec &sp = m_workspace->spec;
    for (const DatasetSpec &d : sp.datasets)
        if (!selected && sp.brokenReason(QStringLiteral("dataset"), d.name).isEmpty())
            selected = selectDataset(d.name);
    for (const StreamSpec &st : sp.streams)
        if (!selected && sp.brokenReason(QStringLiteral("stream"), st.name).isEmpty())
            selected = selectStream(st.name);
    if (!selected && !m_workspace->spec.datasets.empty())
        selected = selectDataset(m_workspace->spec.datasets.front().name);
    if (!selected && !m_workspace->spec.streams.empty())
        selected = selectStream(m_workspace->spec.streams.front().name);
    if (!selected) {
        m_welcomeText->setText(style::emptyState(
            tr("Nothing to show"),
            tr("The spec %1 defines no datasets or streams.").arg(spec.toHtmlEscaped()), 2));
        showPage(nullptr);
        Q_EMIT workspaceOpened();
        return;
    }
    // The page asked for, or the one shown when the console last closed
    // (not over a broken dataset's or stream's page: that says why first).
    QString page = initial.page;
    if (page.isEmpty() && initial.kind == Navigator::Kind::None && !m_unusableShown) {
        page = Settings().lastPage();
        if (page == QLatin1String("preview") || page == QLatin1String("streams") ||
            page == QLatin1String("recover"))
            page.clear(); // a preview (or a recovery) is not started on start
    }
    if (page == QLatin1String("preview")) {
        const auto db = m_partitionsPage->database();
        const DatasetSpec *dataset = m_partitionsPage->dataset();
        if (db && dataset) {
            const DatasetSpec copy = *dataset;
            showNamedPage(page);
            if (initial.partitions.isEmpty())
                m_previewPage->previewMostUrgent(*db, copy);
            else
                m_previewPage->preview(*db, copy, initial.partitions);
        }
    } else if (m_pages.find(page) && page != QLatin1String("partitions") &&
               page != QLatin1String("streams")) {
        showNamedPage(page); // the dataset's or stream's own page is on show already
    } else if (!initial.partitions.isEmpty()) {
        m_partitionsPage->selectAfterLoad(initial.partitions);
    }
    Q_EMIT workspaceOpened();
}

bool MainWindow::selectDataset(const QString &name) {
    return m_navigator->select(Navigator::Kind::Dataset, name);
}

bool MainWindow::selectStream(const QString &name) {
    return m_navigator->select(Navigator::Kind::Stream, name);
}

void MainWindow::showDataset(const QString &name) {
    const DatasetSpec *dataset = m_workspace ? m_workspace->spec.dataset(name) : nullptr;
    if (!dataset)
        return;
    if (const QString why = m_workspace->spec.brokenReason(QStringLiteral("dataset"), name);
        !why.isEmpty()) {
        m_partitionsPage->clear();
        showUnusable(tr("Dataset %1 cannot be used").arg(name), why);
        return;
    }
    dismissUnusable();
    showPage(m_partitionsPage);
    m_partitionsPage->setDataset(m_workspace->db, *dataset);
}

void MainWindow::showStream(const QString &name) {
    const StreamSpec *stream = m_workspace ? m_workspace->spec.stream(name) : nullptr;
    if (!stream)
        return;
    if (const QString why = m_workspace->spec.brokenReason(QStringLiteral("stream"), name);
        !why.isEmpty()) {
        m_streamPage->clear();
        showUnusable(tr("Stream %1 cannot be used").arg(name), why);
        return;
    }
    dismissUnusable();
    showPage(m_streamPage);
    m_streamPage->setStream(m_workspace->db, *stream);
}

// A dataset or stream of the spec that does not resolve against the
// catalog: the banner says why, the page says what to do, nothing loads.
void MainWindow::showUnusable(const QString &what, const QString &why) {
    const QString hint = m_workspace->spec.brokenHint();
    const QString message = what % QStringLiteral(": ") % why %
                            tr(". Fix the spec or the database; %1").arg(hint) %
                            (hint.endsWith(u'?') ? QString() : QStringLiteral("."));
    m_banner->showError(message);
    m_unusableShown = true;
    m_unusableMessage = message;
    m_welcomeText->setText(style::emptyState(
        what.toHtmlEscaped(),
        tr("%1<br><br>Commands on it are refused; %2.<br>"
           "Fix the spec (%3) or the database, then reopen the workspace (File \u203a Recent "
           "workspaces).")
            .arg(why.toHtmlEscaped(), hint.toHtmlEscaped(), m_workspaceSpec.toHtmlEscaped()),
        2));
    showPage(nullptr);
    Q_EMIT selectionBroken(message);
}

// Leaving an unusable one: its banner goes with it.
void MainWindow::dismissUnusable() {
    if (m_unusableShown && m_banner->isVisible() &&
        m_banner->message() == m_unusableMessage) // not another page's error since
        m_banner->dismiss();
    m_unusableShown = false;
}

// The lag page shows the dataset on the partitions page when it has event
// and ingest times, else the first dataset that has them.
bool MainWindow::showLag() {
    const DatasetSpec *dataset = m_partitionsPage->dataset();
    if (!dataset || !LagPage::hasLateness(*dataset)) {
        dataset = nullptr;
        for (const DatasetSpec &d : m_workspace->spec.datasets)
            if (LagPage::hasLateness(d) &&
                m_workspace->spec.brokenReason(QStringLiteral("dataset"), d.name).isEmpty()) {
                dataset = &d;
                break;
            }
    }
    for (const DatasetSpec &d : m_workspace->spec.datasets)
        if (!dataset && m_workspace->spec.brokenReason(QStringLiteral("dataset"), d.name).isEmpty())
            dataset = &d;
    if (!dataset)
        return false;
    {
        const QSignalBlocker block(m_navigator);
        m_navigator->select(Navigator::Kind::Page, QStringLiteral("lag"));
    }
    showPage(m_lagPage);
    m_lagPage->setDataset(m_workspace->db, *dataset);
    return true;
}

void MainWindow::showPage(Page *page) {
    if (page)
        m_stack->setCurrentWidget(page);
    else
        m_stack->setCurrentWidget(m_welcome);
    if (page && m_workspace)
        Settings().setLastPage(currentPageName());
    if (!m_opening)
        setBusy(page && page->isLoading(), QString());
}

Page *MainWindow::currentPage() const {
    return qobject_cast<Page *>(m_stack->currentWidget());
}

void MainWindow::refresh() {
    if (Page *page = currentPage())
        page->refresh();
}

void MainWindow::updateTitle() {
    if (!m_workspace) {
        setWindowTitle(tr("Rewind"));
        m_dbLabel->setText(tr("No database"));
        return;
    }
    const QString db = m_workspace->db.url().display();
    setWindowTitle(tr("%1 \u2014 %2 \u2014 Rewind").arg(QFileInfo(m_workspaceSpec).fileName(), db));
    m_dbLabel->setText(tr("Database: %1").arg(db));
    m_dbLabel->setToolTip(tr("Spec: %1").arg(QFileInfo(m_workspaceSpec).absoluteFilePath()));
}

void MainWindow::setBusy(bool busy, const QString &what) {
    m_busy->setVisible(busy);
    if (busy)
        m_statusText->setText(what);
}

void MainWindow::restoreLayout() {
    Settings settings;
    restoreGeometry(settings.windowGeometry());
    restoreState(settings.windowState());
}

void MainWindow::closeEvent(QCloseEvent *event) {
    if (const int active = int(m_runManager->activeRuns().size()); active > 0 && isVisible()) {
        const auto answer =
            QMessageBox::question(this, tr("Runs in progress"),
                                  tr("%n run(s) still in progress. Cancel them and quit? The "
                                     "partition being published rolls back; "
                                     "published partitions stay, and the run can be resumed later.",
                                     nullptr, active),
                                  QMessageBox::Yes | QMessageBox::No, QMessageBox::No);
        if (answer != QMessageBox::Yes) {
            event->ignore();
            return;
        }
        for (int id : m_runManager->activeRuns())
            m_runManager->cancel(id);
    }
    Settings settings;
    settings.setWindowGeometry(saveGeometry());
    settings.setWindowState(saveState());
    QMainWindow::closeEvent(event);
}

} // namespace rw
