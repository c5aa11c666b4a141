// The console frame: opens a workspace in the background, shows a dataset's
// partitions and a stream's log, and reports errors in the banner.
#include "core/batch/partitions.h"
#include "tests/gui/guitest.h"
#include "tests/testsupport.h"
#include "ui/batch/partitionsmodel.h"
#include "ui/batch/partitionspage.h"
#include "ui/common/errorbanner.h"
#include "ui/common/settings.h"
#include "ui/streams/streampage.h"
#include "ui/streams/streampartitionsmodel.h"
#include "ui/window/mainwindow.h"

#include <QFile>
#include <QHash>
#include <QSignalSpy>
#include <QTableView>
#include <QTest>
#include <QTreeWidget>
#include <QTreeWidgetItemIterator>

using rw::MainWindow;
using Kind = rw::Navigator::Kind;

namespace {

constexpr int kTimeoutMs = 60000;

QStringList columnOf(const QAbstractItemModel *m, int col) {
    QStringList out;
    for (int r = 0; r < m->rowCount(); ++r)
        out << m->index(r, col).data().toString();
    return out;
}

// A small workspace made with SQL: 12 days of sales (5 published, one of
// them with a duplicated key) and a 3-partition orders log.
struct SqlWorkspace {
    QString db;
    QString spec;
};

SqlWorkspace makeSqlWorkspace(const QTemporaryDir &dir) {
    const rw::Database db = testsupport::makeDatabase(
        dir, QStringLiteral("small.db"),
        {QStringLiteral("CREATE TABLE raw_sales (order_id INTEGER, item_id INTEGER, dt TEXT, "
                        "amount REAL, updated_at TEXT)"),
         QStringLiteral(
             "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 1200) "
             "INSERT INTO raw_sales SELECT i, 1, '2025-05-' || substr(CAST(101 + i % 12 AS TEXT), "
             "2), i * 1.5, "
             "'2025-05-20T00:00:00Z' FROM n"),
         QStringLiteral(
             "CREATE TABLE fact_sales AS SELECT * FROM raw_sales WHERE dt <= '2025-05-05'"),
         QStringLiteral(
             "INSERT INTO fact_sales SELECT * FROM raw_sales WHERE dt = '2025-05-02' LIMIT 1"),
         QStringLiteral("CREATE TABLE orders_log (partition_id INTEGER, log_offset INTEGER, "
                        "event_id TEXT, record_ts TEXT, "
                        "payload TEXT)"),
         QStringLiteral(
             "WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < 89) "
             "INSERT INTO orders_log SELECT i % 3, i / 3, 'e' || i, '2025-05-06T10:' || "
             "substr(CAST(100 + i / 3 AS TEXT), 2) || ':00Z', "
             "'{\"order_id\": ' || i || ', \"amount\": 1}' FROM n"),
         QStringLiteral("DELETE FROM orders_log WHERE partition_id = 2 AND log_offset < 4")});
    const QString spec = testsupport::writeFile(dir, QStringLiteral("small.json"), R"({
      "datasets": {
        "fact_sales": {"source": "raw_sales", "target": "fact_sales", "partition_column": "dt",
                       "key": ["order_id", "item_id"], "order_by": "updated_at", "write": "merge"},
        "fact_sales_copy": {"source": "raw_sales", "target": "fact_sales_copy", "partition_column": "dt",
                       "key": ["order_id", "item_id"], "write": "overwrite_partition"}
      },
      "streams": {
        "orders": {"log": "orders_log", "sink": "orders_events",
                   "fields": {"order_id": "$.order_id", "amount": "$.amount"}, "required": ["order_id"]}
      }
    })");
    return {db.url().text, spec};
}

} // namespace

class TestMainWindow : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void cleanup() { guitest::waitForBackgroundWork(); }

    void initTestCase() {
        guitest::useTestSettings(QStringLiteral("tst_mainwindow"), true);
        REWIND_REQUIRE_ENGINE();
        QVERIFY(m_dir.isValid());
        m_small = makeSqlWorkspace(m_dir);
    }

    void startsEmpty() {
        MainWindow w;
        w.show();
        QVERIFY(!w.workspace());
        QCOMPARE(w.currentPage(), nullptr);
        QCOMPARE(w.windowTitle(), QStringLiteral("Rewind"));
    }

    // The demo warehouse: fact_sales has 30 days, one whose run failed, one
    // never loaded, and a retry storm that duplicated keys.
    void showsTheDemoWarehouse() {
        const auto [db, spec] = testsupport::buildDemo(m_dir, QStringLiteral("demo"));

        MainWindow w;
        w.show();
        QSignalSpy loaded(&w, &MainWindow::pageLoaded);
        w.openWorkspace(db, spec, {Kind::Dataset, QStringLiteral("fact_sales")});
        QTRY_VERIFY_WITH_TIMEOUT(loaded.count() == 1, kTimeoutMs);
        QVERIFY(!w.banner()->isVisible());
        QCOMPARE(w.partitionsPage()->datasetName(), QStringLiteral("fact_sales"));

        const QAbstractItemModel *view = w.partitionsPage()->view()->model();
        QCOMPARE(view->rowCount(), 30);
        const QStringList partitions = columnOf(view, rw::PartitionsModel::PartitionColumn);
        const QStringList statuses = columnOf(view, rw::PartitionsModel::StatusColumn);
        QCOMPARE(partitions.first(), QStringLiteral("2025-05-30")); // most recent first
        QCOMPARE(partitions.last(), QStringLiteral("2025-05-01"));
        // The demo's staged incidents; every other day is loaded.
        const QHash<QString, QString> incidents{
            {QStringLiteral("2025-05-27"), QStringLiteral("stale")}, // late rows after publish
            {QStringLiteral("2025-05-29"), QStringLiteral("failed")},
            {QStringLiteral("2025-05-30"), QStringLiteral("unloaded")}};
        for (int r = 0; r < partitions.size(); ++r)
            QCOMPARE(statuses.at(r), incidents.value(partitions.at(r), QStringLiteral("loaded")));
        int withDuplicates = 0;
        for (int r = 0; r < view->rowCount(); ++r)
            withDuplicates += view->index(r, rw::PartitionsModel::DuplicateKeysColumn)
                                  .data(rw::PartitionsModel::SortRole)
                                  .toLongLong() > 0;
        QVERIFY(withDuplicates > 0);
        QVERIFY(w.partitionsPage()->summaryText().contains(QStringLiteral("30 partitions")));

        // What the view shows is what core reports.
        auto core = rw::listPartitions(w.workspace()->db,
                                       *w.workspace()->spec.dataset(QStringLiteral("fact_sales")));
        QVERIFY(core.has_value());
        QCOMPARE(int(core->size()), 30);
        for (const rw::PartitionInfo &p : *core) {
            const int row = partitions.indexOf(rw::partitionLabel(p.partition));
            QVERIFY(row >= 0);
            QCOMPARE(statuses.at(row), rw::enumName(p.status));
            QCOMPARE(view->index(row, rw::PartitionsModel::TargetRowsColumn)
                         .data(rw::PartitionsModel::SortRole)
                         .toLongLong(),
                     p.targetRows);
        }

        // The orders stream of the same workspace.
        loaded.clear();
        QVERIFY(w.selectStream(QStringLiteral("orders")));
        QTRY_VERIFY_WITH_TIMEOUT(loaded.count() == 1, kTimeoutMs);
        QCOMPARE(w.currentPage(), w.streamPage());
        QVERIFY(w.streamPage()->view()->model()->rowCount() > 0);
        QVERIFY(w.streamPage()->sinkRows() > 0);
    }

    void showsPartitionsOfADataset() {
        MainWindow w;
        w.show();
        QSignalSpy opened(&w, &MainWindow::workspaceOpened);
        QSignalSpy loaded(&w, &MainWindow::pageLoaded);
        w.openWorkspace(m_small.db, m_small.spec, {Kind::Dataset, QStringLiteral("fact_sales")});
        QVERIFY(w.isOpening());
        QVERIFY(loaded.wait(kTimeoutMs));
        QCOMPARE(opened.count(), 1);
        QCOMPARE(w.currentPage(), w.partitionsPage());
        QCOMPARE(w.partitionsPage()->datasetName(), QStringLiteral("fact_sales"));

        const QAbstractItemModel *view = w.partitionsPage()->view()->model();
        QCOMPARE(view->rowCount(), 12);
        const QStringList statuses = columnOf(view, rw::PartitionsModel::StatusColumn);
        QCOMPARE(statuses.count(QStringLiteral("loaded")), 5);
        QCOMPARE(statuses.count(QStringLiteral("unloaded")), 7);
        // Most recent first; 2025-05-02 holds a duplicated key.
        QCOMPARE(view->index(0, rw::PartitionsModel::PartitionColumn).data().toString(),
                 QStringLiteral("2025-05-12"));
        QCOMPARE(view->index(10, rw::PartitionsModel::PartitionColumn).data().toString(),
                 QStringLiteral("2025-05-02"));
        QCOMPARE(view->index(10, rw::PartitionsModel::DuplicateKeysColumn).data().toString(),
                 QStringLiteral("1"));
        QVERIFY(w.partitionsPage()->summaryText().contains(QStringLiteral("12 partitions")));
        QVERIFY(
            w.partitionsPage()->summaryText().contains(QStringLiteral("1 with duplicate keys")));
        QVERIFY(w.windowTitle().contains(QStringLiteral("small.json")));
        QVERIFY(!w.banner()->isVisible());
        // A successful open is remembered, most recent first.
        const auto recents = rw::Settings().recentWorkspaces();
        QVERIFY(!recents.empty());
        QCOMPARE(recents.front(), (rw::WorkspaceLocation{m_small.db, m_small.spec}));
    }

    void showsAStream() {
        MainWindow w;
        w.show();
        QSignalSpy loaded(&w, &MainWindow::pageLoaded);
        w.openWorkspace(m_small.db, m_small.spec, {Kind::Stream, QStringLiteral("orders")});
        QVERIFY(loaded.wait(kTimeoutMs));
        QCOMPARE(w.currentPage(), w.streamPage());
        const QAbstractItemModel *view = w.streamPage()->view()->model();
        QCOMPARE(columnOf(view, rw::StreamPartitionsModel::PartitionColumn),
                 (QStringList{QStringLiteral("0"), QStringLiteral("1"), QStringLiteral("2")}));
        QCOMPARE(columnOf(view, rw::StreamPartitionsModel::LogStartColumn),
                 (QStringList{QStringLiteral("0"), QStringLiteral("0"), QStringLiteral("4")}));
        QCOMPARE(columnOf(view, rw::StreamPartitionsModel::LogEndColumn),
                 (QStringList{QStringLiteral("30"), QStringLiteral("30"), QStringLiteral("30")}));
        QCOMPARE(columnOf(view, rw::StreamPartitionsModel::EventsColumn),
                 (QStringList{QStringLiteral("30"), QStringLiteral("30"), QStringLiteral("26")}));
        QCOMPARE(w.streamPage()->sinkRows(), 0); // the sink does not exist before the first replay
    }

    void switchingDatasetsShowsOnlyTheLatest() {
        MainWindow w;
        w.show();
        QSignalSpy loaded(&w, &MainWindow::pageLoaded);
        w.openWorkspace(m_small.db, m_small.spec, {Kind::Dataset, QStringLiteral("fact_sales")});
        QVERIFY(loaded.wait(kTimeoutMs));
        loaded.clear();
        // Whenever the page says it has loaded, the rows are those of the
        // dataset in its header, never a superseded request's.
        QStringList shown;
        connect(w.partitionsPage(), &rw::Page::pageLoaded, this, [&] {
            const QStringList statuses =
                columnOf(w.partitionsPage()->view()->model(), rw::PartitionsModel::StatusColumn);
            shown << w.partitionsPage()->datasetName() % u'=' %
                         QString::number(statuses.count(QStringLiteral("unloaded")));
        });
        QVERIFY(w.selectDataset(QStringLiteral("fact_sales_copy")));
        QVERIFY(w.selectDataset(QStringLiteral("fact_sales")));
        QVERIFY(w.selectDataset(QStringLiteral("fact_sales_copy")));
        QVERIFY2(loaded.wait(kTimeoutMs), qPrintable(w.banner()->message()));
        QTest::qWait(300); // let any stale answer arrive
        QCOMPARE(shown, QStringList{
                            QStringLiteral("fact_sales_copy=12")}); // its target does not exist yet
        QCOMPARE(w.partitionsPage()->datasetName(), QStringLiteral("fact_sales_copy"));
        QVERIFY(!w.partitionsPage()->isLoading());
    }

    void refreshReloads() {
        MainWindow w;
        w.show();
        QSignalSpy loaded(&w, &MainWindow::pageLoaded);
        w.openWorkspace(m_small.db, m_small.spec);
        QVERIFY(loaded.wait(kTimeoutMs));
        QCOMPARE(w.partitionsPage()->datasetName(),
                 QStringLiteral("fact_sales")); // the first dataset by default
        w.refresh();
        QVERIFY(w.partitionsPage()->isLoading());
        QVERIFY(loaded.wait(kTimeoutMs));
        QCOMPARE(w.partitionsPage()->view()->model()->rowCount(), 12);
    }

    void badWorkspaceShowsBanner_data() {
        QTest::addColumn<QString>("specFile");
        QTest::addColumn<QByteArray>("specContent");
        QTest::addColumn<QString>("culprit");
        QTest::addColumn<int>("exitCode");
        QTest::newRow("missing spec") << QStringLiteral("missing.json") << QByteArray()
                                      << QStringLiteral("missing.json") << 2;
        QTest::newRow("malformed json")
            << QStringLiteral("broken.json") << QByteArray("{\"datasets\": {")
            << QStringLiteral("broken.json") << 2;
    }

    void badWorkspaceShowsBanner() {
        QFETCH(QString, specFile);
        QFETCH(QByteArray, specContent);
        QFETCH(QString, culprit);
        QFETCH(int, exitCode);
        const QString spec = specContent.isEmpty()
                                 ? m_dir.filePath(specFile)
                                 : testsupport::writeFile(m_dir, specFile, specContent);

        MainWindow w;
        w.show();
        QSignalSpy failed(&w, &MainWindow::workspaceFailed);
        w.openWorkspace(m_small.db, spec);
        QVERIFY(failed.wait(kTimeoutMs));
        QCOMPARE(failed.first().at(0).toInt(), exitCode);
        QVERIFY(w.banner()->isVisible());
        QCOMPARE(w.banner()->level(), rw::ErrorBanner::Level::Error);
        QVERIFY2(w.banner()->message().contains(culprit), qPrintable(w.banner()->message()));
        QVERIFY(!w.workspace());
        QCOMPARE(w.currentPage(), nullptr);
    }

    void failedOpenKeepsTheWorkspaceOnShow() {
        MainWindow w;
        w.show();
        QSignalSpy loaded(&w, &MainWindow::pageLoaded);
        QSignalSpy failed(&w, &MainWindow::workspaceFailed);
        w.openWorkspace(m_small.db, m_small.spec);
        QVERIFY(loaded.wait(kTimeoutMs));
        w.openWorkspace(m_dir.filePath(QStringLiteral("nope.db")), m_small.spec);
        QVERIFY(failed.wait(kTimeoutMs));
        QVERIFY(w.banner()->message().contains(QStringLiteral("nope.db")));
        QVERIFY(w.workspace());
        QCOMPARE(w.partitionsPage()->view()->model()->rowCount(), 12);
        w.banner()->dismiss();
        QVERIFY(!w.banner()->isVisible());
    }

    void unknownDatasetFallsBackWithAWarning() {
        MainWindow w;
        w.show();
        QSignalSpy loaded(&w, &MainWindow::pageLoaded);
        w.openWorkspace(m_small.db, m_small.spec,
                        {Kind::Dataset, QStringLiteral("no_such_dataset")});
        QVERIFY(loaded.wait(kTimeoutMs));
        QCOMPARE(w.banner()->level(), rw::ErrorBanner::Level::Warning);
        QVERIFY(w.banner()->message().contains(QStringLiteral("no_such_dataset")));
        QCOMPARE(w.partitionsPage()->datasetName(), QStringLiteral("fact_sales"));
    }

    // A spec with one dataset naming a column the database lacks: the
    // console opens on the other one, the navigator flags the broken one
    // with its reason, and choosing it says why instead of loading.
    void aBrokenDatasetIsFlaggedAndTheRestWorks() {
        QFile in(m_small.spec);
        QVERIFY(in.open(QIODevice::ReadOnly));
        QByteArray spec = in.readAll();
        spec.replace(R"("key": ["order_id", "item_id"], "write": "overwrite_partition")",
                     R"("key": ["order_id", "no_such_column"], "write": "overwrite_partition")");
        const QString path = testsupport::writeFile(m_dir, QStringLiteral("one-broken.json"), spec);
        MainWindow w;
        w.show();
        QSignalSpy loaded(&w, &MainWindow::pageLoaded);
        w.openWorkspace(m_small.db, path);
        QVERIFY(loaded.wait(kTimeoutMs));
        QVERIFY(w.workspace());
        QCOMPARE(w.partitionsPage()->datasetName(), QStringLiteral("fact_sales"));
        QTreeWidgetItem *broken = nullptr;
        for (QTreeWidgetItemIterator it(w.navigator()->tree()); *it; ++it)
            if ((*it)->text(0) == QLatin1String("fact_sales_copy"))
                broken = *it;
        QVERIFY(broken);
        QVERIFY2(broken->text(1).contains(QStringLiteral("broken")) &&
                     broken->toolTip(0).contains(QStringLiteral("no_such_column")),
                 qPrintable(broken->text(1) + u'|' + broken->toolTip(0)));
        QVERIFY(w.selectDataset(QStringLiteral("fact_sales_copy")));
        QTRY_VERIFY_WITH_TIMEOUT(w.banner()->isVisible() && w.banner()->message().contains(
                                                                QStringLiteral("cannot be used")),
                                 kTimeoutMs);
        QVERIFY(w.banner()->message().contains(QStringLiteral("no_such_column")));
    }

    // A spec whose only dataset is broken still opens: the dataset is shown,
    // flagged, the banner says why, and nothing is loaded; the Lateness page
    // does not fall back on it.
    void onlyBrokenDatasetsStillOpen() {
        const QString path = testsupport::writeFile(
            m_dir, QStringLiteral("only-broken.json"),
            R"({"datasets": {"d": {"source": "no_such_table", "target": "t", "write": "overwrite_partition"}}})");
        MainWindow w;
        w.show();
        QSignalSpy opened(&w, &MainWindow::workspaceOpened);
        QSignalSpy broken(&w, &MainWindow::selectionBroken);
        QSignalSpy failed(&w, &MainWindow::workspaceFailed);
        w.openWorkspace(m_small.db, path);
        QVERIFY(opened.wait(kTimeoutMs));
        QCOMPARE(failed.count(), 0);
        QCOMPARE(broken.count(), 1);
        QVERIFY2(broken.first().at(0).toString().contains(QStringLiteral("no_such_table")),
                 qPrintable(broken.first().at(0).toString()));
        QVERIFY(w.banner()->isVisible());
        QVERIFY(w.banner()->message().contains(QStringLiteral("Dataset d cannot be used")));
        QVERIFY(!w.partitionsPage()->dataset());
        QVERIFY(!w.partitionsPage()->isLoading());
        QVERIFY(!w.showNamedPage(QStringLiteral("lag")));
    }

    // The same on a database Rewind has never written to (most likely the
    // wrong one): it opens, nothing is created in it, and Runs says why
    // there is nothing instead of failing on a missing table.
    void onlyBrokenOnAForeignDatabase() {
        QTemporaryDir dir;
        auto db = testsupport::makeDatabase(dir, QStringLiteral("foreign.db"),
                                            {QStringLiteral("CREATE TABLE other (x INTEGER)")});
        const QString path = testsupport::writeFile(
            m_dir, QStringLiteral("foreign.json"),
            R"({"datasets": {"d": {"source": "no_such_table", "target": "t", "write": "overwrite_partition"}}})");
        MainWindow w;
        w.show();
        QSignalSpy opened(&w, &MainWindow::workspaceOpened);
        QSignalSpy broken(&w, &MainWindow::selectionBroken);
        w.openWorkspace(db.url().text, path);
        QVERIFY(opened.wait(kTimeoutMs));
        QVERIFY(w.workspace() && !w.workspace()->controlSchema);
        QVERIFY(w.showNamedPage(QStringLiteral("runs")));
        QCOMPARE(broken.count(), 2);
        QVERIFY2(
            broken.last().at(0).toString().contains(QStringLiteral("holds no Rewind workspace")),
            qPrintable(broken.last().at(0).toString()));
        QCOMPARE(w.currentPage(), nullptr);
        auto control = db.hasRelation(QStringLiteral("rewind_meta"));
        QVERIFY(control && !*control);
    }

private:
    QTemporaryDir m_dir;
    SqlWorkspace m_small;
};

QTEST_MAIN(TestMainWindow)
#include "tst_mainwindow.moc"
