// Typed columns as a warehouse declares them: `date` partitions, `timestamptz`
// order_by and event/ingest times, `numeric(12,2)` amounts, `bigint`/`text`
// keys, a `date` and a `numeric` key. Driven through rewindctl, as an operator
// (or a script) does, and checked on the tables themselves. The DDL is the
// same on both engines (SQLite accepts these type names, with NUMERIC
// affinity); where a real type changes the answer (an instant written with
// another offset is the same instant only in a real timestamptz), the test
// says which engine expects what.
#include "tests/testsupport.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QStringBuilder>
#include <QTest>
#include <ctime>

using testsupport::runCli;

namespace {

const QString kTz = QStringLiteral("TIMESTAMP WITH TIME ZONE");

// Three days; 2026-03-01 holds a key twice (the later update wins) and, in
// the target, the same row with its instants written at +02:00 and its
// amount as 11.0 / 20 (equal values, other spellings). 2026-03-02 changes
// one amount by 5 cents and adds a key; 2026-03-03 is new.
QStringList warehouse() {
    const QString cols =
        QStringLiteral("(order_id BIGINT, item_id TEXT, dt DATE, amount NUMERIC(12,2), updated_at "
                       "%1, event_ts %1, ingested_at %1)")
            .arg(kTz);
    return {
        QStringLiteral("CREATE TABLE raw_sales ") % cols,
        QStringLiteral("INSERT INTO raw_sales VALUES "
                       "(1, 'a', '2026-03-01', 10.50, '2026-03-01 10:00:00+00', '2026-03-01 "
                       "09:00:00+00', '2026-03-01 09:05:00+00'),"
                       "(1, 'a', '2026-03-01', 11.00, '2026-03-01 11:00:00+00', '2026-03-01 "
                       "09:00:00+00', '2026-03-01 09:30:00+00'),"
                       "(2, 'b', '2026-03-01', 20.00, '2026-03-01 10:00:00+00', '2026-03-01 "
                       "12:00:00+00', '2026-03-01 15:00:00+00'),"
                       "(3, 'c', '2026-03-02', 30.25, '2026-03-02 10:00:00+00', '2026-03-02 "
                       "08:00:00+00', '2026-03-02 08:01:00+00'),"
                       "(4, 'd', '2026-03-02', 40.00, '2026-03-02 10:00:00+00', '2026-03-02 "
                       "09:00:00+00', '2026-03-02 09:10:00+00'),"
                       "(5, 'e', '2026-03-03', 50.10, '2026-03-03 10:00:00+00', '2026-03-03 "
                       "22:00:00+00', '2026-03-04 01:00:00+00')"),
        QStringLiteral("CREATE TABLE fact_sales ") % cols,
        QStringLiteral("INSERT INTO fact_sales VALUES "
                       "(1, 'a', '2026-03-01', 11.0, '%1', '%2', '%3'),"
                       "(2, 'b', '2026-03-01', 20, '2026-03-01 10:00:00+00', '2026-03-01 "
                       "12:00:00+00', '2026-03-01 15:00:00+00'),"
                       "(3, 'c', '2026-03-02', 30.20, '2026-03-02 10:00:00+00', '2026-03-02 "
                       "08:00:00+00', '2026-03-02 08:01:00+00')")
            .arg(testsupport::onPostgres() ? QStringLiteral("2026-03-01 13:00:00+02")
                                           : QStringLiteral("2026-03-01 11:00:00+00"),
                 testsupport::onPostgres() ? QStringLiteral("2026-03-01 11:00:00+02")
                                           : QStringLiteral("2026-03-01 09:00:00+00"),
                 testsupport::onPostgres() ? QStringLiteral("2026-03-01 11:30:00+02")
                                           : QStringLiteral("2026-03-01 09:30:00+00")),
        // Customers by effective date (scd2): tier changes on 2026-02-01.
        QStringLiteral(
            "CREATE TABLE raw_customers (customer_id BIGINT, tier TEXT, eff DATE, changed_at %1)")
            .arg(kTz),
        QStringLiteral(
            "INSERT INTO raw_customers VALUES (1, 'gold', '2026-01-01', '2026-01-01 08:00:00+00'),"
            "(2, 'silver', '2026-01-01', '2026-01-01 08:00:00+00'), (1, 'platinum', '2026-02-01', "
            "'2026-02-01 08:00:00+00'),"
            "(2, 'silver', '2026-02-01', '2026-02-01 08:00:00+00')"),
        // A dimension made beforehand, its current flag a boolean.
        QStringLiteral("CREATE TABLE dim_bool (customer_id BIGINT, tier TEXT, eff DATE, changed_at "
                       "%1, effective_from DATE, effective_to DATE, "
                       "is_current BOOLEAN)")
            .arg(kTz),
        // Prices keyed by a date and a numeric: no partition.
        QStringLiteral(
            "CREATE TABLE raw_prices (day DATE, price NUMERIC(12,2), sku TEXT, seen_at %1)")
            .arg(kTz),
        QStringLiteral(
            "INSERT INTO raw_prices VALUES ('2026-03-01', 10.50, 'x', '2026-03-01 10:00:00+00'),"
            "('2026-03-01', 7, 'y', '2026-03-01 10:00:00+00'), ('2026-03-02', 10.50, 'x', "
            "'2026-03-02 10:00:00+00')"),
        QStringLiteral("CREATE TABLE prices (day DATE, price NUMERIC(12,2), sku TEXT, seen_at %1)")
            .arg(kTz),
        QStringLiteral(
            "INSERT INTO prices VALUES ('2026-03-01', 10.5, 'x', '2026-03-01 10:00:00+00'),"
            "('2026-03-01', 7.00, 'old', '2026-03-01 10:00:00+00')"),
        // A landing table of text, published into a typed table made beforehand.
        QStringLiteral(
            "CREATE TABLE raw_text (order_id TEXT, dt TEXT, amount TEXT, updated_at TEXT)"),
        QStringLiteral(
            "INSERT INTO raw_text VALUES ('1', '2026-03-01', '10.5', '2026-03-01 10:00:00+00'),"
            "('2', '2026-03-01', '20', '2026-03-01 10:00:00+00'), ('3', '2026-03-02', '5.25', "
            "'2026-03-02 10:00:00+00'),"
            "('3', '2026-03-02', '5.75', '2026-03-02 09:00:00+00')"),
        QStringLiteral("CREATE TABLE typed_sales (order_id BIGINT, dt DATE, amount NUMERIC(12,2), "
                       "updated_at %1)")
            .arg(kTz),
        QStringLiteral(
            "INSERT INTO typed_sales VALUES (1, '2026-03-01', 10.50, '2026-03-01 10:00:00+00')"),
        // Wall-clock timestamps (no zone) to partition by.
        QStringLiteral("CREATE TABLE raw_wall (id BIGINT, ts TIMESTAMP)"),
        QStringLiteral("INSERT INTO raw_wall VALUES (1, '2026-03-01 10:00:00'), (2, '2026-03-01 "
                       "10:00:00'), (3, '2026-03-02 08:30:00')"),
        // A topic whose record_ts is a real timestamp.
        QStringLiteral("CREATE TABLE orders_log (partition_id INTEGER, log_offset BIGINT, event_id "
                       "TEXT, record_ts %1, payload TEXT)")
            .arg(kTz),
        QStringLiteral(
            "INSERT INTO orders_log VALUES "
            "(0, 0, 'e0', '2026-03-01 10:00:00+00', '{\"order_id\": 1, \"amount\": 10.5}'),"
            "(0, 1, 'e1', '2026-03-01 11:00:00+00', '{\"order_id\": 2, \"amount\": 20}'),"
            "(0, 2, 'e2', '2026-03-01 12:00:00+00', '{\"order_id\": 3, \"amount\": 30.25}'),"
            "(1, 0, 'e3', '2026-03-01 10:30:00+00', '{\"order_id\": 4, \"amount\": 1}'),"
            "(1, 1, 'e4', '2026-03-01 13:30:00+01', '{\"order_id\": 5, \"amount\": 2}')"),
    };
}

const QByteArray kSpec = R"({
  "datasets": {
    "fact_sales": {"source": "raw_sales", "target": "fact_sales", "partition_column": "dt", "key": ["order_id", "item_id"],
                   "order_by": "updated_at", "write": "merge", "event_time": "event_ts", "ingest_time": "ingested_at",
                   "allowed_lateness": "2h",
                   "checks": [{"type": "total", "column": "amount", "tolerance_pct": 0.5},
                              {"type": "not_null", "columns": ["order_id", "amount"]}]},
    "fact_new": {"source": "raw_sales", "target": "fact_new", "partition_column": "dt", "key": ["order_id"],
                 "order_by": "updated_at", "write": "overwrite_partition",
                 "checks": [{"type": "total", "column": "amount", "tolerance_pct": 0.5}]},
    "doubled": {"source": "raw_sales", "target": "doubled",
                "transform": "SELECT order_id, item_id, dt, amount * 2 AS amount, updated_at FROM raw_sales",
                "partition_column": "dt", "key": ["order_id", "item_id"], "order_by": "updated_at", "write": "merge",
                "checks": [{"type": "total", "column": "amount", "tolerance_pct": 0.5}]},
    "dim_customer": {"source": "raw_customers", "target": "dim_customer", "partition_column": "eff", "key": ["customer_id"],
                     "order_by": "changed_at", "write": "scd2",
                     "scd2": {"tracked": ["tier"], "valid_from": "effective_from", "valid_to": "effective_to", "current": "is_current"}},
    "dim_bool": {"source": "raw_customers", "target": "dim_bool", "partition_column": "eff", "key": ["customer_id"],
                 "order_by": "changed_at", "write": "scd2",
                 "scd2": {"tracked": ["tier"], "valid_from": "effective_from", "valid_to": "effective_to", "current": "is_current"}},
    "prices": {"source": "raw_prices", "target": "prices", "key": ["day", "price", "sku"], "write": "merge",
               "checks": [{"type": "not_null", "columns": ["day", "price"]}, {"type": "unique_key"}, {"type": "row_count", "min": 1},
                          {"type": "total", "column": "price", "tolerance_pct": 0}]},
    "from_text": {"source": "raw_text", "target": "typed_sales", "partition_column": "dt", "key": ["order_id"],
                  "order_by": "updated_at", "write": "merge",
                  "checks": [{"type": "total", "column": "amount", "tolerance_pct": 0}]},
    "quarantined": {"source": "raw_sales", "target": "q_sales", "partition_column": "dt", "key": ["order_id", "item_id"],
                    "order_by": "updated_at", "write": "merge",
                    "checks": [{"type": "not_null", "columns": ["amount"], "on_fail": "quarantine"}]},
    "by_instant": {"source": "raw_sales", "target": "by_instant", "partition_column": "updated_at", "key": ["order_id", "item_id"],
                   "write": "merge"},
    "by_wall": {"source": "raw_wall", "target": "by_wall", "partition_column": "ts", "key": ["id"], "write": "merge"}
  },
  "streams": {
    "orders": {"log": "orders_log", "sink": "orders_events",
               "fields": {"order_id": "$.order_id", "amount": "$.amount"}, "required": ["order_id", "amount"]}
  }
})";

QJsonObject findPartition(const QJsonArray &partitions, const QString &value) {
    for (const auto &p : partitions)
        if (p.toObject().value(QStringLiteral("partition")).toString() == value)
            return p.toObject();
    return {};
}

QStringList partitionValues(const QJsonArray &partitions) {
    QStringList out;
    for (const auto &p : partitions)
        out << p.toObject().value(QStringLiteral("partition")).toString();
    return out;
}

} // namespace

class TestTypes : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;
    std::optional<rw::Database> m_db;
    QString m_url;
    QString m_spec;
    int m_fixtures = 0;

    // A fresh warehouse for each test.
    void fresh() {
        m_db.reset();
        const QString name = QStringLiteral("types%1.db").arg(++m_fixtures);
        m_db = testsupport::makeDatabase(m_dir, name, warehouse());
        m_url = m_db->url().text;
        m_spec = testsupport::writeFile(m_dir, QStringLiteral("types.json"), kSpec);
    }

    testsupport::CliResult cli(const QStringList &args) const {
        return runCli(args +
                      QStringList{QStringLiteral("--db"), m_url, QStringLiteral("--spec"), m_spec});
    }

    // Runs `args` with --json, expects `exitCode`, returns the document.
    QJsonObject json(const QStringList &args, int exitCode = 0) const {
        const auto r = cli(args + QStringList{QStringLiteral("--json")});
        if (r.exitCode != exitCode)
            qWarning().noquote() << args.join(u' ') << "exited" << r.exitCode << "stderr:" << r.err
                                 << "stdout:" << r.out.left(2000);
        [&] { QCOMPARE(r.exitCode, exitCode); }();
        QJsonParseError error;
        const QJsonDocument doc = QJsonDocument::fromJson(r.out.toUtf8(), &error);
        if (error.error != QJsonParseError::NoError)
            qWarning().noquote() << "not one JSON document:" << r.out << r.err;
        return doc.object();
    }

    qint64 scalar(const QString &sql) const {
        auto v = m_db->scalar(sql);
        if (!v)
            qWarning().noquote() << sql << v.error().message;
        return v ? v->toLongLong() : -1;
    }

    // The column's type as the catalog names it.
    QString columnType(const QString &table, const QString &column) const {
        auto cols = m_db->columns(table);
        if (!cols)
            return QStringLiteral("<%1>").arg(cols.error().message);
        for (const auto &c : *cols)
            if (c.name == column)
                return c.type.toLower();
        return QStringLiteral("<no column>");
    }

private Q_SLOTS:
    void initTestCase() {
        REWIND_REQUIRE_ENGINE();
        // Not UTC, so that nothing may lean on the process's zone: the
        // driver reads a timestamptz into local time.
        qputenv("TZ", "America/New_York");
        tzset();
    }

    // Date partitions are listed, and typed back, as the user writes them.
    void partitionsAsTyped() {
        fresh();
        const QJsonObject doc = json({QStringLiteral("partitions"), QStringLiteral("--dataset"),
                                      QStringLiteral("fact_sales")});
        const QJsonArray parts = doc.value(QStringLiteral("partitions")).toArray();
        QCOMPARE(partitionValues(parts),
                 (QStringList{QStringLiteral("2026-03-01"), QStringLiteral("2026-03-02"),
                              QStringLiteral("2026-03-03")}));
        const QJsonObject first = findPartition(parts, QStringLiteral("2026-03-01"));
        QCOMPARE(first.value(QStringLiteral("source_rows")).toInteger(), 3);
        QCOMPARE(first.value(QStringLiteral("target_rows")).toInteger(), 2);
        QCOMPARE(first.value(QStringLiteral("duplicate_keys")).toInteger(), 0);
        QCOMPARE(findPartition(parts, QStringLiteral("2026-03-03"))
                     .value(QStringLiteral("status"))
                     .toString(),
                 QStringLiteral("unloaded"));

        // An unknown day is refused, naming it.
        const auto bad = cli({QStringLiteral("preview"), QStringLiteral("--dataset"),
                              QStringLiteral("fact_sales"), QStringLiteral("--partition"),
                              QStringLiteral("2026-03-09"), QStringLiteral("--json")});
        QCOMPARE(bad.exitCode, 2);
        QVERIFY2(bad.err.contains(QLatin1String("2026-03-09")), qPrintable(bad.err));
    }

    // Equal values in other spellings are unchanged: 11.0 / 11.00, 20 / 20.00
    // and (real timestamptz) the same instant written at another offset.
    void previewComparesValues() {
        fresh();
        const QJsonObject doc = json({QStringLiteral("preview"), QStringLiteral("--dataset"),
                                      QStringLiteral("fact_sales"), QStringLiteral("--partition"),
                                      QStringLiteral("2026-03-01"), QStringLiteral("--partition"),
                                      QStringLiteral("2026-03-02")});
        const QJsonArray parts = doc.value(QStringLiteral("partitions")).toArray();
        QCOMPARE(parts.size(), 2);
        const QJsonObject d1 = findPartition(parts, QStringLiteral("2026-03-01"));
        QCOMPARE(d1.value(QStringLiteral("source_rows")).toInteger(), 3);
        QCOMPARE(d1.value(QStringLiteral("staged_rows")).toInteger(), 2);
        QCOMPARE(d1.value(QStringLiteral("duplicates_dropped")).toInteger(), 1);
        QCOMPARE(d1.value(QStringLiteral("inserted")).toInteger(), 0);
        // SQLite holds the instants as the text written, so the fixture writes them alike there.
        QCOMPARE(d1.value(QStringLiteral("updated")).toInteger(), 0);
        QCOMPARE(d1.value(QStringLiteral("unchanged")).toInteger(), 2);
        const QJsonObject d2 = findPartition(parts, QStringLiteral("2026-03-02"));
        QCOMPARE(d2.value(QStringLiteral("inserted")).toInteger(), 1);
        QCOMPARE(d2.value(QStringLiteral("updated")).toInteger(), 1); // 30.20 -> 30.25
        QCOMPARE(d2.value(QStringLiteral("unchanged")).toInteger(), 0);
        // Samples show the values: the instant in UTC, the date as a date.
        const QJsonObject sampled =
            json({QStringLiteral("preview"), QStringLiteral("--dataset"),
                  QStringLiteral("fact_sales"), QStringLiteral("--partition"),
                  QStringLiteral("2026-03-02"), QStringLiteral("--samples"), QStringLiteral("5")});
        const QJsonObject samples = sampled.value(QStringLiteral("partitions"))
                                        .toArray()
                                        .at(0)
                                        .toObject()
                                        .value(QStringLiteral("samples"))
                                        .toObject();
        const QJsonObject inserted =
            samples.value(QStringLiteral("inserted")).toArray().at(0).toObject();
        QCOMPARE(inserted.value(QStringLiteral("dt")).toString(), QStringLiteral("2026-03-02"));
        QCOMPARE(inserted.value(QStringLiteral("amount")).toDouble(), 40.0);
        const QString updatedAt = inserted.value(QStringLiteral("updated_at")).toString();
        QVERIFY2(updatedAt == QLatin1String("2026-03-02T10:00:00Z") ||
                     updatedAt == QLatin1String("2026-03-02 10:00:00+00"),
                 qPrintable(updatedAt));
        const QJsonObject before = samples.value(QStringLiteral("updated"))
                                       .toArray()
                                       .at(0)
                                       .toObject()
                                       .value(QStringLiteral("before"))
                                       .toObject();
        QCOMPARE(before.value(QStringLiteral("amount")).toDouble(), 30.2);
        // Nothing written by a preview.
        QCOMPARE(scalar(QStringLiteral("SELECT COUNT(*) FROM fact_sales")), 3);
    }

    // One day, then a --from/--to range: the target holds the source's values,
    // a re-run changes nothing, and rollback puts the day back.
    void runDayAndRange() {
        fresh();
        const QJsonObject one = json({QStringLiteral("run"), QStringLiteral("--dataset"),
                                      QStringLiteral("fact_sales"), QStringLiteral("--partition"),
                                      QStringLiteral("2026-03-02"), QStringLiteral("--execute")});
        QCOMPARE(one.value(QStringLiteral("status")).toString(), QStringLiteral("succeeded"));
        const QJsonObject t1 = one.value(QStringLiteral("totals")).toObject();
        QCOMPARE(t1.value(QStringLiteral("inserted")).toInteger(), 1);
        QCOMPARE(t1.value(QStringLiteral("updated")).toInteger(), 1);
        QCOMPARE(scalar(QStringLiteral(
                     "SELECT COUNT(*) FROM fact_sales WHERE order_id = 3 AND amount = 30.25")),
                 1);
        QCOMPARE(scalar(QStringLiteral("SELECT COUNT(*) FROM fact_sales WHERE dt = '2026-03-02'")),
                 2);
        for (const auto &c : one.value(QStringLiteral("checks")).toArray())
            QVERIFY2(c.toObject().value(QStringLiteral("passed")).toBool(),
                     qPrintable(c.toObject().value(QStringLiteral("detail")).toString()));
        const qint64 firstRun = one.value(QStringLiteral("run_id")).toInteger();

        const QJsonObject range =
            json({QStringLiteral("run"), QStringLiteral("--dataset"), QStringLiteral("fact_sales"),
                  QStringLiteral("--from"), QStringLiteral("2026-03-01"), QStringLiteral("--to"),
                  QStringLiteral("2026-03-03"), QStringLiteral("--execute")});
        QCOMPARE(range.value(QStringLiteral("status")).toString(), QStringLiteral("succeeded"));
        QCOMPARE(partitionValues(range.value(QStringLiteral("partitions")).toArray()),
                 (QStringList{QStringLiteral("2026-03-01"), QStringLiteral("2026-03-02"),
                              QStringLiteral("2026-03-03")}));
        const QJsonObject t2 = range.value(QStringLiteral("totals")).toObject();
        QCOMPARE(t2.value(QStringLiteral("inserted")).toInteger(), 1); // order 5 on 2026-03-03
        QCOMPARE(t2.value(QStringLiteral("updated")).toInteger(), 0);
        QCOMPARE(t2.value(QStringLiteral("unchanged")).toInteger(), 4);
        QCOMPARE(scalar(QStringLiteral("SELECT COUNT(*) FROM fact_sales")), 5);
        QCOMPARE(scalar(QStringLiteral(
                     "SELECT COUNT(*) FROM fact_sales WHERE dt = '2026-03-03' AND amount = 50.10")),
                 1);

        // Every day published and up to date.
        const QJsonArray parts = json({QStringLiteral("partitions"), QStringLiteral("--dataset"),
                                       QStringLiteral("fact_sales")})
                                     .value(QStringLiteral("partitions"))
                                     .toArray();
        for (const auto &p : parts) {
            const QString status = p.toObject().value(QStringLiteral("status")).toString();
            QVERIFY2(status == QLatin1String("provisional"),
                     qPrintable(p.toObject().value(QStringLiteral("partition")).toString() % u' ' %
                                status));
        }

        // Rolling back the range run takes 2026-03-03 out again; the first run
        // then rolls back to 30.20.
        const QJsonObject rb =
            json({QStringLiteral("rollback"), QStringLiteral("--run"),
                  QString::number(range.value(QStringLiteral("run_id")).toInteger()),
                  QStringLiteral("--execute")});
        Q_UNUSED(rb);
        QCOMPARE(scalar(QStringLiteral("SELECT COUNT(*) FROM fact_sales WHERE dt = '2026-03-03'")),
                 0);
        json({QStringLiteral("rollback"), QStringLiteral("--run"), QString::number(firstRun),
              QStringLiteral("--execute")});
        QCOMPARE(scalar(QStringLiteral(
                     "SELECT COUNT(*) FROM fact_sales WHERE order_id = 3 AND amount = 30.20")),
                 1);
        QCOMPARE(scalar(QStringLiteral("SELECT COUNT(*) FROM fact_sales")), 3);

        const QJsonObject audit = json({QStringLiteral("audit")});
        QVERIFY(!audit.isEmpty());
    }

    // A first run creates the target with the source's types; overwrite
    // deletes what the source no longer has; the dedupe keeps the latest
    // instant, not the latest text.
    void firstRunCreatesTypedTarget() {
        fresh();
        // Two versions of order 6 whose text order disagrees with their instants.
        QVERIFY(m_db->exec(
            QStringLiteral("INSERT INTO raw_sales VALUES "
                           "(6, 'f', '2026-03-03', 1.00, '2026-03-03 23:00:00+05', NULL, NULL),"
                           "(6, 'f', '2026-03-03', 2.00, '2026-03-03 20:00:00+00', NULL, NULL)")));
        const QJsonObject run = json({QStringLiteral("run"), QStringLiteral("--dataset"),
                                      QStringLiteral("fact_new"), QStringLiteral("--execute")});
        QCOMPARE(run.value(QStringLiteral("status")).toString(), QStringLiteral("succeeded"));
        QCOMPARE(run.value(QStringLiteral("totals"))
                     .toObject()
                     .value(QStringLiteral("inserted"))
                     .toInteger(),
                 6);
        QCOMPARE(scalar(QStringLiteral("SELECT COUNT(*) FROM fact_new")), 6);
        QCOMPARE(scalar(QStringLiteral("SELECT COUNT(*) FROM fact_new WHERE dt = '2026-03-01'")),
                 2);
        if (testsupport::onPostgres()) {
            QCOMPARE(columnType(QStringLiteral("fact_new"), QStringLiteral("dt")),
                     QStringLiteral("date"));
            QCOMPARE(columnType(QStringLiteral("fact_new"), QStringLiteral("amount")),
                     QStringLiteral("numeric(12,2)"));
            QCOMPARE(columnType(QStringLiteral("fact_new"), QStringLiteral("updated_at")),
                     QStringLiteral("timestamp with time zone"));
            QCOMPARE(columnType(QStringLiteral("fact_new"), QStringLiteral("order_id")),
                     QStringLiteral("bigint"));
            QCOMPARE(columnType(QStringLiteral("fact_new"), QStringLiteral("item_id")),
                     QStringLiteral("text"));
            // 20:00Z is later than 23:00+05 (18:00Z).
            QCOMPARE(scalar(QStringLiteral(
                         "SELECT COUNT(*) FROM fact_new WHERE order_id = 6 AND amount = 2")),
                     1);
        }
        // Again: nothing changes.
        const QJsonObject again = json({QStringLiteral("run"), QStringLiteral("--dataset"),
                                        QStringLiteral("fact_new"), QStringLiteral("--execute")});
        const QJsonObject t = again.value(QStringLiteral("totals")).toObject();
        QCOMPARE(t.value(QStringLiteral("inserted")).toInteger(), 0);
        QCOMPARE(t.value(QStringLiteral("updated")).toInteger(), 0);
        QCOMPARE(t.value(QStringLiteral("deleted")).toInteger(), 0);
        QCOMPARE(t.value(QStringLiteral("unchanged")).toInteger(), 6);

        // A row leaves the source: the day is stale, and overwriting it deletes the row.
        QVERIFY(m_db->exec(QStringLiteral("DELETE FROM raw_sales WHERE order_id = 4")));
        const QJsonArray parts = json({QStringLiteral("partitions"), QStringLiteral("--dataset"),
                                       QStringLiteral("fact_new")})
                                     .value(QStringLiteral("partitions"))
                                     .toArray();
        QCOMPARE(findPartition(parts, QStringLiteral("2026-03-02"))
                     .value(QStringLiteral("status"))
                     .toString(),
                 QStringLiteral("stale"));
        QCOMPARE(findPartition(parts, QStringLiteral("2026-03-01"))
                     .value(QStringLiteral("status"))
                     .toString(),
                 QStringLiteral("loaded"));
        const QJsonObject stale =
            json({QStringLiteral("run"), QStringLiteral("--dataset"), QStringLiteral("fact_new"),
                  QStringLiteral("--stale"), QStringLiteral("--execute")});
        QCOMPARE(partitionValues(stale.value(QStringLiteral("partitions")).toArray()),
                 QStringList{QStringLiteral("2026-03-02")});
        QCOMPARE(stale.value(QStringLiteral("totals"))
                     .toObject()
                     .value(QStringLiteral("deleted"))
                     .toInteger(),
                 1);
        QCOMPARE(scalar(QStringLiteral("SELECT COUNT(*) FROM fact_new WHERE dt = '2026-03-02'")),
                 1);
    }

    // The total gate sums numeric amounts: equal sums pass, doubled ones fail
    // (exit 3) and publish nothing.
    void totalGateOnNumeric() {
        fresh();
        const QJsonObject failed = json({QStringLiteral("run"), QStringLiteral("--dataset"),
                                         QStringLiteral("doubled"), QStringLiteral("--partition"),
                                         QStringLiteral("2026-03-02"), QStringLiteral("--execute")},
                                        3);
        bool sawTotal = false;
        for (const auto &c : failed.value(QStringLiteral("checks")).toArray())
            if (c.toObject()
                    .value(QStringLiteral("name"))
                    .toString()
                    .contains(QLatin1String("total"))) {
                sawTotal = true;
                QVERIFY(!c.toObject().value(QStringLiteral("passed")).toBool());
            }
        QVERIFY(sawTotal);
        // Nothing published: the target the first run would have created is not there, or empty.
        auto exists = m_db->hasRelation(QStringLiteral("doubled"));
        QVERIFY(exists);
        if (*exists)
            QCOMPARE(scalar(QStringLiteral("SELECT COUNT(*) FROM doubled")), 0);
        // The same gate passes on the untouched amounts (sums like 31.00 = 10.50 + 20.00 + ...).
        const QJsonObject passed = json({QStringLiteral("run"), QStringLiteral("--dataset"),
                                         QStringLiteral("fact_new"), QStringLiteral("--execute")});
        for (const auto &c : passed.value(QStringLiteral("checks")).toArray())
            QVERIFY2(c.toObject().value(QStringLiteral("passed")).toBool(),
                     qPrintable(c.toObject().value(QStringLiteral("detail")).toString()));
    }

    // Lateness from timestamptz event and ingest times.
    void lagAndFinalize() {
        fresh();
        const QJsonObject lag = json(
            {QStringLiteral("lag"), QStringLiteral("--dataset"), QStringLiteral("fact_sales")});
        QCOMPARE(lag.value(QStringLiteral("count")).toInteger(), 6);
        const QJsonObject pct = lag.value(QStringLiteral("percentiles_seconds")).toObject();
        // Latenesses: 300, 1800, 10800, 60, 600, 10800 seconds.
        QCOMPARE(pct.value(QStringLiteral("max")).toDouble(), 10800.0);
        QCOMPARE(pct.value(QStringLiteral("p50")).toDouble(), 600.0);
        QCOMPARE(lag.value(QStringLiteral("allowed_lateness_seconds")).toDouble(), 7200.0);
        QCOMPARE(lag.value(QStringLiteral("late_fraction")).toDouble(), 2.0 / 6.0);
        const QJsonObject day =
            json({QStringLiteral("lag"), QStringLiteral("--dataset"), QStringLiteral("fact_sales"),
                  QStringLiteral("--from"), QStringLiteral("2026-03-02"), QStringLiteral("--to"),
                  QStringLiteral("2026-03-02")});
        QCOMPARE(day.value(QStringLiteral("count")).toInteger(), 2);
        QCOMPARE(day.value(QStringLiteral("percentiles_seconds"))
                     .toObject()
                     .value(QStringLiteral("max"))
                     .toDouble(),
                 600.0);

        // Watermark: 2026-03-03T22:00Z - 2h; the first two days are final.
        const QJsonObject dry = json({QStringLiteral("finalize"), QStringLiteral("--dataset"),
                                      QStringLiteral("fact_sales")});
        QVERIFY2(dry.value(QStringLiteral("watermark"))
                     .toString()
                     .startsWith(QLatin1String("2026-03-03T20:00:00")),
                 qPrintable(dry.value(QStringLiteral("watermark")).toString()));
        QCOMPARE(dry.value(QStringLiteral("finalized")).toArray().toVariantList(),
                 (QVariantList{QStringLiteral("2026-03-01"), QStringLiteral("2026-03-02")}));
        QCOMPARE(dry.value(QStringLiteral("provisional")).toArray().toVariantList(),
                 QVariantList{QStringLiteral("2026-03-03")});
        const QJsonObject done = json({QStringLiteral("finalize"), QStringLiteral("--dataset"),
                                       QStringLiteral("fact_sales"), QStringLiteral("--execute")});
        QCOMPARE(done.value(QStringLiteral("finalized")).toArray().size(), 2);
        const QJsonArray parts = json({QStringLiteral("partitions"), QStringLiteral("--dataset"),
                                       QStringLiteral("fact_sales")})
                                     .value(QStringLiteral("partitions"))
                                     .toArray();
        QCOMPARE(findPartition(parts, QStringLiteral("2026-03-01"))
                     .value(QStringLiteral("status"))
                     .toString(),
                 QStringLiteral("final"));
        QCOMPARE(findPartition(parts, QStringLiteral("2026-03-02"))
                     .value(QStringLiteral("status"))
                     .toString(),
                 QStringLiteral("final"));
        QCOMPARE(findPartition(parts, QStringLiteral("2026-03-03"))
                     .value(QStringLiteral("status"))
                     .toString(),
                 QStringLiteral("unloaded"));
        QCOMPARE(scalar(QStringLiteral(
                     "SELECT COUNT(*) FROM fact_sales WHERE dt = '2026-03-02' AND amount = 30.25")),
                 1);
    }

    // scd2 by a date effective partition: versions keep date bounds; a re-run changes nothing.
    void scd2ByDate() {
        fresh();
        const QJsonObject run = json({QStringLiteral("run"), QStringLiteral("--dataset"),
                                      QStringLiteral("dim_customer"), QStringLiteral("--execute")});
        QCOMPARE(run.value(QStringLiteral("status")).toString(), QStringLiteral("succeeded"));
        QCOMPARE(partitionValues(run.value(QStringLiteral("partitions")).toArray()),
                 (QStringList{QStringLiteral("2026-01-01"), QStringLiteral("2026-02-01")}));
        QCOMPARE(scalar(QStringLiteral("SELECT COUNT(*) FROM dim_customer")), 3);
        QCOMPARE(scalar(QStringLiteral("SELECT COUNT(*) FROM dim_customer WHERE customer_id = 1 "
                                       "AND tier = 'gold' AND effective_to = '2026-02-01' "
                                       "AND is_current = 0")),
                 1);
        QCOMPARE(
            scalar(QStringLiteral(
                "SELECT COUNT(*) FROM dim_customer WHERE customer_id = 1 AND tier = 'platinum' "
                "AND effective_from = '2026-02-01' AND effective_to IS NULL AND is_current = 1")),
            1);
        QCOMPARE(scalar(QStringLiteral("SELECT COUNT(*) FROM dim_customer WHERE customer_id = 2 "
                                       "AND is_current = 1 AND effective_from = '2026-01-01'")),
                 1);
        if (testsupport::onPostgres()) {
            QCOMPARE(columnType(QStringLiteral("dim_customer"), QStringLiteral("effective_from")),
                     QStringLiteral("date"));
            QCOMPARE(columnType(QStringLiteral("dim_customer"), QStringLiteral("effective_to")),
                     QStringLiteral("date"));
        }
        const QJsonObject again =
            json({QStringLiteral("run"), QStringLiteral("--dataset"),
                  QStringLiteral("dim_customer"), QStringLiteral("--execute")});
        const QJsonObject t = again.value(QStringLiteral("totals")).toObject();
        QCOMPARE(t.value(QStringLiteral("inserted")).toInteger(), 0);
        QCOMPARE(t.value(QStringLiteral("updated")).toInteger(), 0);
        QCOMPARE(t.value(QStringLiteral("deleted")).toInteger(), 0);
        QCOMPARE(scalar(QStringLiteral("SELECT COUNT(*) FROM dim_customer")), 3);

        // A later change on a new day, run by range.
        QVERIFY(m_db->exec(QStringLiteral("INSERT INTO raw_customers VALUES (2, 'gold', "
                                          "'2026-03-01', '2026-03-01 08:00:00+00')")));
        const QJsonObject later = json({QStringLiteral("run"), QStringLiteral("--dataset"),
                                        QStringLiteral("dim_customer"), QStringLiteral("--from"),
                                        QStringLiteral("2026-03-01"), QStringLiteral("--to"),
                                        QStringLiteral("2026-03-31"), QStringLiteral("--execute")});
        QCOMPARE(partitionValues(later.value(QStringLiteral("partitions")).toArray()),
                 QStringList{QStringLiteral("2026-03-01")});
        QCOMPARE(scalar(QStringLiteral("SELECT COUNT(*) FROM dim_customer WHERE customer_id = 2 "
                                       "AND tier = 'silver' AND effective_to = '2026-03-01'")),
                 1);
        QCOMPARE(scalar(QStringLiteral("SELECT COUNT(*) FROM dim_customer WHERE is_current = 1")),
                 2);
        // Rolled back: the silver version is current again.
        json({QStringLiteral("rollback"), QStringLiteral("--run"),
              QString::number(later.value(QStringLiteral("run_id")).toInteger()),
              QStringLiteral("--execute")});
        QCOMPARE(scalar(QStringLiteral("SELECT COUNT(*) FROM dim_customer WHERE customer_id = 2 "
                                       "AND tier = 'silver' AND is_current = 1 "
                                       "AND effective_to IS NULL")),
                 1);
        QCOMPARE(scalar(QStringLiteral("SELECT COUNT(*) FROM dim_customer")), 3);
    }

    // A dimension made beforehand with a boolean current flag.
    void scd2BooleanCurrent() {
        fresh();
        const QJsonObject run = json({QStringLiteral("run"), QStringLiteral("--dataset"),
                                      QStringLiteral("dim_bool"), QStringLiteral("--execute")});
        QCOMPARE(run.value(QStringLiteral("status")).toString(), QStringLiteral("succeeded"));
        QCOMPARE(scalar(QStringLiteral("SELECT COUNT(*) FROM dim_bool")), 3);
        QCOMPARE(scalar(QStringLiteral("SELECT COUNT(*) FROM dim_bool WHERE customer_id = 1 AND "
                                       "tier = 'gold' AND effective_to = '2026-02-01' "
                                       "AND is_current = false")),
                 1);
        QCOMPARE(
            scalar(QStringLiteral(
                "SELECT COUNT(*) FROM dim_bool WHERE is_current = true AND effective_to IS NULL")),
            2);
        const QJsonArray parts = json({QStringLiteral("partitions"), QStringLiteral("--dataset"),
                                       QStringLiteral("dim_bool")})
                                     .value(QStringLiteral("partitions"))
                                     .toArray();
        for (const auto &p : parts)
            QCOMPARE(p.toObject().value(QStringLiteral("duplicate_keys")).toInteger(), 0);
        QCOMPARE(json({QStringLiteral("duplicates"), QStringLiteral("--dataset"),
                       QStringLiteral("dim_bool")})
                     .value(QStringLiteral("duplicate_keys"))
                     .toInteger(),
                 0);
        QVERIFY(m_db->exec(QStringLiteral("INSERT INTO raw_customers VALUES (2, 'gold', "
                                          "'2026-03-01', '2026-03-01 08:00:00+00')")));
        const QJsonObject later = json({QStringLiteral("run"), QStringLiteral("--dataset"),
                                        QStringLiteral("dim_bool"), QStringLiteral("--partition"),
                                        QStringLiteral("2026-03-01"), QStringLiteral("--execute")});
        QCOMPARE(scalar(QStringLiteral("SELECT COUNT(*) FROM dim_bool WHERE customer_id = 2 AND "
                                       "tier = 'silver' AND is_current = false "
                                       "AND effective_to = '2026-03-01'")),
                 1);
        json({QStringLiteral("rollback"), QStringLiteral("--run"),
              QString::number(later.value(QStringLiteral("run_id")).toInteger()),
              QStringLiteral("--execute")});
        QCOMPARE(scalar(QStringLiteral("SELECT COUNT(*) FROM dim_bool WHERE customer_id = 2 AND "
                                       "is_current = true AND effective_to IS NULL")),
                 1);
        QCOMPARE(scalar(QStringLiteral("SELECT COUNT(*) FROM dim_bool")), 3);
    }

    // A key of a date and a numeric: 10.5 and 10.50 are the same key.
    void dateAndNumericKey() {
        fresh();
        const QJsonObject preview = json(
            {QStringLiteral("preview"), QStringLiteral("--dataset"), QStringLiteral("prices")});
        const QJsonArray parts = preview.value(QStringLiteral("partitions")).toArray();
        QCOMPARE(parts.size(), 1);
        QVERIFY(parts.at(0).toObject().value(QStringLiteral("partition")).isNull());
        const QJsonObject t = preview.value(QStringLiteral("totals")).toObject();
        QCOMPARE(t.value(QStringLiteral("inserted")).toInteger(), 2);
        QCOMPARE(t.value(QStringLiteral("unchanged")).toInteger(), 1);
        const QJsonObject run = json({QStringLiteral("run"), QStringLiteral("--dataset"),
                                      QStringLiteral("prices"), QStringLiteral("--execute")});
        QCOMPARE(run.value(QStringLiteral("totals"))
                     .toObject()
                     .value(QStringLiteral("inserted"))
                     .toInteger(),
                 2);
        QCOMPARE(scalar(QStringLiteral("SELECT COUNT(*) FROM prices")), 4);
        QCOMPARE(
            scalar(QStringLiteral("SELECT COUNT(*) FROM prices WHERE sku = 'x' AND price = 10.5")),
            2);
        const QJsonObject dups = json(
            {QStringLiteral("duplicates"), QStringLiteral("--dataset"), QStringLiteral("prices")});
        QCOMPARE(dups.value(QStringLiteral("duplicate_keys")).toInteger(), 0);
    }

    // Partitions by a timestamptz column. PostgreSQL labels the instant as
    // samples show it, in ISO-8601 UTC with a Z (this process's zone is New
    // York); SQLite keeps the text as written. Either way --partition,
    // --from and --to take the instant in any spelling, and refuse one that
    // is no timestamp (exit 2, naming it).
    void instantPartitions() {
        fresh();
        const bool pg = testsupport::onPostgres();
        const QStringList labels = pg ? QStringList{QStringLiteral("2026-03-01T10:00:00Z"),
                                                    QStringLiteral("2026-03-01T11:00:00Z"),
                                                    QStringLiteral("2026-03-02T10:00:00Z"),
                                                    QStringLiteral("2026-03-03T10:00:00Z")}
                                      : QStringList{QStringLiteral("2026-03-01 10:00:00+00"),
                                                    QStringLiteral("2026-03-01 11:00:00+00"),
                                                    QStringLiteral("2026-03-02 10:00:00+00"),
                                                    QStringLiteral("2026-03-03 10:00:00+00")};
        const QJsonArray parts = json({QStringLiteral("partitions"), QStringLiteral("--dataset"),
                                       QStringLiteral("by_instant")})
                                     .value(QStringLiteral("partitions"))
                                     .toArray();
        QCOMPARE(partitionValues(parts), labels);
        const QString first = labels.at(0);
        QCOMPARE(parts.at(0).toObject().value(QStringLiteral("source_rows")).toInteger(), 2);

        // One instant, five spellings (epoch seconds too): each previews that one partition.
        for (const QString &spelling :
             {QStringLiteral("2026-03-01T10:00:00Z"), QStringLiteral("2026-03-01T11:00:00+01:00"),
              QStringLiteral("2026-03-01 10:00:00+00"), QStringLiteral("2026-03-01T05:00:00-05:00"),
              QStringLiteral("1772359200")}) {
            const QJsonArray previewed =
                json({QStringLiteral("preview"), QStringLiteral("--dataset"),
                      QStringLiteral("by_instant"), QStringLiteral("--partition"), spelling})
                    .value(QStringLiteral("partitions"))
                    .toArray();
            QVERIFY2(previewed.size() == 1, qPrintable(spelling));
            QCOMPARE(previewed.at(0).toObject().value(QStringLiteral("partition")).toString(),
                     first);
            QCOMPARE(previewed.at(0).toObject().value(QStringLiteral("inserted")).toInteger(), 2);
        }

        const QJsonObject run =
            json({QStringLiteral("run"), QStringLiteral("--dataset"), QStringLiteral("by_instant"),
                  QStringLiteral("--partition"), QStringLiteral("2026-03-01T11:00:00+01:00"),
                  QStringLiteral("--execute")});
        QCOMPARE(run.value(QStringLiteral("status")).toString(), QStringLiteral("succeeded"));
        QCOMPARE(partitionValues(run.value(QStringLiteral("partitions")).toArray()),
                 QStringList{first});
        QCOMPARE(run.value(QStringLiteral("totals"))
                     .toObject()
                     .value(QStringLiteral("inserted"))
                     .toInteger(),
                 2);
        QCOMPARE(run.value(QStringLiteral("partitions"))
                     .toArray()
                     .at(0)
                     .toObject()
                     .value(QStringLiteral("source_rows"))
                     .toInteger(),
                 2);
        QCOMPARE(scalar(QStringLiteral("SELECT COUNT(*) FROM by_instant")), 2);

        // A range by ISO ends, one of them at another offset.
        const QJsonObject range =
            json({QStringLiteral("run"), QStringLiteral("--dataset"), QStringLiteral("by_instant"),
                  QStringLiteral("--from"), QStringLiteral("2026-03-01T10:00:00Z"),
                  QStringLiteral("--to"), QStringLiteral("2026-03-02T11:00:00+01:00"),
                  QStringLiteral("--execute")});
        QCOMPARE(partitionValues(range.value(QStringLiteral("partitions")).toArray()),
                 labels.mid(0, 3));
        QCOMPARE(range.value(QStringLiteral("totals"))
                     .toObject()
                     .value(QStringLiteral("unchanged"))
                     .toInteger(),
                 2);
        QCOMPARE(range.value(QStringLiteral("totals"))
                     .toObject()
                     .value(QStringLiteral("inserted"))
                     .toInteger(),
                 3);
        QCOMPARE(scalar(QStringLiteral("SELECT COUNT(*) FROM by_instant")), 5);
        const QJsonArray after = json({QStringLiteral("partitions"), QStringLiteral("--dataset"),
                                       QStringLiteral("by_instant")})
                                     .value(QStringLiteral("partitions"))
                                     .toArray();
        QCOMPARE(partitionValues(after), labels);
        QCOMPARE(findPartition(after, first).value(QStringLiteral("status")).toString(),
                 QStringLiteral("loaded"));
        QCOMPARE(findPartition(after, first).value(QStringLiteral("target_rows")).toInteger(), 2);
        QCOMPARE(findPartition(after, labels.at(2)).value(QStringLiteral("status")).toString(),
                 QStringLiteral("loaded"));
        QCOMPARE(findPartition(after, labels.at(3)).value(QStringLiteral("status")).toString(),
                 QStringLiteral("unloaded"));

        // Rolled back by the labels the run recorded: the range's three rows go.
        const QJsonObject rb =
            json({QStringLiteral("rollback"), QStringLiteral("--run"),
                  QString::number(range.value(QStringLiteral("run_id")).toInteger()),
                  QStringLiteral("--execute")});
        QVERIFY2(rb.value(QStringLiteral("executed")).toBool(),
                 qPrintable(QString::fromUtf8(QJsonDocument(rb).toJson())));
        QCOMPARE(scalar(QStringLiteral("SELECT COUNT(*) FROM by_instant")), 2);

        // No timestamp: refused, naming it; nothing written.
        for (const QStringList &bad :
             {QStringList{QStringLiteral("--partition"), QStringLiteral("2026-03-01T25:00:00Z")},
              QStringList{QStringLiteral("--partition"), QStringLiteral("yesterday noon")},
              QStringList{QStringLiteral("--from"), QStringLiteral("2026-02-30T10:00:00Z"),
                          QStringLiteral("--to"), QStringLiteral("2026-03-02T10:00:00Z")}}) {
            for (const QStringList &command :
                 {QStringList{QStringLiteral("preview")},
                  QStringList{QStringLiteral("run"), QStringLiteral("--execute")}}) {
                const auto r =
                    cli(command +
                        QStringList{QStringLiteral("--dataset"), QStringLiteral("by_instant"),
                                    QStringLiteral("--json")} +
                        bad);
                QCOMPARE(r.exitCode, 2);
                QVERIFY2(r.err.contains(bad.at(1)), qPrintable(r.err));
            }
        }
        QCOMPARE(scalar(QStringLiteral("SELECT COUNT(*) FROM by_instant")), 2);
    }

    // A timestamp partition at infinity is labelled "infinity" on both
    // engines (no zone is appended to it), and selected by that label.
    void infiniteInstantPartitions() {
        fresh();
        QVERIFY(m_db->exec(QStringLiteral("INSERT INTO raw_sales VALUES (8, 'h', '2026-03-04', "
                                          "1.00, 'infinity', '2026-03-04 10:00:00+00', "
                                          "'2026-03-04 10:00:00+00'), (9, 'i', '2026-03-04', 2.00, "
                                          "'-infinity', '2026-03-04 10:00:00+00', "
                                          "'2026-03-04 10:00:00+00')")));
        const QStringList labels =
            partitionValues(json({QStringLiteral("partitions"), QStringLiteral("--dataset"),
                                  QStringLiteral("by_instant")})
                                .value(QStringLiteral("partitions"))
                                .toArray());
        QVERIFY2(labels.contains(QStringLiteral("infinity")) &&
                     labels.contains(QStringLiteral("-infinity")),
                 qPrintable(labels.join(u' ')));
        for (const QString &label : {QStringLiteral("infinity"), QStringLiteral("-infinity")}) {
            const QJsonObject run = json(
                {QStringLiteral("run"), QStringLiteral("--dataset"), QStringLiteral("by_instant"),
                 QStringLiteral("--partition"), label, QStringLiteral("--execute")});
            QCOMPARE(partitionValues(run.value(QStringLiteral("partitions")).toArray()),
                     QStringList{label});
            QCOMPARE(run.value(QStringLiteral("totals"))
                         .toObject()
                         .value(QStringLiteral("inserted"))
                         .toInteger(),
                     1);
        }
        QCOMPARE(scalar(QStringLiteral("SELECT COUNT(*) FROM by_instant")), 2);
        QCOMPARE(scalar(QStringLiteral("SELECT COUNT(*) FROM by_instant WHERE order_id IN (8, 9)")),
                 2);
    }

    // Partitions by a timestamp without zone: PostgreSQL labels them in
    // ISO-8601 with a T and no zone, SQLite as written; the other spelling
    // is taken too.
    void wallClockPartitions() {
        fresh();
        const bool pg = testsupport::onPostgres();
        const QStringList labels = pg ? QStringList{QStringLiteral("2026-03-01T10:00:00"),
                                                    QStringLiteral("2026-03-02T08:30:00")}
                                      : QStringList{QStringLiteral("2026-03-01 10:00:00"),
                                                    QStringLiteral("2026-03-02 08:30:00")};
        QCOMPARE(partitionValues(json({QStringLiteral("partitions"), QStringLiteral("--dataset"),
                                       QStringLiteral("by_wall")})
                                     .value(QStringLiteral("partitions"))
                                     .toArray()),
                 labels);
        for (const QString &spelling :
             {QStringLiteral("2026-03-01T10:00:00"), QStringLiteral("2026-03-01 10:00:00")}) {
            const QJsonObject run =
                json({QStringLiteral("run"), QStringLiteral("--dataset"), QStringLiteral("by_wall"),
                      QStringLiteral("--partition"), spelling, QStringLiteral("--execute")});
            QCOMPARE(partitionValues(run.value(QStringLiteral("partitions")).toArray()),
                     QStringList{labels.at(0)});
        }
        QCOMPARE(scalar(QStringLiteral("SELECT COUNT(*) FROM by_wall")), 2);
        QCOMPARE(findPartition(json({QStringLiteral("partitions"), QStringLiteral("--dataset"),
                                     QStringLiteral("by_wall")})
                                   .value(QStringLiteral("partitions"))
                                   .toArray(),
                               labels.at(0))
                     .value(QStringLiteral("status"))
                     .toString(),
                 QStringLiteral("loaded"));
    }

    // Text in the source, real types in a target made beforehand: the
    // source's values are read as the target's types.
    void textSourceTypedTarget() {
        fresh();
        const QJsonArray parts = json({QStringLiteral("partitions"), QStringLiteral("--dataset"),
                                       QStringLiteral("from_text")})
                                     .value(QStringLiteral("partitions"))
                                     .toArray();
        QCOMPARE(partitionValues(parts),
                 (QStringList{QStringLiteral("2026-03-01"), QStringLiteral("2026-03-02")}));
        QCOMPARE(findPartition(parts, QStringLiteral("2026-03-01"))
                     .value(QStringLiteral("target_rows"))
                     .toInteger(),
                 1);
        const QJsonObject preview = json(
            {QStringLiteral("preview"), QStringLiteral("--dataset"), QStringLiteral("from_text")});
        const QJsonObject d1 = findPartition(preview.value(QStringLiteral("partitions")).toArray(),
                                             QStringLiteral("2026-03-01"));
        QCOMPARE(d1.value(QStringLiteral("inserted")).toInteger(), 1);
        QCOMPARE(d1.value(QStringLiteral("unchanged")).toInteger(), 1); // '10.5' is 10.50
        const QJsonObject run =
            json({QStringLiteral("run"), QStringLiteral("--dataset"), QStringLiteral("from_text"),
                  QStringLiteral("--from"), QStringLiteral("2026-03-01"), QStringLiteral("--to"),
                  QStringLiteral("2026-03-02"), QStringLiteral("--execute")});
        QCOMPARE(run.value(QStringLiteral("status")).toString(), QStringLiteral("succeeded"));
        QCOMPARE(run.value(QStringLiteral("totals"))
                     .toObject()
                     .value(QStringLiteral("inserted"))
                     .toInteger(),
                 2);
        QCOMPARE(run.value(QStringLiteral("totals"))
                     .toObject()
                     .value(QStringLiteral("duplicates_dropped"))
                     .toInteger(),
                 1);
        for (const auto &c : run.value(QStringLiteral("checks")).toArray())
            QVERIFY2(c.toObject().value(QStringLiteral("passed")).toBool(),
                     qPrintable(c.toObject().value(QStringLiteral("detail")).toString()));
        QCOMPARE(scalar(QStringLiteral("SELECT COUNT(*) FROM typed_sales")), 3);
        QCOMPARE(scalar(QStringLiteral("SELECT COUNT(*) FROM typed_sales WHERE order_id = 3 AND "
                                       "amount = 5.25 AND dt = '2026-03-02'")),
                 1);
        const QJsonObject again = json({QStringLiteral("run"), QStringLiteral("--dataset"),
                                        QStringLiteral("from_text"), QStringLiteral("--execute")});
        QCOMPARE(again.value(QStringLiteral("totals"))
                     .toObject()
                     .value(QStringLiteral("unchanged"))
                     .toInteger(),
                 3);
        QCOMPARE(again.value(QStringLiteral("totals"))
                     .toObject()
                     .value(QStringLiteral("inserted"))
                     .toInteger(),
                 0);
        QCOMPARE(again.value(QStringLiteral("totals"))
                     .toObject()
                     .value(QStringLiteral("updated"))
                     .toInteger(),
                 0);
    }

    // A row without an amount goes to the DLQ with its typed values; fixed
    // and replayed, it lands in the target with its types.
    void quarantineAndReplay() {
        fresh();
        QVERIFY(m_db->exec(QStringLiteral(
            "INSERT INTO raw_sales VALUES (7, 'g', '2026-03-02', NULL, '2026-03-02 11:00:00+00', "
            "'2026-03-02 10:00:00+00', '2026-03-02 10:30:00+00')")));
        const QJsonObject run = json({QStringLiteral("run"), QStringLiteral("--dataset"),
                                      QStringLiteral("quarantined"), QStringLiteral("--partition"),
                                      QStringLiteral("2026-03-02"), QStringLiteral("--execute")});
        QCOMPARE(run.value(QStringLiteral("status")).toString(), QStringLiteral("succeeded"));
        QCOMPARE(scalar(QStringLiteral("SELECT COUNT(*) FROM q_sales")), 2);
        const QJsonArray records = json({QStringLiteral("dlq"), QStringLiteral("list")})
                                       .value(QStringLiteral("records"))
                                       .toArray();
        QCOMPARE(records.size(), 1);
        const QString id =
            QString::number(records.at(0).toObject().value(QStringLiteral("id")).toInteger());
        json({QStringLiteral("dlq"), QStringLiteral("fix"), QStringLiteral("--id"), id,
              QStringLiteral("--set"), QStringLiteral("$.amount=12.5"),
              QStringLiteral("--execute")});
        const QJsonObject replayed =
            json({QStringLiteral("dlq"), QStringLiteral("replay"), QStringLiteral("--id"), id,
                  QStringLiteral("--execute")});
        QCOMPARE(replayed.value(QStringLiteral("replayed")).toInteger(), 1);
        QCOMPARE(scalar(QStringLiteral("SELECT COUNT(*) FROM q_sales WHERE order_id = 7 AND amount "
                                       "= 12.50 AND dt = '2026-03-02' "
                                       "AND updated_at IS NOT NULL")),
                 1);
        QCOMPARE(scalar(QStringLiteral("SELECT COUNT(*) FROM q_sales")), 3);
    }

    // A duplicate incident on typed tables: found, recovered, totals match.
    void recoverDuplicates() {
        fresh();
        QVERIFY(m_db->exec(
            QStringLiteral("INSERT INTO fact_sales SELECT * FROM fact_sales WHERE order_id = 3")));
        const QJsonObject dups = json({QStringLiteral("duplicates"), QStringLiteral("--dataset"),
                                       QStringLiteral("fact_sales")});
        QCOMPARE(dups.value(QStringLiteral("duplicate_keys")).toInteger(), 1);
        QCOMPARE(dups.value(QStringLiteral("extra_rows")).toInteger(), 1);
        const QString report = m_dir.filePath(QStringLiteral("recovery.md"));
        const QJsonObject rec = json({QStringLiteral("recover"), QStringLiteral("--dataset"),
                                      QStringLiteral("fact_sales"), QStringLiteral("--report"),
                                      report, QStringLiteral("--execute")});
        QVERIFY(QFile::exists(report));
        QVERIFY2(rec.value(QStringLiteral("totals_match")).toBool(),
                 qPrintable(QString::fromUtf8(QJsonDocument(rec).toJson())));
        QVERIFY(rec.value(QStringLiteral("unique_index_added")).toBool());
        QCOMPARE(scalar(QStringLiteral("SELECT COUNT(*) FROM fact_sales WHERE order_id = 3")), 1);
        QCOMPARE(scalar(QStringLiteral(
                     "SELECT COUNT(*) FROM fact_sales WHERE order_id = 3 AND amount = 30.25")),
                 1);
        QCOMPARE(json({QStringLiteral("duplicates"), QStringLiteral("--dataset"),
                       QStringLiteral("fact_sales")})
                     .value(QStringLiteral("duplicate_keys"))
                     .toInteger(),
                 0);
    }

    // A log whose record_ts is a real timestamp: reset by datetime, replay.
    void streamWithTimestampLog() {
        fresh();
        const QJsonObject reset = json(
            {QStringLiteral("offsets-reset"), QStringLiteral("--stream"), QStringLiteral("orders"),
             QStringLiteral("--group"), QStringLiteral("g"), QStringLiteral("--to-datetime"),
             QStringLiteral("2026-03-01T11:00:00Z"), QStringLiteral("--execute")});
        const QJsonArray rp = reset.value(QStringLiteral("partitions")).toArray();
        QCOMPARE(rp.size(), 2);
        for (const auto &p : rp) {
            const QJsonObject o = p.toObject();
            // Partition 0: e1 is at 11:00; partition 1: e4 at 13:30+01 = 12:30Z.
            QCOMPARE(o.value(QStringLiteral("new")).toInteger(), 1);
        }
        const QJsonObject replay =
            json({QStringLiteral("replay"), QStringLiteral("--stream"), QStringLiteral("orders"),
                  QStringLiteral("--group"), QStringLiteral("g"), QStringLiteral("--execute")});
        QCOMPARE(replay.value(QStringLiteral("consumed")).toInteger(), 3);
        QCOMPARE(replay.value(QStringLiteral("inserted")).toInteger(), 3);
        QCOMPARE(scalar(QStringLiteral("SELECT COUNT(*) FROM orders_events")), 3);
        QCOMPARE(scalar(QStringLiteral(
                     "SELECT COUNT(*) FROM orders_events WHERE event_id IN ('e1', 'e2', 'e4')")),
                 3);
        const QJsonObject offsets =
            json({QStringLiteral("offsets"), QStringLiteral("--stream"), QStringLiteral("orders"),
                  QStringLiteral("--group"), QStringLiteral("g")});
        for (const auto &p : offsets.value(QStringLiteral("partitions")).toArray())
            QCOMPARE(p.toObject().value(QStringLiteral("lag")).toInteger(), 0);
    }
};

QTEST_GUILESS_MAIN(TestTypes)
#include "tst_types.moc"
