// Replay (rewindctl replay): the worked example on an orders log built here
// like the demo's (a loader that crashed at 10:20 with its last commit at
// 10:15, rewound to 10:00), the DLQ for malformed events, producer-retry
// duplicates, cancellation, and a replay killed with SIGKILL at several
// points then run again: every valid event exactly once, offsets at the log
// end. Expected counts come from the generator's own record of what it
// wrote (orders_truth), not from the engine's JSON functions; all fixture
// SQL is portable, so the suite runs on SQLite and PostgreSQL alike.
#include "tests/replayfixture.h"

#include <QTest>

class TestReplay : public ReplayFixture {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase() {
        REWIND_REQUIRE_ENGINE();
        writeSpecs();
    }

    // Worked example 2: the loader committed at 10:15 and crashed at 10:20, so
    // the sink already holds events past its last commit. Rewind to 10:00 and
    // replay: every valid event exactly once.
    void workedExample() {
        const QString db = ordersDb();
        const qint64 sinkBefore = scalar(db, QStringLiteral("SELECT COUNT(*) FROM orders_events"));
        QVERIFY(
            scalar(db,
                   QStringLiteral(
                       "SELECT COUNT(*) FROM orders_log AS l JOIN rewind_offsets AS o ON "
                       "o.group_id = 'orders-loader' "
                       "AND o.partition_id = l.partition_id AND l.log_offset >= o.committed_offset "
                       "JOIN orders_events AS s ON s.event_id = l.event_id")) > 0);

        const auto reset = runCli(loader(db, QStringLiteral("offsets-reset")) +
                                  QStringList{QStringLiteral("--to-datetime"),
                                              QStringLiteral("2025-05-06T10:00:00Z"),
                                              QStringLiteral("--execute")});
        QVERIFY2(reset.exitCode == 0, qPrintable(reset.err));
        const QString expectedOffsets = QStringLiteral(
            "SELECT COUNT(*) FROM (SELECT partition_id, MIN(log_offset) AS o FROM orders_log WHERE "
            "record_ts >= '2025-05-06T10:00:00Z' GROUP BY partition_id) AS e "
            "JOIN rewind_offsets AS c ON c.group_id = 'orders-loader' AND c.partition_id = "
            "e.partition_id AND c.committed_offset = e.o");
        QCOMPARE(scalar(db, expectedOffsets), 4);

        // What the range holds, by independent SQL.
        const QString range =
            QStringLiteral("FROM orders_log WHERE record_ts >= '2025-05-06T10:00:00Z'");
        const qint64 events = scalar(db, QStringLiteral("SELECT COUNT(*) ") + range);
        const qint64 invalid = scalar(db, QStringLiteral("SELECT COUNT(*) ") + range +
                                              QStringLiteral(" AND NOT ") + kValid);
        const qint64 fresh = scalar(
            db, QStringLiteral("SELECT COUNT(DISTINCT event_id) ") + range +
                    QStringLiteral(" AND ") + kValid +
                    QStringLiteral(" AND event_id NOT IN (SELECT event_id FROM orders_events)"));
        const qint64 allValid = scalar(
            db, QStringLiteral("SELECT COUNT(DISTINCT event_id) FROM orders_log WHERE ") + kValid);
        QVERIFY(invalid > 0);

        // The dry run reports the same and writes nothing.
        const auto dry = runCli(loader(db, QStringLiteral("replay")));
        QVERIFY2(dry.exitCode == 0, qPrintable(dry.err));
        const QJsonObject d = json(dry.out);
        QCOMPARE(d.value(QStringLiteral("executed")).toBool(), false);
        QCOMPARE(d.value(QStringLiteral("consumed")).toInteger(), events);
        QCOMPARE(d.value(QStringLiteral("inserted")).toInteger(), fresh);
        QCOMPARE(d.value(QStringLiteral("dead_lettered")).toInteger(), invalid);
        QCOMPARE(scalar(db, QStringLiteral("SELECT COUNT(*) FROM orders_events")), sinkBefore);
        QCOMPARE(scalar(db, expectedOffsets), 4);
        QCOMPARE(scalar(db, QStringLiteral("SELECT COUNT(*) FROM rewind_dlq")), 0);

        const auto run = runCli(loader(db, QStringLiteral("replay")) +
                                QStringList{QStringLiteral("--execute"),
                                            QStringLiteral("--batch-size"), QStringLiteral("300")});
        QVERIFY2(run.exitCode == 0, qPrintable(run.err));
        const QJsonObject r = json(run.out);
        QCOMPARE(r.value(QStringLiteral("executed")).toBool(), true);
        QCOMPARE(r.value(QStringLiteral("consumed")).toInteger(), events);
        QCOMPARE(r.value(QStringLiteral("inserted")).toInteger(), fresh);
        QCOMPARE(r.value(QStringLiteral("dead_lettered")).toInteger(), invalid);
        QCOMPARE(r.value(QStringLiteral("duplicates")).toInteger(), events - invalid - fresh);
        QCOMPARE(r.value(QStringLiteral("partitions")).toArray().size(), 4);
        QCOMPARE(scalar(db, QStringLiteral("SELECT COUNT(*) FROM orders_events")), allValid);
        QCOMPARE(scalar(db, QStringLiteral("SELECT COUNT(DISTINCT event_id) FROM orders_events")),
                 allValid);
        // The extracted values are the payload's.
        QCOMPARE(
            scalar(db, QStringLiteral("SELECT COUNT(DISTINCT s.event_id) FROM orders_events AS s "
                                      "JOIN orders_truth AS t ON s.event_id = ('ord-' || t.j) "
                                      "WHERE t.kind = 0 AND NOT (s.order_id = 30000000 + t.j AND "
                                      "s.amount = (t.j % 300) + 0.5 "
                                      "AND s.event_time = ('ev-' || t.j))")),
            0);
        QCOMPARE(
            scalar(db, QStringLiteral("SELECT COUNT(DISTINCT s.event_id) FROM orders_events AS s "
                                      "JOIN orders_truth AS t ON s.event_id = ('ord-' || t.j) "
                                      "AND t.ts >= '2025-05-06T10:20:00Z' AND t.kind = 0")),
            scalar(db, QStringLiteral("SELECT COUNT(DISTINCT j) FROM orders_truth WHERE ts >= "
                                      "'2025-05-06T10:20:00Z' AND kind = 0")));
        verifyAtLogEnd(db, QStringLiteral("orders"), QStringLiteral("orders-loader"),
                       QStringLiteral("orders_log"));
        QCOMPARE(
            scalar(db, QStringLiteral("SELECT COUNT(*) FROM rewind_dlq WHERE source_kind = "
                                      "'stream' AND source_name = 'orders' AND status = 'new'")),
            invalid);
        QCOMPARE(scalar(db, QStringLiteral("SELECT COUNT(*) FROM rewind_dlq_history")), invalid);
        QCOMPARE(scalar(db, QStringLiteral("SELECT COUNT(*) FROM rewind_audit WHERE action = "
                                           "'replay-batch' AND stream = 'orders'")),
                 r.value(QStringLiteral("batches")).toInteger());
        QVERIFY(r.value(QStringLiteral("batches")).toInteger() > 1);

        // Nothing left to read; a second rewind and replay changes nothing and dead-letters nothing
        // twice.
        QCOMPARE(json(runCli(loader(db, QStringLiteral("replay")) +
                             QStringList{QStringLiteral("--execute")})
                          .out)
                     .value(QStringLiteral("consumed"))
                     .toInteger(),
                 0);
        QVERIFY(
            runCli(loader(db, QStringLiteral("offsets-reset")) +
                   QStringList{QStringLiteral("--to-datetime"),
                               QStringLiteral("2025-05-06T10:00:00Z"), QStringLiteral("--execute")})
                .exitCode == 0);
        const QJsonObject again = json(
            runCli(loader(db, QStringLiteral("replay")) + QStringList{QStringLiteral("--execute")})
                .out);
        QCOMPARE(again.value(QStringLiteral("consumed")).toInteger(), events);
        QCOMPARE(again.value(QStringLiteral("inserted")).toInteger(), 0);
        QCOMPARE(again.value(QStringLiteral("dead_lettered")).toInteger(), 0);
        QCOMPARE(again.value(QStringLiteral("already_dead_lettered")).toInteger(), invalid);
        QCOMPARE(again.value(QStringLiteral("duplicates")).toInteger(), events - invalid);
        QCOMPARE(scalar(db, QStringLiteral("SELECT COUNT(*) FROM orders_events")), allValid);
        QCOMPARE(scalar(db, QStringLiteral("SELECT COUNT(*) FROM rewind_dlq")), invalid);
    }

    void malformedGoToTheDlqAndDoNotBlock() {
        const QString db = smallLog();
        const auto run = runCli(small(db, QStringLiteral("replay")) +
                                QStringList{QStringLiteral("--execute"),
                                            QStringLiteral("--batch-size"), QStringLiteral("2")});
        QVERIFY2(run.exitCode == 0, qPrintable(run.err));
        const QJsonObject r = json(run.out);
        QCOMPARE(r.value(QStringLiteral("sink_created")).toBool(), true);
        QCOMPARE(r.value(QStringLiteral("consumed")).toInteger(), 11);
        QCOMPARE(r.value(QStringLiteral("inserted")).toInteger(), 4); // a, b, e, h
        QCOMPARE(r.value(QStringLiteral("duplicates")).toInteger(),
                 2); // b retried, a in partition 1
        QCOMPARE(r.value(QStringLiteral("dead_lettered")).toInteger(), 5);
        QCOMPARE(scalar(db, QStringLiteral("SELECT COUNT(*) FROM ev_sink")), 4);
        QCOMPARE(scalar(db, QStringLiteral("SELECT COUNT(*) FROM ev_sink WHERE event_id = 'a' AND "
                                           "order_id = 1 AND amount = 10.5 AND note = 'x'")),
                 1);
        QCOMPARE(scalar(db, QStringLiteral("SELECT COUNT(*) FROM ev_sink WHERE event_id = 'h' AND "
                                           "amount = 0 AND note IS NULL")),
                 1);
        auto d = rw::Database::open(db);
        auto q = d->exec(QStringLiteral("SELECT part || ':' || log_offset || ' ' || error_class || "
                                        "' ' || error || ' ' || status "
                                        "|| ' ' || CASE WHEN payload = original_payload THEN 1 "
                                        "ELSE 0 END FROM rewind_dlq ORDER BY part, log_offset"));
        QStringList rows;
        while (q->next())
            rows << q->value(0).toString();
        QCOMPARE(
            rows,
            QStringList(
                {QStringLiteral("0:3 invalid_json payload is not valid JSON new 1"),
                 QStringLiteral(
                     "0:4 missing_field required field missing or null: amount ($.amount) new 1"),
                 QStringLiteral("1:0 missing_field required field missing or null: order_id "
                                "($.order_id) new 1"),
                 QStringLiteral("1:1 missing_event_id event_id is NULL new 1"),
                 QStringLiteral("1:2 invalid_json payload is not valid JSON new 1")}));
        QCOMPARE(scalar(db, QStringLiteral(
                                "SELECT COUNT(*) FROM rewind_dlq WHERE source_kind = 'stream' AND "
                                "source_name = 'ev' AND first_seen IS NOT NULL")),
                 5);
        QCOMPARE(
            scalar(db, QStringLiteral("SELECT COUNT(*) FROM rewind_dlq_history h JOIN rewind_dlq d "
                                      "USING (dlq_id) WHERE h.to_status = 'new'")),
            5);
        verifyAtLogEnd(db, QStringLiteral("ev"), QStringLiteral("g"), QStringLiteral("ev_log"));
    }

    void maxEventsThenTheRest() {
        const QString db = smallLog();
        const QJsonObject first =
            json(runCli(small(db, QStringLiteral("replay")) +
                        QStringList{QStringLiteral("--execute"), QStringLiteral("--max-events"),
                                    QStringLiteral("4")})
                     .out);
        QCOMPARE(first.value(QStringLiteral("consumed")).toInteger(), 4);
        // Shared out: both lagging partitions move by two, neither starves.
        QCOMPARE(scalar(db, QStringLiteral("SELECT committed_offset FROM rewind_offsets WHERE "
                                           "group_id = 'g' AND partition_id = 0")),
                 2);
        QCOMPARE(scalar(db, QStringLiteral("SELECT committed_offset FROM rewind_offsets WHERE "
                                           "group_id = 'g' AND partition_id = 1")),
                 2);
        const QJsonObject rest = json(
            runCli(small(db, QStringLiteral("replay")) + QStringList{QStringLiteral("--execute")})
                .out);
        QCOMPARE(rest.value(QStringLiteral("consumed")).toInteger(), 7);
        QCOMPARE(scalar(db, QStringLiteral("SELECT COUNT(*) FROM ev_sink")), 4);
        QCOMPARE(scalar(db, QStringLiteral("SELECT COUNT(*) FROM rewind_dlq")), 5);
        verifyAtLogEnd(db, QStringLiteral("ev"), QStringLiteral("g"), QStringLiteral("ev_log"));
    }

    // --max-per-second: batches of at most R offsets, the measured rate never
    // above R; the events land as without it.
    void velocityCapsTheRate() {
        const QString db = smallLog();
        QElapsedTimer t;
        t.start();
        const auto r = runCli(small(db, QStringLiteral("replay")) +
                              QStringList{QStringLiteral("--execute"),
                                          QStringLiteral("--max-per-second"), QStringLiteral("5")});
        const double seconds = t.nsecsElapsed() / 1e9;
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        const QJsonObject o = json(r.out);
        QCOMPARE(o.value(QStringLiteral("consumed")).toInteger(), 11);
        QVERIFY(o.value(QStringLiteral("batches")).toInteger() >=
                3); // 11 offsets, at most 5 a batch
        QVERIFY2(11 / seconds <= 5.0, qPrintable(QStringLiteral("%1 events/s").arg(11 / seconds)));
        QCOMPARE(scalar(db, QStringLiteral("SELECT COUNT(*) FROM ev_sink")), 4);
        verifyAtLogEnd(db, QStringLiteral("ev"), QStringLiteral("g"), QStringLiteral("ev_log"));
        const auto bad =
            runCli(small(db, QStringLiteral("replay")) +
                   QStringList{QStringLiteral("--max-per-second"), QStringLiteral("0")});
        QCOMPARE(bad.exitCode, 2);
        QVERIFY2(bad.err.contains(QStringLiteral("--max-per-second")), qPrintable(bad.err));
    }

    void cancelBetweenBatchesThenResume() {
        const QString db = ordersDb();
        auto database = rw::Database::open(db);
        auto spec = rw::loadSpec(m_demoSpec);
        QVERIFY(database && spec);
        std::atomic<bool> cancel{false};
        rw::ReplayOptions o;
        o.execute = true;
        o.batchSize = 200;
        o.cancel = &cancel;
        int calls = 0;
        o.progress = [&](const rw::ReplayProgress &p) {
            ++calls;
            QVERIFY(p.batchesDone <= p.batchesTotal);
            if (p.batchesDone == 2)
                cancel = true;
        };
        auto r = rw::replay(*database, *spec->stream(QStringLiteral("orders")),
                            QStringLiteral("orders-loader"), o);
        QVERIFY2(r, r ? "" : qPrintable(r.error().message));
        QCOMPARE(r->status, rw::ReplayStatus::Cancelled);
        QCOMPARE(r->batches, 2);
        QCOMPARE(r->consumed, 400);
        QCOMPARE(calls, 2);
        cancel = false;
        o.progress = nullptr;
        auto rest = rw::replay(*database, *spec->stream(QStringLiteral("orders")),
                               QStringLiteral("orders-loader"), o);
        QVERIFY(rest);
        QCOMPARE(rest->status, rw::ReplayStatus::Succeeded);
        QCOMPARE(
            scalar(db, QStringLiteral("SELECT COUNT(*) FROM orders_events")),
            scalar(db, QStringLiteral("SELECT COUNT(DISTINCT event_id) FROM orders_log WHERE ") +
                           kValid));
        verifyAtLogEnd(db, QStringLiteral("orders"), QStringLiteral("orders-loader"),
                       QStringLiteral("orders_log"));
    }

    // A batch takes its events from every partition in equal shares, so a
    // replay killed after its first batch has moved every partition forward.
    void batchesSpanPartitions() {
        const QString db = smallLog();
        const QStringList replay = small(db, QStringLiteral("replay")) +
                                   QStringList{QStringLiteral("--execute"),
                                               QStringLiteral("--batch-size"), QStringLiteral("4")};
        const Proc killed = rewindctl(replay, QStringLiteral("replay-after-commit:1"));
        QVERIFY2(killed.crashed, "the replay was not killed");
        QCOMPARE(scalar(db, QStringLiteral("SELECT committed_offset FROM rewind_offsets WHERE "
                                           "group_id = 'g' AND partition_id = 0")),
                 2);
        QCOMPARE(scalar(db, QStringLiteral("SELECT committed_offset FROM rewind_offsets WHERE "
                                           "group_id = 'g' AND partition_id = 1")),
                 2);
        // a (0:0), b (0:1); f (1:0) has a null order_id, (1:1) no event_id.
        QCOMPARE(
            scalar(db, QStringLiteral("SELECT COUNT(*) FROM ev_sink WHERE event_id IN ('a', 'b')")),
            2);
        QCOMPARE(scalar(db, QStringLiteral("SELECT COUNT(*) FROM ev_sink")), 2);
        QCOMPARE(scalar(db, QStringLiteral("SELECT COUNT(*) FROM rewind_dlq")), 2);

        // The rest: 4 + 3 events, two batches of at most 4.
        const Proc rest = rewindctl(replay);
        QVERIFY2(rest.exitCode == 0, rest.err.constData());
        const QJsonObject r = json(QString::fromUtf8(rest.out));
        QCOMPARE(r.value(QStringLiteral("consumed")).toInteger(), 7);
        QCOMPARE(r.value(QStringLiteral("batches")).toInteger(), 2);
        QCOMPARE(scalar(db, QStringLiteral("SELECT COUNT(*) FROM ev_sink")), 4);
        QCOMPARE(scalar(db, QStringLiteral("SELECT COUNT(*) FROM rewind_dlq")), 5);
        verifyAtLogEnd(db, QStringLiteral("ev"), QStringLiteral("g"), QStringLiteral("ev_log"));
    }

    // The small log's events stored other ways. On SQLite a batch is read by
    // scanning the stretch of rowids its events lie in when that stretch is
    // short (the small log, stored partition by partition, puts 4 other
    // events inside the first batch's stretch), else through the (partition,
    // offset) index; a table without rowids, or whose own column is named
    // rowid, is always read through the index. Every layout ends the same.
    void logLayouts_data() {
        QTest::addColumn<QString>("create");
        QTest::addColumn<QString>("order");
        const QString plain =
            QStringLiteral("CREATE TABLE ev_log (partition_id INTEGER, log_offset INTEGER, "
                           "event_id TEXT, record_ts TEXT, payload TEXT)");
        QTest::newRow("partition by partition")
            << plain << QStringLiteral("partition_id, log_offset");
        QTest::newRow("arrival order") << plain << QStringLiteral("record_ts, partition_id");
        QTest::newRow("newest first")
            << plain << QStringLiteral("partition_id DESC, log_offset DESC");
        QTest::newRow("column named rowid, some null")
            << QStringLiteral("CREATE TABLE ev_log (rowid INTEGER, partition_id INTEGER, "
                              "log_offset INTEGER, event_id TEXT, record_ts TEXT, payload TEXT)")
            << QStringLiteral("partition_id, log_offset");
        if (!testsupport::onPostgres())
            QTest::newRow("without rowid")
                << QStringLiteral("CREATE TABLE ev_log (partition_id INTEGER, log_offset INTEGER, "
                                  "event_id TEXT, record_ts TEXT, payload TEXT, "
                                  "PRIMARY KEY (partition_id, log_offset)) WITHOUT ROWID")
                << QStringLiteral("partition_id, log_offset");
    }
    void logLayouts() {
        QFETCH(QString, create);
        QFETCH(QString, order);
        const QString source = smallLog();
        const QString name = QStringLiteral("layout-%1.db").arg(++m_copies);
        const QString db = testsupport::makeDatabase(m_dir, name, {create}).url().text;
        {
            auto from = rw::Database::open(source);
            auto to = rw::Database::open(db);
            QVERIFY(from && to);
            auto rows = from->exec(QStringLiteral("SELECT partition_id, log_offset, event_id, "
                                                  "record_ts, payload FROM ev_log ORDER BY ") +
                                   order);
            QVERIFY(rows);
            for (int i = 0; rows->next(); ++i) {
                QVariantList values;
                for (int c = 0; c < 5; ++c)
                    values << rows->value(c);
                const bool hasRowid = create.contains(QStringLiteral("rowid INTEGER"));
                if (hasRowid) // 1, 2, NULL, 4, 5, NULL, ...
                    values.prepend(i % 3 == 2 ? QVariant() : QVariant(i + 1));
                QVERIFY(to->exec(QStringLiteral("INSERT INTO ev_log VALUES (?, ?, ?, ?, ?") +
                                     (hasRowid ? QStringLiteral(", ?)") : QStringLiteral(")")),
                                 values));
            }
        }
        const QStringList replay = small(db, QStringLiteral("replay")) +
                                   QStringList{QStringLiteral("--execute"),
                                               QStringLiteral("--batch-size"), QStringLiteral("4")};
        const Proc run = rewindctl(replay);
        QVERIFY2(run.exitCode == 0, run.err.constData());
        QCOMPARE(json(QString::fromUtf8(run.out)).value(QStringLiteral("batches")).toInteger(), 3);
        QCOMPARE(
            scalar(db, QStringLiteral(
                           "SELECT COUNT(*) FROM ev_sink WHERE event_id IN ('a', 'b', 'e', 'h')")),
            4);
        QCOMPARE(scalar(db, QStringLiteral("SELECT COUNT(*) FROM ev_sink")), 4);
        QCOMPARE(scalar(db, QStringLiteral("SELECT amount FROM ev_sink WHERE event_id = 'h'")), 0);
        QCOMPARE(scalar(db, QStringLiteral("SELECT COUNT(*) FROM rewind_dlq")), 5);
        QCOMPARE(scalar(db, QStringLiteral("SELECT SUM(log_offset) FROM rewind_dlq")),
                 3 + 4 + 0 + 1 + 2);
        verifyAtLogEnd(db, QStringLiteral("ev"), QStringLiteral("g"), QStringLiteral("ev_log"));
    }

    // Without --batch-size a batch is 250,000 events: 260,000 events in two
    // partitions are two transactions, the first moving each partition by 125,000.
    void defaultBatchSize() {
        const QString name = QStringLiteral("big-%1.db").arg(++m_copies);
        const QString db =
            testsupport::makeDatabase(
                m_dir, name,
                {
                    QStringLiteral("CREATE TABLE ev_log (partition_id INTEGER, log_offset INTEGER, "
                                   "event_id TEXT, record_ts TEXT, payload TEXT)"),
                    QStringLiteral(
                        "WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < "
                        "259999) "
                        "INSERT INTO ev_log SELECT i % 2, i / 2, 'e' || i, '2025-05-06T10:00:00Z', "
                        "'{\"order_id\": ' || i || ', \"amount\": 1}' FROM n"),
                })
                .url()
                .text;
        const QStringList replay =
            small(db, QStringLiteral("replay")) + QStringList{QStringLiteral("--execute")};
        const Proc killed = rewindctl(replay, QStringLiteral("replay-after-commit:1"));
        QVERIFY2(killed.crashed, "the replay was not killed");
        QCOMPARE(
            scalar(db,
                   QStringLiteral(
                       "SELECT SUM(committed_offset) FROM rewind_offsets WHERE group_id = 'g'")),
            250000);
        QCOMPARE(scalar(db, QStringLiteral("SELECT COUNT(*) FROM rewind_offsets WHERE group_id = "
                                           "'g' AND committed_offset = 125000")),
                 2);
        QCOMPARE(scalar(db, QStringLiteral("SELECT COUNT(*) FROM ev_sink")), 250000);
        const Proc rest = rewindctl(replay);
        QVERIFY2(rest.exitCode == 0, rest.err.constData());
        const QJsonObject r = json(QString::fromUtf8(rest.out));
        QCOMPARE(r.value(QStringLiteral("consumed")).toInteger(), 10000);
        QCOMPARE(r.value(QStringLiteral("batches")).toInteger(), 1);
        QCOMPARE(scalar(db, QStringLiteral("SELECT COUNT(*) FROM ev_sink")), 260000);
        QCOMPARE(scalar(db, QStringLiteral(
                                "SELECT COUNT(*) FROM rewind_audit WHERE action = 'replay-batch'")),
                 2);
        verifyAtLogEnd(db, QStringLiteral("ev"), QStringLiteral("g"), QStringLiteral("ev_log"));
    }

    void badInput_data() {
        QTest::addColumn<QStringList>("arguments");
        QTest::addColumn<QString>("culprit");
        QTest::newRow("unknown stream")
            << QStringList{QStringLiteral("--stream"), QStringLiteral("nope")}
            << QStringLiteral("\"nope\"");
        QTest::newRow("bad max-events")
            << QStringList{QStringLiteral("--max-events"), QStringLiteral("-3")}
            << QStringLiteral("--max-events");
        QTest::newRow("bad batch size")
            << QStringList{QStringLiteral("--batch-size"), QStringLiteral("0")}
            << QStringLiteral("--batch-size");
    }

    void badInput() {
        QFETCH(QStringList, arguments);
        QFETCH(QString, culprit);
        const QString db = ordersDb();
        QStringList a = loader(db, QStringLiteral("replay"));
        if (arguments.contains(QStringLiteral("--stream")))
            a.remove(a.indexOf(QStringLiteral("--stream")), 2);
        const Proc r = rewindctl(a + arguments + QStringList{QStringLiteral("--execute")});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(QString::fromUtf8(r.err).contains(culprit), r.err.constData());
        QCOMPARE(scalar(db, QStringLiteral(
                                "SELECT COUNT(*) FROM rewind_audit WHERE action = 'replay-batch'")),
                 0);
    }
};

QTEST_GUILESS_MAIN(TestReplay)
#include "tst_replay.moc"
