// Watermarks that know their streams (issue 46), on a log-table stream, both
// engines: hourly and monthly windows are finalized at their ends; a
// consumer group of the stream feeding a dataset, reset to its earliest
// offset, holds the watermark at the first event it has not consumed (its
// mapped event time, not the record timestamp) minus allowed_lateness, so
// finalize --execute makes nothing final past it; a replay killed midway
// leaves it held further on; one that catches up releases it, and a group
// that never replayed into the sink does not hold it. Bad input
// (fed_by naming no stream, partition values of mixed grains) is refused
// naming the dataset and the field. Kafka: tst_kafkawatermark.
#include "tests/testsupport.h"

#include <QDateTime>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTest>

using namespace rw;

namespace {

// 48 events, 5 minutes apart from 2025-05-06T05:00:00Z, alternating between
// two partitions; each record's timestamp a minute after its event time.
QStringList warehouse() {
    QStringList sql{
        QStringLiteral("CREATE TABLE ev_log (partition_id INTEGER, log_offset INTEGER, event_id "
                       "TEXT, record_ts TEXT, payload TEXT)"),
        QStringLiteral("CREATE TABLE m_src (id INTEGER, mon TEXT, event_time TEXT)"),
        QStringLiteral("INSERT INTO m_src VALUES (1, '2025-03', '2025-03-20T00:00:00Z'), "
                       "(2, '2025-04', '2025-04-30T23:00:00Z'), (3, '2025-05', "
                       "'2025-05-10T00:00:00Z')"),
        QStringLiteral("CREATE TABLE mixed_src (id INTEGER, p TEXT, event_time TEXT)"),
        QStringLiteral("INSERT INTO mixed_src VALUES (1, '2025-05-06', '2025-05-06T01:00:00Z'), "
                       "(2, '2025-05-06T05', '2025-05-06T05:00:00Z')"),
    };
    const QDateTime start(QDate(2025, 5, 6), QTime(5, 0), Qt::UTC);
    QStringList rows;
    for (int i = 0; i < 48; ++i) {
        const QDateTime at = start.addSecs(i * 300);
        rows << QStringLiteral("(%1, %2, 'e%3', '%4', '{\"id\": \"e%3\", \"event_time\": \"%5\"}')")
                    .arg(i % 2)
                    .arg(i / 2)
                    .arg(i)
                    .arg(at.addSecs(60).toString(Qt::ISODate), at.toString(Qt::ISODate));
    }
    sql << QStringLiteral("INSERT INTO ev_log VALUES ") + rows.join(QStringLiteral(", "));
    return sql;
}

const QByteArray kSpec = R"({
 "streams": {"ev": {"log": "ev_log", "sink": "ev_sink",
   "fields": {"id": "$.id", "event_time": "$.event_time"}, "required": ["id"]}},
 "datasets": {
  "hours": {"transform": "SELECT id, event_time, substr(event_time, 1, 13) || ':00:00Z' AS hr FROM ev_sink",
            "target": "ev_hours", "partition_column": "hr", "key": ["id"],
            "write": "overwrite_partition", "event_time": "event_time", "allowed_lateness": "15m"},
  "months": {"source": "m_src", "target": "m_out", "partition_column": "mon", "key": ["id"],
             "write": "overwrite_partition", "event_time": "event_time", "allowed_lateness": "1d"},
  "mixed": {"source": "mixed_src", "target": "mixed_out", "partition_column": "p", "key": ["id"],
            "event_time": "event_time", "allowed_lateness": "1h"}}})";

QJsonObject json(const testsupport::CliResult &r) {
    return QJsonDocument::fromJson(r.out.toUtf8()).object();
}

QStringList strings(const QJsonValue &v) {
    QStringList out;
    for (const QJsonValue &x : v.toArray())
        out << x.toString();
    return out;
}

} // namespace

class TestWatermarkHold : public QObject {
    Q_OBJECT

    std::optional<testsupport::WorkspaceFixture> m_ws;

    testsupport::CliResult cli(const QStringList &command) const { return m_ws->cli(command); }
    QJsonObject finalize(bool execute = false) const {
        QStringList c{QStringLiteral("finalize"), QStringLiteral("--dataset"),
                      QStringLiteral("hours"), QStringLiteral("--json")};
        if (execute)
            c << QStringLiteral("--execute");
        const auto r = cli(c);
        if (r.exitCode != 0)
            qWarning() << r.err;
        return json(r);
    }
    qint64 finals() const {
        auto v = m_ws->db().scalar(QStringLiteral(
            "SELECT COUNT(*) FROM rewind_partition_state WHERE dataset = 'hours' AND status = "
            "'final'"));
        return v ? v->toLongLong() : -1;
    }
    void replay(const QStringList &extra = {}) {
        const auto r = cli(QStringList{QStringLiteral("replay"), QStringLiteral("--stream"),
                                       QStringLiteral("ev"), QStringLiteral("--group"),
                                       QStringLiteral("loader"), QStringLiteral("--execute")} +
                           extra);
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    }

private Q_SLOTS:
    void initTestCase() {
        REWIND_REQUIRE_ENGINE();
        m_ws.emplace(warehouse(), kSpec);
    }

    // Hours of a stream-fed dataset, caught up: every hour the watermark
    // (08:55 - 15m = 08:40) has passed the end of is finalized, not 08:00.
    void hourlyWindowsFinalizeAtTheirEnds() {
        replay();
        QCOMPARE(cli({QStringLiteral("run"), QStringLiteral("--dataset"), QStringLiteral("hours"),
                      QStringLiteral("--execute")})
                     .exitCode,
                 0);
        const auto datasets = json(cli({QStringLiteral("datasets"), QStringLiteral("--json")}));
        for (const QJsonValue &d : datasets.value(QStringLiteral("datasets")).toArray())
            if (d[QStringLiteral("name")] == QStringLiteral("hours"))
                QCOMPARE(strings(d[QStringLiteral("fed_by")]), QStringList{QStringLiteral("ev")});
        const QJsonObject f = finalize();
        QCOMPARE(f.value(QStringLiteral("grain")).toString(), QStringLiteral("hour"));
        QCOMPARE(f.value(QStringLiteral("watermark")).toString(),
                 QStringLiteral("2025-05-06T08:40:00Z"));
        QVERIFY(f.value(QStringLiteral("held_by")).toArray().isEmpty());
        QCOMPARE(strings(f.value(QStringLiteral("finalized"))),
                 (QStringList{QStringLiteral("2025-05-06T05:00:00Z"),
                              QStringLiteral("2025-05-06T06:00:00Z"),
                              QStringLiteral("2025-05-06T07:00:00Z")}));
        QCOMPARE(strings(f.value(QStringLiteral("provisional"))),
                 QStringList{QStringLiteral("2025-05-06T08:00:00Z")});
    }

    // Months: the watermark (May 10 - 1d) passed the ends of March and
    // April, not May; executed, those two are final.
    void monthlyWindowsFinalizeAtTheirEnds() {
        QCOMPARE(cli({QStringLiteral("run"), QStringLiteral("--dataset"), QStringLiteral("months"),
                      QStringLiteral("--execute")})
                     .exitCode,
                 0);
        const auto r =
            cli({QStringLiteral("finalize"), QStringLiteral("--dataset"), QStringLiteral("months"),
                 QStringLiteral("--execute"), QStringLiteral("--json")});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        const QJsonObject f = json(r);
        QCOMPARE(f.value(QStringLiteral("grain")).toString(), QStringLiteral("month"));
        QCOMPARE(strings(f.value(QStringLiteral("finalized"))),
                 (QStringList{QStringLiteral("2025-03"), QStringLiteral("2025-04")}));
        QCOMPARE(strings(f.value(QStringLiteral("provisional"))),
                 QStringList{QStringLiteral("2025-05")});
        QCOMPARE(m_ws->db()
                     .scalar(QStringLiteral("SELECT COUNT(*) FROM rewind_partition_state WHERE "
                                            "dataset = 'months' AND status = 'final'"))
                     ->toInt(),
                 2);
    }

    // The group reset to its earliest offsets: held at the first event it
    // has not consumed (05:00, its mapped event time; the record says
    // 05:01) minus 15m; finalize --execute makes nothing final.
    void aResetGroupHoldsTheWatermark() {
        QCOMPARE(cli({QStringLiteral("offsets-reset"), QStringLiteral("--stream"),
                      QStringLiteral("ev"), QStringLiteral("--group"), QStringLiteral("loader"),
                      QStringLiteral("--to-earliest"), QStringLiteral("--execute")})
                     .exitCode,
                 0);
        const QJsonObject f = finalize(true);
        const QJsonArray held = f.value(QStringLiteral("held_by")).toArray();
        QCOMPARE(held.size(), 1);
        QCOMPARE(held[0][QStringLiteral("stream")].toString(), QStringLiteral("ev"));
        QCOMPARE(held[0][QStringLiteral("group")].toString(), QStringLiteral("loader"));
        QCOMPARE(held[0][QStringLiteral("lag")].toInt(), 48);
        QCOMPARE(held[0][QStringLiteral("held_at")].toString(),
                 QStringLiteral("2025-05-06T04:45:00Z"));
        QCOMPARE(f.value(QStringLiteral("watermark")).toString(),
                 QStringLiteral("2025-05-06T04:45:00Z"));
        QVERIFY(strings(f.value(QStringLiteral("finalized"))).isEmpty());
        QCOMPARE(finals(), 0);
        const auto text =
            cli({QStringLiteral("finalize"), QStringLiteral("--dataset"), QStringLiteral("hours")});
        QVERIFY2(text.out.contains(QStringLiteral("watermark held at 2025-05-06T04:45:00Z by "
                                                  "group loader of stream ev, 48 events behind")),
                 qPrintable(text.out));
        // lag: no ingest_time to measure lateness by, and still says it.
        const auto lag =
            cli({QStringLiteral("lag"), QStringLiteral("--dataset"), QStringLiteral("hours")});
        QCOMPARE(lag.exitCode, 2);
        QVERIFY2(lag.err.contains(QStringLiteral("ingest_time")) &&
                     lag.err.contains(QStringLiteral("watermark held at 2025-05-06T04:45:00Z")),
                 qPrintable(lag.err));
    }

    // A replay killed after its first batch: the group is still behind,
    // from where that batch ended; the watermark is held there.
    void aKilledReplayLeavesItHeld() {
        const auto killed = testsupport::runRewindctl(
            QStringList{QStringLiteral("replay"), QStringLiteral("--stream"), QStringLiteral("ev"),
                        QStringLiteral("--group"), QStringLiteral("loader"),
                        QStringLiteral("--batch-size"), QStringLiteral("20"),
                        QStringLiteral("--execute")} +
                m_ws->args(),
            QStringLiteral("replay-after-commit"));
        QVERIFY2(killed.crashed, killed.err.constData());
        const QJsonObject f = finalize(true);
        const QJsonArray held = f.value(QStringLiteral("held_by")).toArray();
        QCOMPARE(held.size(), 1);
        QVERIFY2(held[0][QStringLiteral("lag")].toInt() > 0 &&
                     held[0][QStringLiteral("lag")].toInt() < 48,
                 qPrintable(QString::number(held[0][QStringLiteral("lag")].toInt())));
        QVERIFY(held[0][QStringLiteral("held_at")].toString() >
                QStringLiteral("2025-05-06T04:45:00Z"));
        QCOMPARE(f.value(QStringLiteral("watermark")), held[0][QStringLiteral("held_at")]);
        QCOMPARE(finals(), 0 + strings(f.value(QStringLiteral("finalized"))).size());
    }

    // Caught up: nothing holds it; the hours it passed become final. A
    // group that only reads the log (never replayed into the sink) and lags
    // holds nothing once one replays into it.
    void aReplayThatCatchesUpReleasesIt() {
        replay();
        QCOMPARE(cli({QStringLiteral("offsets-reset"), QStringLiteral("--stream"),
                      QStringLiteral("ev"), QStringLiteral("--group"), QStringLiteral("audit"),
                      QStringLiteral("--to-earliest"), QStringLiteral("--execute")})
                     .exitCode,
                 0);
        const QJsonObject f = finalize(true);
        QVERIFY(f.value(QStringLiteral("held_by")).toArray().isEmpty());
        QCOMPARE(f.value(QStringLiteral("watermark")).toString(),
                 QStringLiteral("2025-05-06T08:40:00Z"));
        QCOMPARE(finals(), 3);
    }

    // A record the group has not consumed, after a gap in the offsets and
    // with a payload that is no JSON: found all the same (the first record
    // at or after the committed offset), dated by its record timestamp.
    void aBadRecordAfterAGapHoldsByItsTimestamp() {
        QVERIFY(m_ws->db().execAll({QStringLiteral(
            "INSERT INTO ev_log VALUES (0, 1000, 'bad', '2025-05-06T09:30:00Z', 'not json {')")}));
        const QJsonObject f = finalize();
        const QJsonArray held = f.value(QStringLiteral("held_by")).toArray();
        QCOMPARE(held.size(), 1);
        QCOMPARE(held[0][QStringLiteral("held_at")].toString(),
                 QStringLiteral("2025-05-06T09:15:00Z"));
        QCOMPARE(f.value(QStringLiteral("watermark")).toString(),
                 QStringLiteral("2025-05-06T08:40:00Z"));
    }

    // Values of two grains under no granularity: refused naming the
    // dataset and the field; nothing written.
    void mixedGrainsAreRefused() {
        QCOMPARE(cli({QStringLiteral("run"), QStringLiteral("--dataset"), QStringLiteral("mixed"),
                      QStringLiteral("--execute")})
                     .exitCode,
                 0);
        const qint64 audit =
            m_ws->db().scalar(QStringLiteral("SELECT COUNT(*) FROM rewind_audit"))->toLongLong();
        const auto r = cli({QStringLiteral("finalize"), QStringLiteral("--dataset"),
                            QStringLiteral("mixed"), QStringLiteral("--execute")});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains(QStringLiteral("dataset \"mixed\"")) &&
                     r.err.contains(QStringLiteral("partition_column")) &&
                     r.err.contains(QStringLiteral("mixed shapes")),
                 qPrintable(r.err));
        QCOMPARE(
            m_ws->db().scalar(QStringLiteral("SELECT COUNT(*) FROM rewind_audit"))->toLongLong(),
            audit);
    }

    // fed_by naming no stream: the spec is refused, naming both.
    void fedByNamingNoStreamIsRefused() {
        const QString bad = testsupport::writeFile(
            m_ws->dir, QStringLiteral("bad.json"),
            R"({"datasets": {"d": {"source": "m_src", "target": "o", "key": ["id"],
                "fed_by": ["nope"]}}})");
        const auto r = testsupport::runCli({QStringLiteral("datasets"), QStringLiteral("--db"),
                                            m_ws->dbPath, QStringLiteral("--spec"), bad});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(
            r.err.contains(QStringLiteral("dataset \"d\": \"fed_by\": no stream named \"nope\"")),
            qPrintable(r.err));
    }
};

QTEST_GUILESS_MAIN(TestWatermarkHold)
#include "tst_watermarkhold.moc"
