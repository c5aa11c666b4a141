#pragma once

#include "core/dbt/drift.h"
#include "core/workspace/workspace.h"
#include "ui/common/jobtracker.h"
#include "ui/window/navigator.h"
#include "ui/window/pageregistry.h"

#include <QMainWindow>
#include <memory>
#include <optional>

class QLabel;
class QMenu;
class QProgressBar;
class QStackedWidget;

namespace rw {

class AuditPage;
class DlqPage;
class ErrorBanner;
class LagPage;
class Page;
class PartitionsPage;
class PreviewPage;
class RecoverPage;
class RunManager;
class RunsPage;
class StreamPage;

// The console frame: menus, the navigator on the left, a stack of pages on
// the right, an error banner on top and a status bar. It owns the open
// workspace and delegates everything about data to the pages.
//
// Opening a workspace (rw::openWorkspace) and every page load run off the
// GUI thread; a newer request makes older answers irrelevant.
class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    // What to show once a workspace is open; None selects the first dataset
    // (or the first stream when there is no dataset).
    struct Selection {
        Navigator::Kind kind = Navigator::Kind::None;
        QString name;
        // A --page name; empty: the dataset's or stream's own page (or the last page).
        QString page = {};
        // For the preview page: these partitions; empty previews the one
        // that most needs attention.
        QStringList partitions = {};
    };

    // Page names of the public --page option that this build has.
    static QStringList availablePages();
    // Every page name of the public --page option.
    static QStringList plannedPages();

    explicit MainWindow(QWidget *parent = nullptr);
    ~MainWindow() override;

    // Starts opening a workspace in the background. On success the old one
    // is replaced and workspaceOpened() is emitted; on failure the old one
    // stays, the banner shows why and workspaceFailed() is emitted.
    void openWorkspace(const QString &db, const QString &spec, const Selection &initial);
    void openWorkspace(const QString &db, const QString &spec) {
        openWorkspace(db, spec, Selection());
    }

    bool selectDataset(const QString &name);
    bool selectStream(const QString &name);
    // Shows a page by its --page name (partitions, preview, runs, audit, streams, dlq,
    // recover: the recovery wizard of the current dataset).
    bool showNamedPage(const QString &name);
    // Previews `partitions` of the current dataset on the preview page.
    void previewPartitions(const QStringList &partitions, bool launchAfter = false);
    // Reloads the current page's data.
    void refresh();

    // Restores the window geometry saved by the last session.
    void restoreLayout();

    const Workspace *workspace() const { return m_workspace.get(); }
    QString workspaceDb() const { return m_workspaceDb; }
    QString workspaceSpec() const { return m_workspaceSpec; }
    Page *currentPage() const;
    PartitionsPage *partitionsPage() const { return m_partitionsPage; }
    StreamPage *streamPage() const { return m_streamPage; }
    PreviewPage *previewPage() const { return m_previewPage; }
    RunsPage *runsPage() const { return m_runsPage; }
    AuditPage *auditPage() const { return m_auditPage; }
    RecoverPage *recoverPage() const { return m_recoverPage; }
    LagPage *lagPage() const { return m_lagPage; }
    DlqPage *dlqPage() const { return m_dlqPage; }
    RunManager *runManager() const { return m_runManager; }
    // The --page name of the page on show, empty for none.
    QString currentPageName() const;
    ErrorBanner *banner() const { return m_banner; }
    Navigator *navigator() const { return m_navigator; }
    bool isOpening() const { return m_opening; }
    // Whether a database password the server wants is asked for (a dialog)
    // when neither libpq's sources nor the desktop keyring give one. Off for
    // --screenshot: the open then fails, saying what is missing.
    void setPasswordPrompts(bool on) { m_passwordPrompts = on; }

Q_SIGNALS:
    void workspaceOpened();
    void workspaceFailed(int exitCode, const QString &message);
    // The current page's data has loaded.
    void pageLoaded();
    void pageFailed(const QString &message);
    // The dataset or stream chosen cannot be used (Spec::broken): nothing
    // loads, the banner says why.
    void selectionBroken(const QString &message);

protected:
    void closeEvent(QCloseEvent *event) override;

private:
    void buildMenus();
    void showUnusable(const QString &what, const QString &why);
    void dismissUnusable();
    void buildStatusBar();
    QWidget *buildWelcome();
    void showOpenDialog();
    void showImportDbtDialog();
    void rebuildRecentMenu();
    // A workspace opened off the GUI thread, with its dbt datasets against
    // the manifest the spec names (none where it names none or it cannot
    // be read).
    struct Opened {
        std::shared_ptr<const Workspace> workspace;
        std::vector<dbt::ModelDrift> drift;
    };
    // How an open came by its password: as given (the URL, libpq's own
    // sources), from the desktop keyring, or typed into the prompt.
    enum class PasswordStep { Given, FromKeyring, Typed };
    void openWith(const QString &db, const QString &spec, const Selection &initial,
                  PasswordStep step);
    void failOpen(const Error &error);
    // The server wants a password (mainwindowpassword.cpp): the keyring's,
    // else the operator's, then the open again.
    void findPassword(const QString &db, const QString &spec, const Selection &initial,
                      PasswordStep step, const Error &error);
    void askPassword(const QString &db, const QString &spec, const Selection &initial,
                     const QString &why, const Error &error);
    void keepInKeyring(const QString &db);
    void applyWorkspace(const Opened &opened, const QString &db, const QString &spec,
                        const Selection &initial);
    void showDataset(const QString &name);
    void showStream(const QString &name);
    bool showLag();
    void registerPages();
    // Selects `page` in the navigator's activity group and shows it; reloads it if `reload`.
    bool showListedPage(Page *page, bool reload);
    void showPage(Page *page);
    void wirePage(Page *page);
    void onRunFinished(int liveRunId);
    void updateTitle();
    void setBusy(bool busy, const QString &what);

    Navigator *m_navigator;
    QStackedWidget *m_stack;
    QWidget *m_welcome;
    QLabel *m_welcomeText;
    PartitionsPage *m_partitionsPage;
    StreamPage *m_streamPage;
    PreviewPage *m_previewPage;
    RunsPage *m_runsPage;
    AuditPage *m_auditPage;
    RecoverPage *m_recoverPage;
    LagPage *m_lagPage;
    DlqPage *m_dlqPage;
    PageRegistry m_pages; // the pages above by --page name
    RunManager *m_runManager;
    ErrorBanner *m_banner;
    QMenu *m_recentMenu = nullptr;
    QLabel *m_statusText;
    QProgressBar *m_busy;
    QLabel *m_dbLabel;

    std::shared_ptr<const Workspace> m_workspace;
    QString m_workspaceDb;
    QString m_workspaceSpec;
    JobTracker m_openJobs{this};
    bool m_opening = false;
    bool m_passwordPrompts = true;
    // A password typed with "Remember" ticked: kept in the desktop keyring
    // once the server has accepted it (keepInKeyring), never before.
    std::optional<QString> m_keyringPending;
    bool m_unusableShown = false; // a broken dataset's or stream's page is on show (showUnusable)
    QString m_unusableMessage;    // its banner's text
};

} // namespace rw
