// Spec loading and validation: a valid spec loads; each bad spec is refused
// with a message that names the dataset or stream, the field and the problem.
#include "core/sql/database.h"
#include "core/workspace/spec.h"
#include "core/workspace/workspace.h"
#include "tests/testsupport.h"

#include <QTest>

using namespace rw;

namespace {

const QStringList kSchema = {
    QStringLiteral("CREATE TABLE raw_sales (order_id INTEGER, item_id INTEGER, dt TEXT, "
                   "customer_id INTEGER, amount REAL, updated_at TEXT)"),
    QStringLiteral("CREATE TABLE fact_sales (order_id INTEGER, item_id INTEGER, dt TEXT, "
                   "customer_id INTEGER, amount REAL, updated_at TEXT)"),
    QStringLiteral("CREATE TABLE narrow_target (order_id INTEGER, dt TEXT)"),
    QStringLiteral("CREATE TABLE customers (customer_id INTEGER PRIMARY KEY, name TEXT)"),
    QStringLiteral("CREATE VIEW v_sales AS SELECT * FROM raw_sales"),
    QStringLiteral("CREATE TABLE orders_log (partition_id INTEGER, log_offset INTEGER, event_id "
                   "TEXT, record_ts TEXT, payload TEXT)"),
    QStringLiteral("CREATE TABLE odd_log (p INTEGER, o INTEGER, eid TEXT, ts TEXT, body TEXT)"),
    QStringLiteral(
        "CREATE TABLE orders_events (event_id TEXT PRIMARY KEY, order_id INTEGER, amount REAL)"),
    QStringLiteral(
        "INSERT INTO raw_sales VALUES (1, 1, '2025-05-01', 1, 10.0, '2025-05-01T01:00:00Z')"),
};

const char *kValid = R"({
  "datasets": {
    "fact_sales": {
      "source": "raw_sales",
      "transform": "SELECT order_id, item_id, dt, customer_id, amount, updated_at FROM raw_sales",
      "target": "fact_sales",
      "partition_column": "dt",
      "key": ["order_id", "item_id"],
      "order_by": "updated_at",
      "write": "merge",
      "checks": [
        {"type": "not_null", "columns": ["order_id", "amount"]},
        {"type": "unique_key"},
        {"type": "references", "column": "customer_id", "table": "customers", "to": "customer_id", "on_fail": "quarantine"},
        {"type": "row_count", "min": 1},
        {"type": "total", "column": "amount", "tolerance_pct": 0.5},
        {"type": "sql", "name": "no_negative", "query": "SELECT COUNT(*) FROM {staged} WHERE amount < 0", "max": 0}
      ]
    },
    "from_view": {"source": "v_sales", "target": "sales_copy", "write": "overwrite_partition", "partition_column": "dt"}
  },
  "streams": {
    "orders": {
      "log": "orders_log", "sink": "orders_events",
      "fields": {"order_id": "$.order_id", "amount": "$.amount"},
      "required": ["order_id"]
    },
    "odd": {
      "log": "odd_log", "sink": "odd_events",
      "log_columns": {"partition_id": "p", "log_offset": "o", "event_id": "eid", "record_ts": "ts", "payload": "body"},
      "fields": {"x": "$.x"}
    }
  }
})";

} // namespace

class TestSpec : public QObject {
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    std::optional<Database> m_db;

private Q_SLOTS:
    void initTestCase() {
        REWIND_REQUIRE_ENGINE();
        QVERIFY(m_dir.isValid());
        m_db = testsupport::makeDatabase(m_dir, QStringLiteral("spec.db"), kSchema);
    }

    void validSpecLoads() {
        auto spec = parseSpec(kValid, QStringLiteral("valid.json"));
        QVERIFY2(spec, qPrintable(spec ? QString() : spec.error().message));
        auto valid = validateSpec(*spec, *m_db);
        QVERIFY2(valid, qPrintable(valid ? QString() : valid.error().message));

        QCOMPARE(spec->datasets.size(), std::size_t(2));
        const DatasetSpec *sales = spec->dataset(QStringLiteral("fact_sales"));
        QVERIFY(sales);
        QCOMPARE(sales->key, (QStringList{QStringLiteral("order_id"), QStringLiteral("item_id")}));
        QCOMPARE(sales->checks.size(), std::size_t(6));
        QCOMPARE(sales->checks[2].onFail, QStringLiteral("quarantine"));
        QCOMPARE(sales->checks[5].name, QStringLiteral("no_negative"));
        QCOMPARE(spec->dataset(QStringLiteral("from_view"))->write, WriteMode::OverwritePartition);
        const StreamSpec *odd = spec->stream(QStringLiteral("odd"));
        QVERIFY(odd);
        QCOMPARE(odd->logColumns.payload, QStringLiteral("body"));
        QCOMPARE(spec->stream(QStringLiteral("orders"))->fields.size(), std::size_t(2));
    }

    // Field paths in the form both engines read alike: any key quoted, an
    // index, the whole payload.
    void sharedJsonPathsAccepted() {
        const QByteArray json(
            "{\"streams\": {\"s\": {\"log\": \"orders_log\", \"sink\": \"x\", \"fields\": {"
            "\"a\": \"$.lines[0].\\\"unit-price\\\"\", \"b\": \"$\", \"c\": \"$._y2[10][0]\"}}}}");
        auto spec = parseSpec(json, QStringLiteral("paths.json"));
        QVERIFY2(spec, qPrintable(spec ? QString() : spec.error().message));
        QCOMPARE(spec->stream(QStringLiteral("s"))->fields.front().second,
                 QStringLiteral("$.lines[0].\"unit-price\""));
    }

    void watermarkParsed() {
        auto spec = parseSpec(
            R"({"datasets": {"e": {"source": "raw_sales", "target": "t", "key": ["order_id"],
            "event_time": "updated_at", "ingest_time": "updated_at", "allowed_lateness": "1h30m"}}})",
            QStringLiteral("w.json"));
        QVERIFY2(spec, qPrintable(spec ? QString() : spec.error().message));
        QCOMPARE(spec->datasets[0].allowedLatenessSeconds.value_or(-1), qint64(5400));
    }

    void badSpec_data() {
        QTest::addColumn<QByteArray>("json");
        QTest::addColumn<QString>("expected");

        const auto ds = [](const char *body) -> QByteArray {
            return QByteArray(R"({"datasets": {"d": {)") + body + "}}}";
        };
        const auto st = [](const char *body) -> QByteArray {
            return QByteArray(R"({"streams": {"s": {)") + body + "}}}";
        };
        // The engine's own words for an unknown column, quoted in the message.
        const auto noSuchColumn = [](const char *name) -> QString {
            return testsupport::onPostgres()
                       ? QStringLiteral("column \"%1\" does not exist").arg(QLatin1String(name))
                       : QStringLiteral("no such column: %1").arg(QLatin1String(name));
        };
        const char *base =
            R"("source": "raw_sales", "target": "fact_sales", "key": ["order_id", "item_id"], )";

        QTest::newRow("syntax") << QByteArray("{\n  \"datasets\": {\n    \"d\": {,}\n  }\n}")
                                << QStringLiteral("invalid JSON at line 3, column 11");
        QTest::newRow("top-level array")
            << QByteArray("[]") << QStringLiteral("the top level must be an object");
        QTest::newRow("empty") << QByteArray("{}")
                               << QStringLiteral("defines no \"datasets\" and no \"streams\"");
        QTest::newRow("unknown top field") << QByteArray(R"({"datasets": {}, "dataset": {}})")
                                           << QStringLiteral("\"dataset\": is not a known field");
        QTest::newRow("missing target") << ds(R"("source": "raw_sales", "key": ["order_id"])")
                                        << QStringLiteral("dataset \"d\": \"target\": is required");
        QTest::newRow("no source or transform")
            << ds(R"("target": "x", "key": ["order_id"])")
            << QStringLiteral("dataset \"d\": needs a \"source\" table or a \"transform\" SELECT");
        QTest::newRow("target equals source")
            << ds(R"("source": "raw_sales", "target": "raw_sales", "key": ["order_id"])")
            << QStringLiteral("dataset \"d\": \"target\": must differ from \"source\"");
        QTest::newRow("key wrong type")
            << ds(R"("source": "raw_sales", "target": "t", "key": "order_id")")
            << QStringLiteral(
                   "dataset \"d\": \"key\": must be an array of column names, not a string");
        QTest::newRow("merge without key")
            << ds(R"("source": "raw_sales", "target": "t")")
            << QStringLiteral("dataset \"d\": \"key\": is required for write \"merge\"");
        QTest::newRow("unknown write mode")
            << ds(QByteArray(base).append(R"("write": "upsert")").constData())
            << QStringLiteral("dataset \"d\": \"write\": unknown write mode \"upsert\"");
        QTest::newRow("typo field")
            << ds(QByteArray(base).append(R"("partiton_column": "dt")").constData())
            << QStringLiteral("dataset \"d\": \"partiton_column\": is not a known field");
        QTest::newRow("bad lateness")
            << ds(QByteArray(base)
                      .append(R"("event_time": "updated_at", "allowed_lateness": "2 hours")")
                      .constData())
            << QStringLiteral("dataset \"d\": \"allowed_lateness\": \"2 hours\" is not a duration");
        QTest::newRow("lateness without event_time")
            << ds(QByteArray(base).append(R"("allowed_lateness": "2h")").constData())
            << QStringLiteral("\"allowed_lateness\": needs \"event_time\"");
        QTest::newRow("unknown check type")
            << ds(QByteArray(base).append(R"("checks": [{"type": "positive"}])").constData())
            << QStringLiteral(
                   "dataset \"d\": checks[0]: \"type\": unknown check type \"positive\"");
        QTest::newRow("check field wrong type")
            << ds(QByteArray(base)
                      .append(R"("checks": [{"type": "row_count", "min": "1"}])")
                      .constData())
            << QStringLiteral("checks[0]: \"min\": must be a number, not a string");
        QTest::newRow("bad on_fail")
            << ds(QByteArray(base)
                      .append(
                          R"("checks": [{"type": "not_null", "columns": ["amount"], "on_fail": "skip"}])")
                      .constData())
            << QStringLiteral("checks[0]: \"on_fail\": must be \"fail\" or \"quarantine\"");
        QTest::newRow("scd2 without config")
            << ds(QByteArray(base)
                      .append(R"("write": "scd2", "partition_column": "dt")")
                      .constData())
            << QStringLiteral("dataset \"d\": \"scd2\": is required for write \"scd2\"");
        QTest::newRow("missing source table")
            << ds(R"("source": "raw_salez", "target": "t", "key": ["order_id"])")
            << QStringLiteral("dataset \"d\": \"source\": no table or view named \"raw_salez\"");
        QTest::newRow("unknown key column")
            << ds(R"("source": "raw_sales", "target": "t", "key": ["order_idx"])")
            << QStringLiteral(
                   "dataset \"d\": \"key\": column \"order_idx\" is not in source \"raw_sales\"");
        QTest::newRow("unknown partition column")
            << ds(QByteArray(base).append(R"("partition_column": "day")").constData())
            << QStringLiteral("\"partition_column\": column \"day\" is not in source");
        QTest::newRow("transform not select")
            << ds(R"("transform": "DELETE FROM raw_sales", "target": "t", "key": ["order_id"])")
            << QStringLiteral("dataset \"d\": \"transform\": must be a single SELECT, but starts "
                              "with \"DELETE\"");
        QTest::newRow("transform two statements")
            << ds(R"("transform": "SELECT * FROM raw_sales; DROP TABLE customers", "target": "t", "key": ["order_id"])")
            << QStringLiteral(
                   "\"transform\": must be a single SELECT, but holds more than one statement");
        QTest::newRow("transform does not compile")
            << ds(R"("transform": "SELECT nope FROM raw_sales", "target": "t", "key": ["order_id"])")
            << (QStringLiteral("\"transform\": does not compile as a SELECT: ") +
                noSuchColumn("nope"));
        QTest::newRow("key not in transform output")
            << ds(R"("transform": "SELECT item_id, dt FROM raw_sales", "target": "t", "key": ["order_id"])")
            << QStringLiteral("\"key\": column \"order_id\" is not in the transform's output");
        QTest::newRow("target lacks column")
            << ds(R"("source": "raw_sales", "target": "narrow_target", "key": ["order_id"])")
            << QStringLiteral(
                   "\"target\": table \"narrow_target\" has no columns \"item_id\", "
                   "\"customer_id\", \"amount\", \"updated_at\", which the source yields "
                   "(columns: order_id, dt); \"on_schema_change\": "
                   "\"append_new_columns\" would add them");
        QTest::newRow("on_schema_change unknown")
            << ds(R"("source": "raw_sales", "target": "fact_sales", "key": ["order_id"], "on_schema_change": "ignore")")
            << QStringLiteral("\"on_schema_change\": unknown value \"ignore\" (known: "
                              "fail, append_new_columns, sync_all_columns)");
        QTest::newRow("references unknown table")
            << ds(QByteArray(base)
                      .append(
                          R"("checks": [{"type": "references", "column": "customer_id", "table": "custs", "to": "id"}])")
                      .constData())
            << QStringLiteral("checks[0]: \"table\": no table or view named \"custs\"");
        QTest::newRow("references unknown column")
            << ds(QByteArray(base)
                      .append(
                          R"("checks": [{"type": "references", "column": "customer_id", "table": "customers", "to": "id"}])")
                      .constData())
            << QStringLiteral("checks[0]: \"to\": column \"id\" is not in table \"customers\"");
        QTest::newRow("sql check does not compile")
            << ds(QByteArray(base)
                      .append(
                          R"("checks": [{"type": "sql", "name": "x", "query": "SELECT COUNT(*) FROM {staged} WHERE amout < 0", "max": 0}])")
                      .constData())
            << (QStringLiteral("checks[0]: \"query\": does not compile: ") + noSuchColumn("amout"));
        QTest::newRow("control table as target")
            << ds(R"("source": "raw_sales", "target": "rewind_runs", "key": ["order_id"])")
            << QStringLiteral("\"target\": \"rewind_runs\" is one of Rewind's own control tables");
        QTest::newRow("stream missing log")
            << st(R"("log": "nolog", "sink": "x", "fields": {"a": "$.a"})")
            << QStringLiteral("stream \"s\": \"log\": no table or view named \"nolog\"");
        QTest::newRow("stream log lacks column")
            << st(R"("log": "odd_log", "sink": "x", "fields": {"a": "$.a"})")
            << QStringLiteral("stream \"s\": \"log_columns.partition_id\": column \"partition_id\" "
                              "is not in log \"odd_log\"");
        QTest::newRow("stream sink is log")
            << st(R"("log": "orders_log", "sink": "orders_log", "fields": {"a": "$.a"})")
            << QStringLiteral("stream \"s\": \"sink\": must differ from \"log\"");
        QTest::newRow("stream bad jsonpath")
            << st(R"("log": "orders_log", "sink": "x", "fields": {"a": "a"})")
            << QStringLiteral(
                   "stream \"s\": \"fields\": \"a\": JSONPath \"a\" must start with \"$\"");
        // Paths the engines read differently, or one of them not at all.
        const QString notAlike =
            QStringLiteral("\" is not one every engine reads alike: use $ then .name");
        QTest::newRow("jsonpath from the end")
            << st("\"log\": \"orders_log\", \"sink\": \"x\", \"fields\": {\"a\": \"$.items[#-1]\"}")
            << QStringLiteral("\"fields\": \"a\": JSONPath \"$.items[#-1]") + notAlike;
        QTest::newRow("jsonpath last")
            << st(R"("log": "orders_log", "sink": "x", "fields": {"a": "$.items[last]"})")
            << QStringLiteral("JSONPath \"$.items[last]") + notAlike;
        QTest::newRow("jsonpath filter")
            << st(R"j("log": "orders_log", "sink": "x", "fields": {"a": "$.amount ? (@ > 1)"})j")
            << QStringLiteral("JSONPath \"$.amount ? (@ > 1)") + notAlike;
        QTest::newRow("jsonpath bare dash")
            << st(R"("log": "orders_log", "sink": "x", "fields": {"a": "$.unit-price"})")
            << QStringLiteral("JSONPath \"$.unit-price") + notAlike;
        QTest::newRow("jsonpath unclosed")
            << st("\"log\": \"orders_log\", \"sink\": \"x\", \"fields\": {\"a\": \"$.a[\"}")
            << QStringLiteral("JSONPath \"$.a[") + notAlike;
        QTest::newRow("jsonpath escaped quote")
            << st("\"log\": \"orders_log\", \"sink\": \"x\", \"fields\": {\"a\": "
                  "\"$.\\\"a\\\\\\\"b\\\"\"}")
            << notAlike;
        QTest::newRow("stream required not a field")
            << st(R"("log": "orders_log", "sink": "x", "fields": {"a": "$.a"}, "required": ["b"])")
            << QStringLiteral(
                   "stream \"s\": \"required\": names \"b\", which is not one of \"fields\"");
        QTest::newRow("stream sink lacks field column")
            << st(R"("log": "orders_log", "sink": "orders_events", "fields": {"currency": "$.currency"})")
            << QStringLiteral("\"fields\": sink \"orders_events\" has no column for field "
                              "\"currency\" (columns: event_id, order_id, amount); "
                              "\"on_schema_change\": \"append_new_columns\" would add it");
        QTest::newRow("stream on_schema_change unknown")
            << st(R"("log": "orders_log", "sink": "orders_events", "on_schema_change": "ignore")")
            << QStringLiteral("\"on_schema_change\": unknown value \"ignore\"");
    }

    void badSpec() {
        QFETCH(QByteArray, json);
        QFETCH(QString, expected);
        auto spec = parseSpec(json, QStringLiteral("bad.json"));
        QString message;
        if (!spec) {
            QCOMPARE(spec.error().code, Error::Code::BadInput);
            message = spec.error().message;
        } else {
            auto valid = validateSpec(*spec, *m_db);
            QVERIFY2(!valid, "a bad spec was accepted");
            QCOMPARE(valid.error().code, Error::Code::BadInput);
            message = valid.error().message;
        }
        QVERIFY2(message.contains(expected), qPrintable(QStringLiteral("got: ") + message));
        QVERIFY2(message.startsWith(QStringLiteral("spec bad.json: ")), qPrintable(message));
    }

    void everyErrorReported() {
        // Two independent problems: both are named, so one run tells the whole story.
        auto spec = parseSpec(
            R"({"datasets": {"a": {"source": "raw_sales", "target": "t", "key": ["nope1"]},
                                                "b": {"source": "raw_sales", "target": "t2", "key": ["nope2"]}}})",
            QStringLiteral("two.json"));
        QVERIFY(spec);
        auto valid = validateSpec(*spec, *m_db);
        QVERIFY(!valid);
        QVERIFY(valid.error().message.contains(QStringLiteral("\"nope1\"")));
        QVERIFY(valid.error().message.contains(QStringLiteral("\"nope2\"")));
    }

    // A dataset whose source does not exist is flagged with its reason, not
    // fatal: the workspace opens, and the dataset is refused by name. A
    // caller about to use it is refused before anything is written.
    void openWorkspaceFlagsABrokenDataset() {
        const QString nothing = testsupport::writeFile(
            m_dir, QStringLiteral("nothing.json"),
            R"({"datasets": {"d": {"source": "missing", "target": "t", "key": ["k"]}}})");
        for (const QString &name : {QStringLiteral("d"), QStringLiteral("no_such")}) {
            auto refused =
                openWorkspace(m_db->url().text, nothing, {{QStringLiteral("dataset"), name}});
            QVERIFY(!refused);
            QCOMPARE(refused.error().exitCode(), 2);
            QVERIFY2(refused.error().message.contains(u'"' + name + u'"'),
                     qPrintable(refused.error().message));
            auto has = m_db->hasRelation(QStringLiteral("rewind_meta"));
            QVERIFY(has && !*has); // the control schema was not created: nothing changed
        }
        // Only broken datasets: the workspace still opens, each one flagged;
        // on a database Rewind has never written to, nothing is created.
        auto all = openWorkspace(m_db->url().text, nothing);
        QVERIFY2(all, qPrintable(all ? QString() : all.error().message));
        QVERIFY(all->spec.brokenReason(QStringLiteral("dataset"), QStringLiteral("d"))
                    .contains(QStringLiteral("\"missing\"")));
        QVERIFY(!all->controlSchema);
        auto none = m_db->hasRelation(QStringLiteral("rewind_meta"));
        QVERIFY(none && !*none);
        const QString specPath = testsupport::writeFile(
            m_dir, QStringLiteral("bad.json"),
            R"({"datasets": {"d": {"source": "missing", "target": "t", "key": ["k"]},
                                                            "good": {"source": "raw_sales", "target": "fact_sales", "partition_column": "dt",
                                                                     "key": ["order_id", "item_id"]}}})");
        auto ws = openWorkspace(m_db->url().text, specPath);
        QVERIFY2(ws, qPrintable(ws ? QString() : ws.error().message));
        QVERIFY2(ws->spec.brokenReason(QStringLiteral("dataset"), QStringLiteral("d"))
                     .contains(QStringLiteral("no table or view named \"missing\"")),
                 qPrintable(ws->spec.brokenReason(QStringLiteral("dataset"), QStringLiteral("d"))));
        QVERIFY(ws->spec.requireDataset(QStringLiteral("good")));
        auto d = ws->spec.requireDataset(QStringLiteral("d"));
        QVERIFY(!d);
        QCOMPARE(d.error().exitCode(), 2);
        QVERIFY2(d.error().message.contains(QStringLiteral("dataset \"d\" cannot be used")),
                 qPrintable(d.error().message));
        // Malformed JSON is still refused whole, before anything is written.
        const QString broken = testsupport::writeFile(m_dir, QStringLiteral("malformed.json"),
                                                      R"({"datasets": {"d": )");
        QVERIFY(!openWorkspace(m_db->url().text, broken));
    }

    void missingSpecFile() {
        auto spec = loadSpec(m_dir.filePath(QStringLiteral("nope.json")));
        QVERIFY(!spec);
        QVERIFY(spec.error().message.contains(QStringLiteral("nope.json: no such file")));
    }
};

QTEST_GUILESS_MAIN(TestSpec)
#include "tst_spec.moc"
