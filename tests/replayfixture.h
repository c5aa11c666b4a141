#pragma once

// Replay (rewindctl replay): the worked example on an orders log built here
// like the demo's (a loader that crashed at 10:20 with its last commit at
// 10:15, rewound to 10:00), the DLQ for malformed events, producer-retry
// duplicates, cancellation, and a replay killed with SIGKILL at several
// points then run again: every valid event exactly once, offsets at the log
// end. Expected counts come from the generator's own record of what it
// wrote (orders_truth), not from the engine's JSON functions; all fixture
// SQL is portable, so the suite runs on SQLite and PostgreSQL alike.
//
// Shared by tst_replay.cpp and tst_replaycrash.cpp.
#include "core/sql/database.h"
#include "core/streams/replay.h"
#include "core/workspace/spec.h"
#include "tests/testsupport.h"

#include <QDir>
#include <QElapsedTimer>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QScopeGuard>
#include <QTemporaryDir>
#include <QTest>

using testsupport::runCli;

namespace replay_fixture {

inline QJsonObject json(const QString &out) {
    return QJsonDocument::fromJson(out.toUtf8()).object();
}

inline qint64 scalar(const QString &db, const QString &sql) {
    auto d = rw::Database::open(db);
    auto v = d->scalar(sql);
    if (!v)
        qFatal("%s", qPrintable(v.error().message));
    return v->toLongLong();
}

// An orders_log row the generator wrote valid (JSON with order_id and amount).
inline const QString kValid =
    QStringLiteral("EXISTS (SELECT 1 FROM orders_truth AS t WHERE t.p = orders_log.partition_id "
                   "AND t.o = orders_log.log_offset AND t.kind = 0)");

// Two digits of an integer expression, portable.
inline QString twoDigits(const QString &n) {
    return QStringLiteral("CASE WHEN ") + n + QStringLiteral(" < 10 THEN '0' ELSE '' END || (") +
           n + u')';
}

using Proc = testsupport::ChildResult;

inline Proc rewindctl(const QStringList &args, const QString &failpoint = QString()) {
    return testsupport::runRewindctl(args, failpoint);
}

} // namespace replay_fixture

using namespace replay_fixture;

// The fixture the suites share: a warehouse and how to drive it.
class ReplayFixture : public QObject {
protected:
    QTemporaryDir m_dir;
    QString m_demoSpec;
    QString m_smallSpec;
    int m_copies = 0;

    // The demo's orders stream in small: 4 partitions of 500 offsets with
    // record_ts from 09:00 to 12:00 (text, UTC); partition 2 lost offsets
    // 0..49 to retention; payloads about 1% truncated and 1% without amount;
    // producer retries (the previous record again: same event_id and payload,
    // next offset). The loader ("orders-loader") committed at 10:15 and
    // crashed at 10:20: the sink already holds every valid event before
    // 10:20. orders_truth is the generator's record: p, o, j (the order
    // number), kind (0 valid, 1 truncated, 2 no amount).
    QString ordersDb() {
        const QString s = QStringLiteral("(32400 + o * 10800 / 500)");
        const QString ts = QStringLiteral("'2025-05-06T' || ") +
                           twoDigits(s + QStringLiteral(" / 3600")) +
                           QStringLiteral(" || ':' || ") +
                           twoDigits(QStringLiteral("(") + s + QStringLiteral(" / 60) % 60")) +
                           QStringLiteral(" || ':' || ") + twoDigits(s + QStringLiteral(" % 60")) +
                           QStringLiteral(" || 'Z'");
        const QString name = QStringLiteral("orders-%1.db").arg(++m_copies);
        const QString db =
            testsupport::makeDatabase(
                m_dir, name,
                {
                    QStringLiteral("CREATE TABLE orders_log (partition_id INTEGER, log_offset "
                                   "INTEGER, event_id TEXT, record_ts TEXT, payload TEXT)"),
                    QStringLiteral("CREATE TABLE orders_truth (p INTEGER, o INTEGER, j INTEGER, ts "
                                   "TEXT, kind INTEGER)"),
                    QStringLiteral("WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n "
                                   "WHERE i < 1999) "
                                   "INSERT INTO orders_truth SELECT p, o, j, ") +
                        ts +
                        QStringLiteral(
                            ", CASE WHEN j % 97 = 5 THEN 1 WHEN j % 89 = 7 THEN 2 ELSE 0 END "
                            "FROM (SELECT i / 500 AS p, i % 500 AS o, CASE WHEN i % 500 > 0 AND i "
                            "% 113 = 11 THEN i - 1 ELSE i END AS j FROM n) AS g"),
                    QStringLiteral("DELETE FROM orders_truth WHERE p = 2 AND o < 50"),
                    QStringLiteral(
                        "INSERT INTO orders_log SELECT p, o, 'ord-' || j, ts, CASE kind "
                        "WHEN 1 THEN '{\"order_id\": ' || (30000000 + j) || ', \"amount\": ' "
                        "WHEN 2 THEN '{\"order_id\": ' || (30000000 + j) || ', \"currency\": "
                        "\"EUR\"}' "
                        "ELSE '{\"order_id\": ' || (30000000 + j) || ', \"amount\": ' || (j % 300) "
                        "|| '.5, \"currency\": \"EUR\", "
                        "\"event_time\": \"ev-' || j || '\"}' END FROM orders_truth"),
                    QStringLiteral("CREATE UNIQUE INDEX orders_log_offset ON orders_log "
                                   "(partition_id, log_offset)"),
                    QStringLiteral("CREATE TABLE orders_events (event_id TEXT PRIMARY KEY, "
                                   "order_id BIGINT, amount NUMERIC, event_time TEXT)"),
                    QStringLiteral(
                        "INSERT INTO orders_events SELECT DISTINCT 'ord-' || j, 30000000 + j, (j % "
                        "300) + 0.5, 'ev-' || j "
                        "FROM orders_truth WHERE kind = 0 AND ts < '2025-05-06T10:20:00Z'"),
                })
                .url()
                .text;
        const auto r = runCli({QStringLiteral("streams"), QStringLiteral("--db"), db,
                               QStringLiteral("--spec"), m_demoSpec});
        if (r.exitCode != 0)
            qFatal("%s", qPrintable(r.err));
        auto d = rw::Database::open(db);
        if (auto c = d->exec(QStringLiteral(
                "INSERT INTO rewind_offsets (stream, group_id, partition_id, committed_offset, "
                "updated_at) "
                "SELECT 'orders', 'orders-loader', partition_id, MIN(log_offset), "
                "'2025-05-06T10:15:02Z' "
                "FROM orders_log WHERE record_ts >= '2025-05-06T10:15:00Z' GROUP BY partition_id"));
            !c)
            qFatal("%s", qPrintable(c.error().message));
        return db;
    }

    QStringList loader(const QString &db, const QString &command) const {
        return {command,
                QStringLiteral("--db"),
                db,
                QStringLiteral("--spec"),
                m_demoSpec,
                QStringLiteral("--stream"),
                QStringLiteral("orders"),
                QStringLiteral("--group"),
                QStringLiteral("orders-loader"),
                QStringLiteral("--json")};
    }

    // A small log: valid events, a producer retry, malformed payloads; no sink yet.
    QString smallLog() {
        const QString name = QStringLiteral("small-%1.db").arg(++m_copies);
        return testsupport::makeDatabase(
                   m_dir, name,
                   {
                       QStringLiteral(
                           "CREATE TABLE ev_log (partition_id INTEGER, log_offset INTEGER, "
                           "event_id TEXT, record_ts TEXT, payload TEXT)"),
                       QStringLiteral("INSERT INTO ev_log VALUES "
                                      "(0, 0, 'a', '2025-05-06T10:00:00Z', '{\"order_id\": "
                                      "1, \"amount\": 10.5, \"note\": \"x\"}'),"
                                      "(0, 1, 'b', '2025-05-06T10:01:00Z', '{\"order_id\": "
                                      "2, \"amount\": 3}'),"
                                      "(0, 2, 'b', '2025-05-06T10:01:01Z', '{\"order_id\": "
                                      "2, \"amount\": 3}')," // producer retry
                                      "(0, 3, 'c', '2025-05-06T10:02:00Z', '{\"order_id\": "
                                      "3, \"amount\": ')," // truncated
                                      "(0, 4, 'd', '2025-05-06T10:03:00Z', '{\"order_id\": "
                                      "4}')," // no amount
                                      "(0, 5, 'e', '2025-05-06T10:04:00Z', '{\"order_id\": "
                                      "5, \"amount\": 7}'),"
                                      "(1, 0, 'f', '2025-05-06T10:00:00Z', '{\"order_id\": "
                                      "null, \"amount\": 1}')," // null order_id
                                      "(1, 1, NULL, '2025-05-06T10:00:30Z', '{\"order_id\": "
                                      "7, \"amount\": 1}')," // no event_id
                                      "(1, 2, 'g', '2025-05-06T10:01:00Z', 'not json at "
                                      "all'),"
                                      "(1, 3, 'h', '2025-05-06T10:02:00Z', '{\"order_id\": "
                                      "8, \"amount\": 0}'),"
                                      "(1, 4, 'a', '2025-05-06T10:03:00Z', '{\"order_id\": "
                                      "1, \"amount\": 10.5}')"), // same id, other partition
                   })
            .url()
            .text;
    }

    QStringList small(const QString &db, const QString &command) const {
        return {command,
                QStringLiteral("--db"),
                db,
                QStringLiteral("--spec"),
                m_smallSpec,
                QStringLiteral("--stream"),
                QStringLiteral("ev"),
                QStringLiteral("--group"),
                QStringLiteral("g"),
                QStringLiteral("--json")};
    }

    static void verifyAtLogEnd(const QString &db, const QString &stream, const QString &group,
                               const QString &log) {
        QCOMPARE(
            scalar(db, QStringLiteral("SELECT COUNT(*) FROM (SELECT partition_id, MAX(log_offset) "
                                      "+ 1 AS e FROM %1 GROUP BY partition_id) AS l "
                                      "JOIN rewind_offsets AS o ON o.partition_id = l.partition_id "
                                      "AND o.stream = '%2' AND o.group_id = '%3' "
                                      "AND o.committed_offset = l.e")
                           .arg(log, stream, group)),
            scalar(db, QStringLiteral("SELECT COUNT(DISTINCT partition_id) FROM %1").arg(log)));
    }

    // The suites' specs, written once per suite (initTestCase).
    void writeSpecs() {
        QVERIFY(m_dir.isValid());
        m_demoSpec =
            testsupport::writeFile(m_dir, QStringLiteral("orders.json"), R"({"streams": {"orders": {
            "log": "orders_log", "sink": "orders_events",
            "fields": {"order_id": "$.order_id", "amount": "$.amount", "event_time": "$.event_time"},
            "required": ["order_id", "amount"]}}})");
        m_smallSpec =
            testsupport::writeFile(m_dir, QStringLiteral("small.json"), R"({"streams": {"ev": {
            "log": "ev_log", "sink": "ev_sink",
            "fields": {"order_id": "$.order_id", "amount": "$.amount", "note": "$.note"},
            "required": ["order_id", "amount"]}}})");
    }
};
