// The write modes that keep every staged row, as dbt runs them:
// delete_insert (dbt's delete+insert: a partition's rows of each staged key
// are deleted and every staged row inserted, no dedupe) and append (every
// staged row inserted). Previewed, run, and rolled back exactly, on the
// test's engine.
#include "tests/testsupport.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTest>

using namespace rw;

namespace {

// Orders by day, several lines an order. The target holds what an earlier
// load wrote: order 1 with two lines, order 2, order 3 (gone from the source
// since), a line with no order id, and order 4 on the next day. The source's
// 2025-01-01 now has order 1 with three lines, order 2 unchanged, a new
// order 5 and another line with no order id.
const QStringList kOrders = {
    QStringLiteral("CREATE TABLE orders_src (day TEXT, order_id INTEGER, line INTEGER, amount "
                   "INTEGER)"),
    QStringLiteral("INSERT INTO orders_src VALUES ('2025-01-01', 1, 1, 10), ('2025-01-01', 1, 2, "
                   "20), ('2025-01-01', 1, 3, 30), ('2025-01-01', 2, 1, 5), ('2025-01-01', 5, 1, "
                   "8), ('2025-01-01', NULL, 1, 1), ('2025-01-02', 4, 1, 40)"),
    QStringLiteral("CREATE TABLE orders (day TEXT, order_id INTEGER, line INTEGER, amount "
                   "INTEGER)"),
    QStringLiteral("INSERT INTO orders VALUES ('2025-01-01', 1, 1, 11), ('2025-01-01', 1, 2, 21), "
                   "('2025-01-01', 2, 1, 5), ('2025-01-01', 3, 1, 7), ('2025-01-01', NULL, 1, 2), "
                   "('2025-01-02', 4, 1, 4)"),
    // Events appended by day: the source's day holds two equal rows, and the
    // target already holds a row equal to them (an earlier, unrelated load).
    QStringLiteral("CREATE TABLE events_src (day TEXT, kind TEXT, n INTEGER)"),
    QStringLiteral("INSERT INTO events_src VALUES ('2025-01-01', 'click', 1), ('2025-01-01', "
                   "'click', 1), ('2025-01-01', 'view', NULL)"),
    QStringLiteral("CREATE TABLE events (day TEXT, kind TEXT, n INTEGER)"),
    QStringLiteral("INSERT INTO events VALUES ('2025-01-01', 'click', 1)"),
};

// Prices merged by key where only some columns may change (dbt's
// merge_update_columns): the note the target holds is its own.
const QStringList kPrices = {
    QStringLiteral("CREATE TABLE prices_src (k INTEGER, amount INTEGER, note TEXT)"),
    QStringLiteral("INSERT INTO prices_src VALUES (1, 10, 'new note'), (2, 21, 'new note'), (3, "
                   "30, 'new note')"),
    QStringLiteral("CREATE TABLE prices (k INTEGER, amount INTEGER, note TEXT)"),
    QStringLiteral("INSERT INTO prices VALUES (1, 10, 'kept'), (2, 20, 'kept')"),
};

const QString kPricesRows = QStringLiteral("SELECT k, amount, note FROM prices ORDER BY k");

const QByteArray kSpec = R"({"datasets": {
  "orders": {"source": "orders_src", "target": "orders", "partition_column": "day",
             "key": ["order_id"], "write": "delete_insert"},
  "events": {"source": "events_src", "target": "events", "partition_column": "day",
             "write": "append"}}})";

const QString kOrdersRows =
    QStringLiteral("SELECT day, order_id, line, amount FROM orders ORDER BY day, order_id NULLS "
                   "FIRST, line, amount");
const QString kEventsRows =
    QStringLiteral("SELECT day, kind, n FROM events ORDER BY day, kind, n NULLS FIRST");

QJsonObject jsonOf(const testsupport::CliResult &r) {
    return QJsonDocument::fromJson(r.out.toUtf8()).object();
}

using testsupport::rowsAt;

} // namespace

class TestWriteModes : public QObject {
    Q_OBJECT

private Q_SLOTS:
    // The preview says what dbt's delete+insert does to the day: every row
    // of a staged key deleted (order 1's two lines, order 2, the NULL-keyed
    // line), every staged row inserted (order 1's three lines: no dedupe),
    // four keys touched; the run writes exactly that and leaves order 3 and
    // the next day alone; the rollback puts the table back as it was.
    void deleteInsertReplacesEachStagedKeysRows() {
        REWIND_REQUIRE_ENGINE();
        testsupport::WorkspaceFixture w(kOrders, kSpec);
        const QStringList before = rowsAt(w.dbPath, kOrdersRows);
        const auto preview =
            w.cli({QStringLiteral("preview"), QStringLiteral("--dataset"), QStringLiteral("orders"),
                   QStringLiteral("--partition"), QStringLiteral("2025-01-01"),
                   QStringLiteral("--samples"), QStringLiteral("10"), QStringLiteral("--json")});
        QVERIFY2(preview.exitCode == 0, qPrintable(preview.err));
        const QJsonObject p = jsonOf(preview);
        QCOMPARE(p[QStringLiteral("mode")].toString(), QStringLiteral("delete_insert"));
        const QJsonObject day = p[QStringLiteral("partitions")].toArray().at(0).toObject();
        QCOMPARE(day[QStringLiteral("staged_rows")].toInt(), 6);
        QCOMPARE(day[QStringLiteral("duplicates_dropped")].toInt(), 0);
        QCOMPARE(day[QStringLiteral("inserted")].toInt(), 6);
        QCOMPARE(day[QStringLiteral("deleted")].toInt(), 4);
        QCOMPARE(day[QStringLiteral("updated")].toInt(), 0);
        QCOMPARE(day[QStringLiteral("keys_touched")].toInt(), 4);
        QCOMPARE(p[QStringLiteral("totals")].toObject()[QStringLiteral("keys_touched")].toInt(), 4);
        const QJsonObject samples = day[QStringLiteral("samples")].toObject();
        QCOMPARE(samples[QStringLiteral("inserted")].toArray().size(), 6);
        QStringList deletedAmounts;
        for (const auto &v : samples[QStringLiteral("deleted")].toArray())
            deletedAmounts << QString::number(v.toObject()[QStringLiteral("amount")].toInt());
        deletedAmounts.sort();
        QCOMPARE(deletedAmounts, (QStringList{QStringLiteral("11"), QStringLiteral("2"),
                                              QStringLiteral("21"), QStringLiteral("5")}));
        QCOMPARE(rowsAt(w.dbPath, kOrdersRows), before); // a preview writes nothing

        const auto run =
            w.cli({QStringLiteral("run"), QStringLiteral("--dataset"), QStringLiteral("orders"),
                   QStringLiteral("--partition"), QStringLiteral("2025-01-01"),
                   QStringLiteral("--execute"), QStringLiteral("--json")});
        QVERIFY2(run.exitCode == 0, qPrintable(run.err + run.out));
        QCOMPARE(
            rowsAt(w.dbPath, kOrdersRows),
            (QStringList{QStringLiteral("2025-01-01|-|1|1"), QStringLiteral("2025-01-01|1|1|10"),
                         QStringLiteral("2025-01-01|1|2|20"), QStringLiteral("2025-01-01|1|3|30"),
                         QStringLiteral("2025-01-01|2|1|5"), QStringLiteral("2025-01-01|3|1|7"),
                         QStringLiteral("2025-01-01|5|1|8"), QStringLiteral("2025-01-02|4|1|4")}));

        // Several rows of a key are what a delete_insert keeps: no duplicate keys.
        const auto parts = w.cli({QStringLiteral("partitions"), QStringLiteral("--dataset"),
                                  QStringLiteral("orders"), QStringLiteral("--json")});
        QVERIFY2(parts.exitCode == 0, qPrintable(parts.err));
        for (const auto &v : jsonOf(parts)[QStringLiteral("partitions")].toArray())
            QCOMPARE(v.toObject()[QStringLiteral("duplicate_keys")].toInt(), 0);
        const auto duplicates = w.cli({QStringLiteral("duplicates"), QStringLiteral("--dataset"),
                                       QStringLiteral("orders"), QStringLiteral("--json")});
        QVERIFY2(duplicates.exitCode == 0, qPrintable(duplicates.err));
        QCOMPARE(jsonOf(duplicates)[QStringLiteral("duplicate_keys")].toInt(), 0);

        // The duplicate recovery (one row per key) is refused, naming why.
        const auto recover = w.cli({QStringLiteral("recover"), QStringLiteral("--dataset"),
                                    QStringLiteral("orders"), QStringLiteral("--json")});
        QCOMPARE(recover.exitCode, 2);
        QVERIFY2(recover.err.contains(QStringLiteral("keeps several rows a key by design")),
                 qPrintable(recover.err));

        // Run again: the same rows replace themselves (nothing doubles).
        const auto again =
            w.cli({QStringLiteral("run"), QStringLiteral("--dataset"), QStringLiteral("orders"),
                   QStringLiteral("--partition"), QStringLiteral("2025-01-01"),
                   QStringLiteral("--execute"), QStringLiteral("--json")});
        QVERIFY2(again.exitCode == 0, qPrintable(again.err + again.out));
        const QJsonObject second = jsonOf(again)[QStringLiteral("totals")].toObject();
        QCOMPARE(second[QStringLiteral("deleted")].toInt(), 6);
        QCOMPARE(second[QStringLiteral("inserted")].toInt(), 6);
        QCOMPARE(testsupport::scalarAt(w.dbPath, QStringLiteral("SELECT COUNT(*) FROM orders")), 8);

        // Roll back the second run, then the first: the table as it was.
        for (const auto &r : {again, run}) {
            const QString runId =
                QString::number(jsonOf(r)[QStringLiteral("run_id")].toVariant().toLongLong());
            const auto back = w.cli({QStringLiteral("rollback"), QStringLiteral("--run"), runId,
                                     QStringLiteral("--execute"), QStringLiteral("--json")});
            QVERIFY2(back.exitCode == 0, qPrintable(back.err + back.out));
        }
        QCOMPARE(rowsAt(w.dbPath, kOrdersRows), before);
    }

    // append inserts every staged row, again on a second run, as dbt's
    // append does; a rollback removes exactly the rows its run inserted
    // (equal rows written before it stay).
    void appendAddsEveryRowAndRollsBackItsOwn() {
        REWIND_REQUIRE_ENGINE();
        testsupport::WorkspaceFixture w(kOrders, kSpec);
        const QStringList before = rowsAt(w.dbPath, kEventsRows);
        const auto preview = w.cli({QStringLiteral("preview"), QStringLiteral("--dataset"),
                                    QStringLiteral("events"), QStringLiteral("--json")});
        QVERIFY2(preview.exitCode == 0, qPrintable(preview.err));
        const QJsonObject totals = jsonOf(preview)[QStringLiteral("totals")].toObject();
        QCOMPARE(totals[QStringLiteral("inserted")].toInt(), 3);
        QCOMPARE(totals[QStringLiteral("deleted")].toInt(), 0);
        QCOMPARE(totals[QStringLiteral("updated")].toInt(), 0);
        QVERIFY(!totals.contains(QStringLiteral("keys_touched")));

        QList<testsupport::CliResult> runs;
        for (int i = 0; i < 2; ++i) {
            runs << w.cli({QStringLiteral("run"), QStringLiteral("--dataset"),
                           QStringLiteral("events"), QStringLiteral("--execute"),
                           QStringLiteral("--json")});
            QVERIFY2(runs.last().exitCode == 0, qPrintable(runs.last().err + runs.last().out));
        }
        QCOMPARE(
            rowsAt(w.dbPath, kEventsRows),
            (QStringList{QStringLiteral("2025-01-01|click|1"), QStringLiteral("2025-01-01|click|1"),
                         QStringLiteral("2025-01-01|click|1"), QStringLiteral("2025-01-01|click|1"),
                         QStringLiteral("2025-01-01|click|1"), QStringLiteral("2025-01-01|view|-"),
                         QStringLiteral("2025-01-01|view|-")}));
        const auto rollback = [&](const testsupport::CliResult &r) {
            return w.cli(
                {QStringLiteral("rollback"), QStringLiteral("--run"),
                 QString::number(jsonOf(r)[QStringLiteral("run_id")].toVariant().toLongLong()),
                 QStringLiteral("--execute"), QStringLiteral("--json")});
        };
        const auto back2 = rollback(runs[1]);
        QVERIFY2(back2.exitCode == 0, qPrintable(back2.err + back2.out));
        QCOMPARE(rowsAt(w.dbPath, kEventsRows), (QStringList{QStringLiteral("2025-01-01|click|1"),
                                                             QStringLiteral("2025-01-01|click|1"),
                                                             QStringLiteral("2025-01-01|click|1"),
                                                             QStringLiteral("2025-01-01|view|-")}));
        const auto back1 = rollback(runs[0]);
        QVERIFY2(back1.exitCode == 0, qPrintable(back1.err + back1.out));
        QCOMPARE(rowsAt(w.dbPath, kEventsRows), before);
    }

    // merge_update_columns: a matched key's row has only those columns
    // compared and updated (a changed note alone is no update, and an
    // update keeps the target's note); a new key is inserted whole.
    // merge_exclude_columns the same from the other side. A rollback puts
    // the updated rows back.
    void mergeUpdatesOnlyItsColumns_data() {
        QTest::addColumn<QByteArray>("columns");
        QTest::addColumn<bool>("indexed"); // the diff and the update then go by row identity
        for (const bool indexed : {false, true}) {
            const char *how = indexed ? ", indexed target" : "";
            QTest::addRow("merge_update_columns%s", how)
                << QByteArray(R"("merge_update_columns": ["amount"])") << indexed;
            QTest::addRow("merge_exclude_columns%s", how)
                << QByteArray(R"("merge_exclude_columns": ["note"])") << indexed;
        }
    }
    void mergeUpdatesOnlyItsColumns() {
        REWIND_REQUIRE_ENGINE();
        QFETCH(QByteArray, columns);
        QFETCH(bool, indexed);
        testsupport::WorkspaceFixture w(
            kPrices + (indexed ? QStringList{QStringLiteral("CREATE INDEX prices_k ON prices (k)")}
                               : QStringList()),
            R"({"datasets": {"prices": {"source": "prices_src", "target": "prices",
                "key": ["k"], "write": "merge", )" +
                columns + "}}}");
        const QStringList before = rowsAt(w.dbPath, kPricesRows);
        // The preview's updated row after the merge: the new amount, the
        // target's note (the merge does not set it).
        const auto preview =
            w.cli({QStringLiteral("preview"), QStringLiteral("--dataset"), QStringLiteral("prices"),
                   QStringLiteral("--samples"), QStringLiteral("5"), QStringLiteral("--json")});
        QVERIFY2(preview.exitCode == 0, qPrintable(preview.err));
        const QJsonArray updated = jsonOf(preview)[QStringLiteral("partitions")]
                                       .toArray()
                                       .at(0)
                                       .toObject()[QStringLiteral("samples")]
                                       .toObject()[QStringLiteral("updated")]
                                       .toArray();
        QCOMPARE(updated.size(), 1);
        const QJsonObject after = updated.at(0).toObject()[QStringLiteral("after")].toObject();
        QCOMPARE(after[QStringLiteral("amount")].toInt(), 21);
        QCOMPARE(after[QStringLiteral("note")].toString(), QStringLiteral("kept"));
        const auto run =
            w.cli({QStringLiteral("run"), QStringLiteral("--dataset"), QStringLiteral("prices"),
                   QStringLiteral("--execute"), QStringLiteral("--json")});
        QVERIFY2(run.exitCode == 0, qPrintable(run.err + run.out));
        const QJsonObject totals = jsonOf(run)[QStringLiteral("totals")].toObject();
        QCOMPARE(totals[QStringLiteral("updated")].toInt(), 1);
        QCOMPARE(totals[QStringLiteral("unchanged")].toInt(), 1);
        QCOMPARE(totals[QStringLiteral("inserted")].toInt(), 1);
        QCOMPARE(rowsAt(w.dbPath, kPricesRows),
                 (QStringList{QStringLiteral("1|10|kept"), QStringLiteral("2|21|kept"),
                              QStringLiteral("3|30|new note")}));
        const auto back =
            w.cli({QStringLiteral("rollback"), QStringLiteral("--run"),
                   QString::number(jsonOf(run)[QStringLiteral("run_id")].toVariant().toLongLong()),
                   QStringLiteral("--execute")});
        QVERIFY2(back.exitCode == 0, qPrintable(back.err + back.out));
        QCOMPARE(rowsAt(w.dbPath, kPricesRows), before);
    }

    // A spec that cannot mean what it says is refused, naming the dataset
    // and the field, and nothing is written.
    void badSpecsAreNamed_data() {
        QTest::addColumn<QByteArray>("spec");
        QTest::addColumn<QString>("expected");
        QTest::newRow("delete_insert without a key")
            << QByteArray(R"({"datasets": {"orders": {"source": "orders_src", "target": "orders",
                "partition_column": "day", "write": "delete_insert"}}})")
            << QStringLiteral("\"key\": is required for write \"delete_insert\"");
        QTest::newRow("order_by, which only picks a row per key")
            << QByteArray(R"({"datasets": {"orders": {"source": "orders_src", "target": "orders",
                "partition_column": "day", "key": ["order_id"], "order_by": "line",
                "write": "delete_insert"}}})")
            << QStringLiteral("\"order_by\": picks the latest row of a key, but write "
                              "\"delete_insert\" keeps every staged row");
        QTest::newRow("merge_update_columns with delete_insert")
            << QByteArray(R"({"datasets": {"orders": {"source": "orders_src", "target": "orders",
                "partition_column": "day", "key": ["order_id"], "write": "delete_insert",
                "merge_update_columns": ["amount"]}}})")
            << QStringLiteral("\"merge_update_columns\": is only used with \"write\": \"merge\"");
        QTest::newRow("both merge column lists")
            << QByteArray(R"({"datasets": {"orders": {"source": "orders_src", "target": "orders",
                "partition_column": "day", "key": ["order_id", "line"],
                "merge_update_columns": ["amount"], "merge_exclude_columns": ["day"]}}})")
            << QStringLiteral("\"merge_exclude_columns\": cannot be given with "
                              "\"merge_update_columns\"");
        QTest::newRow("an unknown column to update")
            << QByteArray(R"({"datasets": {"orders": {"source": "orders_src", "target": "orders",
                "partition_column": "day", "key": ["order_id", "line"],
                "merge_update_columns": ["amont"]}}})")
            << QStringLiteral("\"merge_update_columns\": column \"amont\"");
        QTest::newRow("a key column to update")
            << QByteArray(R"({"datasets": {"orders": {"source": "orders_src", "target": "orders",
                "partition_column": "day", "key": ["order_id", "line"],
                "merge_update_columns": ["line"]}}})")
            << QStringLiteral("\"merge_update_columns\": \"line\" is part of the key");
    }
    void badSpecsAreNamed() {
        QFETCH(QByteArray, spec);
        QFETCH(QString, expected);
        REWIND_REQUIRE_ENGINE();
        QTemporaryDir dir;
        const QString url =
            testsupport::makeDatabase(dir, QStringLiteral("w.db"), kOrders).url().text;
        const QStringList before = rowsAt(url, kOrdersRows);
        const QString path = testsupport::writeFile(dir, QStringLiteral("bad.json"), spec);
        const auto r =
            testsupport::runCli({QStringLiteral("run"), QStringLiteral("--dataset"),
                                 QStringLiteral("orders"), QStringLiteral("--execute"),
                                 QStringLiteral("--spec"), path, QStringLiteral("--db"), url});
        QCOMPARE(r.exitCode, 2);
        QCOMPARE(rowsAt(url, kOrdersRows), before);
        QVERIFY2(r.err.contains(QStringLiteral("dataset \"orders\"")) && r.err.contains(expected),
                 qPrintable(r.err));
    }
};

QTEST_GUILESS_MAIN(TestWriteModes)
#include "tst_writemodes.moc"
