// DLQ replay as an operator relies on it: rows quarantined by a batch check
// fixed and merged back into the target; stream records fixed and landed
// in the sink; nothing written twice however often replay runs; a velocity
// limit that holds when measured; cancellation at a batch boundary; and a
// replay killed with SIGKILL then run again: no record lost or doubled.
#include "core/batch/batch.h"
#include "core/dlq/dlq.h"
#include "core/streams/replay.h"
#include "core/workspace/workspace.h"
#include "tests/testsupport.h"

#include <QElapsedTimer>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTest>

using namespace rw;
using testsupport::runCli;

namespace {

QJsonObject json(const QString &out) {
    return QJsonDocument::fromJson(out.toUtf8()).object();
}

const QStringList kWarehouse = {
    QStringLiteral("CREATE TABLE src (id INTEGER, sub TEXT, dt TEXT, amount REAL, note TEXT, "
                   "updated_at TEXT)"),
    QStringLiteral("CREATE TABLE ref (id INTEGER PRIMARY KEY)"),
    QStringLiteral("INSERT INTO ref VALUES (1), (2), (3), (4), (5)"),
    QStringLiteral("INSERT INTO src VALUES "
                   "(1, 'a', 'd1', 10, 'x', 't1'), (2, 'a', 'd1', 20, 'x', 't1'),"
                   "(1, 'a', 'd2', 30, 'x', 't1'), (2, 'a', 'd2', 40, 'x', 't1'), (3, NULL, 'd2', "
                   "50, 'x', 't1'), (3, NULL, 'd2', 55, 'x', 't3'),"
                   "(7, 'q', 'd2', 5, 'x', 't1')"),
};

const QByteArray kBatchSpec =
    R"({"datasets": {"sales": {"source": "src", "target": "tgt", "partition_column": "dt",
    "key": ["id", "sub"], "order_by": "updated_at", "write": "merge", "checks": [
    {"type": "not_null", "columns": ["sub"], "on_fail": "quarantine"},
    {"type": "references", "column": "id", "table": "ref", "to": "id", "on_fail": "quarantine"}]}}})";

const QByteArray kStreamSpec = R"({"streams": {"ev": {"log": "ev_log", "sink": "ev_sink",
    "fields": {"order_id": "$.order_id", "amount": "$.amount"}, "required": ["order_id", "amount"]}}})";

struct Fixture : testsupport::WorkspaceFixture {
    Fixture(const QStringList &setup, const QByteArray &spec)
        : WorkspaceFixture(setup, spec, QStringLiteral("d.db"), QStringLiteral("s.json")) {}

    qint64 n(const QString &sql) const {
        auto v = db().scalar(sql);
        if (!v)
            qFatal("%s", qPrintable(v.error().message));
        return v->toLongLong();
    }
    QStringList cli(const QString &sub, const QStringList &more = {}) const {
        return QStringList{QStringLiteral("dlq"),    sub,      QStringLiteral("--db"),  dbPath,
                           QStringLiteral("--spec"), specPath, QStringLiteral("--json")} +
               more;
    }
};

// A stream log of `events` events, each missing its amount, replayed into the DLQ.
std::unique_ptr<Fixture> streamDlq(int events) {
    auto f = std::make_unique<Fixture>(
        QStringList{
            QStringLiteral("CREATE TABLE ev_log (partition_id INTEGER, log_offset INTEGER, "
                           "event_id TEXT, record_ts TEXT, payload TEXT)"),
            QStringLiteral(
                "WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i + 1 < %1) "
                "INSERT INTO ev_log SELECT i % 3, i / 3, 'ev-' || i, '2025-05-06T10:00:00Z', "
                "'{\"order_id\": ' || i || '}' FROM n")
                .arg(events),
            QStringLiteral("INSERT INTO ev_log VALUES (9, 0, 'ok-1', '2025-05-06T10:00:00Z', "
                           "'{\"order_id\": -1, \"amount\": 1}')")},
        kStreamSpec);
    // What a stream replay of that log leaves (portable SQL; tst_dlq checks
    // the same seed against stream replay's own capture): ok-1 in the sink,
    // the others dead-lettered with replay's error and a quarantined row.
    const QStringList capture = {
        QStringLiteral(
            "CREATE TABLE ev_sink (event_id TEXT PRIMARY KEY, order_id NUMERIC, amount NUMERIC)"),
        QStringLiteral("INSERT INTO ev_sink (event_id, order_id, amount) VALUES ('ok-1', -1, 1)"),
        QStringLiteral(
            "INSERT INTO rewind_dlq (source_kind, source_name, part, log_offset, event_id, "
            "record_key, error_class, error, original_payload, "
            "payload, status, attempts, first_seen) SELECT 'stream', 'ev', CAST(l.partition_id AS "
            "TEXT), l.log_offset, l.event_id, l.event_id, "
            "'missing_field', 'required field missing or null: amount ($.amount)', l.payload, "
            "l.payload, 'new', 0, '2025-05-06T12:00:00.000Z' "
            "FROM ev_log AS l WHERE l.event_id <> 'ok-1' ORDER BY l.partition_id, l.log_offset"),
        QStringLiteral("INSERT INTO rewind_dlq_history (dlq_id, at, os_user, action, from_status, "
                       "to_status, reason, payload_after) "
                       "SELECT dlq_id, first_seen, ?, 'quarantined', NULL, 'new', 'replay 1 of "
                       "group g: ' || error_class, payload FROM rewind_dlq "
                       "ORDER BY dlq_id"),
    };
    for (const QString &sql : capture)
        if (auto r =
                f->db().exec(sql, sql.contains(u'?') ? QVariantList{osUser()} : QVariantList{});
            !r)
            qFatal("%s", qPrintable(r.error().message));
    return f;
}

using Proc = testsupport::ChildResult;

Proc rewindctl(const QStringList &args, const QString &failpoint = QString()) {
    return testsupport::runRewindctl(args, failpoint);
}

} // namespace

class TestDlqReplay : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase() { REWIND_REQUIRE_ENGINE(); }

    void quarantinedRowsAreFixedAndMergedBack() {
        Fixture f(kWarehouse, kBatchSpec);
        BatchOptions o;
        o.execute = true;
        auto r = run(f.db(), *f.ws->spec.dataset(QStringLiteral("sales")), o);
        QVERIFY2(r, qPrintable(r ? QString() : r.error().message));
        QCOMPARE(r->status, RunStatus::Succeeded);
        QCOMPARE(f.n(QStringLiteral("SELECT COUNT(*) FROM rewind_dlq WHERE source_kind = 'dataset' "
                                    "AND status = 'new'")),
                 2);
        QCOMPARE(f.n(QStringLiteral("SELECT COUNT(*) FROM tgt")), 4);
        const qint64 nullSub =
            f.n(QStringLiteral("SELECT dlq_id FROM rewind_dlq WHERE error_class = 'not_null'"));
        const qint64 noRef =
            f.n(QStringLiteral("SELECT dlq_id FROM rewind_dlq WHERE error_class = 'references'"));

        // Validate runs the dataset's row-level checks: both still fail, and it changes nothing.
        auto v = runCli(f.cli(QStringLiteral("validate")));
        QCOMPARE(v.exitCode, 0);
        QCOMPARE(json(v.out).value(QStringLiteral("invalid")).toInt(), 2);
        QCOMPARE(json(v.out)
                     .value(QStringLiteral("failures_by_class"))
                     .toObject()
                     .value(QStringLiteral("not_null"))
                     .toInt(),
                 1);
        QCOMPARE(f.n(QStringLiteral("SELECT COUNT(*) FROM rewind_dlq WHERE status = 'new'")), 2);

        // Fix the NULL; the other still fails (id 7 not in ref) and becomes failed.
        QCOMPARE(
            runCli(f.cli(QStringLiteral("fix"),
                         {QStringLiteral("--id"), QString::number(nullSub), QStringLiteral("--set"),
                          QStringLiteral("$.sub=c"), QStringLiteral("--execute")}))
                .exitCode,
            0);
        auto dry = runCli(f.cli(QStringLiteral("replay")));
        QCOMPARE(json(dry.out).value(QStringLiteral("executed")).toBool(), false);
        QCOMPARE(json(dry.out).value(QStringLiteral("replayed")).toInt(), 1);
        QCOMPARE(f.n(QStringLiteral("SELECT COUNT(*) FROM tgt")), 4);
        auto rep = runCli(f.cli(QStringLiteral("replay"), {QStringLiteral("--execute")}));
        QCOMPARE(rep.exitCode, 0);
        const QJsonObject doc = json(rep.out);
        QCOMPARE(doc.value(QStringLiteral("replayed")).toInt(), 1);
        QCOMPARE(doc.value(QStringLiteral("failed")).toInt(), 1);
        QCOMPARE(doc.value(QStringLiteral("inserted")).toInt(), 1);
        QCOMPARE(f.n(QStringLiteral("SELECT COUNT(*) FROM tgt WHERE id = 3 AND sub = 'c' AND dt = "
                                    "'d2' AND amount = 55 AND updated_at = 't3'")),
                 1);
        QCOMPARE(f.n(QStringLiteral("SELECT COUNT(*) FROM tgt")), 5);
        QCOMPARE(f.n(QStringLiteral("SELECT COUNT(*) FROM rewind_dlq WHERE dlq_id = %1 AND status "
                                    "= 'failed' AND attempts = 1 "
                                    "AND last_error_class = 'references' AND last_error LIKE 'id "
                                    "has no match in ref.id%'")
                         .arg(noRef)),
                 1);

        // The reference arrives: the failed record replays (named by status) and merges.
        QVERIFY(f.db().exec(QStringLiteral("INSERT INTO ref VALUES (7)")));
        auto again = runCli(
            f.cli(QStringLiteral("replay"), {QStringLiteral("--status"), QStringLiteral("failed"),
                                             QStringLiteral("--execute")}));
        QCOMPARE(json(again.out).value(QStringLiteral("replayed")).toInt(), 1);
        QCOMPARE(f.n(QStringLiteral("SELECT COUNT(*) FROM tgt WHERE id = 7 AND sub = 'q'")), 1);
        QCOMPARE(
            f.n(QStringLiteral("SELECT attempts FROM rewind_dlq WHERE dlq_id = %1").arg(noRef)), 2);

        // Replaying again lands nothing twice: nothing selected, and named records are skipped.
        const qint64 rows = f.n(QStringLiteral("SELECT COUNT(*) FROM tgt"));
        QCOMPARE(json(runCli(f.cli(QStringLiteral("replay"), {QStringLiteral("--execute")})).out)
                     .value(QStringLiteral("selected"))
                     .toInt(),
                 0);
        auto named =
            runCli(f.cli(QStringLiteral("replay"),
                         {QStringLiteral("--id"), QString::number(nullSub), QStringLiteral("--id"),
                          QString::number(noRef), QStringLiteral("--execute")}));
        QCOMPARE(json(named.out).value(QStringLiteral("skipped")).toInt(), 2);
        QCOMPARE(f.n(QStringLiteral("SELECT COUNT(*) FROM tgt")), rows);

        // The same row quarantined again by a re-run, fixed the same way: already landed, nothing
        // written.
        BatchOptions d2;
        d2.execute = true;
        d2.scope.partitions = {QStringLiteral("d2")};
        QVERIFY(f.db().exec(QStringLiteral("DELETE FROM ref WHERE id = 7")));
        QVERIFY(run(f.db(), *f.ws->spec.dataset(QStringLiteral("sales")), d2));
        QCOMPARE(f.n(QStringLiteral("SELECT COUNT(*) FROM rewind_dlq WHERE status = 'new' AND "
                                    "error_class = 'not_null'")),
                 1);
        QCOMPARE(runCli(f.cli(QStringLiteral("fix"),
                              {QStringLiteral("--status"), QStringLiteral("new"),
                               QStringLiteral("--error-class"), QStringLiteral("not_null"),
                               QStringLiteral("--set"), QStringLiteral("$.sub=c"),
                               QStringLiteral("--execute")}))
                     .exitCode,
                 0);
        auto landed = runCli(f.cli(QStringLiteral("replay"),
                                   {QStringLiteral("--error-class"), QStringLiteral("not_null"),
                                    QStringLiteral("--execute")}));
        QCOMPARE(json(landed.out).value(QStringLiteral("already_landed")).toInt(), 1);
        QCOMPARE(json(landed.out).value(QStringLiteral("inserted")).toInt(), 0);
        QCOMPARE(f.n(QStringLiteral("SELECT COUNT(*) FROM tgt WHERE id = 3")), 1);
        QCOMPARE(f.n(QStringLiteral("SELECT COUNT(*) FROM rewind_dlq_history WHERE action = "
                                    "'replayed' AND reason LIKE 'already in target tgt%'")),
                 1);
    }

    void streamRecordsLandOnceHoweverOftenReplayed() {
        auto f = streamDlq(12);
        QCOMPARE(f->n(QStringLiteral(
                     "SELECT COUNT(*) FROM rewind_dlq WHERE error_class = 'missing_field'")),
                 12);
        // A producer retry of ev-0, dead-lettered as its own record.
        QVERIFY(f->db().exec(QStringLiteral(
            "INSERT INTO rewind_dlq (source_kind, source_name, part, log_offset, event_id, "
            "error_class, error, original_payload, "
            "payload, status, attempts, first_seen) VALUES ('stream', 'ev', '0', 99, 'ev-0', "
            "'missing_field', 'x', "
            "'{\"order_id\": 0}', '{\"order_id\": 0}', 'new', 0, '2025-05-06T10:00:00Z')")));
        QCOMPARE(runCli(f->cli(QStringLiteral("fix"),
                               {QStringLiteral("--status"), QStringLiteral("new"),
                                QStringLiteral("--set"), QStringLiteral("$.amount=3"),
                                QStringLiteral("--execute")}))
                     .exitCode,
                 0);
        auto r = runCli(
            f->cli(QStringLiteral("replay"), {QStringLiteral("--batch-size"), QStringLiteral("5"),
                                              QStringLiteral("--execute")}));
        QCOMPARE(r.exitCode, 0);
        const QJsonObject doc = json(r.out);
        QCOMPARE(doc.value(QStringLiteral("selected")).toInt(), 13);
        QCOMPARE(doc.value(QStringLiteral("replayed")).toInt(), 13);
        QCOMPARE(doc.value(QStringLiteral("already_landed")).toInt(), 1);
        QCOMPARE(doc.value(QStringLiteral("inserted")).toInt(), 12);
        QCOMPARE(doc.value(QStringLiteral("batches")).toInt(), 3);
        QCOMPARE(f->n(QStringLiteral("SELECT COUNT(*) FROM ev_sink")), 13); // 12 + the valid ok-1
        QCOMPARE(f->n(QStringLiteral("SELECT COUNT(DISTINCT event_id) FROM ev_sink")), 13);
        QCOMPARE(f->n(QStringLiteral("SELECT COUNT(*) FROM ev_sink WHERE amount = 3")), 12);
        QCOMPARE(f->n(QStringLiteral(
                     "SELECT COUNT(*) FROM rewind_audit WHERE action = 'dlq-replay-batch'")),
                 3);

        // Twice: nothing selected by default; named, skipped; the sink unchanged.
        auto second = runCli(f->cli(QStringLiteral("replay"), {QStringLiteral("--execute")}));
        QCOMPARE(json(second.out).value(QStringLiteral("selected")).toInt(), 0);
        auto named = runCli(f->cli(
            QStringLiteral("replay"),
            {QStringLiteral("--status"), QStringLiteral("replayed"), QStringLiteral("--execute")}));
        QCOMPARE(json(named.out).value(QStringLiteral("skipped")).toInt(), 13);
        QCOMPARE(json(named.out).value(QStringLiteral("replayed")).toInt(), 0);
        QCOMPARE(f->n(QStringLiteral("SELECT COUNT(*) FROM ev_sink")), 13);
        QCOMPARE(f->n(QStringLiteral(
                     "SELECT COUNT(*) FROM rewind_dlq_history WHERE action = 'replayed'")),
                 13);
    }

    void velocityLimitIsRespected() {
        auto f = streamDlq(30);
        QVERIFY(fixDlq(f->db(), {DlqSelection{{}, {QStringLiteral("new")}, {}, {}, {}, {}, {}},
                                 {{QStringLiteral("$.amount"), QStringLiteral("1")}},
                                 {},
                                 {},
                                 true}));
        DlqReplayOptions o;
        o.execute = true;
        o.batchSize = 100; // capped to one second's worth by the rate
        o.maxPerSecond = 10;
        std::vector<std::pair<qint64, qint64>> commits; // (ms since start, records done)
        QElapsedTimer clock;
        clock.start();
        o.progress = [&](const DlqReplayProgress &p) {
            commits.emplace_back(clock.elapsed(), p.processed);
        };
        auto r = replayDlq(f->db(), f->ws->spec, {}, o);
        const qint64 elapsed = clock.elapsed();
        QVERIFY2(r, qPrintable(r ? QString() : r.error().message));
        QCOMPARE(r->replayed, 30);
        // 30 records at 10/s: at least 3 s (5% slack for timer granularity), and not much more.
        QVERIFY2(elapsed >= 2850, qPrintable(QString::number(elapsed)));
        QVERIFY2(elapsed < 3000 + 4000, qPrintable(QString::number(elapsed)));
        // At every commit, no more than R records per elapsed second.
        for (const auto &[ms, done] : commits)
            QVERIFY2(double(done) <= 10.0 * (ms + 50) / 1000.0,
                     qPrintable(QStringLiteral("%1 records after %2 ms").arg(done).arg(ms)));
        QVERIFY(commits.size() >= 3);
        QCOMPARE(f->n(QStringLiteral("SELECT COUNT(*) FROM ev_sink")), 31);
    }

    void cancelStopsAtABatchBoundary() {
        auto f = streamDlq(20);
        QVERIFY(fixDlq(f->db(), {DlqSelection{{}, {QStringLiteral("new")}, {}, {}, {}, {}, {}},
                                 {{QStringLiteral("$.amount"), QStringLiteral("1")}},
                                 {},
                                 {},
                                 true}));
        std::atomic<bool> cancel = false;
        DlqReplayOptions o;
        o.execute = true;
        o.batchSize = 6;
        o.cancel = &cancel;
        o.progress = [&](const DlqReplayProgress &) { cancel = true; };
        auto r = replayDlq(f->db(), f->ws->spec, {}, o);
        QVERIFY(r);
        QCOMPARE(r->status, DlqReplayStatus::Cancelled);
        QCOMPARE(r->replayed, 6);
        QCOMPARE(f->n(QStringLiteral("SELECT COUNT(*) FROM rewind_dlq WHERE status = 'replayed'")),
                 6);
        QCOMPARE(f->n(QStringLiteral("SELECT COUNT(*) FROM rewind_dlq WHERE status = 'fixed'")),
                 14);
        QCOMPARE(f->n(QStringLiteral("SELECT COUNT(*) FROM ev_sink")), 7);
    }

    void killedReplayRunAgainLosesAndDoublesNothing_data() {
        QTest::addColumn<QString>("failpoint");
        QTest::newRow("before commit of batch 3") << QStringLiteral("dlq-replay-before-commit:3");
        QTest::newRow("after the sink write of batch 2")
            << QStringLiteral("dlq-replay-after-write:2");
        QTest::newRow("right after commit of batch 4")
            << QStringLiteral("dlq-replay-after-commit:4");
    }

    void killedReplayRunAgainLosesAndDoublesNothing() {
        QFETCH(QString, failpoint);
        auto f = streamDlq(40);
        QVERIFY(fixDlq(f->db(), {DlqSelection{{}, {QStringLiteral("new")}, {}, {}, {}, {}, {}},
                                 {{QStringLiteral("$.amount"), QStringLiteral("2")}},
                                 {},
                                 {},
                                 true}));
        const QStringList args{QStringLiteral("dlq"),          QStringLiteral("replay"),
                               QStringLiteral("--db"),         f->dbPath,
                               QStringLiteral("--spec"),       f->specPath,
                               QStringLiteral("--batch-size"), QStringLiteral("7"),
                               QStringLiteral("--execute"),    QStringLiteral("--json")};
        const Proc killed = rewindctl(args, failpoint);
        QVERIFY2(killed.crashed, killed.err.constData());
        const qint64 landed = f->n(QStringLiteral("SELECT COUNT(*) FROM ev_sink WHERE amount = 2"));
        QCOMPARE(f->n(QStringLiteral("SELECT COUNT(*) FROM rewind_dlq WHERE status = 'replayed'")),
                 landed); // writes and transitions commit together
        QVERIFY(landed % 7 == 0 && landed < 40);

        const Proc again = rewindctl(args);
        QVERIFY2(again.exitCode == 0 && !again.crashed, again.err.constData());
        QCOMPARE(
            QJsonDocument::fromJson(again.out).object().value(QStringLiteral("replayed")).toInt(),
            40 - landed);
        QCOMPARE(f->n(QStringLiteral("SELECT COUNT(*) FROM ev_sink WHERE amount = 2")), 40);
        QCOMPARE(f->n(QStringLiteral("SELECT COUNT(DISTINCT event_id) FROM ev_sink")), 41);
        QCOMPARE(f->n(QStringLiteral("SELECT COUNT(*) FROM ev_sink")), 41);
        QCOMPARE(f->n(QStringLiteral(
                     "SELECT COUNT(*) FROM rewind_dlq WHERE status = 'replayed' AND attempts = 1")),
                 40);
        // Each record has exactly one replay in its history.
        QCOMPARE(
            f->n(QStringLiteral("SELECT COUNT(*) FROM (SELECT dlq_id FROM rewind_dlq_history WHERE "
                                "action = 'replayed' GROUP BY dlq_id HAVING COUNT(*) = 1) AS x")),
            40);
        QCOMPARE(f->n(QStringLiteral(
                     "SELECT COUNT(*) FROM rewind_dlq_history WHERE action = 'replayed'")),
                 40);
    }
};

QTEST_GUILESS_MAIN(TestDlqReplay)
#include "tst_dlqreplay.moc"
