// Reading a dbt project's manifest (issue 44, first part): schema versions
// v10-v12 read, others refused by name; models, snapshots and seeds with the
// configuration a dataset is made of; generic tests attached to their node;
// bad input named.
#include "core/dbt/dbtmap.h"
#include "core/dbt/manifest.h"
#include "tests/dbtmanifests.h"
#include "tests/testsupport.h"

#include <QCryptographicHash>
#include <QHash>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>

using namespace rw;

using namespace dbtdata;

// A workspace of three datasets for --dbt-results: a microbatch model's by
// day, a model with a failing test, and one not made from dbt.
const QByteArray kResultsSpec = R"json({"datasets": {
          "events_mb": {"transform": "SELECT id, ts FROM raw_events", "target": "events_mb",
            "partition_column": "ts", "partition_granularity": "day", "write": "overwrite_partition",
            "dbt": {"unique_id": "model.mb.events_mb"}},
          "fct_sales": {"source": "raw_sales", "target": "fct_sales", "partition_column": "dt",
            "key": ["order_id"], "dbt": {"unique_id": "model.shop.fct_sales"}},
          "plain": {"source": "raw_sales", "target": "plain", "key": ["order_id"]}}})json";

// dbt's results of a `dbt test` with a failed test of fct_sales and one of a
// model no manifest here names. (The URL is split: moc reads a // in a raw
// string as a comment.)
const QByteArray kTestFailed = R"({"metadata": {"dbt_schema_version": "https:/)"
                               R"(/schemas.getdbt.com/dbt/run-results/v6.json",
                "dbt_version": "1.10.15", "generated_at": "2026-12-06T19:20:00Z"},
              "results": [
                {"status": "fail", "message": "Got 1 result, configured to fail if != 0", "failures": 1,
                 "unique_id": "test.shop.unique_fct_sales_order_id"},
                {"status": "fail", "message": "Got 2 results, configured to fail if != 0", "failures": 2,
                 "unique_id": "test.other.not_null_x_id"},
                {"status": "success", "message": "SELECT 2", "unique_id": "model.shop.fct_sales"}]})";

class TestDbtManifest : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void readsModelsSnapshotsAndTests_data() {
        QTest::addColumn<QString>("version");
        QTest::newRow("v10") << QStringLiteral("v10");
        QTest::newRow("v11") << QStringLiteral("v11");
        QTest::newRow("v12") << QStringLiteral("v12");
    }
    void readsModelsSnapshotsAndTests() {
        QFETCH(QString, version);
        auto m = dbt::parseManifest(manifest(version, kOrders + u',' + kSnapshot + u',' + kTests),
                                    QStringLiteral("m.json"));
        QVERIFY2(m, qPrintable(m ? QString() : m.error().message));
        QCOMPARE(m->schemaVersion, version);
        QCOMPARE(m->adapter, QStringLiteral("postgres"));
        QCOMPARE(m->nodes.size(), std::size_t(2));
        const dbt::Node &orders = m->nodes[0];
        QCOMPARE(orders.uniqueId, QStringLiteral("model.shop.fct_orders"));
        QCOMPARE(orders.materialized, QStringLiteral("incremental"));
        QCOMPARE(orders.incrementalStrategy, QStringLiteral("merge"));
        QCOMPARE(orders.uniqueKey,
                 (QStringList{QStringLiteral("order_id"), QStringLiteral("line")}));
        QCOMPARE(orders.checksum, QStringLiteral("abc123"));
        QVERIFY(orders.compiled);
        QVERIFY(orders.partitionBy);
        QCOMPARE(orders.partitionBy->field, QStringLiteral("ordered_at"));
        QCOMPARE(orders.partitionBy->granularity, QStringLiteral("hour"));
        QCOMPARE(orders.dependsOn, QStringList{QStringLiteral("model.shop.stg_orders")});
        // Two generic tests (one found by attached_node, one by depends_on);
        // the singular test is not a generic one.
        QCOMPARE(orders.tests.size(), std::size_t(2));
        QCOMPARE(orders.tests[0].name, QStringLiteral("accepted_values"));
        QCOMPARE(orders.tests[0].kwargs["values"].size(), std::size_t(2));
        QCOMPARE(orders.tests[1].name, QStringLiteral("not_null"));
        QCOMPARE(orders.tests[1].column, QStringLiteral("order_id"));

        const dbt::Node &snap = m->nodes[1];
        QCOMPARE(snap.resourceType, QStringLiteral("snapshot"));
        QCOMPARE(snap.snapshotStrategy, QStringLiteral("check"));
        QVERIFY(snap.checkAll);
        QCOMPARE(snap.uniqueKey, QStringList{QStringLiteral("customer_id")});
        QCOMPARE(snap.validFromColumn, QStringLiteral("valid_from"));
        QCOMPARE(snap.validToColumn, QStringLiteral("dbt_valid_to"));
    }

    // What each node becomes: datasets with their write mode, key,
    // partition and gates; the rest left out with the reason.
    void mapsModelsAndTests() {
        auto m = dbt::parseManifest(manifest(QStringLiteral("v12"), kShop + u',' + kOrders),
                                    QStringLiteral("m.json"));
        QVERIFY2(m, qPrintable(m ? QString() : m.error().message));
        const auto nodes =
            dbt::mapManifest(*m, {QStringLiteral("postgresql"), QStringLiteral("w")});
        QHash<QString, dbt::MappedNode> by;
        for (const auto &n : nodes)
            by.insert(n.uniqueId, n);
        QCOMPARE(by.size(), 10);

        const dbt::MappedNode sales = by.value(QStringLiteral("model.shop.fct_sales"));
        QVERIFY2(sales.mapped, qPrintable(sales.reason));
        QCOMPARE(sales.write, QStringLiteral("delete_insert")); // dbt's delete+insert
        QCOMPARE(sales.key, QStringList{QStringLiteral("order_id")});
        QCOMPARE(sales.spec["key"].dump(), std::string(R"(["order_id"])"));
        // A delete+insert matches keys across the table: it partitions only
        // by a key column.
        QCOMPARE(sales.partition, QString());
        QCOMPARE(sales.spec["target"].get<std::string>(), "analytics.fct_sales");
        QCOMPARE(sales.spec["transform"].get<std::string>(), "select * from raw.sales");
        QCOMPARE(sales.spec["dbt"]["checksum"].get<std::string>(), "s1");
        // unique on the key is a gate (delete_insert keeps every staged row
        // of a key); a package's test is not.
        QCOMPARE(sales.checks, 3);
        QCOMPARE(sales.unmappedTests.size(), std::size_t(1));
        QCOMPARE(sales.unmappedTests[0].first,
                 QStringLiteral("test.shop.expression_is_true_fct_sales"));
        QVERIFY(sales.unmappedTests[0].second.contains(QStringLiteral("dbt_utils")));
        const auto &checks = sales.spec["checks"];
        QCOMPARE(checks[0]["type"].get<std::string>(), "sql"); // accepted_values
        QCOMPARE(checks[0]["query"].get<std::string>(),
                 "SELECT COUNT(*) FROM {staged} WHERE \"status\" IS NOT NULL AND \"status\" NOT "
                 "IN ('placed', 'it''s')");
        QCOMPARE(checks[1]["type"].get<std::string>(), "references");
        QCOMPARE(checks[1]["table"].get<std::string>(), "analytics.dim_customers");
        QCOMPARE(checks[1]["to"].get<std::string>(), "id");
        QCOMPARE(checks[2]["name"].get<std::string>(), "unique:order_id");
        QCOMPARE(checks[2]["query"].get<std::string>(),
                 "SELECT COUNT(\"order_id\") - COUNT(DISTINCT \"order_id\") FROM {staged}");

        const dbt::MappedNode dim = by.value(QStringLiteral("model.shop.dim_customers"));
        QVERIFY2(dim.mapped, qPrintable(dim.reason));
        QCOMPARE(dim.write, QStringLiteral("overwrite_partition"));
        QCOMPARE(dim.partition, QString());

        const auto reason = [&](const char *id) {
            return by.value(QString::fromLatin1(id)).reason;
        };
        QVERIFY(reason("model.shop.v_orders").startsWith(QStringLiteral("a view")));
        QVERIFY(reason("seed.shop.countries").startsWith(QStringLiteral("a seed")));
        // An append model maps as append (this one has no compiled code).
        QVERIFY2(reason("model.shop.events").contains(QStringLiteral("compiled")),
                 qPrintable(reason("model.shop.events")));
        QVERIFY(reason("model.shop.by_expr").contains(QStringLiteral("is an expression")));
        // Timestamps' grains: microbatch by its batch_size, a timestamp
        // partition_by by its granularity (a day unless given); a year is
        // not a grain Rewind partitions by. A merge keyed without the
        // partition column is one partition.
        const dbt::MappedNode events = by.value(QStringLiteral("model.shop.fct_events"));
        QVERIFY2(events.mapped, qPrintable(events.reason));
        QCOMPARE(events.write, QStringLiteral("overwrite_partition"));
        QCOMPARE(events.partition, QStringLiteral("occurred_at"));
        QCOMPARE(events.spec["partition_granularity"].get<std::string>(), "hour");
        const dbt::MappedNode daily = by.value(QStringLiteral("model.shop.fct_daily"));
        QVERIFY2(daily.mapped, qPrintable(daily.reason));
        QCOMPARE(daily.spec["partition_granularity"].get<std::string>(), "day");
        QVERIFY2(reason("model.shop.fct_yearly").contains(QStringLiteral("year of created_at")),
                 qPrintable(reason("model.shop.fct_yearly")));
        const dbt::MappedNode orders = by.value(QStringLiteral("model.shop.fct_orders"));
        QVERIFY2(orders.mapped, qPrintable(orders.reason));
        QCOMPARE(orders.partition, QString());
        QVERIFY(!orders.spec.contains("partition_granularity"));

        // On SQLite the alias names the table; a database other than the
        // connection's is refused on PostgreSQL.
        const auto lite = dbt::mapManifest(*m, {QStringLiteral("sqlite"), QString()});
        for (const auto &n : lite)
            if (n.uniqueId == QLatin1String("model.shop.fct_sales"))
                QCOMPARE(n.spec["target"].get<std::string>(), "fct_sales");
        const auto other =
            dbt::mapManifest(*m, {QStringLiteral("postgresql"), QStringLiteral("x")});
        for (const auto &n : other)
            if (n.uniqueId == QLatin1String("model.shop.fct_sales"))
                QVERIFY2(!n.mapped && n.reason.contains(QStringLiteral("database \"w\"")),
                         qPrintable(n.reason));
    }

    // An imported project end to end, on the test's engine: init --dbt
    // writes the spec (checked against the warehouse); the table model
    // builds; the incremental one publishes the day that passes its gates
    // and holds back the day that fails accepted_values and the one that
    // fails relationships; the microbatch one partitions by day; rollback
    // undoes the run.
    void importedProjectRunsAndRollsBack() {
        REWIND_REQUIRE_ENGINE();
        QTemporaryDir dir;
        Database db = testsupport::makeDatabase(
            dir, QStringLiteral("dbt.db"),
            {QStringLiteral("CREATE TABLE raw_sales (order_id INTEGER, dt TEXT, status TEXT, "
                            "customer_id INTEGER, amount REAL, updated_at TEXT)"),
             QStringLiteral(
                 "INSERT INTO raw_sales VALUES (1, '2025-01-01', 'placed', 1, 10, 't1'), "
                 "(2, '2025-01-01', 'shipped', 2, 6, 't2'), (3, '2025-01-02', 'lost', "
                 "1, 7, 't1'), (4, '2025-01-03', 'placed', 99, 5, 't1')"),
             QStringLiteral("CREATE TABLE raw_customers (id INTEGER, name TEXT)"),
             QStringLiteral("INSERT INTO raw_customers VALUES (1, 'Ann'), (2, 'Bob')"),
             QStringLiteral("CREATE TABLE raw_events (event_id INTEGER, occurred_at TIMESTAMP, "
                            "kind TEXT)"),
             QStringLiteral("INSERT INTO raw_events VALUES (1, '2025-01-01 10:00:00', 'a'), "
                            "(2, '2025-01-01 23:59:00', 'b'), (3, '2025-01-02 00:01:00', 'a')")});
        const bool pg = testsupport::onPostgres();
        const auto relation = [&](const char *table) {
            return pg ? QStringLiteral("\\\"%1\\\".\\\"public\\\".\\\"%2\\\"")
                            .arg(db.url().databaseName, QLatin1String(table))
                      : QStringLiteral("\\\"main\\\".\\\"%1\\\"").arg(QLatin1String(table));
        };
        const QString nodes = QString::fromUtf8(kImport).arg(
            relation("fct_sales"), relation("dim_customers"), relation("fct_events"));
        const QString manifestPath = testsupport::writeFile(dir, QStringLiteral("manifest.json"),
                                                            manifest(QStringLiteral("v11"), nodes));
        const QString spec = dir.filePath(QStringLiteral("spec.json"));
        const QString url = db.url().text;
        const auto init = testsupport::runRewindctl(
            {QStringLiteral("init"), QStringLiteral("--dbt"), manifestPath, QStringLiteral("--out"),
             spec, QStringLiteral("--db"), url, QStringLiteral("--json")});
        QVERIFY2(init.exitCode == 0, init.err.constData());
        const QJsonObject out = QJsonDocument::fromJson(init.out).object();
        QCOMPARE(out[QStringLiteral("spec")].toString(), spec);
        int mapped = 0;
        for (const auto &v : out[QStringLiteral("nodes")].toArray()) {
            const QJsonObject n = v.toObject();
            if (n[QStringLiteral("unique_id")].toString() ==
                QLatin1String("model.shop.fct_sales")) {
                ++mapped;
                QVERIFY(n[QStringLiteral("mapped")].toBool());
                QVERIFY2(n[QStringLiteral("reason")].isNull(),
                         qPrintable(n[QStringLiteral("reason")].toString()));
                QCOMPARE(n[QStringLiteral("checks")].toInt(), 3);
            }
        }
        QCOMPARE(mapped, 1);
        const auto runOf = [&](const char *dataset) {
            return testsupport::runRewindctl(
                {QStringLiteral("run"), QStringLiteral("--db"), url, QStringLiteral("--spec"), spec,
                 QStringLiteral("--dataset"), QLatin1String(dataset), QStringLiteral("--execute"),
                 QStringLiteral("--json")});
        };
        // Before the model it refers to is built, the relationships gate
        // fails every partition, saying so.
        const auto early = testsupport::runRewindctl(
            {QStringLiteral("preview"), QStringLiteral("--db"), url, QStringLiteral("--spec"), spec,
             QStringLiteral("--dataset"), QStringLiteral("fct_sales"), QStringLiteral("--json")});
        int unbuilt = 0;
        for (const auto &c :
             QJsonDocument::fromJson(early.out).object()[QStringLiteral("checks")].toArray())
            unbuilt += c.toObject()[QStringLiteral("detail")].toString().contains(
                QStringLiteral("does not exist yet"));
        QVERIFY2(unbuilt == 3, QByteArray(early.out + early.err).constData());
        const auto dim = runOf("dim_customers");
        QVERIFY2(dim.exitCode == 0, dim.err.constData());
        QCOMPARE(testsupport::scalarAt(url, QStringLiteral("SELECT COUNT(*) FROM dim_customers")),
                 2);

        const auto run = runOf("fct_sales");
        QCOMPARE(run.exitCode, 3); // gates failed on two partitions
        const auto rows = [&](const char *day) {
            return testsupport::scalarAt(
                url, QStringLiteral("SELECT COUNT(*) FROM fct_sales WHERE dt = '%1'")
                         .arg(QLatin1String(day)));
        };
        QCOMPARE(rows("2025-01-01"), 2);
        QCOMPARE(rows("2025-01-02"), 0); // status 'lost': accepted_values
        QCOMPARE(rows("2025-01-03"), 0); // customer 99: relationships
        QCOMPARE(testsupport::scalarAt(url, QStringLiteral("SELECT SUM(amount) FROM fct_sales")),
                 16);
        QStringList failed;
        for (const auto &c :
             QJsonDocument::fromJson(run.out).object()[QStringLiteral("checks")].toArray())
            if (!c.toObject()[QStringLiteral("passed")].toBool())
                failed << c.toObject()[QStringLiteral("partition")].toString() + u' ' +
                              c.toObject()[QStringLiteral("name")].toString();
        failed.sort();
        QCOMPARE(failed, (QStringList{QStringLiteral("2025-01-02 accepted_values:status"),
                                      QStringLiteral("2025-01-03 relationships:customer_id")}));

        // The microbatch model: a partition per day of occurred_at.
        const auto events = runOf("fct_events");
        QVERIFY2(events.exitCode == 0, events.err.constData());
        QStringList days;
        for (const auto &p :
             QJsonDocument::fromJson(events.out).object()[QStringLiteral("partitions")].toArray())
            days << p.toObject()[QStringLiteral("partition")].toString() + u'=' +
                        QString::number(p.toObject()[QStringLiteral("inserted")].toInt());
        QCOMPARE(days,
                 (QStringList{QStringLiteral("2025-01-01=2"), QStringLiteral("2025-01-02=1")}));
        const qint64 runId = QJsonDocument::fromJson(run.out)
                                 .object()[QStringLiteral("run_id")]
                                 .toVariant()
                                 .toLongLong();
        const auto back = testsupport::runRewindctl(
            {QStringLiteral("rollback"), QStringLiteral("--db"), url, QStringLiteral("--spec"),
             spec, QStringLiteral("--run"), QString::number(runId), QStringLiteral("--execute")});
        QVERIFY2(back.exitCode == 0, back.err.constData());
        QCOMPARE(testsupport::scalarAt(url, QStringLiteral("SELECT COUNT(*) FROM fct_sales")), 0);
    }

    // Snapshots become scd2 datasets: timestamp → updated_at tracked,
    // check → its check_cols; valid_from/valid_to named as dbt names them,
    // no current column; tests on dbt's validity columns are no gate.
    void mapsSnapshots() {
        auto m = dbt::parseManifest(
            manifest(QStringLiteral("v12"), QString::fromUtf8(kSnapshots).arg(QStringLiteral("s"))),
            QStringLiteral("m.json"));
        QVERIFY2(m, qPrintable(m ? QString() : m.error().message));
        QHash<QString, dbt::MappedNode> by;
        for (const auto &n : dbt::mapManifest(*m, {QStringLiteral("sqlite"), QString()}))
            by.insert(n.uniqueId, n);
        const dbt::MappedNode ts = by.value(QStringLiteral("snapshot.shop.customers_snapshot"));
        QVERIFY2(ts.mapped, qPrintable(ts.reason));
        QCOMPARE(ts.write, QStringLiteral("scd2"));
        QCOMPARE(ts.key, QStringList{QStringLiteral("id")});
        QCOMPARE(ts.partition, QStringLiteral("updated_at"));
        QCOMPARE(ts.spec["scd2"]["tracked"].dump(), std::string(R"(["updated_at"])"));
        QCOMPARE(ts.spec["scd2"]["valid_from"].get<std::string>(), "dbt_valid_from");
        QVERIFY(!ts.spec["scd2"].contains("current"));
        QCOMPARE(ts.checks, 1);
        QCOMPARE(ts.unmappedTests.size(), std::size_t(1));
        QVERIFY(ts.unmappedTests[0].second.contains(QStringLiteral("dbt_valid_from")));

        const dbt::MappedNode check = by.value(QStringLiteral("snapshot.shop.tiers_check"));
        QVERIFY2(check.mapped, qPrintable(check.reason));
        QCOMPARE(check.spec["scd2"]["tracked"].dump(), std::string(R"(["tier"])"));
        QCOMPARE(check.spec["scd2"]["valid_to"].get<std::string>(), "valid_to");

        // A check snapshot without updated_at: dated by its run, the
        // partition dbt's dbt_updated_at (the run's time), the scd id not
        // compared (it hashes that time).
        const dbt::MappedNode byRun = by.value(QStringLiteral("snapshot.shop.no_date"));
        QVERIFY2(byRun.mapped, qPrintable(byRun.reason));
        QCOMPARE(byRun.partition, QStringLiteral("dbt_updated_at"));
        const QString transform =
            QString::fromStdString(byRun.spec["transform"].get<std::string>());
        QVERIFY2(transform.contains(QStringLiteral("{snapshot_time} AS \"dbt_updated_at\"")) &&
                     !transform.contains(QStringLiteral("AS TIMESTAMP")), // on SQLite, ISO text
                 qPrintable(transform));
        QCOMPARE(byRun.spec["scd2"]["tracked"].get<std::string>(), "all");
        QCOMPARE(byRun.spec["scd2"]["not_tracked"].dump(), std::string(R"(["dbt_scd_id"])"));
        QVERIFY(!byRun.spec["scd2"].contains("hard_deletes"));
        QVERIFY2(by.value(QStringLiteral("snapshot.shop.deletes"))
                     .reason.contains(QStringLiteral("hard_deletes invalidate with updated_at")),
                 qPrintable(by.value(QStringLiteral("snapshot.shop.deletes")).reason));
        QVERIFY2(by.value(QStringLiteral("snapshot.shop.records"))
                     .reason.contains(QStringLiteral("hard_deletes new_record")),
                 qPrintable(by.value(QStringLiteral("snapshot.shop.records")).reason));
    }

    // An imported timestamp snapshot on the test's engine: the backfill
    // builds the versions dbt would (valid_from = updated_at, dbt_scd_id =
    // md5 of key and updated_at), a re-run changes nothing, a newer row
    // closes the current version, and rollback undoes it.
    void importedSnapshotBuildsHistory() {
        REWIND_REQUIRE_ENGINE();
        QTemporaryDir dir;
        Database db = testsupport::makeDatabase(
            dir, QStringLiteral("snap.db"),
            {QStringLiteral("CREATE TABLE raw_customers (id INTEGER, name TEXT, tier TEXT, "
                            "updated_at TEXT)"),
             QStringLiteral("INSERT INTO raw_customers VALUES "
                            "(1, 'Ann', 'bronze', '2025-01-01 10:00:00'), "
                            "(1, 'Ann', 'gold', '2025-02-01 09:00:00'), "
                            "(2, 'Bob', 'silver', '2025-01-01 10:00:00')")});
        const bool pg = testsupport::onPostgres();
        const QString relation =
            pg ? QStringLiteral("\\\"%1\\\".\\\"public\\\".\\\"customers_snapshot\\\"")
                     .arg(db.url().databaseName)
               : QStringLiteral("\\\"main\\\".\\\"customers_snapshot\\\"");
        QString nodes = QString::fromUtf8(kSnapshots).arg(relation);
        const QString manifestPath = testsupport::writeFile(dir, QStringLiteral("manifest.json"),
                                                            manifest(QStringLiteral("v12"), nodes));
        const QString spec = dir.filePath(QStringLiteral("spec.json"));
        const QString url = db.url().text;
        const auto init = testsupport::runRewindctl(
            {QStringLiteral("init"), QStringLiteral("--dbt"), manifestPath, QStringLiteral("--out"),
             spec, QStringLiteral("--db"), url});
        QVERIFY2(init.exitCode == 0, init.err.constData());
        const QStringList run = {QStringLiteral("run"),
                                 QStringLiteral("--db"),
                                 url,
                                 QStringLiteral("--spec"),
                                 spec,
                                 QStringLiteral("--dataset"),
                                 QStringLiteral("customers_snapshot"),
                                 QStringLiteral("--execute"),
                                 QStringLiteral("--json")};
        auto first = testsupport::runRewindctl(run);
        QVERIFY2(first.exitCode == 0, first.err.constData());
        const auto count = [&](const QString &where) {
            return testsupport::scalarAt(
                url, QStringLiteral("SELECT COUNT(*) FROM customers_snapshot WHERE ") + where);
        };
        const auto scdId = [](const char *keyAndTime) {
            return QString::fromLatin1(
                QCryptographicHash::hash(keyAndTime, QCryptographicHash::Md5).toHex());
        };
        QCOMPARE(count(QStringLiteral("1 = 1")), 3);
        QCOMPARE(count(QStringLiteral("dbt_valid_to IS NULL")), 2);
        QCOMPARE(count(QStringLiteral("id = 1 AND tier = 'bronze' AND dbt_valid_from = "
                                      "'2025-01-01 10:00:00' AND dbt_valid_to = '2025-02-01 "
                                      "09:00:00'")),
                 1);
        QCOMPARE(count(QStringLiteral("id = 1 AND tier = 'gold' AND dbt_valid_to IS NULL AND "
                                      "dbt_updated_at = '2025-02-01 09:00:00' AND dbt_scd_id = '") +
                       scdId("1|2025-02-01 09:00:00") + u'\''),
                 1);
        QCOMPARE(count(QStringLiteral("id = 2 AND dbt_scd_id = '") +
                       scdId("2|2025-01-01 10:00:00") + u'\''),
                 1);

        auto again = testsupport::runRewindctl(run);
        QVERIFY2(again.exitCode == 0, again.err.constData());
        QCOMPARE(count(QStringLiteral("1 = 1")), 3);

        QVERIFY(db.exec(QStringLiteral("INSERT INTO raw_customers VALUES (2, 'Bob', 'gold', "
                                       "'2025-03-01 08:00:00')")));
        auto later = testsupport::runRewindctl(run);
        QVERIFY2(later.exitCode == 0, later.err.constData());
        QCOMPARE(count(QStringLiteral("1 = 1")), 4);
        QCOMPARE(count(QStringLiteral("id = 2 AND tier = 'silver' AND dbt_valid_to = "
                                      "'2025-03-01 08:00:00'")),
                 1);
        QCOMPARE(count(QStringLiteral("dbt_valid_to IS NULL")), 2);

        const qint64 runId = QJsonDocument::fromJson(later.out)
                                 .object()[QStringLiteral("run_id")]
                                 .toVariant()
                                 .toLongLong();
        const auto back = testsupport::runRewindctl(
            {QStringLiteral("rollback"), QStringLiteral("--db"), url, QStringLiteral("--spec"),
             spec, QStringLiteral("--run"), QString::number(runId), QStringLiteral("--execute")});
        QVERIFY2(back.exitCode == 0, back.err.constData());
        QCOMPARE(count(QStringLiteral("1 = 1")), 3);
        QCOMPARE(count(QStringLiteral("id = 2 AND dbt_valid_to IS NULL AND tier = 'silver'")), 1);
    }

    // dbt's failures as Rewind's work list. On a run_results.json dbt
    // wrote for a microbatch model whose batches of 2025-01-02 and -03
    // failed: `partitions --dbt-results` marks those two days (and not the
    // one dbt built); `preview --dbt-results` scopes to them and a run
    // publishes exactly them. A failed test marks every partition of its
    // model (attributed by the manifest beside the file); one no manifest
    // names is listed as such.
    void dbtResultsBecomeTheWorkList() {
        REWIND_REQUIRE_ENGINE();
        QTemporaryDir dir;
        Database db = testsupport::makeDatabase(
            dir, QStringLiteral("results.db"),
            {QStringLiteral("CREATE TABLE raw_events (id INTEGER, ts TIMESTAMP)"),
             QStringLiteral("INSERT INTO raw_events VALUES (1, '2025-01-01 10:00:00'), (2, "
                            "'2025-01-02 11:00:00'), (3, '2025-01-03 12:00:00'), (4, "
                            "'2025-01-03 13:00:00')"),
             QStringLiteral("CREATE TABLE raw_sales (order_id INTEGER, dt TEXT)"),
             QStringLiteral("INSERT INTO raw_sales VALUES (1, '2025-01-01'), (2, '2025-01-02')")});
        const QString url = db.url().text;
        const QString spec = testsupport::writeFile(dir, QStringLiteral("spec.json"), kResultsSpec);
        const QString microbatch =
            QStringLiteral(REWIND_TESTS_DIR "/dbt/run_results_microbatch.json");
        const auto cli = [&](const QStringList &args) {
            return testsupport::runCli(
                args + QStringList{QStringLiteral("--db"), url, QStringLiteral("--spec"), spec});
        };
        const auto marks = [&](const testsupport::CliResult &r) {
            QStringList out;
            for (const auto &v : QJsonDocument::fromJson(r.out.toUtf8())
                                     .object()[QStringLiteral("partitions")]
                                     .toArray())
                out << v.toObject()[QStringLiteral("partition")].toString() + u'=' +
                           (v.toObject()[QStringLiteral("dbt_failed")].toBool() ? u'x' : u'-');
            return out;
        };
        const auto listed = cli({QStringLiteral("partitions"), QStringLiteral("--dataset"),
                                 QStringLiteral("events_mb"), QStringLiteral("--dbt-results"),
                                 microbatch, QStringLiteral("--json")});
        QVERIFY2(listed.exitCode == 0, qPrintable(listed.err));
        QCOMPARE(marks(listed),
                 (QStringList{QStringLiteral("2025-01-01=-"), QStringLiteral("2025-01-02=x"),
                              QStringLiteral("2025-01-03=x")}));
        QVERIFY(listed.out.contains(
            QStringLiteral("batch 2025-01-02T00:00:00Z to 2025-01-03T00:00:00Z failed")));
        const auto run = cli({QStringLiteral("run"), QStringLiteral("--dataset"),
                              QStringLiteral("events_mb"), QStringLiteral("--dbt-results"),
                              microbatch, QStringLiteral("--execute"), QStringLiteral("--json")});
        QVERIFY2(run.exitCode == 0, qPrintable(run.err + run.out));
        QCOMPARE(marks(run),
                 (QStringList{QStringLiteral("2025-01-02=-"), QStringLiteral("2025-01-03=-")}));
        QCOMPARE(testsupport::scalarAt(url, QStringLiteral("SELECT COUNT(*) FROM events_mb")), 3);
        QCOMPARE(testsupport::scalarAt(url, QStringLiteral("SELECT MIN(id) FROM events_mb")), 2);

        // A failed test, attributed by the manifest beside the file; one
        // the manifest does not name.
        QTemporaryDir target;
        testsupport::writeFile(target, QStringLiteral("manifest.json"),
                               manifest(QStringLiteral("v12"), kShop));
        const QString tested =
            testsupport::writeFile(target, QStringLiteral("run_results.json"), kTestFailed);
        const auto sales = cli({QStringLiteral("partitions"), QStringLiteral("--dataset"),
                                QStringLiteral("fct_sales"), QStringLiteral("--dbt-results"),
                                tested, QStringLiteral("--json")});
        QVERIFY2(sales.exitCode == 0, qPrintable(sales.err));
        QCOMPARE(marks(sales),
                 (QStringList{QStringLiteral("2025-01-01=x"), QStringLiteral("2025-01-02=x")}));
        const QJsonObject results = QJsonDocument::fromJson(sales.out.toUtf8())
                                        .object()[QStringLiteral("dbt_results")]
                                        .toObject();
        QCOMPARE(results[QStringLiteral("unattributed_tests")].toArray().size(), 1);
        QVERIFY(sales.out.contains(
            QStringLiteral("dbt test failed: test.shop.unique_fct_sales_order_id: Got 1 result")));

        // What cannot be a work list is refused, naming why, and nothing runs.
        const qint64 runsBefore =
            testsupport::scalarAt(url, QStringLiteral("SELECT COUNT(*) FROM rewind_runs"));
        QVERIFY(runsBefore > 0);
        const auto refused = [&](const QStringList &args, const QString &why) {
            const auto r = cli(args);
            QVERIFY2(r.exitCode == 2 && r.err.contains(why), qPrintable(r.err + r.out));
        };
        const QString manifestFile = target.filePath(QStringLiteral("manifest.json"));
        refused({QStringLiteral("partitions"), QStringLiteral("--dataset"),
                 QStringLiteral("fct_sales"), QStringLiteral("--dbt-results"), manifestFile},
                QStringLiteral("/manifest/v12.json file, not run results"));
        refused({QStringLiteral("preview"), QStringLiteral("--dataset"), QStringLiteral("plain"),
                 QStringLiteral("--dbt-results"), microbatch},
                QStringLiteral("dataset \"plain\" was not imported from a dbt model"));
        refused({QStringLiteral("preview"), QStringLiteral("--dataset"),
                 QStringLiteral("events_mb"), QStringLiteral("--dbt-results"), microbatch,
                 QStringLiteral("--partition"), QStringLiteral("2025-01-01")},
                QStringLiteral("without --partition"));
        refused({QStringLiteral("run"), QStringLiteral("--dataset"), QStringLiteral("fct_sales"),
                 QStringLiteral("--dbt-results"), microbatch, QStringLiteral("--execute")},
                QStringLiteral("left no partition of dataset \"fct_sales\""));
        QCOMPARE(testsupport::scalarAt(url, QStringLiteral("SELECT COUNT(*) FROM rewind_runs")),
                 runsBefore);
    }

    void badInputIsNamed_data() {
        QTest::addColumn<QByteArray>("json");
        QTest::addColumn<QString>("expected");
        QTest::newRow("not JSON") << QByteArray("{\"metadata\": ") << QStringLiteral("not JSON");
        QTest::newRow("no version")
            << kNoVersion << QStringLiteral("metadata.dbt_schema_version is missing");
        QTest::newRow("v9") << manifest(QStringLiteral("v9"), QString())
                            << QStringLiteral("manifest schema v9");
        QTest::newRow("a run result, not a manifest")
            << kRunResults << QStringLiteral("is not a manifest schema");
        QTest::newRow("unique_key an object")
            << manifest(QStringLiteral("v12"), kKeyObject)
            << QStringLiteral("node model.a.b: config.unique_key is {\"x\":1}");
        QTest::newRow("no unique_id") << manifest(QStringLiteral("v12"), kNoUniqueId)
                                      << QStringLiteral("node model.a.b has no unique_id");
    }
    void badInputIsNamed() {
        QFETCH(QByteArray, json);
        QFETCH(QString, expected);
        auto m = dbt::parseManifest(json, QStringLiteral("target/manifest.json"));
        QVERIFY(!m);
        QCOMPARE(m.error().code, Error::Code::BadInput);
        QVERIFY2(m.error().message.contains(expected), qPrintable(m.error().message));
        QVERIFY2(m.error().message.contains(QStringLiteral("target/manifest.json")),
                 qPrintable(m.error().message));
    }
};

QTEST_GUILESS_MAIN(TestDbtManifest)
#include "tst_dbtmanifest.moc"
