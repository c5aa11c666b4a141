// The batch pages' models under QAbstractItemModelTester, and the partition
// filter (regex or range) on 10,000 partitions.
#include "ui/audit/auditmodel.h"
#include "ui/audit/auditproxymodel.h"
#include "ui/batch/checksmodel.h"
#include "ui/batch/partitionsmodel.h"
#include "ui/batch/partitionspage.h"
#include "ui/batch/partitionsproxymodel.h"
#include "ui/batch/previewdiffmodel.h"
#include "ui/batch/previewpage.h"
#include "ui/batch/runsmodel.h"
#include "ui/batch/samplesmodel.h"
#include "ui/common/format.h"

#include <QAbstractItemModelTester>
#include <QDate>
#include <QElapsedTimer>
#include <QJsonObject>
#include <QLineEdit>
#include <QTableView>
#include <QTest>

namespace {

rw::PartitionResult partition(const QString &label, qint64 inserted, qint64 updated, qint64 deleted,
                              qint64 unchanged) {
    rw::PartitionResult p;
    p.partition = label;
    p.inserted = inserted;
    p.updated = updated;
    p.deleted = deleted;
    p.unchanged = unchanged;
    p.stagedRows = inserted + updated + unchanged;
    p.sourceRows = p.stagedRows + 2;
    p.duplicatesDropped = 2;
    rw::Samples s;
    s.inserted.push_back(QJsonObject{{QStringLiteral("id"), 1}, {QStringLiteral("amount"), 10.5}});
    s.updated.emplace_back(QJsonObject{{QStringLiteral("id"), 2},
                                       {QStringLiteral("amount"), 20.0},
                                       {QStringLiteral("note"), QStringLiteral("x")}},
                           QJsonObject{{QStringLiteral("id"), 2},
                                       {QStringLiteral("amount"), 10.0},
                                       {QStringLiteral("note"), QStringLiteral("x")}});
    s.unchanged.push_back(
        QJsonObject{{QStringLiteral("id"), 3}, {QStringLiteral("amount"), QJsonValue()}});
    p.samples = s;
    return p;
}

std::vector<rw::PartitionInfo> manyPartitions(int n) {
    std::vector<rw::PartitionInfo> out;
    out.reserve(std::size_t(n));
    const QDate first(2000, 1, 1);
    for (int i = 0; i < n; ++i) {
        rw::PartitionInfo p;
        p.partition = first.addDays(i).toString(Qt::ISODate);
        p.sourceRows = 1000 + i;
        p.targetRows = i % 7 == 0 ? 0 : 1000 + i;
        p.status = i % 7 == 0
                       ? rw::PartitionStatus::Unloaded
                       : (i % 101 == 0 ? rw::PartitionStatus::Stale : rw::PartitionStatus::Loaded);
        out.push_back(std::move(p));
    }
    return out;
}

} // namespace

class TestBatchModels : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void previewDiffModel() {
        rw::PreviewDiffModel model;
        QAbstractItemModelTester tester(&model,
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        std::vector<rw::CheckResult> checks{
            {QStringLiteral("total"), QStringLiteral("2025-05-02"), false,
             QStringLiteral("off by 3%"), 0},
            {QStringLiteral("row_count"), std::nullopt, true, QString(), 0}};
        model.resetData({partition(QStringLiteral("2025-05-01"), 5, 0, 0, 100),
                         partition(QStringLiteral("2025-05-02"), 0, 1500, 3, 0)},
                        checks);
        QCOMPARE(model.rowCount(), 2);
        QCOMPARE(model.index(1, rw::PreviewDiffModel::UpdatedColumn).data().toString(),
                 QStringLiteral("1,500"));
        QCOMPARE(model.index(1, rw::PreviewDiffModel::UpdatedColumn)
                     .data(rw::PreviewDiffModel::SortRole)
                     .toLongLong(),
                 1500);
        QCOMPARE(model.index(0, rw::PreviewDiffModel::GatesColumn).data().toString(),
                 QStringLiteral("pass"));
        QCOMPARE(model.index(1, rw::PreviewDiffModel::GatesColumn).data().toString(),
                 QStringLiteral("1 failed"));
        model.resetData({}, {});
        QCOMPARE(model.rowCount(), 0);
    }

    void checksModel() {
        rw::ChecksModel model;
        QAbstractItemModelTester tester(&model,
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.resetData(
            {{QStringLiteral("not_null"), QStringLiteral("a"), true, QStringLiteral("0 nulls"), 0},
             {QStringLiteral("total"), QStringLiteral("b"), false, QStringLiteral("sum differs"),
              0}});
        QCOMPARE(model.failedCount(), 1);
        // Failures first.
        QCOMPARE(model.index(0, rw::ChecksModel::NameColumn).data().toString(),
                 QStringLiteral("total"));
        QCOMPARE(model.index(0, rw::ChecksModel::ResultColumn)
                     .data(rw::ChecksModel::PassedRole)
                     .toBool(),
                 false);
        QVERIFY(model.index(0, rw::ChecksModel::ResultColumn)
                    .data()
                    .toString()
                    .contains(QStringLiteral("FAIL")));
    }

    void samplesModel_data() {
        QTest::addColumn<int>("category");
        QTest::addColumn<int>("rows");
        QTest::addColumn<int>("columns");
        QTest::newRow("inserted") << int(rw::SamplesModel::Category::Inserted) << 2 << 3;
        QTest::newRow("updated") << int(rw::SamplesModel::Category::Updated) << 2 << 7;
        QTest::newRow("deleted") << int(rw::SamplesModel::Category::Deleted) << 0
                                 << 2; // partition + the key
        QTest::newRow("unchanged") << int(rw::SamplesModel::Category::Unchanged) << 2 << 3;
    }

    void samplesModel() {
        QFETCH(int, category);
        QFETCH(int, rows);
        QFETCH(int, columns);
        rw::SamplesModel model;
        QAbstractItemModelTester tester(&model,
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.resetData({partition(QStringLiteral("p1"), 1, 1, 0, 1),
                         partition(QStringLiteral("p2"), 1, 1, 0, 1)},
                        rw::SamplesModel::Category(category), {QStringLiteral("id")});
        QCOMPARE(model.rowCount(), rows);
        QCOMPARE(model.columnCount(), columns);
        if (rows > 0) {
            QCOMPARE(model.headerData(1, Qt::Horizontal).toString().left(2),
                     QStringLiteral("id")); // key first
            QCOMPARE(model.index(0, 0).data().toString(), QStringLiteral("p1"));
        }
        if (rw::SamplesModel::Category(category) == rw::SamplesModel::Category::Updated) {
            // id before/after, amount before/after, note before/after
            QCOMPARE(model.columnName(3), QStringLiteral("amount"));
            QVERIFY(!model.isAfterColumn(3));
            QVERIFY(model.isAfterColumn(4));
            QCOMPARE(model.index(0, 3).data().toString(), QStringLiteral("20"));
            QCOMPARE(model.index(0, 4).data().toString(), QStringLiteral("10"));
            QVERIFY(model.index(0, 3).data(rw::SamplesModel::ChangedRole).toBool());
            QVERIFY(model.index(0, 4).data(rw::SamplesModel::ChangedRole).toBool());
            QVERIFY(model.index(0, 4).data(Qt::BackgroundRole).isValid());
            QVERIFY(!model.index(0, 1)
                         .data(rw::SamplesModel::ChangedRole)
                         .toBool()); // the key did not change
            QVERIFY(!model.index(0, 6).data(rw::SamplesModel::ChangedRole).toBool());
        }
        if (rw::SamplesModel::Category(category) == rw::SamplesModel::Category::Unchanged)
            QCOMPARE(model.index(0, 2).data().toString(), QStringLiteral("NULL"));
    }

    void runsModel() {
        rw::RunsModel model;
        QAbstractItemModelTester tester(&model,
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        rw::RunSummary a;
        a.info.runId = 7;
        a.info.dataset = QStringLiteral("fact_sales");
        a.info.status = rw::RunStatus::Succeeded;
        a.info.startedAt = QStringLiteral("2025-05-31T02:00:00Z");
        a.info.finishedAt = QStringLiteral("2025-05-31T02:01:30Z");
        rw::RunResult result;
        result.partitions = {partition(QStringLiteral("2025-05-01"), 5, 7, 0, 100),
                             partition(QStringLiteral("2025-05-02"), 1, 2, 0, 10)};
        result.partitions[0].published = true;
        result.checks = {
            {QStringLiteral("not_null"), QStringLiteral("2025-05-02"), false, QString()}};
        const rw::RunInfo info = a.info;
        a = rw::RunSummary::of(info, result); // the totals, counts and gates; not the partitions
        rw::RunSummary b = a;
        b.info.runId = 8;
        b.info.status = rw::RunStatus::Interrupted;
        b.info.finishedAt.clear();
        model.resetData({b, a});
        QCOMPARE(model.rowCount(), 2);
        QCOMPARE(model.rowOf(7), 1);
        QCOMPARE(model.index(1, rw::RunsModel::DurationColumn).data().toString(),
                 QStringLiteral("1 min 30 s"));
        QCOMPARE(model.index(1, rw::RunsModel::PartitionsColumn).data().toString(),
                 QStringLiteral("1 / 2"));
        QCOMPARE(
            model.index(1, rw::RunsModel::UpdatedColumn).data(rw::RunsModel::SortRole).toLongLong(),
            9);
        QCOMPARE(model.index(1, rw::RunsModel::GatesColumn).data().toString(), QStringLiteral("1"));
        QVERIFY(rw::RunsModel::resumable(rw::RunStatus::Interrupted));
        QVERIFY(rw::RunsModel::resumable(rw::RunStatus::Cancelled));
        QVERIFY(!rw::RunsModel::resumable(rw::RunStatus::Succeeded));
    }

    void auditModelAndProxy() {
        rw::AuditModel model;
        rw::AuditProxyModel proxy;
        proxy.setSourceModel(&model);
        QAbstractItemModelTester tester(&model,
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        QAbstractItemModelTester proxyTester(
            &proxy, QAbstractItemModelTester::FailureReportingMode::QtTest);
        std::vector<rw::AuditRow> rows;
        for (int i = 0; i < 6; ++i)
            rows.push_back(
                {6 - i, QStringLiteral("2025-05-31T02:00:0%1Z").arg(i), QStringLiteral("ops"),
                 i % 2 ? QStringLiteral("preview") : QStringLiteral("publish"),
                 i < 4 ? QStringLiteral("fact_sales") : QString(),
                 i < 4 ? QString() : QStringLiteral("orders"),
                 i % 2 ? QVariant() : QVariant(qint64(3)), QStringLiteral("{\"a\": 1}")});
        model.resetData(rows);
        QCOMPARE(proxy.rowCount(), 6);
        QCOMPARE(model.index(0, rw::AuditModel::DetailColumn).data().toString(),
                 QStringLiteral("{\"a\":1}"));
        QCOMPARE(model.index(5, rw::AuditModel::SubjectColumn).data().toString(),
                 QStringLiteral("orders"));
        proxy.setActionFilter(QStringLiteral("preview"));
        QCOMPARE(proxy.rowCount(), 3);
        proxy.setSubjectFilter(QStringLiteral("fact_sales"));
        QCOMPARE(proxy.rowCount(), 2);
        proxy.setActionFilter(QString());
        QCOMPARE(proxy.rowCount(), 4);
        proxy.setSubjectFilter(QStringLiteral("orders"));
        QCOMPARE(proxy.rowCount(), 2);
        model.resetData({});
        QCOMPARE(proxy.rowCount(), 0);
    }

    void partitionFilterRegexAndRange_data() {
        QTest::addColumn<QString>("filter");
        QTest::addColumn<int>("shown");
        QTest::addColumn<bool>("valid");
        QTest::newRow("empty") << QString() << 10000 << true;
        QTest::newRow("range") << QStringLiteral("2025-05-01..2025-05-10") << 10 << true;
        QTest::newRow("range spaced") << QStringLiteral("2025-05-01 .. 2025-05-10") << 10 << true;
        QTest::newRow("open start") << QStringLiteral("..2000-01-03") << 3 << true;
        QTest::newRow("open end") << QStringLiteral("2027-05-17..") << 2
                                  << true; // 2000-01-01 + 9999 days = 2027-05-18
        QTest::newRow("empty range") << QStringLiteral("2025-05-10..2025-05-01") << 0 << true;
        QTest::newRow("regex") << QStringLiteral("^2025-05-1[0-4]$") << 5 << true;
        QTest::newRow("substring") << QStringLiteral("2024-02-29") << 1 << true;
        QTest::newRow("year") << QStringLiteral("^2001-") << 365 << true;
        QTest::newRow("invalid regex") << QStringLiteral("2025-(05") << 10000 << false;
    }

    // The filter on 10,000 partitions, through the page's filter box: fast,
    // and the proxy stays a valid model.
    void partitionFilterRegexAndRange() {
        QFETCH(QString, filter);
        QFETCH(int, shown);
        QFETCH(bool, valid);
        rw::PartitionsPage page;
        QAbstractItemModelTester tester(page.proxy(),
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        page.model()->resetData(manyPartitions(10000));
        QCOMPARE(page.proxy()->rowCount(), 10000);
        QElapsedTimer clock;
        clock.start();
        page.filterEdit()->setText(filter);
        const qint64 ms = clock.elapsed();
        QCOMPARE(page.proxy()->rowCount(), shown);
        QCOMPARE(page.proxy()->partitionFilterError().isEmpty(), valid);
        QVERIFY2(ms < 1500,
                 qPrintable(QStringLiteral("filtering 10,000 partitions took %1 ms").arg(ms)));
    }

    void selectionSummaryOnManyPartitions() {
        rw::PartitionsPage page;
        page.resize(1200, 800);
        page.show();
        page.model()->resetData(manyPartitions(10000));
        page.filterEdit()->setText(QStringLiteral("2025-05-01..2025-05-03"));
        QCOMPARE(page.proxy()->rowCount(), 3);
        page.view()->selectAll();
        // Source rows of days 9252..9254 since 2000-01-01: 1000 + i each.
        const qint64 i = QDate(2000, 1, 1).daysTo(QDate(2025, 5, 1));
        QCOMPARE(page.selectionText(),
                 QStringLiteral("3 selected, %1 rows").arg(rw::fmt::number(3 * (1000 + i) + 3)));
        QCOMPARE(page.selectedPartitions(),
                 (QStringList{QStringLiteral("2025-05-01"), QStringLiteral("2025-05-02"),
                              QStringLiteral("2025-05-03")}));
        QVERIFY(page.previewAction()->isEnabled());
        page.filterEdit()->clear();
        QElapsedTimer clock;
        clock.start();
        page.view()->selectAll();
        QVERIFY(page.selectionText().startsWith(
            QStringLiteral("%1 selected").arg(rw::fmt::number(10000))));
        QVERIFY2(clock.elapsed() < 2000, "selecting 10,000 partitions is slow");
        page.view()->clearSelection();
        QVERIFY(!page.previewAction()->isEnabled());
        QVERIFY(!page.runAction()->isEnabled());
    }

    void mostUrgentPartition() {
        auto parts = manyPartitions(30);
        QCOMPARE(rw::PreviewPage::mostUrgentPartition(parts),
                 std::optional<QString>(QStringLiteral("2000-01-29"))); // latest unloaded
        parts[3].status = rw::PartitionStatus::Failed;
        parts[20].duplicateKeys = 4;
        QCOMPARE(rw::PreviewPage::mostUrgentPartition(parts),
                 std::optional<QString>(QStringLiteral("2000-01-04")));
        parts[3].status = rw::PartitionStatus::Loaded;
        QCOMPARE(rw::PreviewPage::mostUrgentPartition(parts),
                 std::optional<QString>(QStringLiteral("2000-01-21")));
        QCOMPARE(rw::PreviewPage::mostUrgentPartition({}), std::nullopt);
    }
};

QTEST_MAIN(TestBatchModels)
#include "tst_batchmodels.moc"
