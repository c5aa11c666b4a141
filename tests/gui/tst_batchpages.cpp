// The batch loop driven through the widgets, on the demo warehouse: select
// the bad day, preview it, confirm in the launch dialog, watch the run, and
// find it all in the partitions, runs and audit pages.
#include "core/batch/batch.h"
#include "core/batch/partitions.h"
#include "core/batch/runreport.h"
#include "core/recovery/recovery.h"
#include "core/workspace/workspace.h"
#include "tests/gui/guitest.h"
#include "tests/testsupport.h"
#include "ui/audit/auditmodel.h"
#include "ui/audit/auditpage.h"
#include "ui/audit/auditproxymodel.h"
#include "ui/batch/checksmodel.h"
#include "ui/batch/columnsmodel.h"
#include "ui/batch/diffchart.h"
#include "ui/batch/launchdialog.h"
#include "ui/batch/liverunwidget.h"
#include "ui/batch/partitionsmodel.h"
#include "ui/batch/partitionspage.h"
#include "ui/batch/previewdiffmodel.h"
#include "ui/batch/previewpage.h"
#include "ui/batch/runmanager.h"
#include "ui/batch/runreportview.h"
#include "ui/batch/runsmodel.h"
#include "ui/batch/runspage.h"
#include "ui/batch/samplesmodel.h"
#include "ui/common/format.h"
#include "ui/common/settings.h"
#include "ui/common/stattile.h"
#include "ui/window/mainwindow.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSignalSpy>
#include <QSortFilterProxyModel>
#include <QTabBar>
#include <QTableView>
#include <QTest>
#include <QThreadPool>
#include <algorithm>

using rw::MainWindow;
using Kind = rw::Navigator::Kind;

namespace {

constexpr int kTimeoutMs = 120000;
const QString kBadDay = QStringLiteral("2025-05-14");

const rw::PartitionInfo *find(const std::vector<rw::PartitionInfo> &list,
                              const QString &partition) {
    for (const auto &p : list)
        if (p.partition == partition)
            return &p;
    return nullptr;
}

QStringList auditActions(const rw::AuditModel *model) {
    QStringList out;
    for (const auto &row : model->snapshot())
        out << row.action;
    return out;
}

} // namespace

class TestBatchPages : public QObject {
    Q_OBJECT

private:
    guitest::DemoFixture m_demo;

    static bool openAndWait(MainWindow &w, const QString &db, const QString &spec,
                            const MainWindow::Selection &selection) {
        QSignalSpy opened(&w, &MainWindow::workspaceOpened);
        w.openWorkspace(db, spec, selection);
        return opened.wait(kTimeoutMs) || opened.count() > 0;
    }

private Q_SLOTS:
    void cleanup() { guitest::waitForBackgroundWork(); }

    void initTestCase() {
        guitest::useTestSettings(QStringLiteral("tst_batchpages"), true);
        REWIND_REQUIRE_ENGINE();
        QVERIFY(m_demo.build());
    }

    // The whole loop on the demo's bad day, through the widgets.
    void previewConfirmRunAudit() {
        const auto [db, spec] = m_demo.copy(QStringLiteral("loop"));
        // What core computes for the bad day, on an identical copy.
        const auto [refDb, refSpec] = m_demo.copy(QStringLiteral("reference"));
        auto ref = rw::openWorkspace(refDb, refSpec);
        QVERIFY(ref.has_value());
        const rw::DatasetSpec &sales = *ref->spec.dataset(QStringLiteral("fact_sales"));
        rw::BatchOptions options;
        options.scope.partitions = {kBadDay};
        auto expected = rw::preview(ref->db, sales, options);
        QVERIFY2(expected.has_value(), qPrintable(expected ? QString() : expected.error().message));
        const rw::PartitionResult want = expected->partitions.at(0);
        QVERIFY(want.updated > 0);  // doubled amounts
        QVERIFY(want.inserted > 0); // lost rows
        auto before = rw::listPartitions(ref->db, sales);
        QVERIFY(before.has_value());
        const rw::PartitionInfo badBefore = *find(*before, kBadDay);

        MainWindow w;
        w.show();
        QVERIFY(openAndWait(
            w, db, spec,
            {Kind::Dataset, QStringLiteral("fact_sales"), QStringLiteral("partitions"), {}}));
        rw::PartitionsPage *partitions = w.partitionsPage();
        QTRY_VERIFY_WITH_TIMEOUT(!partitions->isLoading() && partitions->model()->rowCount() == 30,
                                 kTimeoutMs);

        // Select the bad day: the header sums the selection.
        QCOMPARE(partitions->selectPartitions({kBadDay}), 1);
        QCOMPARE(partitions->selectionText(),
                 QStringLiteral("1 selected, %1 rows").arg(rw::fmt::number(badBefore.sourceRows)));

        // Preview re-run: the preview page shows what core computes.
        QTest::mouseClick(partitions->findChild<QPushButton *>(QStringLiteral("previewButton")),
                          Qt::LeftButton);
        rw::PreviewPage *preview = w.previewPage();
        QCOMPARE(w.currentPage(), preview);
        QTRY_VERIFY_WITH_TIMEOUT(preview->result().has_value(), kTimeoutMs);
        QVERIFY(!preview->isRunning());
        const rw::PreviewDiffModel *diff = preview->diffModel();
        QCOMPARE(diff->rowCount(), 1);
        const auto cell = [&](int column) {
            return diff->index(0, column).data(rw::PreviewDiffModel::SortRole).toLongLong();
        };
        QCOMPARE(diff->index(0, rw::PreviewDiffModel::PartitionColumn).data().toString(), kBadDay);
        QCOMPARE(cell(rw::PreviewDiffModel::SourceColumn), want.sourceRows);
        QCOMPARE(cell(rw::PreviewDiffModel::StagedColumn), want.stagedRows);
        QCOMPARE(cell(rw::PreviewDiffModel::DuplicatesColumn), want.duplicatesDropped);
        QCOMPARE(cell(rw::PreviewDiffModel::InsertedColumn), want.inserted);
        QCOMPARE(cell(rw::PreviewDiffModel::UpdatedColumn), want.updated);
        QCOMPARE(cell(rw::PreviewDiffModel::DeletedColumn), want.deleted);
        QCOMPARE(cell(rw::PreviewDiffModel::UnchangedColumn), want.unchanged);
        QCOMPARE(preview->checksModel()->rowCount(), int(expected->checks.size()));
        QCOMPARE(preview->chart()->barCount(), 1);
        // Updates first, before and after side by side, the amount highlighted.
        QCOMPARE(preview->samplesModel()->category(), rw::SamplesModel::Category::Updated);
        QVERIFY(preview->samplesModel()->rowCount() > 0);
        QVERIFY(preview->samplesModel()->rowCount() <= rw::PreviewPage::kSamples);
        int amountBefore = -1;
        for (int c = 1; c < preview->samplesModel()->columnCount(); ++c)
            if (preview->samplesModel()->columnName(c) == QLatin1String("amount") &&
                !preview->samplesModel()->isAfterColumn(c))
                amountBefore = c;
        QVERIFY(amountBefore > 0);
        const QModelIndex b = preview->samplesModel()->index(0, amountBefore);
        const QModelIndex a = preview->samplesModel()->index(0, amountBefore + 1);
        QVERIFY(b.data(rw::SamplesModel::ChangedRole).toBool());
        QCOMPARE(b.data(rw::SamplesModel::SortRole).toDouble(),
                 a.data(rw::SamplesModel::SortRole).toDouble() * 2); // the doubled amount
        QVERIFY(!preview->samplesModel()
                     ->index(0, 1)
                     .data(rw::SamplesModel::ChangedRole)
                     .toBool()); // the key
        preview->sampleTabs()->setCurrentIndex(0);
        QCOMPARE(preview->samplesModel()->category(), rw::SamplesModel::Category::Inserted);
        QVERIFY(preview->samplesModel()->rowCount() > 0);

        // Nothing was written by the preview.
        auto afterPreview = rw::listPartitions(ref->db, sales);
        QCOMPARE(find(*afterPreview, kBadDay)->targetRows, badBefore.targetRows);

        // Launch through the dialog.
        QTest::mouseClick(preview->runButton(), Qt::LeftButton);
        rw::LaunchDialog *dialog = preview->findChild<rw::LaunchDialog *>();
        QVERIFY(dialog);
        QTRY_VERIFY(dialog->isVisible());
        QVERIFY(
            dialog->summaryText().contains(QStringLiteral("Nothing is written until you confirm")));
        QVERIFY(dialog->summaryText().contains(
            expected->planId.isEmpty() ? QString() : preview->result()->planId));
        QVERIFY(dialog->summaryText().contains(rw::fmt::number(want.updated)));
        if (dialog->destructive()) {
            QVERIFY(!dialog->runButton()->isEnabled());
            QTest::keyClicks(dialog->confirmEdit(), QStringLiteral("fact_sales"));
        }
        QVERIFY(dialog->runButton()->isEnabled());
        QSignalSpy finished(w.runManager(), &rw::RunManager::runFinished);
        QTest::mouseClick(dialog->runButton(), Qt::LeftButton);
        QVERIFY(finished.wait(kTimeoutMs));
        const int liveId = finished.at(0).at(0).toInt();
        const rw::LiveRun *run = w.runManager()->run(liveId);
        QVERIFY(run && run->result);
        QCOMPARE(run->result->status, rw::RunStatus::Succeeded);
        QCOMPARE(run->result->planId, preview->result()->planId);
        QCOMPARE(run->result->totals().updated, want.updated);
        QCOMPARE(w.currentPage(), w.runsPage());
        QVERIFY(w.runsPage()->log()->toPlainText().contains(
            QStringLiteral("%1: publish").arg(kBadDay)));
        QVERIFY(w.runsPage()->log()->toPlainText().contains(QStringLiteral("succeeded")));

        // The runs page lists it, selected, with its report.
        const qint64 runId = run->result->runId.toLongLong();
        QTRY_VERIFY_WITH_TIMEOUT(
            w.runsPage()->model()->rowOf(runId) >= 0 && !w.runsPage()->isLoading(), kTimeoutMs);
        QTRY_COMPARE(w.runsPage()->selectedRunId(), runId);
        QTRY_COMPARE_WITH_TIMEOUT(w.runsPage()->reportView()->runId(), runId, kTimeoutMs);
        QVERIFY(w.runsPage()->reportText().contains(QStringLiteral("succeeded")));
        QVERIFY(w.runsPage()->liveWidgets().isEmpty());
        const QString jsonPath = m_demo.dir().filePath(QStringLiteral("run.json"));
        const QString mdPath = m_demo.dir().filePath(QStringLiteral("run.md"));
        QSignalSpy exported(w.runsPage(), &rw::RunsPage::reportExported);
        QVERIFY(w.runsPage()->exportReport(runId, jsonPath, rw::RunsPage::ReportFormat::Json));
        QVERIFY(w.runsPage()->exportReport(runId, mdPath, rw::RunsPage::ReportFormat::Markdown));
        QTRY_COMPARE_WITH_TIMEOUT(exported.count(), 2, kTimeoutMs);
        QFile jf(jsonPath);
        QVERIFY(jf.open(QIODevice::ReadOnly));
        const QJsonObject report = QJsonDocument::fromJson(jf.readAll()).object();
        QCOMPARE(report.value(QStringLiteral("run_id")).toInteger(), runId);
        QCOMPARE(report.value(QStringLiteral("os_user")).toString(), rw::osUser());
        QCOMPARE(testsupport::jsonAt(report, "totals/updated").toInteger(), want.updated);
        QFile mf(mdPath);
        QVERIFY(mf.open(QIODevice::ReadOnly));
        const QString md = QString::fromUtf8(mf.readAll());
        QVERIFY(md.contains(QStringLiteral("| Run by | %1 |").arg(rw::osUser())));
        QVERIFY(md.contains(QStringLiteral("## Gates")));
        // The export is the whole Markdown report, as rewindctl run-report writes it.
        const rw::RunSummary &summary =
            w.runsPage()->model()->snapshot()[std::size_t(w.runsPage()->model()->rowOf(runId))];
        auto loop = rw::openWorkspace(db, spec); // the window's workspace, where the run is
        QVERIFY(loop.has_value());
        auto full = rw::runResult(loop->db, runId);
        QVERIFY2(full, qPrintable(full ? QString() : full.error().message));
        full->status = summary.info.status;
        QCOMPARE(md, rw::runReportMarkdown(summary.info, *full));
        QVERIFY(md.contains(QStringLiteral("| %1 | yes | ").arg(kBadDay)));

        // The partition's counts and status updated on the partitions page.
        w.showNamedPage(QStringLiteral("partitions"));
        QTRY_VERIFY_WITH_TIMEOUT(!partitions->isLoading() && partitions->model()->rowCount() == 30,
                                 kTimeoutMs);
        const rw::PartitionInfo *badAfter = find(partitions->model()->snapshot(), kBadDay);
        QVERIFY(badAfter);
        QCOMPARE(badAfter->targetRows, want.stagedRows);
        QVERIFY(badAfter->targetRows != badBefore.targetRows);
        QCOMPARE(badAfter->lastRunId.toLongLong(), runId);
        QVERIFY(badAfter->status == rw::PartitionStatus::Loaded ||
                badAfter->status == rw::PartitionStatus::Final);

        // The audit page shows the preview and the run.
        w.showNamedPage(QStringLiteral("audit"));
        rw::AuditPage *audit = w.auditPage();
        QTRY_VERIFY_WITH_TIMEOUT(!audit->isLoading() && audit->model()->rowCount() > 0, kTimeoutMs);
        const QStringList actions = auditActions(audit->model());
        QCOMPARE(actions.at(0), QStringLiteral("run succeeded")); // newest first
        QVERIFY(actions.contains(QStringLiteral("preview")));
        QVERIFY(actions.contains(QStringLiteral("run started")));
        QVERIFY(actions.contains(QStringLiteral("publish")));
        audit->setActionFilter(QStringLiteral("preview"));
        QVERIFY(audit->proxy()->rowCount() >= 1);
        for (int r = 0; r < audit->proxy()->rowCount(); ++r)
            QCOMPARE(audit->proxy()->index(r, rw::AuditModel::ActionColumn).data().toString(),
                     QStringLiteral("preview"));
        const QString csvPath = m_demo.dir().filePath(QStringLiteral("audit.csv"));
        QVERIFY(audit->exportTo(csvPath, rw::AuditPage::ExportFormat::Csv));
        QFile csv(csvPath);
        QVERIFY(csv.open(QIODevice::ReadOnly));
        const QStringList lines = QString::fromUtf8(csv.readAll()).split(u'\n', Qt::SkipEmptyParts);
        QCOMPARE(lines.size(), audit->proxy()->rowCount() + 1);
        QCOMPARE(lines.at(0), QStringLiteral("id,at,os_user,action,dataset,stream,run_id,detail"));
        audit->setActionFilter(QString());
        audit->setDatasetFilter(QStringLiteral("fact_sales"));
        const QString jsonAudit = m_demo.dir().filePath(QStringLiteral("audit.json"));
        QVERIFY(audit->exportTo(jsonAudit, rw::AuditPage::ExportFormat::Json));
        QFile ja(jsonAudit);
        QVERIFY(ja.open(QIODevice::ReadOnly));
        const QJsonArray rows =
            QJsonDocument::fromJson(ja.readAll()).object().value(QStringLiteral("audit")).toArray();
        QCOMPARE(rows.size(), audit->proxy()->rowCount());
        QCOMPARE(rows.at(0)[QStringLiteral("action")].toString(), QStringLiteral("run succeeded"));
        QCOMPARE(rows.at(0)[QStringLiteral("run_id")].toInteger(), runId);

        // The hash chain holds and the page says so; a row edited by hand
        // (its trigger out of the way, as the database's owner can) breaks
        // it at that row. A refresh recomputes only the rows since the head
        // that held, so it is found by "Verify every row", which names it.
        QVERIFY(audit->chainCheck() && audit->chainCheck()->verified);
        QVERIFY(audit->chainLabel()->text().contains(QStringLiteral("holds")));
        const qint64 edited = loop->db
                                  .scalar(QStringLiteral("SELECT MIN(audit_id) FROM rewind_audit "
                                                         "WHERE action = 'publish'"))
                                  ->toLongLong();
        QVERIFY(loop->db.exec(testsupport::onPostgres()
                                  ? QStringLiteral("ALTER TABLE rewind.rewind_audit DISABLE "
                                                   "TRIGGER USER")
                                  : QStringLiteral("DROP TRIGGER rewind_audit_no_update")));
        QVERIFY(loop->db.exec(
            QStringLiteral("UPDATE rewind_audit SET detail_json = '{}' WHERE audit_id = %1")
                .arg(edited)));
        audit->refresh();
        QTRY_VERIFY_WITH_TIMEOUT(
            !audit->isLoading() && audit->chainCheck() && !audit->chainCheck()->full, kTimeoutMs);
        QVERIFY(audit->chainCheck()->verified);
        QVERIFY2(audit->chainLabel()->text().contains(QStringLiteral("at each refresh")),
                 qPrintable(audit->chainLabel()->text()));
        audit->verifyButton()->click();
        QTRY_VERIFY_WITH_TIMEOUT(!audit->isLoading() && audit->chainCheck() &&
                                     !audit->chainCheck()->verified,
                                 kTimeoutMs);
        QVERIFY(audit->chainCheck()->full);
        QCOMPARE(audit->chainCheck()->broken->auditId, edited);
        QVERIFY(
            audit->chainLabel()->text().contains(QStringLiteral("broken at row %1").arg(edited)));
    }

    // An overwrite plan is confirmed only by typing the dataset name; a
    // stale plan is refused and the dialog offers to preview again.
    void destructivePlanAndStalePlan() {
        auto db = testsupport::makeDatabase(
            m_demo.dir(), QStringLiteral("small.db"),
            {QStringLiteral("CREATE TABLE raw_sales (order_id INTEGER, item_id INTEGER, dt TEXT, "
                            "amount REAL)"),
             QStringLiteral(
                 "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 90) "
                 "INSERT INTO raw_sales SELECT i, 1, '2025-05-0' || ((i % 3) + 1), i * 1.5 FROM n"),
             QStringLiteral("CREATE TABLE copy_sales AS SELECT * FROM raw_sales"),
             QStringLiteral("INSERT INTO copy_sales VALUES (999, 1, '2025-05-01', 1.0)")});
        const QString spec = testsupport::writeFile(m_demo.dir(), QStringLiteral("small.json"), R"({
          "datasets": {
            "copy_sales": {"source": "raw_sales", "target": "copy_sales", "partition_column": "dt",
                           "key": ["order_id", "item_id"], "write": "overwrite_partition"}
          }
        })");
        MainWindow w;
        w.show();
        QVERIFY(openAndWait(w, db.url().text, spec,
                            {Kind::Dataset, QStringLiteral("copy_sales"), {}, {}}));
        QTRY_VERIFY_WITH_TIMEOUT(!w.partitionsPage()->isLoading() &&
                                     w.partitionsPage()->model()->rowCount() == 3,
                                 kTimeoutMs);

        // The runs page starts empty.
        w.showNamedPage(QStringLiteral("runs"));
        QTRY_VERIFY_WITH_TIMEOUT(!w.runsPage()->isLoading(), kTimeoutMs);
        QVERIFY(w.runsPage()->showsEmptyState());
        QVERIFY(w.runsPage()->emptyText().contains(QStringLiteral("No runs yet")));

        // Run (Ctrl+R on the partitions page): preview, then the dialog.
        w.showNamedPage(QStringLiteral("partitions"));
        QTRY_VERIFY_WITH_TIMEOUT(!w.partitionsPage()->isLoading() &&
                                     w.partitionsPage()->model()->rowCount() == 3,
                                 kTimeoutMs);
        QCOMPARE(w.partitionsPage()->selectPartitions({QStringLiteral("2025-05-01")}), 1);
        w.partitionsPage()->runAction()->trigger();
        rw::LaunchDialog *dialog = nullptr;
        QTRY_VERIFY_WITH_TIMEOUT(
            (dialog = w.previewPage()->findChild<rw::LaunchDialog *>()) != nullptr, kTimeoutMs);
        QCOMPARE(w.previewPage()->result()->partitions.at(0).deleted, 1);
        QVERIFY(dialog->destructive());
        QVERIFY(!dialog->runButton()->isEnabled());
        QTest::keyClicks(dialog->confirmEdit(), QStringLiteral("copy_sale"));
        QVERIFY(!dialog->runButton()->isEnabled());
        QTest::keyClicks(dialog->confirmEdit(), QStringLiteral("s"));
        QVERIFY(dialog->runButton()->isEnabled());

        // Meanwhile the source changes: the locked plan is stale.
        QVERIFY(db.exec(QStringLiteral("INSERT INTO raw_sales VALUES (500, 1, '2025-05-01', 7.0)"))
                    .has_value());
        QSignalSpy finished(w.runManager(), &rw::RunManager::runFinished);
        QTest::mouseClick(dialog->runButton(), Qt::LeftButton);
        QVERIFY(finished.wait(kTimeoutMs));
        const rw::LiveRun *run = w.runManager()->run(finished.at(0).at(0).toInt());
        QVERIFY(run->error && run->error->code == rw::Error::Code::StalePlan);
        QVERIFY(dialog->isVisible());
        QVERIFY(dialog->stateText().contains(QStringLiteral("source changed")));
        QVERIFY(dialog->previewAgainButton()->isVisible());
        QVERIFY(!dialog->runButton()->isEnabled());
        auto target =
            db.scalar(QStringLiteral("SELECT COUNT(*) FROM copy_sales WHERE dt = '2025-05-01'"));
        QCOMPARE(target->toInt(), 31); // nothing written

        // Preview again, then run the fresh plan.
        const QString stalePlan = w.previewPage()->result()->planId;
        QTest::mouseClick(dialog->previewAgainButton(), Qt::LeftButton);
        QTRY_VERIFY_WITH_TIMEOUT(w.previewPage()->result().has_value() &&
                                     w.previewPage()->result()->planId != stalePlan,
                                 kTimeoutMs);
        QCOMPARE(w.previewPage()->result()->partitions.at(0).inserted, 1);
        dialog = w.previewPage()->launch();
        QVERIFY(dialog);
        QTest::keyClicks(dialog->confirmEdit(), QStringLiteral("copy_sales"));
        QTest::mouseClick(dialog->runButton(), Qt::LeftButton);
        QVERIFY(finished.wait(kTimeoutMs));
        run = w.runManager()->run(finished.at(1).at(0).toInt());
        QVERIFY(run->result);
        QCOMPARE(run->result->status, rw::RunStatus::Succeeded);
        target =
            db.scalar(QStringLiteral("SELECT COUNT(*) FROM copy_sales WHERE dt = '2025-05-01'"));
        QCOMPARE(target->toInt(), 31); // 30 + the new row; the stray 999 deleted
        QTRY_VERIFY_WITH_TIMEOUT(!w.runsPage()->isLoading() && !w.runsPage()->showsEmptyState(),
                                 kTimeoutMs);
    }

    // The demo's failed nightly run can be resumed from the runs page.
    void resumeTheFailedRun() {
        const auto [db, spec] = m_demo.copy(QStringLiteral("resume"));
        MainWindow w;
        w.show();
        QVERIFY(
            openAndWait(w, db, spec,
                        {Kind::Dataset, QStringLiteral("fact_sales"), QStringLiteral("runs"), {}}));
        rw::RunsPage *runs = w.runsPage();
        QCOMPARE(w.currentPage(), runs);
        QTRY_VERIFY_WITH_TIMEOUT(!runs->isLoading() && runs->model()->rowCount() == 1, kTimeoutMs);
        QCOMPARE(runs->model()->index(0, rw::RunsModel::StatusColumn).data().toString(),
                 QStringLiteral("failed"));
        QVERIFY(runs->resumeButton()->isEnabled());
        QTRY_VERIFY_WITH_TIMEOUT(
            runs->reportText().contains(QStringLiteral("connection to the warehouse was lost")),
            kTimeoutMs);
        QSignalSpy finished(w.runManager(), &rw::RunManager::runFinished);
        QTest::mouseClick(runs->resumeButton(), Qt::LeftButton);
        QVERIFY(finished.wait(kTimeoutMs));
        const rw::LiveRun *run = w.runManager()->run(finished.at(0).at(0).toInt());
        QVERIFY2(run->result, qPrintable(run->error ? run->error->message : QString()));
        QCOMPARE(run->result->status, rw::RunStatus::Succeeded);
        QTRY_VERIFY_WITH_TIMEOUT(
            !runs->isLoading() &&
                runs->model()->index(0, rw::RunsModel::StatusColumn).data().toString() ==
                    QLatin1String("succeeded"),
            kTimeoutMs);
        QVERIFY(!runs->resumeButton()->isEnabled());
    }

    // A duplicate recovery killed mid-re-run: its run resumed from the runs
    // page finishes the recovery too (no duplicates left, the freeze lifted).
    void resumeACutRecovery() {
        const auto [db, spec] = m_demo.copy(QStringLiteral("recovery-cut"));
        qputenv("REWIND_CHUNK_ROWS", "1");
        const auto killed =
            testsupport::runRewindctl({QStringLiteral("recover"), QStringLiteral("--dataset"),
                                       QStringLiteral("fact_sales"), QStringLiteral("--execute"),
                                       QStringLiteral("--db"), db, QStringLiteral("--spec"), spec},
                                      QStringLiteral("after-commit:1"));
        qunsetenv("REWIND_CHUNK_ROWS");
        QVERIFY2(killed.crashed, killed.err.constData());
        MainWindow w;
        w.show();
        QVERIFY(
            openAndWait(w, db, spec,
                        {Kind::Dataset, QStringLiteral("fact_sales"), QStringLiteral("runs"), {}}));
        rw::RunsPage *runs = w.runsPage();
        QTRY_VERIFY_WITH_TIMEOUT(!runs->isLoading() && runs->model()->rowCount() == 2, kTimeoutMs);
        QCOMPARE(runs->model()->index(0, rw::RunsModel::StatusColumn).data().toString(),
                 QStringLiteral("interrupted"));
        QTRY_VERIFY_WITH_TIMEOUT(runs->resumeButton()->isEnabled(), kTimeoutMs);
        QSignalSpy finished(w.runManager(), &rw::RunManager::runFinished);
        QTest::mouseClick(runs->resumeButton(), Qt::LeftButton);
        QVERIFY(finished.wait(kTimeoutMs));
        const rw::LiveRun *run = w.runManager()->run(finished.at(0).at(0).toInt());
        QVERIFY2(run->result, qPrintable(run->error ? run->error->message : QString()));
        QCOMPARE(run->result->status, rw::RunStatus::Succeeded);
        auto ws = rw::openWorkspace(db, spec);
        QVERIFY(ws);
        QCOMPARE(ws->db.scalar(QStringLiteral("SELECT COUNT(*) FROM rewind_frozen"))->toInt(), 0);
        auto dups = rw::findDuplicates(ws->db, *ws->spec.dataset(QStringLiteral("fact_sales")));
        QVERIFY(dups);
        QCOMPARE(dups->duplicateKeys, 0);
    }

    // --page preview without partitions previews the most urgent one.
    void previewPageOnStart() {
        MainWindow w;
        w.show();
        QSignalSpy loaded(&w, &MainWindow::pageLoaded);
        QVERIFY(openAndWait(
            w, m_demo.db(), m_demo.spec(),
            {Kind::Dataset, QStringLiteral("fact_sales"), QStringLiteral("preview"), {kBadDay}}));
        QCOMPARE(w.currentPage(), w.previewPage());
        QTRY_VERIFY_WITH_TIMEOUT(w.previewPage()->result().has_value(), kTimeoutMs);
        QCOMPARE(w.previewPage()->diffModel()->index(0, 0).data().toString(), kBadDay);
        QTRY_VERIFY(loaded.count() >= 1);
    }

    // The bad day's column summary: only the amount changes, every one
    // halved; choosing it narrows the updated samples to rows where it
    // changed, its cells highlighted; choosing an untouched column leaves none.
    void previewColumnsNarrowTheSamples() {
        auto ws = rw::openWorkspace(m_demo.db(), m_demo.spec());
        QVERIFY(ws.has_value());
        rw::PreviewPage page;
        page.resize(1300, 860);
        page.show();
        page.preview(ws->db, *ws->spec.dataset(QStringLiteral("fact_sales")), {kBadDay});
        QTRY_VERIFY_WITH_TIMEOUT(page.result().has_value(), kTimeoutMs);
        const rw::PartitionResult t = page.result()->totals();
        QVERIFY(t.updated > 0);
        rw::ColumnsModel *columns = page.columnsModel();
        QCOMPARE(columns->rowCount(), int(t.columns.size()));
        int amount = -1, customer = -1;
        for (int r = 0; r < columns->rowCount(); ++r) {
            const QString name = columns->index(r, rw::ColumnsModel::NameColumn).data().toString();
            if (name == QLatin1String("amount"))
                amount = r;
            if (name == QLatin1String("customer_id"))
                customer = r;
        }
        QVERIFY(amount >= 0 && customer >= 0);
        // Every matched row of the bad day has its amount doubled: the fix halves them all.
        QCOMPARE(columns->index(amount, rw::ColumnsModel::ChangedColumn)
                     .data(rw::ColumnsModel::ShareRole)
                     .toDouble(),
                 1.0);
        QCOMPARE(columns->index(amount, rw::ColumnsModel::ShapeColumn).data().toString(),
                 QStringLiteral("\u00d70.5"));
        QCOMPARE(columns->index(customer, rw::ColumnsModel::ChangedColumn)
                     .data(rw::ColumnsModel::SortRole)
                     .toDouble(),
                 0.0);

        // Choose amount: the Updated samples, each with its amount changed and highlighted.
        QTableView *view = page.columnsView();
        auto *proxy = qobject_cast<QSortFilterProxyModel *>(view->model());
        QVERIFY(proxy);
        // The most changed first.
        QCOMPARE(proxy->index(0, rw::ColumnsModel::NameColumn).data().toString(),
                 QStringLiteral("amount"));
        view->selectionModel()->setCurrentIndex(proxy->mapFromSource(columns->index(amount, 0)),
                                                QItemSelectionModel::ClearAndSelect |
                                                    QItemSelectionModel::Rows);
        rw::SamplesModel *samples = page.samplesModel();
        QCOMPARE(samples->focusColumn(), QStringLiteral("amount"));
        // Its every figure under the table, with the keys of rows it changed.
        auto *details = page.findChild<QLabel *>(QStringLiteral("previewColumnDetails"));
        QVERIFY(details && !details->isHidden());
        QVERIFY2(details->text().contains(QStringLiteral("largest change")) &&
                     details->text().contains(QStringLiteral("for example the rows of order_id=")),
                 qPrintable(details->text()));
        QCOMPARE(samples->category(), rw::SamplesModel::Category::Updated);
        QVERIFY(samples->rowCount() > 0);
        for (int r = 0; r < samples->rowCount(); ++r)
            for (int c = 1; c < samples->columnCount(); ++c)
                QCOMPARE(samples->index(r, c).data(rw::SamplesModel::ChangedRole).toBool(),
                         samples->columnName(c) == QLatin1String("amount"));
        // Choose customer_id, which no row changes: no sample is left.
        view->selectionModel()->setCurrentIndex(proxy->mapFromSource(columns->index(customer, 0)),
                                                QItemSelectionModel::ClearAndSelect |
                                                    QItemSelectionModel::Rows);
        QCOMPARE(samples->focusColumn(), QStringLiteral("customer_id"));
        QCOMPARE(samples->rowCount(), 0);
        const QString shot = qEnvironmentVariable("REWIND_TEST_SCREENSHOT_DIR");
        if (!shot.isEmpty()) {
            view->selectionModel()->setCurrentIndex(proxy->mapFromSource(columns->index(amount, 0)),
                                                    QItemSelectionModel::ClearAndSelect |
                                                        QItemSelectionModel::Rows);
            page.grab().save(shot + QStringLiteral("/preview-columns.png"));
        }
    }

    // A transform that gained a column, with append_new_columns: the page
    // shows the schema change (words and its small table) before any row,
    // and the preview adds nothing to the table.
    void previewShowsTheSchemaChange() {
        const auto [db, spec] = m_demo.copy(QStringLiteral("schema"));
        {
            QFile file(spec);
            QVERIFY(file.open(QIODevice::ReadOnly));
            QJsonObject root = QJsonDocument::fromJson(file.readAll()).object();
            file.close();
            QJsonObject datasets = root.value(QStringLiteral("datasets")).toObject();
            QJsonObject sales = datasets.value(QStringLiteral("fact_sales")).toObject();
            sales.insert(QStringLiteral("transform"),
                         QStringLiteral("SELECT s.order_id, s.item_id, s.dt, s.customer_id, "
                                        "s.amount, s.updated_at, c.region AS customer_region FROM "
                                        "raw_sales AS s LEFT JOIN customers AS c ON c.customer_id "
                                        "= s.customer_id"));
            sales.insert(QStringLiteral("on_schema_change"), QStringLiteral("append_new_columns"));
            datasets.insert(QStringLiteral("fact_sales"), sales);
            root.insert(QStringLiteral("datasets"), datasets);
            QVERIFY(file.open(QIODevice::WriteOnly | QIODevice::Truncate));
            file.write(QJsonDocument(root).toJson());
        }
        auto ws = rw::openWorkspace(db, spec);
        QVERIFY(ws.has_value());
        rw::PreviewPage page;
        page.show();
        page.preview(ws->db, *ws->spec.dataset(QStringLiteral("fact_sales")), {kBadDay});
        QTRY_VERIFY_WITH_TIMEOUT(page.result().has_value(), kTimeoutMs);
        auto *label = page.findChild<QLabel *>(QStringLiteral("previewSchemaChange"));
        QVERIFY(label);
        QVERIFY(label->isVisible());
        QVERIFY2(label->text().contains(QStringLiteral("adds column customer_region")),
                 qPrintable(label->text()));
        QVERIFY(label->text().contains(QStringLiteral("<td")));
        auto columns = ws->db.columns(QStringLiteral("fact_sales"));
        QVERIFY(columns);
        QVERIFY(std::none_of(columns->begin(), columns->end(), [](const rw::ColumnInfo &c) {
            return c.name == QLatin1String("customer_region");
        }));
    }

    // A snapshot dated by its run previews the source now, whatever
    // partition is asked for (the run's time is its one partition), and its
    // tiles count versions: opened, closed, and closed because a key is gone.
    void previewOfASnapshotDatedByItsRun() {
        const QString at = testsupport::onPostgres()
                               ? QStringLiteral("CAST({snapshot_time} AS TIMESTAMP)")
                               : QStringLiteral("{snapshot_time}");
        testsupport::WorkspaceFixture f(
            {QStringLiteral("CREATE TABLE customers (id INTEGER, tier TEXT)"),
             QStringLiteral("INSERT INTO customers VALUES (1, 'gold'), (2, 'silver'), (3, "
                            "'bronze')")},
            QStringLiteral(
                R"({"datasets": {"tiers": {"transform": "SELECT id, tier, %1 AS taken_at FROM customers",
                "target": "dim_tiers", "partition_column": "taken_at", "key": ["id"], "write": "scd2",
                "scd2": {"tracked": "all", "valid_from": "valid_from", "valid_to": "valid_to",
                         "hard_deletes": "invalidate"}}}})")
                .arg(at)
                .toUtf8());
        rw::BatchOptions execute;
        execute.execute = true;
        auto first = rw::run(f.db(), f.dataset(), execute);
        QVERIFY2(first, qPrintable(first ? QString() : first.error().message));
        // bob moves tier, cy is gone, dan joins.
        QVERIFY(f.db().execAll({QStringLiteral("UPDATE customers SET tier = 'gold' WHERE id = 2"),
                                QStringLiteral("DELETE FROM customers WHERE id = 3"),
                                QStringLiteral("INSERT INTO customers VALUES (4, 'bronze')")}));
        rw::PreviewPage page;
        page.show();
        page.preview(f.db(), f.dataset(),
                     {first->partitions.front().partition.value_or(QString())});
        QTRY_VERIFY_WITH_TIMEOUT(page.result().has_value(), kTimeoutMs);
        QCOMPARE(page.result()->partitions.size(), std::size_t(1));
        QVERIFY(page.result()->partitions.front().partition != first->partitions.front().partition);
        auto *opened = page.findChild<rw::StatTile *>(QStringLiteral("previewInsertedTile"));
        auto *closed = page.findChild<rw::StatTile *>(QStringLiteral("previewUpdatedTile"));
        QVERIFY(opened && closed);
        QCOMPARE(opened->caption(), QStringLiteral("versions opened"));
        QCOMPARE(opened->value(), QStringLiteral("2")); // bob's new tier, dan
        QCOMPARE(closed->caption(), QStringLiteral("versions closed, 1 gone"));
        QCOMPARE(closed->value(), QStringLiteral("2")); // bob's old tier, cy
    }

    // Cancel sets the flag; the worker returns and nothing is left running.
    void cancelledPreviewLeavesNoWorker() {
        auto ws = rw::openWorkspace(m_demo.db(), m_demo.spec());
        QVERIFY(ws.has_value());
        const qint64 plansBefore =
            ws->db.scalar(QStringLiteral("SELECT COUNT(*) FROM rewind_plans"))->toLongLong();
        rw::PreviewPage page;
        page.show();
        QSignalSpy loaded(&page, &rw::Page::pageLoaded);
        page.preview(ws->db, *ws->spec.dataset(QStringLiteral("fact_sales")), {});
        QVERIFY(page.isRunning());
        QVERIFY(page.cancelButton()->isVisible());
        QTest::mouseClick(page.cancelButton(), Qt::LeftButton);
        QTRY_VERIFY_WITH_TIMEOUT(!page.isRunning(), kTimeoutMs);
        QCOMPARE(loaded.count(), 1);
        QVERIFY(!page.result().has_value());
        QVERIFY(page.messageText().contains(QStringLiteral("cancelled")));
        QVERIFY(!page.cancelButton()->isVisible());
        QTRY_COMPARE_WITH_TIMEOUT(rw::JobTracker::pool()->activeThreadCount(), 0, kTimeoutMs);
        QCOMPARE(ws->db.scalar(QStringLiteral("SELECT COUNT(*) FROM rewind_plans"))->toLongLong(),
                 plansBefore); // no plan stored
    }

    // dbt's run results on the partitions page: the days of the batches
    // dbt's run failed are marked (a dbt column, its reason in the tooltip),
    // noted above the table and selected, so that Preview re-runs exactly
    // them. Results that cannot be read leave the partitions as they were.
    void dbtResultsMarkAndSelectTheFailedDays() {
        REWIND_REQUIRE_ENGINE();
        testsupport::WorkspaceFixture f(
            {QStringLiteral("CREATE TABLE raw_events (id INTEGER, ts TIMESTAMP)"),
             QStringLiteral("INSERT INTO raw_events VALUES (1, '2025-01-01 10:00:00'), (2, "
                            "'2025-01-02 11:00:00'), (3, '2025-01-03 12:00:00')")},
            R"({"datasets": {"events_mb": {"transform": "SELECT id, ts FROM raw_events",
                "target": "events_mb", "partition_column": "ts", "partition_granularity": "day",
                "write": "overwrite_partition", "dbt": {"unique_id": "model.mb.events_mb"}}}})");
        rw::PartitionsPage page;
        page.resize(1300, 600);
        page.show();
        QSignalSpy loaded(&page, &rw::Page::pageLoaded);
        page.setDataset(f.db(), f.dataset());
        QTRY_COMPARE_WITH_TIMEOUT(loaded.count(), 1, kTimeoutMs);
        const auto button = page.findChild<QPushButton *>(QStringLiteral("dbtResultsButton"));
        QVERIFY(button && button->isVisible());
        QVERIFY(page.view()->isColumnHidden(rw::PartitionsModel::DbtColumn));

        page.loadDbtResults(QStringLiteral(REWIND_TESTS_DIR "/dbt/run_results_microbatch.json"));
        QTRY_COMPARE_WITH_TIMEOUT(loaded.count(), 2, kTimeoutMs);
        QVERIFY(!page.view()->isColumnHidden(rw::PartitionsModel::DbtColumn));
        QStringList marks;
        for (int r = 0; r < page.model()->rowCount(); ++r)
            marks
                << page.model()->index(r, rw::PartitionsModel::PartitionColumn).data().toString() +
                       u'=' +
                       page.model()->index(r, rw::PartitionsModel::DbtColumn).data().toString();
        marks.sort();
        QCOMPARE(marks, (QStringList{QStringLiteral("2025-01-01=\u2014"),
                                     QStringLiteral("2025-01-02=failed"),
                                     QStringLiteral("2025-01-03=failed")}));
        QCOMPARE(page.selectedPartitions(),
                 (QStringList{QStringLiteral("2025-01-02"), QStringLiteral("2025-01-03")}));
        QVERIFY2(page.dbtNote()->isVisible() &&
                     page.dbtNote()->text().contains(QStringLiteral("2 partition(s) to redo")),
                 qPrintable(page.dbtNote()->text()));
        for (int r = 0; r < page.model()->rowCount(); ++r) {
            const QModelIndex dbtCell = page.model()->index(r, rw::PartitionsModel::DbtColumn);
            if (dbtCell.data().toString() == QLatin1String("failed"))
                QVERIFY(dbtCell.data(Qt::ToolTipRole)
                            .toString()
                            .contains(QStringLiteral("failed (the model: PARTIAL SUCCESS (1/3))")));
        }
        QSignalSpy previewed(&page, &rw::PartitionsPage::previewRequested);
        page.previewAction()->trigger();
        QCOMPARE(previewed.count(), 1);
        QCOMPARE(previewed.at(0).at(0).toStringList(),
                 (QStringList{QStringLiteral("2025-01-02"), QStringLiteral("2025-01-03")}));
        if (const QString shot = qEnvironmentVariable("REWIND_SHOT"); !shot.isEmpty())
            page.grab().save(shot);

        QSignalSpy failed(&page, &rw::Page::loadFailed);
        page.loadDbtResults(f.specPath); // a spec, not run results
        QTRY_COMPARE_WITH_TIMEOUT(failed.count(), 1, kTimeoutMs);
        QVERIFY2(failed.at(0).at(0).toString().contains(QStringLiteral("not a dbt run_results")),
                 qPrintable(failed.at(0).at(0).toString()));
        QVERIFY(page.dbtResultsPath().isEmpty());
    }
};

QTEST_MAIN(TestBatchPages)
#include "tst_batchpages.moc"
