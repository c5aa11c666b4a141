#pragma once

// DLQ triage as an operator does it: records captured by a stream replay
// (bad JSON, missing fields, invalid UTF-8, a 20 MB payload), listed,
// grouped, shown byte for byte, fixed one by one or by JSON path in bulk,
// refused when the fix is not JSON, discarded with a reason; every
// transition with its history row. Checked with SQL written here.
//
// Shared by tst_dlq.cpp and tst_dlqpayloads.cpp.
#include "core/dlq/dlq.h"
#include "core/dlq/dlqdialect.h"
#include "core/streams/replay.h"
#include "core/workspace/workspace.h"
#include "tests/testsupport.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSqlRecord>
#include <QTest>

using namespace rw;
using testsupport::runCli;

namespace dlq_fixture {

inline QJsonObject json(const QString &out) {
    return QJsonDocument::fromJson(out.toUtf8()).object();
}
inline QJsonObject parsed(const QString &text) {
    return QJsonDocument::fromJson(text.toUtf8()).object();
}

inline QList<QVariantList> rows(const Database &db, const QString &sql) {
    QList<QVariantList> out;
    auto q = db.exec(sql);
    if (!q)
        qFatal("%s", qPrintable(q.error().message));
    while (q->next()) {
        QVariantList row;
        for (int i = 0; i < q->record().count(); ++i)
            row << q->value(i);
        out << row;
    }
    return out;
}

inline const QByteArray kBadUtf8("{\"order_id\": 9, \"note\": \"caf\xe9 \xff\xfe\x80\" trailing",
                                 44);

inline QByteArray bigInvalid() {
    // 20 MB of JSON that is cut short: not valid, so it is dead-lettered.
    QByteArray big = "{\"order_id\": 10, \"blob\": \"";
    big += QByteArray(20 * 1024 * 1024, 'x');
    big += "\\u00e9\xc3\xa9\x01";
    return big;
}

// The invalid UTF-8 record: bytes on SQLite; PostgreSQL text cannot hold
// invalid UTF-8, so there it is the same cut-short JSON with valid text.
inline QByteArray badPayload() {
    return testsupport::onPostgres()
               ? QByteArray("{\"order_id\": 9, \"note\": \"caf\xc3\xa9 \" trailing")
               : kBadUtf8;
}

// Portable SQL for what a stream replay of ev_log (group g) leaves behind: the
// valid event in the sink, the others dead-lettered with the errors replay
// gives them and a quarantined history row each. The capture itself is
// stream replay's (tst_replay); captureMatchesTheSeed checks this seed
// against it on SQLite.
inline const QStringList kCapture = {
    QStringLiteral(
        "CREATE TABLE ev_sink (event_id TEXT PRIMARY KEY, order_id NUMERIC, amount NUMERIC)"),
    QStringLiteral("INSERT INTO ev_sink (event_id, order_id, amount) VALUES ('a', 1, 10)"),
    QStringLiteral(
        "INSERT INTO rewind_dlq (source_kind, source_name, part, log_offset, event_id, record_key, "
        "error_class, error, original_payload, payload, "
        "status, attempts, first_seen) SELECT 'stream', 'ev', CAST(l.partition_id AS TEXT), "
        "l.log_offset, l.event_id, l.event_id, c.cls, c.msg, "
        "l.payload, l.payload, 'new', 0, '2025-05-06T12:00:00.000Z' FROM ev_log AS l JOIN ("
        "SELECT 'b' AS e, 'missing_field' AS cls, 'required field missing or null: amount "
        "($.amount)' AS msg "
        "UNION ALL SELECT 'c', 'invalid_json', 'payload is not valid JSON' "
        "UNION ALL SELECT 'd', 'missing_field', 'required field missing or null: amount "
        "($.amount)' "
        "UNION ALL SELECT 'e', 'invalid_json', 'payload is not valid JSON' "
        "UNION ALL SELECT 'f', 'invalid_json', 'payload is not valid JSON') AS c ON c.e = "
        "l.event_id "
        "ORDER BY l.partition_id, l.log_offset"),
    QStringLiteral("INSERT INTO rewind_dlq_history (dlq_id, at, os_user, action, from_status, "
                   "to_status, reason, payload_after) "
                   "SELECT dlq_id, first_seen, ?, 'quarantined', NULL, 'new', 'replay 1 of group "
                   "g: ' || error_class, payload FROM rewind_dlq "
                   "ORDER BY dlq_id"),
};

inline const QByteArray kSpec = R"({"streams": {"ev": {"log": "ev_log", "sink": "ev_sink",
    "fields": {"order_id": "$.order_id", "amount": "$.amount"}, "required": ["order_id", "amount"]}}})";

struct Fixture : testsupport::WorkspaceFixture {
    // byReplay: dead-letter by running stream replay (SQLite only for now);
    // otherwise by the portable seed above.
    explicit Fixture(bool byReplay = false)
        : WorkspaceFixture(
              {
                  QStringLiteral("CREATE TABLE ev_log (partition_id INTEGER, log_offset INTEGER, "
                                 "event_id TEXT, record_ts TEXT, payload TEXT)"),
                  QStringLiteral(
                      "INSERT INTO ev_log VALUES "
                      "(0, 0, 'a', '2025-05-06T10:00:00Z', '{\"order_id\": 1, \"amount\": 10}'),"
                      "(0, 1, 'b', '2025-05-06T10:01:00Z', '{\"order_id\": 2}'),"
                      "(0, 2, 'c', '2025-05-06T10:02:00Z', '{\"order_id\": 3, \"amount\": '),"
                      "(0, 3, 'd', '2025-05-06T10:03:00Z', '{\"order_id\": 4, \"amount\": null}')"),
              },
              kSpec, QStringLiteral("d.db"), QStringLiteral("s.json")) {
        // Bytes, bound as BLOBs on SQLite: never decoded.
        const Database &db = ws->db;
        QVERIFY2(db.exec(QStringLiteral(
                             "INSERT INTO ev_log VALUES (1, 0, 'e', '2025-05-06T10:04:00Z', ?)"),
                         {DlqDialect::of(db.dialect()).payloadValue(badPayload())}),
                 "insert");
        QVERIFY2(db.exec(QStringLiteral(
                             "INSERT INTO ev_log VALUES (1, 1, 'f', '2025-05-06T10:05:00Z', ?)"),
                         {DlqDialect::of(db.dialect()).payloadValue(bigInvalid())}),
                 "insert");
        if (byReplay) {
            ReplayOptions o;
            o.execute = true;
            auto r = replay(ws->db, *ws->spec.stream(QStringLiteral("ev")), QStringLiteral("g"), o);
            if (!r)
                qFatal("%s", qPrintable(r.error().message));
            return;
        }
        for (const QString &sql : kCapture)
            if (auto r =
                    ws->db.exec(sql, sql.contains(u'?') ? QVariantList{osUser()} : QVariantList{});
                !r)
                qFatal("%s", qPrintable(r.error().message));
    }

    qint64 n(const QString &sql) const { return db().scalar(sql)->toLongLong(); }
    QString text(const QString &sql) const { return db().scalar(sql)->toString(); }
    qint64 id(const QString &eventId) const {
        return db()
            .scalar(QStringLiteral("SELECT dlq_id FROM rewind_dlq WHERE event_id = ?"), {eventId})
            ->toLongLong();
    }
    QJsonObject payload(qint64 id) const {
        auto d = showDlq(db(), id);
        return d && d->payload ? QJsonDocument::fromJson(*d->payload).object() : QJsonObject();
    }
    QStringList cli(const QString &sub, const QStringList &more = {}) const {
        return QStringList{QStringLiteral("dlq"),    sub,      QStringLiteral("--db"),  dbPath,
                           QStringLiteral("--spec"), specPath, QStringLiteral("--json")} +
               more;
    }
    // Everything a refused change must leave alone.
    QString state() const {
        QString s;
        auto q = db().exec(QStringLiteral(
            "SELECT dlq_id, status, attempts, payload FROM rewind_dlq ORDER BY dlq_id"));
        while (q && q->next())
            s += q->value(0).toString() + q->value(1).toString() + q->value(2).toString() +
                 QString::fromLatin1(q->value(3).toByteArray().toHex()) + u',';
        return s + QString::number(n(QStringLiteral("SELECT COUNT(*) FROM rewind_dlq_history"))) +
               QString::number(n(QStringLiteral("SELECT COUNT(*) FROM rewind_audit")));
    }
};

} // namespace dlq_fixture

using namespace dlq_fixture;

// The fixture the suites share: a warehouse and how to drive it.
class DlqFixture : public QObject {
protected:
};
