// Replay across crashes: a replay killed at each point of a batch, then run
// again, lands every event once; staging the next batch ahead (SQLite) gives
// the same sink as staging in turn. The rest of replay is tst_replay
// (tests/replayfixture.h).
#include "tests/replayfixture.h"

#include <QTest>

class TestReplaycrash : public ReplayFixture {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase() {
        REWIND_REQUIRE_ENGINE();
        writeSpecs();
    }

    void killedThenReplayedAgain_data() {
        QTest::addColumn<QString>("failpoint");
        QTest::newRow("before the first batch") << QStringLiteral("replay-batch-start:1");
        QTest::newRow("sink written, batch 2 uncommitted") << QStringLiteral("replay-after-sink:2");
        QTest::newRow("everything written, batch 3 uncommitted")
            << QStringLiteral("replay-before-commit:3");
        QTest::newRow("batch 1 committed") << QStringLiteral("replay-after-commit:1");
        QTest::newRow("starting batch 4") << QStringLiteral("replay-batch-start:4");
    }

    void killedThenReplayedAgain() {
        QFETCH(QString, failpoint);
        const QString db = ordersDb();
        QVERIFY(
            runCli(loader(db, QStringLiteral("offsets-reset")) +
                   QStringList{QStringLiteral("--to-datetime"),
                               QStringLiteral("2025-05-06T10:00:00Z"), QStringLiteral("--execute")})
                .exitCode == 0);
        const qint64 allValid = scalar(
            db, QStringLiteral("SELECT COUNT(DISTINCT event_id) FROM orders_log WHERE ") + kValid);
        const qint64 invalid =
            scalar(db, QStringLiteral("SELECT COUNT(*) FROM orders_log WHERE record_ts >= "
                                      "'2025-05-06T10:00:00Z' AND NOT ") +
                           kValid);
        const QStringList replay =
            loader(db, QStringLiteral("replay")) + QStringList{QStringLiteral("--execute"),
                                                               QStringLiteral("--batch-size"),
                                                               QStringLiteral("250")};

        const Proc killed = rewindctl(replay, failpoint);
        QVERIFY2(killed.crashed, "the replay was not killed");
        // The dead replay does not block the next one.
        const Proc again = rewindctl(replay);
        QVERIFY2(again.exitCode == 0, again.err.constData());
        QCOMPARE(scalar(db, QStringLiteral("SELECT COUNT(*) FROM orders_events")), allValid);
        QCOMPARE(scalar(db, QStringLiteral("SELECT COUNT(DISTINCT event_id) FROM orders_events")),
                 allValid);
        QCOMPARE(scalar(db, QStringLiteral("SELECT COUNT(*) FROM rewind_dlq")), invalid);
        QCOMPARE(scalar(db, QStringLiteral("SELECT COUNT(*) FROM rewind_dlq_history")), invalid);
        verifyAtLogEnd(db, QStringLiteral("orders"), QStringLiteral("orders-loader"),
                       QStringLiteral("orders_log"));
        QCOMPARE(scalar(db, QStringLiteral(
                                "SELECT COUNT(*) FROM rewind_replays WHERE status = 'succeeded'")),
                 1);
        QCOMPARE(
            scalar(db, QStringLiteral(
                           "SELECT COUNT(*) FROM rewind_replays WHERE status = 'interrupted'")),
            1);
        // Audit rows match committed batches: none for a rolled-back one.
        qint64 audited = 0;
        {
            auto d = rw::Database::open(db);
            auto q = d->exec(QStringLiteral(
                "SELECT detail_json FROM rewind_audit WHERE action = 'replay-batch'"));
            while (q->next())
                audited += QJsonDocument::fromJson(q->value(0).toString().toUtf8())
                               .object()
                               .value(QStringLiteral("consumed"))
                               .toInteger();
        }
        QCOMPARE(
            audited,
            scalar(
                db,
                QStringLiteral(
                    "SELECT COUNT(*) FROM orders_log WHERE record_ts >= '2025-05-06T10:00:00Z'")));
    }

    // On SQLite the next batch is staged on a second connection, in a thread
    // of its own, while the current one is written (REWIND_REPLAY_PIPELINE=0:
    // one connection, in turn). Both end with the same sink, DLQ records,
    // offsets and per-batch audit rows, and leave no scratch file behind; a
    // killed replay's scratch folder is removed by the next replay.
    void stagingAheadMatchesStagingInTurn() {
        if (testsupport::onPostgres())
            QSKIP("staging ahead is SQLite's; PostgreSQL stages each batch in turn");
        QTemporaryDir tmp;
        QVERIFY(tmp.isValid());
        const QByteArray oldTmp = qgetenv("TMPDIR");
        qputenv("TMPDIR", tmp.path().toUtf8());
        const auto restore = qScopeGuard([&] {
            if (oldTmp.isNull())
                qunsetenv("TMPDIR");
            else
                qputenv("TMPDIR", oldTmp);
            qunsetenv("REWIND_REPLAY_PIPELINE");
        });
        const auto leftovers = [&] {
            return QDir(tmp.path()).entryList(QDir::AllEntries | QDir::NoDotAndDotDot);
        };
        const auto summary = [](const QString &db) {
            QString out;
            auto d = rw::Database::open(db);
            for (const QString &sql : {
                     QStringLiteral(
                         "SELECT group_concat(event_id || ':' || order_id || ':' || amount, ',') "
                         "FROM (SELECT * FROM orders_events ORDER BY event_id)"),
                     QStringLiteral(
                         "SELECT group_concat(part || ':' || log_offset || ':' || error_class, "
                         "',') FROM (SELECT * FROM rewind_dlq ORDER BY dlq_id)"),
                     QStringLiteral("SELECT group_concat(partition_id || ':' || committed_offset, "
                                    "',') FROM (SELECT * FROM rewind_offsets "
                                    "WHERE group_id = 'orders-loader' ORDER BY partition_id)"),
                     QStringLiteral("SELECT group_concat(json_extract(detail_json, '$.consumed') "
                                    "|| '/' || json_extract(detail_json, '$.inserted') || '/' "
                                    "|| json_extract(detail_json, '$.duplicates') || '/' || "
                                    "json_extract(detail_json, '$.dead_lettered'), ',') "
                                    "FROM (SELECT * FROM rewind_audit WHERE action = "
                                    "'replay-batch' ORDER BY audit_id)"),
                 })
                out += d->scalar(sql)->toString() + u'\n';
            return out;
        };
        QString seen[2];
        for (const int pipelined : {0, 1}) {
            qputenv("REWIND_REPLAY_PIPELINE", pipelined ? "1" : "0");
            const QString db = ordersDb();
            QVERIFY(runCli(loader(db, QStringLiteral("offsets-reset")) +
                           QStringList{QStringLiteral("--to-datetime"),
                                       QStringLiteral("2025-05-06T10:00:00Z"),
                                       QStringLiteral("--execute")})
                        .exitCode == 0);
            const Proc run =
                rewindctl(loader(db, QStringLiteral("replay")) +
                          QStringList{QStringLiteral("--execute"), QStringLiteral("--batch-size"),
                                      QStringLiteral("97")});
            QVERIFY2(run.exitCode == 0, run.err.constData());
            QVERIFY(json(QString::fromUtf8(run.out)).value(QStringLiteral("batches")).toInteger() >
                    5);
            QCOMPARE(scalar(db, QStringLiteral("SELECT COUNT(*) FROM orders_events")),
                     scalar(db, QStringLiteral(
                                    "SELECT COUNT(DISTINCT event_id) FROM orders_log WHERE ") +
                                    kValid));
            QCOMPARE(leftovers(), QStringList());
            seen[pipelined] = summary(db);
        }
        QCOMPARE(seen[1], seen[0]);

        // Killed with a batch written and the next one staged: its folder stays
        // until the next replay, which ends exactly once and removes it.
        const QString db = ordersDb();
        QVERIFY(
            runCli(loader(db, QStringLiteral("offsets-reset")) +
                   QStringList{QStringLiteral("--to-datetime"),
                               QStringLiteral("2025-05-06T10:00:00Z"), QStringLiteral("--execute")})
                .exitCode == 0);
        const QStringList replay =
            loader(db, QStringLiteral("replay")) + QStringList{QStringLiteral("--execute"),
                                                               QStringLiteral("--batch-size"),
                                                               QStringLiteral("97")};
        const Proc killed = rewindctl(replay, QStringLiteral("replay-after-sink:3"));
        QVERIFY2(killed.crashed, "the replay was not killed");
        QCOMPARE(leftovers().size(), 1);
        const Proc again = rewindctl(replay);
        QVERIFY2(again.exitCode == 0, again.err.constData());
        QCOMPARE(leftovers(), QStringList());
        QCOMPARE(summary(db), seen[1]);
    }
};

QTEST_GUILESS_MAIN(TestReplaycrash)
#include "tst_replaycrash.moc"
