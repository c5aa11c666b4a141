// The console disables what the role cannot do, saying why: opened as a
// role granted to browse and preview (docs/security.md), the preview of a
// dataset shows its diff but *Run this plan* is disabled with the privilege
// lacking in its tooltip, and so are a stream's *Reset offsets* and *Replay*,
// the Runs page's *Rollback*, the recovery's first step and the DLQ page's
// *Replay* and *Discard*. The owner, on the same workspace, has them
// enabled. PostgreSQL's roles.
#include "tests/gui/guitest.h"
#include "tests/testsupport.h"
#include "ui/batch/previewpage.h"
#include "ui/batch/runspage.h"
#include "ui/common/errorbanner.h"
#include "ui/dlq/dlqactionbar.h"
#include "ui/dlq/dlqpage.h"
#include "ui/recovery/recoverpage.h"
#include "ui/streams/streampage.h"
#include "ui/window/mainwindow.h"

#include <QPushButton>
#include <QSignalSpy>
#include <QTest>
#include <QUrl>

using rw::MainWindow;

namespace {

constexpr int kTimeoutMs = 60000;

const QStringList kWarehouse = {
    QStringLiteral("CREATE TABLE raw_sales (order_id INTEGER, dt TEXT, amount INTEGER)"),
    QStringLiteral("INSERT INTO raw_sales VALUES (1, '2025-05-01', 5), (2, '2025-05-02', 7)"),
    QStringLiteral("CREATE TABLE fact_sales (order_id INTEGER, dt TEXT, amount INTEGER)"),
    QStringLiteral("CREATE TABLE ev_log (partition_id INTEGER, log_offset INTEGER, event_id TEXT, "
                   "record_ts TEXT, payload TEXT)"),
    QStringLiteral("INSERT INTO ev_log VALUES (0, 0, 'e1', '2025-05-01T10:00:00Z', "
                   "'{\"order_id\": 1, \"amount\": 3}')"),
    // The sink exists: a role that may not create it still browses the stream.
    QStringLiteral("CREATE TABLE ev_sink (event_id TEXT PRIMARY KEY, order_id BIGINT, amount "
                   "BIGINT)"),
};

const QByteArray kSpec = R"({"datasets": {
  "sales": {"source": "raw_sales", "target": "fact_sales", "partition_column": "dt",
            "key": ["order_id"], "write": "merge"}},
  "streams": {"ev": {"log": "ev_log", "sink": "ev_sink",
    "fields": {"order_id": "$.order_id", "amount": "$.amount"}, "required": ["order_id"]}}})";

} // namespace

class TestPrivilegePages : public QObject {
    Q_OBJECT

    std::optional<testsupport::WorkspaceFixture> m_ws;

    QString as(const QString &role) const {
        QUrl u(m_ws->dbPath);
        u.setUserName(role);
        return u.toString();
    }

    // Opens the workspace as `db` and previews 2025-05-01: the Run button's
    // state and tooltip, then the stream's page with its group.
    struct Seen {
        bool runEnabled = false;
        QString runTip;
        bool resetEnabled = false;
        QString resetTip;
        bool replayEnabled = false;
        QString replayTip;
        bool rollbackEnabled = false;
        QString rollbackTip;
        bool recoverEnabled = false;
        QString recoverTip;
        bool dlqReplayEnabled = false;
        QString dlqReplayTip;
    };
    static std::optional<Seen> look(const QString &db, const QString &spec) {
        MainWindow w;
        w.show();
        QSignalSpy opened(&w, &MainWindow::workspaceOpened);
        w.openWorkspace(db, spec);
        if (!opened.wait(kTimeoutMs))
            return std::nullopt;
        Seen seen;
        if (!w.selectDataset(QStringLiteral("sales")))
            return std::nullopt;
        w.previewPartitions({QStringLiteral("2025-05-01")});
        rw::PreviewPage *preview = w.previewPage();
        if (!QTest::qWaitFor([&] { return !preview->isRunning() && preview->result(); },
                             kTimeoutMs)) {
            qWarning() << "no preview:" << w.banner()->message();
            return std::nullopt;
        }
        auto *run = preview->findChild<QPushButton *>(QStringLiteral("runPlanButton"));
        seen.runEnabled = run->isEnabled();
        seen.runTip = run->toolTip();
        if (!w.selectStream(QStringLiteral("ev")))
            return std::nullopt;
        rw::StreamPage *page = w.streamPage();
        if (!QTest::qWaitFor(
                [&] {
                    return !page->isLoading() && page->currentGroup() == QLatin1String("loader") &&
                           page->findChild<QPushButton *>(QStringLiteral("resetOffsetsButton"))
                                   ->toolTip() != QString();
                },
                kTimeoutMs)) {
            qWarning() << "no group:" << page->currentGroup() << w.banner()->message();
            return std::nullopt;
        }
        QTest::qWait(200); // the group's load settles
        auto *reset = page->findChild<QPushButton *>(QStringLiteral("resetOffsetsButton"));
        auto *replay = page->findChild<QPushButton *>(QStringLiteral("replayButton"));
        seen.resetEnabled = reset->isEnabled();
        seen.resetTip = reset->toolTip();
        seen.replayEnabled = replay->isEnabled();
        seen.replayTip = replay->toolTip();

        // The Runs page: the owner's run of sales, selected.
        if (!w.selectDataset(QStringLiteral("sales")) || !w.showNamedPage(QStringLiteral("runs")))
            return std::nullopt;
        rw::RunsPage *runs = w.runsPage();
        if (!QTest::qWaitFor([&] { return !runs->isLoading() && runs->selectedRunId() > 0; },
                             kTimeoutMs))
            return std::nullopt;
        seen.rollbackEnabled = runs->rollbackButton()->isEnabled();
        seen.rollbackTip = runs->rollbackButton()->toolTip();

        // The recovery wizard of sales: its first step.
        if (!w.showNamedPage(QStringLiteral("recover")))
            return std::nullopt;
        rw::RecoverPage *recover = w.recoverPage();
        if (!QTest::qWaitFor([&] { return recover->isPlanned() && !recover->isBusy(); },
                             kTimeoutMs))
            return std::nullopt;
        seen.recoverEnabled = recover->actionButton()->isEnabled();
        seen.recoverTip = recover->actionButton()->toolTip();

        // The DLQ page, its one record selected.
        if (!w.showNamedPage(QStringLiteral("dlq")))
            return std::nullopt;
        rw::DlqPage *dlq = w.dlqPage();
        QPushButton *dlqReplay = dlq->actionBar()->replayButton();
        if (!QTest::qWaitFor(
                [&] { return !dlq->isLoading() && dlqReplay->text() != QLatin1String("Replay"); },
                kTimeoutMs))
            return std::nullopt;
        seen.dlqReplayEnabled = dlqReplay->isEnabled();
        seen.dlqReplayTip = dlqReplay->toolTip();
        guitest::waitForBackgroundWork();
        return seen;
    }

private Q_SLOTS:
    void initTestCase() {
        if (!testsupport::onPostgres())
            QSKIP("roles are PostgreSQL's; this suite runs as tst_privilegepages_pg");
        REWIND_REQUIRE_ENGINE();
        guitest::useTestSettings(QStringLiteral("tst_privilegepages"), true);
        m_ws.emplace(kWarehouse, kSpec); // opened as the owner: Rewind's schema made
        const QString database = m_ws->db().url().databaseName;
        QVERIFY(m_ws->db().execAll(
            QStringList{QStringLiteral("DO $$ BEGIN IF NOT EXISTS (SELECT FROM pg_roles WHERE "
                                       "rolname = 'priv_gui_browse') THEN CREATE ROLE "
                                       "priv_gui_browse LOGIN; END IF; END $$")}
            << testsupport::browseGrants(QStringLiteral("priv_gui_browse"), database,
                                         QStringLiteral("raw_sales, fact_sales, ev_log, ev_sink"))
            << QStringList{// A group with a committed offset, for the stream's page.
                           QStringLiteral(
                               "INSERT INTO rewind.rewind_offsets (stream, group_id, partition_id, "
                               "committed_offset, updated_at) VALUES ('ev', 'loader', 0, 0, "
                               "'2025-05-01T10:00:00Z')"),
                           // A dead letter, for the DLQ page.
                           QStringLiteral(
                               "INSERT INTO rewind.rewind_dlq (source_kind, source_name, "
                               "error_class, error, original_payload, payload, status, attempts, "
                               "first_seen) VALUES ('stream', 'ev', 'missing_field', 'amount', "
                               "'{\"order_id\": 9}', '{\"order_id\": 9}', 'new', 0, "
                               "'2025-05-01T10:00:00Z')")}));
        // A run of the owner's, for the Runs page.
        const auto ran = m_ws->cli({QStringLiteral("run"), QStringLiteral("--dataset"),
                                    QStringLiteral("sales"), QStringLiteral("--execute")});
        QVERIFY2(ran.exitCode == 0, qPrintable(ran.err));
    }
    void cleanup() { guitest::waitForBackgroundWork(); }

    void browserSeesActionsDisabledWithTheReason() {
        const auto seen = look(as(QStringLiteral("priv_gui_browse")), m_ws->specPath);
        QVERIFY(seen);
        QVERIFY(!seen->runEnabled);
        QVERIFY2(seen->runTip.contains(QStringLiteral("role priv_gui_browse lacks")) &&
                     seen->runTip.contains(QStringLiteral("fact_sales")),
                 qPrintable(seen->runTip));
        QVERIFY(!seen->resetEnabled);
        QVERIFY2(seen->resetTip.contains(QStringLiteral("rewind.rewind_offsets")),
                 qPrintable(seen->resetTip));
        QVERIFY(!seen->replayEnabled);
        QVERIFY2(seen->replayTip.contains(QStringLiteral("lacks")), qPrintable(seen->replayTip));
        QVERIFY(!seen->rollbackEnabled);
        QVERIFY2(seen->rollbackTip.contains(QStringLiteral("rewind_images_sales")),
                 qPrintable(seen->rollbackTip));
        QVERIFY(!seen->recoverEnabled);
        QVERIFY2(seen->recoverTip.contains(QStringLiteral("ownership")),
                 qPrintable(seen->recoverTip));
        QVERIFY(!seen->dlqReplayEnabled);
        QVERIFY2(seen->dlqReplayTip.contains(QStringLiteral("UPDATE on table rewind.rewind_dlq")),
                 qPrintable(seen->dlqReplayTip));
    }

    void ownerHasThemEnabled() {
        const auto seen = look(m_ws->dbPath, m_ws->specPath);
        QVERIFY(seen);
        QVERIFY2(seen->runEnabled, qPrintable(seen->runTip));
        QVERIFY(!seen->runTip.contains(QStringLiteral("lacks")));
        QVERIFY2(seen->resetEnabled, qPrintable(seen->resetTip));
        QVERIFY2(seen->replayEnabled, qPrintable(seen->replayTip));
        QVERIFY2(seen->rollbackEnabled, qPrintable(seen->rollbackTip));
        QVERIFY2(seen->recoverEnabled, qPrintable(seen->recoverTip));
        QVERIFY2(seen->dlqReplayEnabled, qPrintable(seen->dlqReplayTip));
    }
};

QTEST_MAIN(TestPrivilegePages)
#include "tst_privilegepages.moc"
