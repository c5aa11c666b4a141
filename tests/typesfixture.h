#pragma once

// Typed columns as a warehouse declares them: `date` partitions, `timestamptz`
// order_by and event/ingest times, `numeric(12,2)` amounts, `bigint`/`text`
// keys, a `date` and a `numeric` key. Driven through rewindctl, as an operator
// (or a script) does, and checked on the tables themselves. The DDL is the
// same on both engines (SQLite accepts these type names, with NUMERIC
// affinity); where a real type changes the answer (an instant written with
// another offset is the same instant only in a real timestamptz), the test
// says which engine expects what.
//
// Shared by tst_types.cpp and tst_typedtime.cpp.
#include "tests/testsupport.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QStringBuilder>
#include <QTest>
#include <ctime>

using testsupport::runCli;

namespace types_fixture {

inline const QString kTz = QStringLiteral("TIMESTAMP WITH TIME ZONE");

// Three days; 2026-03-01 holds a key twice (the later update wins) and, in
// the target, the same row with its instants written at +02:00 and its
// amount as 11.0 / 20 (equal values, other spellings). 2026-03-02 changes
// one amount by 5 cents and adds a key; 2026-03-03 is new.
inline QStringList warehouse() {
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

inline const QByteArray kSpec = R"({
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

inline QJsonObject findPartition(const QJsonArray &partitions, const QString &value) {
    for (const auto &p : partitions)
        if (p.toObject().value(QStringLiteral("partition")).toString() == value)
            return p.toObject();
    return {};
}

// The status `partitions status` shows for one partition (empty when absent).
inline QString partitionStatus(const QJsonArray &partitions, const QString &value) {
    return findPartition(partitions, value).value(QStringLiteral("status")).toString();
}

inline QStringList partitionValues(const QJsonArray &partitions) {
    QStringList out;
    for (const auto &p : partitions)
        out << p.toObject().value(QStringLiteral("partition")).toString();
    return out;
}

} // namespace types_fixture

using namespace types_fixture;

// The fixture the suites share: a warehouse and how to drive it.
class TypesFixture : public QObject {
protected:
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
};
