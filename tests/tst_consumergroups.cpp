// Consumer groups of a table stream: the groups with their lag, and their
// status from lag samples by Burrow's rules (its own rule cases as tests).
// The offsets and resets are tst_offsets (tests/offsetsfixture.h).
#include "tests/offsetsfixture.h"

#include <QTest>

class TestConsumergroups : public OffsetsFixture {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase() {
        REWIND_REQUIRE_ENGINE();
        writeSpecs();
    }

    // Burrow's own rule cases (linkedin/Burrow, evaluator/caching_test.go,
    // cases 0-8): {offset, commit time ms, lag} windows with the current lag
    // and the time now (s). A window's commit times are our sample times.
    void burrowRules_data() {
        QTest::addColumn<QList<QList<qint64>>>("window");
        QTest::addColumn<qint64>("currentLag");
        QTest::addColumn<qint64>("nowSeconds");
        QTest::addColumn<int>("members"); // -1 unknown, 0 none, 1 some
        QTest::addColumn<QString>("status");
        const QList<QList<qint64>> moving0{{1000, 100000, 0},
                                           {2000, 200000, 50},
                                           {3000, 300000, 100},
                                           {4000, 400000, 150},
                                           {5000, 500000, 200}};
        const QList<QList<qint64>> moving50{{1000, 100000, 50},
                                            {2000, 200000, 100},
                                            {3000, 300000, 150},
                                            {4000, 400000, 200},
                                            {5000, 500000, 250}};
        const QList<QList<qint64>> still0{{1000, 100000, 0},
                                          {1000, 200000, 50},
                                          {1000, 300000, 100},
                                          {1000, 400000, 150},
                                          {1000, 500000, 200}};
        const QList<QList<qint64>> still100{{1000, 100000, 100},
                                            {1000, 200000, 150},
                                            {1000, 300000, 200},
                                            {1000, 400000, 250},
                                            {1000, 500000, 300}};
        const QList<QList<qint64>> stillFlat{{1000, 100000, 100},
                                             {1000, 200000, 100},
                                             {1000, 300000, 100},
                                             {1000, 400000, 100},
                                             {1000, 500000, 100}};
        const QList<QList<qint64>> back{{1000, 100000, 100},
                                        {2000, 200000, 150},
                                        {3000, 300000, 200},
                                        {2000, 400000, 1250},
                                        {4000, 500000, 300}};
        QTest::newRow("0: zero lag somewhere")
            << moving0 << qint64(200) << qint64(600) << -1 << QStringLiteral("OK");
        QTest::newRow("1: zero lag, not stopped yet")
            << moving0 << qint64(200) << qint64(900) << -1 << QStringLiteral("OK");
        QTest::newRow("2: zero lag wins over stopped")
            << moving0 << qint64(200) << qint64(1000) << -1 << QStringLiteral("OK");
        QTest::newRow("3: stopped")
            << moving50 << qint64(250) << qint64(1000) << -1 << QStringLiteral("STOP");
        QTest::newRow("4: stalled, but zero lag")
            << still0 << qint64(200) << qint64(600) << 1 << QStringLiteral("OK");
        QTest::newRow("5: stalled (members)")
            << still100 << qint64(300) << qint64(600) << 1 << QStringLiteral("STALL");
        QTest::newRow("5: not moving, no members")
            << still100 << qint64(300) << qint64(600) << 0 << QStringLiteral("STOP");
        QTest::newRow("6: stalled, lag flat")
            << stillFlat << qint64(100) << qint64(600) << 1 << QStringLiteral("STALL");
        QTest::newRow("7: rewind")
            << back << qint64(300) << qint64(600) << -1 << QStringLiteral("REWIND");
        QTest::newRow("8: current lag zero")
            << moving50 << qint64(0) << qint64(1000) << -1 << QStringLiteral("OK");
        // Not Burrow's: a moving consumer whose lag keeps growing, seen now.
        QTest::newRow("slow consumer")
            << moving50 << qint64(250) << qint64(500) << -1 << QStringLiteral("WARN");
        QTest::newRow("catching up")
            << QList<QList<qint64>>{{1000, 100000, 300}, {2000, 200000, 200}, {3000, 300000, 100}}
            << qint64(100) << qint64(300) << -1 << QStringLiteral("OK");
        QTest::newRow("one sample") << QList<QList<qint64>>{{1000, 100000, 300}} << qint64(300)
                                    << qint64(300) << -1 << QStringLiteral("unknown");
    }

    void burrowRules() {
        QFETCH(QList<QList<qint64>>, window);
        QFETCH(qint64, currentLag);
        QFETCH(qint64, nowSeconds);
        QFETCH(int, members);
        QFETCH(QString, status);
        std::vector<rw::LagSample> samples;
        for (const auto &row : window)
            samples.push_back({row[1], row[0], row[0] + row[2], row[2]});
        const std::optional<bool> hasMembers =
            members < 0 ? std::nullopt : std::optional<bool>(members == 1);
        QCOMPARE(rw::lagStatusName(
                     rw::partitionLagStatus(samples, currentLag, nowSeconds * 1000, hasMembers)),
                 status);
    }

    // Each consumer-groups read records a sample per partition; status is
    // Burrow's over them: a group whose offsets have not moved for longer
    // than they were seen moving is STOP; moved back, REWIND.
    void consumerGroupsStatusFromLagSamples() {
        const QString db = freshDb();
        const QStringList groups{QStringLiteral("consumer-groups"),
                                 QStringLiteral("--db"),
                                 db,
                                 QStringLiteral("--spec"),
                                 m_spec,
                                 QStringLiteral("--stream"),
                                 QStringLiteral("ev"),
                                 QStringLiteral("--json")};
        const auto statusOf = [&]() {
            const auto r = runCli(groups);
            return r.exitCode == 0 ? json(r)
                                         .value(QStringLiteral("groups"))
                                         .toArray()
                                         .at(0)
                                         .toObject()
                                         .value(QStringLiteral("status"))
                                         .toString()
                                   : r.err;
        };
        QCOMPARE(statusOf(), QStringLiteral("unknown")); // one sample
        QCOMPARE(scalar(db, QStringLiteral("SELECT COUNT(*) FROM rewind_lag_samples WHERE stream = "
                                           "'ev' AND group_id = 'g'")),
                 3);
        QCOMPARE(scalar(db, QStringLiteral("SELECT SUM(lag) FROM rewind_lag_samples WHERE stream = "
                                           "'ev' AND group_id = 'g'")),
                 15);
        QCOMPARE(statusOf(), QStringLiteral("unknown")); // within a second: no second sample
        QCOMPARE(scalar(db, QStringLiteral("SELECT COUNT(*) FROM rewind_lag_samples WHERE stream = "
                                           "'ev' AND group_id = 'g'")),
                 3);
        {
            // The same offsets sampled a minute and half a minute ago.
            auto d = rw::Database::open(db);
            QVERIFY(d->exec(
                QStringLiteral("INSERT INTO rewind_lag_samples SELECT stream, group_id, "
                               "partition_id, sampled_ms - ?, committed_offset, log_end, lag "
                               "FROM rewind_lag_samples WHERE stream = 'ev' UNION ALL "
                               "SELECT stream, group_id, partition_id, sampled_ms - ?, "
                               "committed_offset, log_end, lag "
                               "FROM rewind_lag_samples WHERE stream = 'ev'"),
                {60000, 30000}));
        }
        QTest::qWait(1100);
        QCOMPARE(statusOf(), QStringLiteral("STOP")); // not moved for a minute, no replay running
        // Back to the earliest: the offset goes back.
        const auto reset =
            runCli(args(db, QStringLiteral("offsets-reset")) +
                   QStringList{QStringLiteral("--to-earliest"), QStringLiteral("--execute")});
        QVERIFY2(reset.exitCode == 0, qPrintable(reset.err));
        QTest::qWait(1100);
        QCOMPARE(statusOf(), QStringLiteral("REWIND"));
        // The text form names the rules.
        const auto text = runCli(groups.mid(0, groups.size() - 1));
        QVERIFY2(text.out.contains(QStringLiteral("REWIND")) &&
                     text.out.contains(QStringLiteral("Burrow")),
                 qPrintable(text.out));
    }

    void consumerGroupsWithTheirLag() {
        const QString db = freshDb();
        {
            auto d = rw::Database::open(db);
            QVERIFY(d->exec(QStringLiteral(
                "INSERT INTO rewind_offsets VALUES ('ev', 'done', 0, 10, '2025-05-06T11:00:00Z'), "
                "('ev', 'done', 1, 10, '2025-05-06T11:00:00Z'), ('ev', 'done', 2, 12, "
                "'2025-05-06T11:00:01Z'), "
                "('other', 'g', 0, 1, '2025-05-06T11:00:00Z')")));
        }
        const auto r = runCli({QStringLiteral("consumer-groups"), QStringLiteral("--db"), db,
                               QStringLiteral("--spec"), m_spec, QStringLiteral("--stream"),
                               QStringLiteral("ev"), QStringLiteral("--json")});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        const QJsonArray groups = json(r).value(QStringLiteral("groups")).toArray();
        QCOMPARE(groups.size(), 2);
        // "done" is at the end everywhere (past it in partition 2: no negative lag).
        QCOMPARE(groups[0].toObject().value(QStringLiteral("group")).toString(),
                 QStringLiteral("done"));
        QCOMPARE(groups[0].toObject().value(QStringLiteral("lag")).toInteger(), 0);
        QCOMPARE(groups[0].toObject().value(QStringLiteral("partitions")).toInteger(), 3);
        QCOMPARE(groups[0].toObject().value(QStringLiteral("last_commit_at")).toString(),
                 QStringLiteral("2025-05-06T11:00:01Z"));
        // "g": 7 + 5 (nothing committed in 1: from its log start) + 3, as offsets sums it.
        QCOMPARE(groups[1].toObject().value(QStringLiteral("group")).toString(),
                 QStringLiteral("g"));
        QCOMPARE(groups[1].toObject().value(QStringLiteral("lag")).toInteger(), 15);
        QCOMPARE(groups[1].toObject().value(QStringLiteral("partitions")).toInteger(), 2);
        QCOMPARE(json(runCli(args(db, QStringLiteral("offsets"))))
                     .value(QStringLiteral("total_lag"))
                     .toInteger(),
                 15);
    }
};

QTEST_GUILESS_MAIN(TestConsumergroups)
#include "tst_consumergroups.moc"
