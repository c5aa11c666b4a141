// A run's report in the console: built as a value (failed partitions first,
// then changed, not published and unchanged; the totals), shown by the Runs
// page's model-backed view, while the exports stay the complete Markdown.
#include "core/batch/runreport.h"
#include "tests/gui/guitest.h"
#include "ui/batch/checksmodel.h"
#include "ui/batch/runreportmodel.h"
#include "ui/batch/runreportsnapshot.h"
#include "ui/batch/runreportview.h"
#include "ui/common/stattile.h"

#include <QAbstractItemModelTester>
#include <QSignalSpy>
#include <QSortFilterProxyModel>
#include <QTabWidget>
#include <QTableView>
#include <QTest>

namespace {

constexpr int kTimeoutMs = 30000;

rw::PartitionResult partition(const QString &label, bool published, qint64 inserted, qint64 updated,
                              qint64 deleted, qint64 unchanged) {
    rw::PartitionResult p;
    p.partition = label;
    p.published = published;
    p.inserted = inserted;
    p.updated = updated;
    p.deleted = deleted;
    p.unchanged = unchanged;
    p.sourceRows = p.stagedRows = inserted + updated + unchanged;
    return p;
}

// A finished run of five days, in run order: one unchanged, one that
// inserted, one whose gate failed (so not published), one never reached,
// one that deleted.
std::pair<rw::RunInfo, rw::RunResult> fiveDayRun() {
    rw::RunInfo info;
    info.runId = 7;
    info.dataset = QStringLiteral("sales");
    info.kind = rw::RunKind::Run;
    info.status = rw::RunStatus::CheckFailed;
    info.osUser = QStringLiteral("ops");
    info.host = QStringLiteral("box");
    info.startedAt = QStringLiteral("2025-06-01T10:00:00Z");
    info.finishedAt = QStringLiteral("2025-06-01T10:00:30Z");
    rw::RunResult r;
    r.dataset = info.dataset;
    r.runId = info.runId;
    r.executed = true;
    r.status = info.status;
    r.error = QStringLiteral("a gate failed on 2025-05-03");
    r.startedAt = info.startedAt;
    r.finishedAt = info.finishedAt;
    r.partitions = {partition(QStringLiteral("2025-05-01"), true, 0, 0, 0, 10),
                    partition(QStringLiteral("2025-05-02"), true, 4, 0, 0, 6),
                    partition(QStringLiteral("2025-05-03"), false, 3, 2, 0, 5),
                    partition(QStringLiteral("2025-05-04"), false, 0, 0, 0, 0),
                    partition(QStringLiteral("2025-05-05"), true, 0, 0, 2, 8)};
    r.checks = {{QStringLiteral("row_count"), QStringLiteral("2025-05-01"), true,
                 QStringLiteral("10 rows"), 0},
                {QStringLiteral("row_count"), QStringLiteral("2025-05-03"), false,
                 QStringLiteral("0 rows expected 10"), 0},
                {QStringLiteral("row_count"), QStringLiteral("2025-05-02"), true,
                 QStringLiteral("10 rows"), 0}};
    return {info, r};
}

QStringList column(const QAbstractItemModel *model, int c) {
    QStringList out;
    for (int r = 0; r < model->rowCount(); ++r)
        out << model->index(r, c).data().toString();
    return out;
}

} // namespace

class TestRunReport : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase() { guitest::useTestSettings(QStringLiteral("tst_runreport"), false); }
    void cleanup() { guitest::waitForBackgroundWork(); }

    void snapshotOrdersFailedChangedNotPublishedUnchanged() {
        const auto [info, result] = fiveDayRun();
        const rw::RunReportSnapshot s = rw::buildRunReport(info, result);
        QStringList order;
        for (const rw::RunReportRow &row : s.partitions)
            order << *row.counts.partition + u':' + rw::enumName(row.outcome);
        QCOMPARE(order, (QStringList{QStringLiteral("2025-05-03:failed"),
                                     QStringLiteral("2025-05-02:changed"),
                                     QStringLiteral("2025-05-05:changed"),
                                     QStringLiteral("2025-05-04:not published"),
                                     QStringLiteral("2025-05-01:unchanged")}));
        QCOMPARE(s.count(rw::PartitionOutcome::Failed), 1);
        QCOMPARE(s.count(rw::PartitionOutcome::Changed), 2);
        QCOMPARE(s.count(rw::PartitionOutcome::NotPublished), 1);
        QCOMPARE(s.count(rw::PartitionOutcome::Unchanged), 1);
        QCOMPARE(s.published, 3);
        QCOMPARE(s.partitions.front().failedGates, 1);
        QCOMPARE(s.totals.inserted, 7);
        QCOMPARE(s.totals.deleted, 2);
        QCOMPARE(s.totals.unchanged, 29);
        QCOMPARE(s.gatesFailed, 1);
        QVERIFY(!s.gates.front().passed); // failed gates first
        QCOMPARE(*s.gates.front().partition, QStringLiteral("2025-05-03"));
    }

    void aGateOfNoPartitionFailsEveryPartition() {
        auto [info, result] = fiveDayRun();
        result.checks = {
            {QStringLiteral("total"), std::nullopt, false, QStringLiteral("totals differ"), 0}};
        const rw::RunReportSnapshot s = rw::buildRunReport(info, result);
        QCOMPARE(s.count(rw::PartitionOutcome::Failed), 5);
        for (const rw::RunReportRow &row : s.partitions)
            QCOMPARE(row.failedGates, 1);
    }

    void modelShowsTheRowsInOrder() {
        const auto [info, result] = fiveDayRun();
        rw::RunReportModel model;
        QAbstractItemModelTester tester(&model,
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.resetData(rw::buildRunReport(info, result).partitions);
        QCOMPARE(model.rowCount(), 5);
        QCOMPARE(column(&model, rw::RunReportModel::OutcomeColumn),
                 (QStringList{QStringLiteral("failed"), QStringLiteral("changed"),
                              QStringLiteral("changed"), QStringLiteral("not published"),
                              QStringLiteral("unchanged")}));
        QCOMPARE(model.index(0, rw::RunReportModel::PartitionColumn).data().toString(),
                 QStringLiteral("2025-05-03"));
        QCOMPARE(model.index(0, rw::RunReportModel::GatesColumn).data().toString(),
                 QStringLiteral("1 failed"));
        QCOMPARE(model.index(0, rw::RunReportModel::PublishedColumn).data().toString(),
                 QStringLiteral("no"));
        QCOMPARE(model.index(1, rw::RunReportModel::InsertedColumn)
                     .data(rw::RunReportModel::SortRole)
                     .toLongLong(),
                 4);
    }

    void viewShowsTotalsAndFiltersByOutcome() {
        const auto [info, result] = fiveDayRun();
        rw::RunReportView view;
        view.resize(1000, 600);
        view.show();
        QSignalSpy shown(&view, &rw::RunReportView::reportShown);
        view.showRun(info, result);
        QVERIFY(shown.wait(kTimeoutMs));
        QCOMPARE(shown.at(0).at(0).toLongLong(), 7);
        QCOMPARE(view.runId(), 7);
        const QString text = view.text();
        QVERIFY2(text.contains(QStringLiteral("Run 7 of sales: check_failed")), qPrintable(text));
        QVERIFY2(text.contains(QStringLiteral("a gate failed on 2025-05-03")), qPrintable(text));
        QVERIFY2(text.contains(QStringLiteral("Totals of 5 partition(s), 3 published")),
                 qPrintable(text));
        QVERIFY2(text.contains(QStringLiteral("7 inserted")) &&
                     text.contains(QStringLiteral("2 deleted")),
                 qPrintable(text));
        QCOMPARE(view.tile(rw::PartitionOutcome::Failed)->value(), QStringLiteral("1"));
        QCOMPARE(view.tile(rw::PartitionOutcome::Changed)->value(), QStringLiteral("2"));
        QCOMPARE(view.tabs()->tabText(1), QStringLiteral("Gates (1 failed of 3)"));
        QCOMPARE(view.gatesModel()->index(0, rw::ChecksModel::PartitionColumn).data().toString(),
                 QStringLiteral("2025-05-03"));

        const QAbstractItemModel *shownRows = view.partitionsView()->model();
        QCOMPARE(shownRows->rowCount(), 5);
        QCOMPARE(shownRows->index(0, rw::RunReportModel::PartitionColumn).data().toString(),
                 QStringLiteral("2025-05-03"));
        view.setOutcomeFilter(rw::PartitionOutcome::Changed);
        QCOMPARE(column(shownRows, rw::RunReportModel::PartitionColumn),
                 (QStringList{QStringLiteral("2025-05-02"), QStringLiteral("2025-05-05")}));
        view.setOutcomeFilter(std::nullopt);
        QCOMPARE(shownRows->rowCount(), 5);

        // A message instead of a report forgets the run.
        view.showMessage(QStringLiteral("Run 8 is in progress"));
        QCOMPARE(view.runId(), 0);
        QCOMPARE(view.text(), QStringLiteral("Run 8 is in progress"));
        QCOMPARE(view.partitionsModel()->rowCount(), 0);
    }

    void aLaterRunReplacesAnEarlierOneInFlight() {
        auto [info, result] = fiveDayRun();
        rw::RunReportView view;
        QSignalSpy shown(&view, &rw::RunReportView::reportShown);
        view.showRun(info, result);
        info.runId = 8;
        result.runId = 8;
        result.partitions.resize(2);
        view.showRun(info, result);
        QTRY_VERIFY_WITH_TIMEOUT(!view.isLoading() && view.runId() == 8, kTimeoutMs);
        QTest::qWait(50);
        QCOMPARE(view.runId(), 8); // the first answer, if it came, did not win
        QCOMPARE(view.partitionsModel()->rowCount(), 2);
    }

    // The exports are not the view's: the Markdown still lists every
    // partition in run order, with the totals.
    void markdownStaysComplete() {
        const auto [info, result] = fiveDayRun();
        const QString md = rw::runReportMarkdown(info, result);
        qsizetype at = 0;
        for (const rw::PartitionResult &p : result.partitions) {
            const qsizetype next = md.indexOf(QStringLiteral("| %1 |").arg(*p.partition), at);
            QVERIFY2(next > at, qPrintable(*p.partition));
            at = next;
        }
        QVERIFY(md.contains(QStringLiteral("| **total** |")));
    }
};

QTEST_MAIN(TestRunReport)
#include "tst_runreport.moc"
