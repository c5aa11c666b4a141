// The recovery tools through the console: the duplicate-incident wizard on a
// crafted retry storm, driven through its five steps to a clean table, and
// rollback of a run from the Runs page, including a refused one.
#include "core/batch/batch.h"
#include "core/workspace/workspace.h"
#include "tests/gui/guitest.h"
#include "tests/recoveryfixture.h"
#include "tests/testsupport.h"
#include "ui/batch/partitionsmodel.h"
#include "ui/batch/partitionspage.h"
#include "ui/batch/previewdiffmodel.h"
#include "ui/batch/rollbackmodel.h"
#include "ui/batch/runsmodel.h"
#include "ui/batch/runspage.h"
#include "ui/common/confirmdialog.h"
#include "ui/common/errorbanner.h"
#include "ui/common/format.h"
#include "ui/common/settings.h"
#include "ui/recovery/duplicatesmodel.h"
#include "ui/recovery/recoverpage.h"
#include "ui/recovery/totalsmodel.h"
#include "ui/window/mainwindow.h"

#include <QAbstractItemModelTester>
#include <QCryptographicHash>
#include <QFile>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSignalSpy>
#include <QSqlRecord>
#include <QTableView>
#include <QTest>

using rw::MainWindow;
using Kind = rw::Navigator::Kind;

namespace {

constexpr int kTimeoutMs = 120000;

const QByteArray kWarehouseSpec =
    R"({"datasets": {"sales": {"source": "src", "target": "tgt", "partition_column": "dt",
    "key": ["id", "sub"], "order_by": "updated_at", "write": "merge"}}})";

struct Workspace {
    QTemporaryDir dir;
    QString db;
    QString spec;
    std::optional<rw::Workspace> ws;

    Workspace(const QStringList &warehouse, const QByteArray &specJson) {
        db = testsupport::makeDatabase(dir, QStringLiteral("w.db"), warehouse).url().text;
        spec = testsupport::writeFile(dir, QStringLiteral("w.json"), specJson);
        auto opened = rw::openWorkspace(db, spec);
        if (!opened)
            qFatal("%s", qPrintable(opened.error().message));
        ws = std::move(*opened);
    }
    const rw::Database &database() const { return ws->db; }
    const rw::DatasetSpec &dataset() const { return ws->spec.datasets.front(); }
};

// Indexes named `name` in the engine's catalog; `uniqueOnly`: unique ones only.
qint64 indexesNamed(const rw::Database &db, const QString &name, bool uniqueOnly) {
    const QString sql =
        testsupport::onPostgres()
            ? QStringLiteral(
                  "SELECT COUNT(*) FROM pg_indexes WHERE indexname = ? AND indexdef LIKE ?")
            : QStringLiteral("SELECT COUNT(*) FROM sqlite_master WHERE type = 'index' AND name = ? "
                             "AND sql LIKE ?");
    auto v = db.scalar(
        sql, {name, uniqueOnly ? QStringLiteral("CREATE UNIQUE INDEX%") : QStringLiteral("%")});
    return v ? v->toLongLong() : -1;
}

// With REWIND_TEST_SHOTS=DIR, saves the widget as DIR/NAME.png (to look at).
void shot(QWidget *w, const QString &name) {
    const QString dir = qEnvironmentVariable("REWIND_TEST_SHOTS");
    if (dir.isEmpty())
        return;
    QTest::qWait(100); // let the layouts settle, as they would on screen
    w->grab().save(dir + u'/' + name + QStringLiteral(".png"));
}

bool openAndWait(MainWindow &w, const QString &db, const QString &spec,
                 const MainWindow::Selection &selection) {
    QSignalSpy opened(&w, &MainWindow::workspaceOpened);
    w.openWorkspace(db, spec, selection);
    return opened.wait(kTimeoutMs) || opened.count() > 0;
}

} // namespace

class TestRecoveryPages : public QObject {
    Q_OBJECT

private:
    // Runs the next step of the wizard by its button and waits for it.
    static bool runStep(rw::RecoverPage *page, rw::RecoverPage::Step step) {
        if (page->shownStep() != step || !page->actionButton()->isEnabled())
            return false;
        QSignalSpy finished(page, &rw::RecoverPage::stepFinished);
        QTest::mouseClick(page->actionButton(), Qt::LeftButton);
        return (finished.wait(kTimeoutMs) || finished.count() > 0) && !page->isBusy();
    }

private Q_SLOTS:
    void cleanup() { guitest::waitForBackgroundWork(); }

    void initTestCase() {
        guitest::useTestSettings(QStringLiteral("tst_recoverypages"), true);
        REWIND_REQUIRE_ENGINE();
    }

    void wizardRecoversARetryStorm() {
        Workspace f(retryStorm(), kStormSpec);
        const rw::Database &db = f.database();
        const qint64 extra = count(db, QStringLiteral("SELECT COUNT(*) FROM fact")) -
                             count(db, QStringLiteral("SELECT COUNT(*) FROM clean"));
        QVERIFY(extra > 100);
        const QString stormy = digest(db, QStringLiteral("fact"));

        MainWindow w;
        w.show();
        QVERIFY(openAndWait(
            w, f.db, f.spec,
            {Kind::Dataset, QStringLiteral("sales"), QStringLiteral("partitions"), {}}));
        rw::PartitionsPage *partitions = w.partitionsPage();
        QTRY_VERIFY_WITH_TIMEOUT(!partitions->isLoading() && partitions->model()->rowCount() == 4,
                                 kTimeoutMs);
        auto *frozenLabel = partitions->findChild<QLabel *>(QStringLiteral("partitionsFrozen"));
        QVERIFY(frozenLabel && frozenLabel->isHidden()); // not frozen yet

        // Recover duplicates… on the partitions page opens the wizard, planned.
        auto *recoverButton = partitions->findChild<QPushButton *>(QStringLiteral("recoverButton"));
        QVERIFY(recoverButton && recoverButton->isEnabled());
        QTest::mouseClick(recoverButton, Qt::LeftButton);
        rw::RecoverPage *page = w.recoverPage();
        QCOMPARE(w.currentPage(), page);
        QCOMPARE(w.currentPageName(), QStringLiteral("recover"));
        QAbstractItemModelTester duplicatesTester(
            page->duplicatesModel(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        QAbstractItemModelTester rerunTester(
            page->rerunModel(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        QAbstractItemModelTester totalsTester(
            page->totalsModel(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        QTRY_VERIFY_WITH_TIMEOUT(page->isPlanned() && !page->isBusy(), kTimeoutMs);
        QCOMPARE(page->shownStep(), rw::RecoverPage::FreezeStep);
        QVERIFY2(
            page->stepText().contains(
                QStringLiteral("%1 duplicate key(s), %1 extra row(s)").arg(rw::fmt::number(extra))),
            qPrintable(page->stepText()));
        QVERIFY(page->stepText().contains(QStringLiteral("2025-05-03, 2025-05-04")));
        QVERIFY(page->stepText().contains(QStringLiteral("Not frozen")));
        QVERIFY(!page->nextButton()->isEnabled());
        QCOMPARE(digest(db, QStringLiteral("fact")), stormy); // planning writes nothing

        // 1. Freeze.
        QVERIFY(runStep(page, rw::RecoverPage::FreezeStep));
        shot(&w, QStringLiteral("1-freeze"));
        QCOMPARE(page->stepStatus(rw::RecoverPage::FreezeStep), rw::RecoveryStepStatus::Done);
        QCOMPARE(
            count(db, QStringLiteral("SELECT COUNT(*) FROM rewind_frozen WHERE dataset = 'sales'")),
            1);
        // The partitions page says the dataset is frozen, and what that refuses.
        partitions->refresh();
        QTRY_VERIFY_WITH_TIMEOUT(!partitions->isLoading() && !frozenLabel->isHidden(), kTimeoutMs);
        QVERIFY2(frozenLabel->text().contains(QStringLiteral("Frozen since")) &&
                     frozenLabel->text().contains(QStringLiteral("refuses every other writer")),
                 qPrintable(frozenLabel->text()));
        QVERIFY(page->nextButton()->isEnabled());
        QTest::mouseClick(page->nextButton(), Qt::LeftButton);

        // 2. Identify: the duplicates per partition, with examples.
        QCOMPARE(page->shownStep(), rw::RecoverPage::IdentifyStep);
        QVERIFY(runStep(page, rw::RecoverPage::IdentifyStep));
        shot(&w, QStringLiteral("2-identify"));
        QCOMPARE(page->duplicatesModel()->rowCount(), 2);
        qint64 extraShown = 0;
        for (int r = 0; r < 2; ++r)
            extraShown += page->duplicatesModel()
                              ->index(r, rw::DuplicatesModel::ExtraRowsColumn)
                              .data(rw::DuplicatesModel::SortRole)
                              .toLongLong();
        QCOMPARE(extraShown, extra);
        QVERIFY(page->stepText().contains(QStringLiteral("Identified under the freeze")));
        QVERIFY(page->stepText().contains(QStringLiteral("\"rows\":2")));
        QTest::mouseClick(page->nextButton(), Qt::LeftButton);

        // 3. Re-run: the preview's diff, then the typed confirmation.
        QCOMPARE(page->shownStep(), rw::RecoverPage::RerunStep);
        QTRY_VERIFY_WITH_TIMEOUT(page->rerunPreview().has_value() && !page->isBusy(), kTimeoutMs);
        QCOMPARE(page->rerunModel()->rowCount(), 2);
        QCOMPARE(page->rerunPreview()->mode, rw::WriteMode::OverwritePartition);
        QCOMPARE(digest(db, QStringLiteral("fact")), stormy);
        QVERIFY(page->actionButton()->isEnabled());
        QTest::mouseClick(page->actionButton(), Qt::LeftButton);
        QTRY_VERIFY(page->confirmDialog() && page->confirmDialog()->isVisible());
        shot(&w, QStringLiteral("3-rerun-preview"));
        rw::ConfirmDialog *confirm = page->confirmDialog();
        shot(confirm, QStringLiteral("3-rerun-confirm"));
        QVERIFY(confirm->summaryText().contains(QStringLiteral("2025-05-03, 2025-05-04")));
        QVERIFY(!confirm->actionButton()->isEnabled());
        QTest::keyClicks(confirm->confirmEdit(), QStringLiteral("sale"));
        QVERIFY(!confirm->actionButton()->isEnabled());
        QTest::keyClicks(confirm->confirmEdit(), QStringLiteral("s"));
        QVERIFY(confirm->actionButton()->isEnabled());
        QSignalSpy rerunDone(page, &rw::RecoverPage::stepFinished);
        QTest::mouseClick(confirm->actionButton(), Qt::LeftButton);
        QVERIFY(rerunDone.wait(kTimeoutMs) || rerunDone.count() > 0);
        QCOMPARE(page->stepStatus(rw::RecoverPage::RerunStep), rw::RecoveryStepStatus::Done);
        QVERIFY(!page->result()->rerunId.isNull());
        QVERIFY(page->stepText().contains(QStringLiteral("overwrote 2 partition(s)")));
        shot(&w, QStringLiteral("3-rerun-done"));
        QTest::mouseClick(page->nextButton(), Qt::LeftButton);

        // 4. Totals: off before the check (the storm), matching after it.
        QCOMPARE(page->shownStep(), rw::RecoverPage::TotalsStep);
        QVERIFY(page->totalsModel()->mismatches() > 0);
        shot(&w, QStringLiteral("4-totals-before"));
        QVERIFY(runStep(page, rw::RecoverPage::TotalsStep));
        shot(&w, QStringLiteral("4-totals-after"));
        QCOMPARE(page->totalsModel()->mismatches(), 0);
        QVERIFY(page->totalsModel()->rowCount() >= 2 * 3); // rows, sum(order_id)..., per partition
        QVERIFY(page->result()->totalsMatch);
        QVERIFY(page->stepText().contains(QStringLiteral("totals match the source")));
        QTest::mouseClick(page->nextButton(), Qt::LeftButton);

        // 5. Unique index, unfreeze.
        QCOMPARE(page->shownStep(), rw::RecoverPage::IndexStep);
        QVERIFY(
            page->stepText().contains(QStringLiteral("CREATE UNIQUE INDEX rewind_unique_fact")));
        QVERIFY(runStep(page, rw::RecoverPage::IndexStep));
        shot(&w, QStringLiteral("5-index"));
        QCOMPARE(page->result()->status, rw::RecoveryStatus::Recovered);
        QCOMPARE(page->banner()->level(), rw::ErrorBanner::Level::Info);
        QVERIFY(page->banner()->message().contains(QStringLiteral("recovered")));
        QTest::mouseClick(page->nextButton(), Qt::LeftButton);

        // The report, on screen and saved.
        QCOMPARE(page->shownStep(), rw::RecoverPage::ReportStep);
        shot(&w, QStringLiteral("6-report"));
        const QString report = page->reportText();
        QVERIFY(report.contains(QStringLiteral("Duplicate incident recovery: sales")));
        QVERIFY2(report.contains(QStringLiteral("%1 duplicate key(s)").arg(extra)),
                 qPrintable(report));
        QVERIFY(report.contains(QStringLiteral("rewind_unique_fact")));
        const QString saved = f.dir.filePath(QStringLiteral("incident.md"));
        QVERIFY(page->saveReport(saved));
        QFile md(saved);
        QVERIFY(md.open(QIODevice::ReadOnly));
        const QString text = QString::fromUtf8(md.readAll());
        QVERIFY(text.startsWith(QStringLiteral("# Duplicate incident recovery: sales")));
        QVERIFY(text.contains(QStringLiteral("| rerun | done |")));

        // What a user checks in the database: the clean load, row for row.
        QCOMPARE(count(db, QStringLiteral("SELECT COUNT(*) FROM (SELECT 1 FROM fact GROUP BY dt, "
                                          "order_id, item_id HAVING COUNT(*) > 1) AS d")),
                 0);
        QCOMPARE(digest(db, QStringLiteral("fact")), digest(db, QStringLiteral("clean")));
        QCOMPARE(count(db, QStringLiteral("SELECT SUM(amount) * 100 FROM fact")),
                 count(db, QStringLiteral("SELECT SUM(amount) * 100 FROM clean")));
        QCOMPARE(indexesNamed(db, QStringLiteral("rewind_unique_fact"), true), 1);
        QCOMPARE(count(db, QStringLiteral("SELECT COUNT(*) FROM rewind_frozen")), 0);
        QVERIFY(!db.exec(
            QStringLiteral("INSERT INTO fact SELECT * FROM fact WHERE dt = '2025-05-01' LIMIT 1")));
        for (const char *step : {"recover freeze", "recover identify", "recover rerun",
                                 "recover totals", "recover unique index", "recover unfreeze"})
            QVERIFY2(
                count(db, QStringLiteral("SELECT COUNT(*) FROM rewind_audit WHERE action = '%1'")
                              .arg(QLatin1String(step))) == 1,
                step);

        // Back to the partitions: they show the cleaned table.
        QTest::mouseClick(page->findChild<QPushButton *>(QStringLiteral("recoverBack")),
                          Qt::LeftButton);
        QCOMPARE(w.currentPage(), partitions);
        QTRY_VERIFY_WITH_TIMEOUT(
            !partitions->isLoading() &&
                partitions->summaryText().contains(QStringLiteral("0 with duplicate keys")),
            kTimeoutMs);
    }

    void wizardFailureShowsTheBanner() {
        // A NULL key: the unique index would not protect it, so step 5 fails
        // and the dataset stays frozen.
        Workspace f(kWarehouse, kWarehouseSpec);
        MainWindow w;
        w.show();
        QVERIFY(
            openAndWait(w, f.db, f.spec,
                        {Kind::Dataset, QStringLiteral("sales"), QStringLiteral("recover"), {}}));
        rw::RecoverPage *page = w.recoverPage();
        QCOMPARE(w.currentPage(), page);
        QTRY_VERIFY_WITH_TIMEOUT(page->isPlanned() && !page->isBusy(), kTimeoutMs);
        QVERIFY(runStep(page, rw::RecoverPage::FreezeStep));
        QVERIFY(page->goNext());
        QVERIFY(runStep(page, rw::RecoverPage::IdentifyStep));
        QVERIFY(page->goNext());
        QTRY_VERIFY_WITH_TIMEOUT(page->rerunPreview().has_value() && !page->isBusy(), kTimeoutMs);
        QVERIFY(page->runNextStep());
        QTRY_VERIFY(page->confirmDialog() && page->confirmDialog()->isVisible());
        page->confirmDialog()->confirmEdit()->setText(QStringLiteral("sales"));
        QSignalSpy done(page, &rw::RecoverPage::stepFinished);
        QTest::mouseClick(page->confirmDialog()->actionButton(), Qt::LeftButton);
        QVERIFY(done.wait(kTimeoutMs) || done.count() > 0);
        QVERIFY(page->goNext());
        QVERIFY(runStep(page, rw::RecoverPage::TotalsStep));
        QVERIFY(page->goNext());
        QVERIFY(runStep(page, rw::RecoverPage::IndexStep));

        shot(&w, QStringLiteral("fail-index"));
        QCOMPARE(page->stepStatus(rw::RecoverPage::IndexStep), rw::RecoveryStepStatus::Failed);
        QCOMPARE(page->banner()->level(), rw::ErrorBanner::Level::Error);
        QVERIFY2(page->banner()->message().contains(QStringLiteral("NULL")),
                 qPrintable(page->banner()->message()));
        QVERIFY(page->banner()->message().contains(QStringLiteral("stays frozen")));
        QVERIFY(!page->actionButton()->isEnabled());
        QCOMPARE(page->nextButton()->text(), QStringLiteral("View report \u203a"));
        QCOMPARE(count(f.database(), QStringLiteral("SELECT COUNT(*) FROM rewind_frozen")), 1);
        QCOMPARE(indexesNamed(f.database(), QStringLiteral("rewind_unique_tgt"), false), 0);
        QVERIFY(page->goNext());
        QCOMPARE(page->shownStep(), rw::RecoverPage::ReportStep);
        QVERIFY(page->reportText().contains(QStringLiteral("failed")));
    }

    void rollbackFromTheRunsPage() {
        Workspace f(kWarehouse, kWarehouseSpec);
        const rw::Database &db = f.database();
        const QString before = digest(db, QStringLiteral("tgt"));
        rw::BatchOptions o;
        o.execute = true;
        auto run = rw::run(db, f.dataset(), o);
        QVERIFY2(run && run->status == rw::RunStatus::Succeeded,
                 qPrintable(run ? run->error : run.error().message));
        const qint64 runId = run->runId.toLongLong();
        const QString after = digest(db, QStringLiteral("tgt"));
        QVERIFY(after != before);

        MainWindow w;
        w.show();
        QVERIFY(openAndWait(w, f.db, f.spec,
                            {Kind::Dataset, QStringLiteral("sales"), QStringLiteral("runs"), {}}));
        rw::RunsPage *runs = w.runsPage();
        QTRY_VERIFY_WITH_TIMEOUT(!runs->isLoading() && runs->model()->rowCount() == 1, kTimeoutMs);
        runs->showRun(runId);
        QCOMPARE(runs->selectedRunId(), runId);
        QVERIFY(runs->rollbackButton()->isEnabled());

        // The dry run first: what each partition gets back; nothing changed.
        QTest::mouseClick(runs->rollbackButton(), Qt::LeftButton);
        QTRY_VERIFY_WITH_TIMEOUT(runs->rollbackDialog() && runs->rollbackDialog()->isVisible(),
                                 kTimeoutMs);
        rw::ConfirmDialog *dialog = runs->rollbackDialog();
        auto *plan = dialog->findChild<QTableView *>(QStringLiteral("rollbackPlan"));
        QVERIFY(plan);
        QAbstractItemModelTester tester(plan->model(),
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        QCOMPARE(plan->model()->rowCount(), 3);
        qint64 restored = 0;
        for (int r = 0; r < 3; ++r)
            restored += plan->model()
                            ->index(r, rw::RollbackModel::RestoredColumn)
                            .data(rw::RollbackModel::SortRole)
                            .toLongLong();
        QVERIFY(restored > 0);
        QVERIFY(
            dialog->summaryText().contains(QStringLiteral("Roll back run %1 of sales").arg(runId)));
        QCOMPARE(digest(db, QStringLiteral("tgt")), after);
        shot(dialog, QStringLiteral("rollback-dialog"));

        // Typed confirmation, then the rollback in the background.
        QVERIFY(!dialog->actionButton()->isEnabled());
        QTest::keyClicks(dialog->confirmEdit(), QStringLiteral("sales"));
        QVERIFY(dialog->actionButton()->isEnabled());
        QTest::mouseClick(dialog->actionButton(), Qt::LeftButton);
        QTRY_VERIFY_WITH_TIMEOUT(!runs->rollbackDialog(), kTimeoutMs);
        QTRY_VERIFY_WITH_TIMEOUT(!runs->isLoading() && runs->model()
                                                           ->index(0, rw::RunsModel::StatusColumn)
                                                           .data()
                                                           .toString()
                                                           .contains(QStringLiteral("rolled_back")),
                                 kTimeoutMs);
        QCOMPARE(digest(db, QStringLiteral("tgt")), before);
        QCOMPARE(w.banner()->level(), rw::ErrorBanner::Level::Info);
        QVERIFY2(
            w.banner()->message().contains(QStringLiteral("rolled back: 3 partition(s) restored")),
            qPrintable(w.banner()->message()));
        shot(&w, QStringLiteral("rollback-done"));
        QVERIFY(!runs->rollbackButton()->isEnabled()); // twice is not offered
    }

    void refusedRollbackShowsTheBanner() {
        Workspace f(kWarehouse, kWarehouseSpec);
        const rw::Database &db = f.database();
        rw::BatchOptions o;
        o.execute = true;
        auto first = rw::run(db, f.dataset(), o);
        QVERIFY(first);
        QVERIFY(db.exec(QStringLiteral("UPDATE src SET amount = amount + 1 WHERE dt = 'd3'")));
        o.scope.partitions = {QStringLiteral("d3")};
        auto second = rw::run(db, f.dataset(), o);
        QVERIFY(second && second->status == rw::RunStatus::Succeeded);
        const QString current = digest(db, QStringLiteral("tgt"));

        MainWindow w;
        w.show();
        QVERIFY(openAndWait(w, f.db, f.spec,
                            {Kind::Dataset, QStringLiteral("sales"), QStringLiteral("runs"), {}}));
        rw::RunsPage *runs = w.runsPage();
        QTRY_VERIFY_WITH_TIMEOUT(!runs->isLoading() && runs->model()->rowCount() == 2, kTimeoutMs);
        runs->showRun(first->runId.toLongLong());
        QSignalSpy failed(runs, &rw::RunsPage::actionFailed);
        QTest::mouseClick(runs->rollbackButton(), Qt::LeftButton);
        QVERIFY(failed.wait(kTimeoutMs) || failed.count() > 0);
        QVERIFY(!runs->rollbackDialog());
        shot(&w, QStringLiteral("rollback-refused"));
        QCOMPARE(w.banner()->level(), rw::ErrorBanner::Level::Error);
        const QString message = w.banner()->message();
        QVERIFY2(message.contains(QStringLiteral("later run %1").arg(second->runId.toLongLong())),
                 qPrintable(message));
        QVERIFY(message.contains(QStringLiteral("roll it back first")));
        QCOMPARE(digest(db, QStringLiteral("tgt")), current);
        QVERIFY(
            runs->rollbackButton()->isEnabled()); // still offered: roll the later run back first
    }

    void modelsUnderTheTester() {
        rw::DuplicatesModel duplicates;
        QAbstractItemModelTester t1(&duplicates,
                                    QAbstractItemModelTester::FailureReportingMode::QtTest);
        duplicates.resetData({{QStringLiteral("d1"), 3, 4}, {std::nullopt, 1, 1}});
        QCOMPARE(duplicates.rowCount(), 2);
        QCOMPARE(duplicates.index(0, rw::DuplicatesModel::ExtraRowsColumn).data().toString(),
                 QStringLiteral("4"));
        QCOMPARE(duplicates.index(1, rw::DuplicatesModel::PartitionColumn).data().toString(),
                 QStringLiteral("(all)"));
        duplicates.resetData({});
        QCOMPARE(duplicates.rowCount(), 0);

        rw::TotalsModel totals;
        QAbstractItemModelTester t2(&totals,
                                    QAbstractItemModelTester::FailureReportingMode::QtTest);
        rw::TotalsRow row;
        row.partition = QStringLiteral("d2");
        row.sourceRows = 3;
        row.targetRows = 5;
        row.sums = {{QStringLiteral("amount"), QVariant(120.0), QVariant(261.0)},
                    {QStringLiteral("qty"), QVariant(7), QVariant(7)}};
        row.match = false;
        totals.resetData({row});
        QCOMPARE(totals.rowCount(), 3);
        QCOMPARE(totals.mismatches(), 2);
        QCOMPARE(totals.index(1, rw::TotalsModel::MeasureColumn).data().toString(),
                 QStringLiteral("sum(amount)"));
        QCOMPARE(totals.index(1, rw::TotalsModel::TargetColumn).data().toString(),
                 QStringLiteral("261.00"));
        QCOMPARE(
            totals.index(2, rw::TotalsModel::MatchColumn).data(rw::TotalsModel::MatchRole).toBool(),
            true);

        rw::RollbackModel rollback;
        QAbstractItemModelTester t3(&rollback,
                                    QAbstractItemModelTester::FailureReportingMode::QtTest);
        rollback.resetData(
            {{QStringLiteral("d1"), 2, 1, false}, {QStringLiteral("d2"), 0, 4, true}});
        QCOMPARE(rollback.rowCount(), 2);
        QCOMPARE(rollback.index(1, rw::RollbackModel::RestoredColumn)
                     .data(rw::RollbackModel::SortRole)
                     .toLongLong(),
                 4);
        QCOMPARE(rollback.index(0, rw::RollbackModel::StateColumn).data().toString(),
                 QStringLiteral("would be restored"));
    }
};

QTEST_MAIN(TestRecoveryPages)
#include "tst_recoverypages.moc"
