// Consumer offsets and Kafka-style resets (rewindctl offsets, offsets-reset)
// on a log built here: retention (a log start above 0), record timestamps in
// ISO-8601 with and without zones, zone offsets, and epoch seconds.
#include "tests/offsetsfixture.h"

#include <QTest>

class TestOffsets : public OffsetsFixture {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase() {
        REWIND_REQUIRE_ENGINE();
        writeSpecs();
    }

    void offsetsShowCommittedStartEndLag() {
        const QString db = freshDb();
        const auto r = runCli(args(db, QStringLiteral("offsets")));
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        const QJsonObject o = json(r);
        QCOMPARE(o.value(QStringLiteral("stream")).toString(), QStringLiteral("ev"));
        QCOMPARE(o.value(QStringLiteral("group")).toString(), QStringLiteral("g"));
        QCOMPARE(offsetsOf(o, "committed"),
                 QStringLiteral("0:3,1:5,2:7")); // a new group starts at the log start
        QCOMPARE(offsetsOf(o, "log_start"), QStringLiteral("0:0,1:5,2:0"));
        QCOMPARE(offsetsOf(o, "log_end"), QStringLiteral("0:10,1:10,2:10"));
        QCOMPARE(offsetsOf(o, "lag"), QStringLiteral("0:7,1:5,2:3"));

        const auto fresh = runCli(QStringList(args(db, QStringLiteral("offsets")))
                                      .replaceInStrings(QRegularExpression(QStringLiteral("^g$")),
                                                        QStringLiteral("new-group")));
        QCOMPARE(offsetsOf(json(fresh), "committed"), QStringLiteral("0:0,1:5,2:0"));
        QCOMPARE(offsetsOf(json(fresh), "lag"), QStringLiteral("0:10,1:5,2:10"));
    }

    void reset_data() {
        QTest::addColumn<QStringList>("options");
        QTest::addColumn<QString>("expected");
        const auto o = [](std::initializer_list<const char *> list) {
            QStringList out;
            for (const char *s : list)
                out << QString::fromLatin1(s);
            return out;
        };
        QTest::newRow("to-earliest (retention: log start 5)")
            << o({"--to-earliest"}) << QStringLiteral("0:0,1:5,2:0");
        QTest::newRow("to-latest") << o({"--to-latest"}) << QStringLiteral("0:10,1:10,2:10");
        QTest::newRow("to-current (a new partition: log start)")
            << o({"--to-current"}) << QStringLiteral("0:3,1:5,2:7");
        QTest::newRow("to-offset inside")
            << o({"--to-offset", "6"}) << QStringLiteral("0:6,1:6,2:6");
        QTest::newRow("to-offset below a log start")
            << o({"--to-offset", "2"}) << QStringLiteral("0:2,1:5,2:2");
        QTest::newRow("to-offset negative")
            << o({"--to-offset", "-4"}) << QStringLiteral("0:0,1:5,2:0");
        QTest::newRow("to-offset past the end")
            << o({"--to-offset", "99"}) << QStringLiteral("0:10,1:10,2:10");
        QTest::newRow("shift-by +2") << o({"--shift-by", "2"}) << QStringLiteral("0:5,1:7,2:9");
        QTest::newRow("shift-by +5 (clamped to the end)")
            << o({"--shift-by", "5"}) << QStringLiteral("0:8,1:10,2:10");
        QTest::newRow("shift-by -4 (clamped to the start)")
            << o({"--shift-by", "-4"}) << QStringLiteral("0:0,1:5,2:3");
        QTest::newRow("shift-by=-1") << o({"--shift-by=-1"}) << QStringLiteral("0:2,1:5,2:6");
        QTest::newRow("shift-by past 64 bits (clamped to the end)")
            << o({"--shift-by", "9223372036854775807"}) << QStringLiteral("0:10,1:10,2:10");
        QTest::newRow("shift-by below 64 bits (clamped to the start)")
            << o({"--shift-by", "-9223372036854775808"}) << QStringLiteral("0:0,1:5,2:0");
        QTest::newRow("to-datetime on a record")
            << o({"--to-datetime", "2025-05-06T10:03:00Z"}) << QStringLiteral("0:3,1:7,2:3");
        QTest::newRow("to-datetime between records")
            << o({"--to-datetime", "2025-05-06T10:03:30Z"}) << QStringLiteral("0:4,1:8,2:4");
        QTest::newRow("to-datetime with fraction")
            << o({"--to-datetime", "2025-05-06T10:05:00.1Z"}) << QStringLiteral("0:5,1:10,2:6");
        QTest::newRow("to-datetime before an epoch fraction")
            << o({"--to-datetime", "2025-05-06T10:04:00.2Z"}) << QStringLiteral("0:5,1:9,2:4");
        QTest::newRow("to-datetime after a fraction")
            << o({"--to-datetime", "2025-05-06T10:05:00.3Z"}) << QStringLiteral("0:6,1:10,2:6");
        QTest::newRow("to-datetime with a zone offset")
            << o({"--to-datetime", "2025-05-06T12:03:00+02:00"}) << QStringLiteral("0:3,1:7,2:3");
        QTest::newRow("to-datetime with a negative zone")
            << o({"--to-datetime", "2025-05-06T07:33:30-02:30"}) << QStringLiteral("0:4,1:8,2:4");
        QTest::newRow("to-datetime without zone is UTC")
            << o({"--to-datetime", "2025-05-06 10:01:59"}) << QStringLiteral("0:2,1:6,2:2");
        QTest::newRow("to-datetime epoch seconds")
            << o({"--to-datetime", "1746525780"}) << QStringLiteral("0:3,1:7,2:3");
        QTest::newRow("to-datetime before the log")
            << o({"--to-datetime", "2025-05-06T09:00:00Z"}) << QStringLiteral("0:0,1:5,2:0");
        QTest::newRow("to-datetime after the log: log end")
            << o({"--to-datetime", "2025-05-07"}) << QStringLiteral("0:10,1:10,2:10");
        QTest::newRow("by-duration long ago")
            << o({"--by-duration", "P36500D"}) << QStringLiteral("0:0,1:5,2:0");
        QTest::newRow("by-duration just now")
            << o({"--by-duration", "PT1S"}) << QStringLiteral("0:10,1:10,2:10");
        QTest::newRow("single partition")
            << o({"--to-earliest", "--partition", "2"}) << QStringLiteral("2:0");
        QTest::newRow("two partitions")
            << o({"--to-latest", "--partition", "0", "--partition", "1"})
            << QStringLiteral("0:10,1:10");
        QTest::newRow("single partition, shift")
            << o({"--shift-by", "-10", "--partition", "1"}) << QStringLiteral("1:5");
    }

    void reset() {
        QFETCH(QStringList, options);
        QFETCH(QString, expected);
        const QString db = freshDb();
        const QString before = committed(db);

        // The dry run is the default: it shows the plan and changes nothing.
        const auto dry = runCli(args(db, QStringLiteral("offsets-reset")) + options);
        QVERIFY2(dry.exitCode == 0, qPrintable(dry.err));
        const QJsonObject plan = json(dry);
        QCOMPARE(plan.value(QStringLiteral("executed")).toBool(), false);
        QCOMPARE(offsetsOf(plan, "new"), expected);
        QCOMPARE(committed(db), before);
        QCOMPARE(
            scalar(db, QStringLiteral(
                           "SELECT COUNT(*) FROM rewind_audit WHERE action = 'offsets-reset'")),
            0);
        for (const auto &v : plan.value(QStringLiteral("partitions")).toArray()) {
            const QJsonObject p = v.toObject();
            const qint64 n = p.value(QStringLiteral("new")).toInteger();
            QVERIFY(n >= p.value(QStringLiteral("log_start")).toInteger() &&
                    n <= p.value(QStringLiteral("log_end")).toInteger());
        }

        const auto applied = runCli(args(db, QStringLiteral("offsets-reset")) + options +
                                    QStringList{QStringLiteral("--execute")});
        QVERIFY2(applied.exitCode == 0, qPrintable(applied.err));
        QCOMPARE(json(applied).value(QStringLiteral("executed")).toBool(), true);
        QCOMPARE(offsetsOf(json(applied), "new"), expected);
        const auto after = runCli(args(db, QStringLiteral("offsets")));
        const QStringList shown = offsetsOf(json(after), "committed").split(u',');
        for (const QString &pair : expected.split(u','))
            QVERIFY2(shown.contains(pair), qPrintable(pair));
        QCOMPARE(scalar(db, QStringLiteral("SELECT COUNT(*) FROM rewind_audit WHERE action = "
                                           "'offsets-reset' AND stream = 'ev'")),
                 1);
    }

    // A log whose record_ts column has a declared type: epoch seconds as
    // integers or floats, ISO text, or (read as instants on PostgreSQL)
    // timestamps with and without zone. Offsets 0..4 at 10:00 + i min.
    void toDatetimeOnTypedColumns_data() {
        QTest::addColumn<QString>("type");
        QTest::addColumn<QString>(
            "literal"); // record i's literal: {E} epoch seconds, {M} the minute
        QTest::newRow("BIGINT epoch") << QStringLiteral("BIGINT") << QStringLiteral("{E}");
        QTest::newRow("DOUBLE PRECISION epoch")
            << QStringLiteral("DOUBLE PRECISION") << QStringLiteral("{E}.5");
        QTest::newRow("TEXT with zone")
            << QStringLiteral("TEXT") << QStringLiteral("'2025-05-06T12:0{M}:00+02:00'");
        QTest::newRow("TIMESTAMPTZ")
            << QStringLiteral("TIMESTAMPTZ") << QStringLiteral("'2025-05-06T12:0{M}:00+02:00'");
        QTest::newRow("TIMESTAMP (UTC)")
            << QStringLiteral("TIMESTAMP") << QStringLiteral("'2025-05-06 10:0{M}:00'");
    }

    void toDatetimeOnTypedColumns() {
        QFETCH(QString, type);
        QFETCH(QString, literal);
        QStringList sql{QStringLiteral("CREATE TABLE ev_log (partition_id INTEGER, log_offset "
                                       "INTEGER, event_id TEXT, record_ts %1, payload TEXT)")
                            .arg(type)};
        for (int i = 0; i < 5; ++i)
            sql << QStringLiteral("INSERT INTO ev_log VALUES (0, %1, 'e%1', %2, '{\"v\": 1}')")
                       .arg(i)
                       .arg(
                           QString(literal)
                               .replace(QStringLiteral("{E}"), QString::number(1746525600 + i * 60))
                               .replace(QStringLiteral("{M}"), QString::number(i)));
        const QString db =
            testsupport::makeDatabase(m_dir, QStringLiteral("typed-%1.db").arg(++m_dbs), sql)
                .url()
                .text;
        const auto on = [&](const char *t) {
            return offsetsOf(
                json(runCli(args(db, QStringLiteral("offsets-reset")) +
                            QStringList{QStringLiteral("--to-datetime"), QString::fromLatin1(t)})),
                "new");
        };
        QCOMPARE(on("2025-05-06T10:02:00Z"), QStringLiteral("0:2"));
        QCOMPARE(on("2025-05-06T10:02:30Z"), QStringLiteral("0:3"));
        QCOMPARE(on("2025-05-06T12:04:00.6+02:00"), QStringLiteral("0:5"));
        QCOMPARE(on("1746525600"), QStringLiteral("0:0"));
    }

    // A record_ts that is not a time (or an impossible date, or epoch
    // milliseconds where seconds belong) never matches and does not stop the
    // reset; the plan counts them and the text output says so.
    void unreadableTimestampsAreSkipped() {
        const QString db =
            testsupport::makeDatabase(
                m_dir, QStringLiteral("unreadable-%1.db").arg(++m_dbs),
                {
                    QStringLiteral("CREATE TABLE ev_log (partition_id INTEGER, log_offset INTEGER, "
                                   "event_id TEXT, record_ts TEXT, payload TEXT)"),
                    QStringLiteral("INSERT INTO ev_log VALUES (0, 0, 'a', '2025-05-06T10:00:00Z', "
                                   "'{}'), (0, 1, 'b', 'garbage', '{}'), "
                                   "(0, 2, 'c', '2025-02-30T11:00:00Z', '{}'), (0, 3, 'd', "
                                   "'2025-05-06T10:03:00Z', '{}'), "
                                   "(0, 4, 'e', '1746525900000', '{}'), (1, 0, 'f', NULL, '{}')"),
                })
                .url()
                .text;
        const auto at = [&](const char *t) {
            return runCli(args(db, QStringLiteral("offsets-reset")) +
                          QStringList{QStringLiteral("--to-datetime"), QString::fromLatin1(t)});
        };
        const auto r = at("2025-05-06T10:01:00Z");
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QCOMPARE(offsetsOf(json(r), "new"), QStringLiteral("0:3,1:1"));
        QCOMPARE(offsetsOf(json(r), "unreadable_timestamps"), QStringLiteral("0:3,1:1"));
        // Past the last readable record: the log end, not the epoch-milliseconds
        // record (which, read as seconds, would lie 55,000 years ahead).
        QCOMPARE(offsetsOf(json(at("2025-05-06T10:04:00Z")), "new"), QStringLiteral("0:5,1:1"));
        const auto text = runCli(
            QStringList(args(db, QStringLiteral("offsets-reset")).mid(0, 9)) +
            QStringList{QStringLiteral("--to-datetime"), QStringLiteral("2025-05-06T10:01:00Z")});
        QVERIFY2(text.exitCode == 0, qPrintable(text.err));
        QVERIFY2(
            text.out.contains(QStringLiteral("3 events without a readable record_ts skipped")) &&
                text.out.contains(QStringLiteral(
                    "4 events have a record_ts that is not ISO-8601 or epoch seconds")),
            qPrintable(text.out));
    }

    // Digits past the millisecond are dropped, in the data and on the command
    // line: an instant a fraction of a millisecond before T is before T.
    void subMillisecondDigitsAreDropped_data() {
        QTest::addColumn<QString>("type");
        QTest::addColumn<QStringList>("values"); // offsets 0, 1, 2
        QTest::newRow("TEXT, ISO and epoch")
            << QStringLiteral("TEXT")
            << QStringList{QStringLiteral("'2025-05-06T09:59:59.9996Z'"),
                           QStringLiteral("'1746525599.9999'"),
                           QStringLiteral("'2025-05-06 10:00:00.000400'")};
        QTest::newRow("DOUBLE PRECISION epoch")
            << QStringLiteral("DOUBLE PRECISION")
            << QStringList{QStringLiteral("1746525599.9996"), QStringLiteral("1746525599.999999"),
                           QStringLiteral("1746525600.0004")};
        QTest::newRow("TIMESTAMPTZ with microseconds")
            << QStringLiteral("TIMESTAMPTZ")
            << QStringList{QStringLiteral("'2025-05-06T09:59:59.999600Z'"),
                           QStringLiteral("'2025-05-06T11:59:59.999999+02:00'"),
                           QStringLiteral("'2025-05-06T10:00:00.000400Z'")};
    }

    void subMillisecondDigitsAreDropped() {
        QFETCH(QString, type);
        QFETCH(QStringList, values);
        QStringList sql{QStringLiteral("CREATE TABLE ev_log (partition_id INTEGER, log_offset "
                                       "INTEGER, event_id TEXT, record_ts %1, payload TEXT)")
                            .arg(type)};
        for (int i = 0; i < values.size(); ++i)
            sql << QStringLiteral("INSERT INTO ev_log VALUES (0, %1, 'e%1', %2, '{\"v\": 1}')")
                       .arg(i)
                       .arg(values[i]);
        const QString db =
            testsupport::makeDatabase(m_dir, QStringLiteral("subms-%1.db").arg(++m_dbs), sql)
                .url()
                .text;
        const auto on = [&](const char *t) -> QString {
            const auto r =
                runCli(args(db, QStringLiteral("offsets-reset")) +
                       QStringList{QStringLiteral("--to-datetime"), QString::fromLatin1(t)});
            return offsetsOf(json(r), "new") + (r.err.isEmpty() ? QString() : r.err);
        };
        QCOMPARE(on("2025-05-06T10:00:00Z"), QStringLiteral("0:2"));
        QCOMPARE(on("1746525600.0009"),
                 QStringLiteral("0:2")); // 10:00:00.000 on the command line too
        QCOMPARE(on("2025-05-06T09:59:59.9999Z"), QStringLiteral("0:0")); // .999 both sides
        QCOMPARE(on("2025-05-06T10:00:00.001Z"),
                 QStringLiteral("0:3")); // after every record: the log end
    }

    // Kafka keeps a partition whose records retention removed (log start =
    // log end); a commit in a partition with no events left stays visible.
    void aPartitionWithNoEventsLeftKeepsItsCommit() {
        const QString db = freshDb();
        {
            auto d = rw::Database::open(db);
            QVERIFY(d->exec(QStringLiteral("DELETE FROM ev_log WHERE partition_id = 2")));
        }
        const auto r = runCli(args(db, QStringLiteral("offsets")));
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QCOMPARE(offsetsOf(json(r), "committed"), QStringLiteral("0:3,1:5,2:7"));
        QCOMPARE(offsetsOf(json(r), "log_start"), QStringLiteral("0:0,1:5,2:7"));
        QCOMPARE(offsetsOf(json(r), "log_end"), QStringLiteral("0:10,1:10,2:7"));
        QCOMPARE(offsetsOf(json(r), "lag"), QStringLiteral("0:7,1:5,2:0"));
        QCOMPARE(offsetsOf(json(r), "no_events"), QStringLiteral("0:0,1:0,2:1"));
        const auto text = runCli(args(db, QStringLiteral("offsets")).mid(0, 9));
        QVERIFY2(text.out.contains(QStringLiteral("partition 2: no events left in the log")),
                 qPrintable(text.out));
        // Resets leave it where it is; --partition still names it.
        const auto earliest =
            runCli(args(db, QStringLiteral("offsets-reset")) +
                   QStringList{QStringLiteral("--to-earliest"), QStringLiteral("--execute")});
        QVERIFY2(earliest.exitCode == 0, qPrintable(earliest.err));
        QCOMPARE(offsetsOf(json(earliest), "new"), QStringLiteral("0:0,1:5,2:7"));
        QCOMPARE(committed(db), QStringLiteral("0:0,1:5,2:7"));
        const auto one = runCli(args(db, QStringLiteral("offsets-reset")) +
                                QStringList{QStringLiteral("--to-offset"), QStringLiteral("3"),
                                            QStringLiteral("--partition"), QStringLiteral("2")});
        QVERIFY2(one.exitCode == 0, qPrintable(one.err));
        QCOMPARE(offsetsOf(json(one), "new"), QStringLiteral("2:7"));
        // A replay reads nothing from it and leaves its commit.
        const auto replayed =
            runCli(args(db, QStringLiteral("replay")) + QStringList{QStringLiteral("--execute")});
        QVERIFY2(replayed.exitCode == 0, qPrintable(replayed.err));
        QCOMPARE(json(replayed).value(QStringLiteral("consumed")).toInteger(), 15);
        QCOMPARE(committed(db), QStringLiteral("0:10,1:10,2:7"));
    }

    // An empty log and a group with nothing committed: nothing to reset, so
    // nothing is applied or audited, --execute or not.
    void resetOnAnEmptyLogChangesNothing() {
        const QString db =
            testsupport::makeDatabase(
                m_dir, QStringLiteral("empty-%1.db").arg(++m_dbs),
                {
                    QStringLiteral("CREATE TABLE ev_log (partition_id INTEGER, log_offset INTEGER, "
                                   "event_id TEXT, record_ts TEXT, payload TEXT)"),
                })
                .url()
                .text;
        const auto r =
            runCli(args(db, QStringLiteral("offsets-reset")) +
                   QStringList{QStringLiteral("--to-latest"), QStringLiteral("--execute")});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QCOMPARE(json(r).value(QStringLiteral("executed")).toBool(), false);
        QCOMPARE(json(r).value(QStringLiteral("partitions")).toArray().size(), 0);
        QCOMPARE(
            scalar(db, QStringLiteral(
                           "SELECT COUNT(*) FROM rewind_audit WHERE action = 'offsets-reset'")),
            0);
        const auto text =
            runCli(args(db, QStringLiteral("offsets-reset")).mid(0, 9) +
                   QStringList{QStringLiteral("--to-latest"), QStringLiteral("--execute")});
        QVERIFY2(text.exitCode == 0 && text.out.contains(QStringLiteral("Nothing to reset")) &&
                     !text.out.contains(QStringLiteral("Applied")),
                 qPrintable(text.out));
    }

    // The text plan marks a partition the group never committed in, as
    // `offsets` does.
    void textPlanMarksNewPartitions() {
        const QString db = freshDb();
        const auto r = runCli(args(db, QStringLiteral("offsets-reset")).mid(0, 9) +
                              QStringList{QStringLiteral("--to-latest")});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        const QStringList lines = r.out.split(u'\n');
        const auto row = [&](const QString &partition) {
            for (const QString &line : lines)
                if (line.trimmed().startsWith(partition + u' '))
                    return line.simplified();
            return QString();
        };
        QCOMPARE(row(QStringLiteral("0")), QStringLiteral("0 3 10 0 10"));
        QCOMPARE(row(QStringLiteral("1")), QStringLiteral("1 5 (new) 10 5 10"));
    }

    void byDurationLandsBetweenRecords() {
        // now - D = 2025-05-06T10:03:30Z, written as PnDTnHnMnS.
        const QString db = freshDb();
        const qint64 secs = QDateTime::currentSecsSinceEpoch() - 1746525810;
        const QString d = QStringLiteral("P%1DT%2H%3M%4S")
                              .arg(secs / 86400)
                              .arg(secs % 86400 / 3600)
                              .arg(secs % 3600 / 60)
                              .arg(secs % 60);
        const auto r = runCli(args(db, QStringLiteral("offsets-reset")) +
                              QStringList{QStringLiteral("--by-duration"), d});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QCOMPARE(offsetsOf(json(r), "new"), QStringLiteral("0:4,1:8,2:4"));
    }

    void exportThenImport() {
        const QString db = freshDb();
        const QString csv = m_dir.filePath(QStringLiteral("plan.csv"));
        const auto dry = runCli(args(db, QStringLiteral("offsets-reset")) +
                                QStringList{QStringLiteral("--to-datetime"),
                                            QStringLiteral("2025-05-06T10:03:30Z"),
                                            QStringLiteral("--export"), csv});
        QVERIFY2(dry.exitCode == 0, qPrintable(dry.err));
        QFile f(csv);
        QVERIFY(f.open(QIODevice::ReadOnly));
        // kafka-consumer-groups' one-group form: topic (the log table), partition, offset.
        QCOMPARE(QString::fromUtf8(f.readAll()),
                 QStringLiteral("ev_log,0,4\nev_log,1,8\nev_log,2,4\n"));
        QCOMPARE(committed(db), QStringLiteral("0:3,2:7")); // export is not execute

        const auto applied =
            runCli(args(db, QStringLiteral("offsets-reset")) +
                   QStringList{QStringLiteral("--from-file"), csv, QStringLiteral("--execute")});
        QVERIFY2(applied.exitCode == 0, qPrintable(applied.err));
        QCOMPARE(committed(db), QStringLiteral("0:4,1:8,2:4"));

        // Rewind's earlier form, hand-written: a header, one partition, an offset clamped to the
        // log.
        const QString hand = testsupport::writeFile(m_dir, QStringLiteral("hand.csv"),
                                                    "group,partition,offset\ng,1,2\n");
        const auto one =
            runCli(args(db, QStringLiteral("offsets-reset")) +
                   QStringList{QStringLiteral("--from-file"), hand, QStringLiteral("--execute")});
        QVERIFY2(one.exitCode == 0, qPrintable(one.err));
        QCOMPARE(offsetsOf(json(one), "new"), QStringLiteral("1:5"));
        QCOMPARE(json(one).value(QStringLiteral("reset")).toString(),
                 QStringLiteral("from-file (1 partition)"));
        QCOMPARE(committed(db), QStringLiteral("0:4,1:5,2:4"));

        // Kafka's form for several groups: only this group's rows on this
        // topic count; quoted fields are read as CSV.
        const QString several = testsupport::writeFile(
            m_dir, QStringLiteral("several.csv"),
            "h,ev_log,0,1\n\"g\",\"ev_log\",2,6\ng,other_topic,1,9\nh,ev_log,1,9\n");
        const auto mine = runCli(
            args(db, QStringLiteral("offsets-reset")) +
            QStringList{QStringLiteral("--from-file"), several, QStringLiteral("--execute")});
        QVERIFY2(mine.exitCode == 0, qPrintable(mine.err));
        QCOMPARE(offsetsOf(json(mine), "new"), QStringLiteral("2:6"));
        QCOMPARE(committed(db), QStringLiteral("0:4,1:5,2:6"));
        // Kafka's one-group form for another topic, and Rewind's for other
        // groups: refused, naming what the file has, nothing changed.
        const QString other = testsupport::writeFile(m_dir, QStringLiteral("other.csv"),
                                                     "h,0,1\nk,0,2\nh,ev_log,0,3\n");
        const auto wrong =
            runCli(args(db, QStringLiteral("offsets-reset")) +
                   QStringList{QStringLiteral("--from-file"), other, QStringLiteral("--execute")});
        QCOMPARE(wrong.exitCode, 2);
        QVERIFY2(
            wrong.err.contains(QStringLiteral("no rows for group \"g\" or topic \"ev_log\"")) &&
                wrong.err.contains(QStringLiteral("h, k, group h topic ev_log")),
            qPrintable(wrong.err));
        QCOMPARE(committed(db), QStringLiteral("0:4,1:5,2:6"));
        const QString open =
            testsupport::writeFile(m_dir, QStringLiteral("open.csv"), "\"ev_log,0,1\n");
        const auto unclosed = runCli(args(db, QStringLiteral("offsets-reset")) +
                                     QStringList{QStringLiteral("--from-file"), open});
        QCOMPARE(unclosed.exitCode, 2);
        QVERIFY2(
            unclosed.err.contains(QStringLiteral("open.csv line 1: a quoted field is not closed")),
            qPrintable(unclosed.err));
        // Text after a closing quote is refused, not glued on ("2"1 is not 21: found by
        // fuzz_offsetcsv).
        const QString glued =
            testsupport::writeFile(m_dir, QStringLiteral("glued.csv"), "ev_log,\"2\"1,3\n");
        const auto gluedRun = runCli(args(db, QStringLiteral("offsets-reset")) +
                                     QStringList{QStringLiteral("--from-file"), glued});
        QCOMPARE(gluedRun.exitCode, 2);
        QVERIFY2(gluedRun.err.contains(QStringLiteral("glued.csv line 1")),
                 qPrintable(gluedRun.err));
        const QString missing =
            testsupport::writeFile(m_dir, QStringLiteral("missing.csv"), "g,7,1\n");
        const auto absent = runCli(args(db, QStringLiteral("offsets-reset")) +
                                   QStringList{QStringLiteral("--from-file"), missing});
        QCOMPARE(absent.exitCode, 2);
        QVERIFY2(absent.err.contains(QStringLiteral("partition 7")), qPrintable(absent.err));
    }

    void refusedWhileAReplayRuns() {
        const QString db = freshDb();
        {
            auto d = rw::Database::open(db);
            QVERIFY(d->exec(
                QStringLiteral(
                    "INSERT INTO rewind_replays (stream, group_id, status, started_at, pid, host) "
                    "VALUES ('ev', 'g', 'running', '2025-05-06T11:00:00Z', ?, ?)"),
                {QCoreApplication::applicationPid(), QSysInfo::machineHostName()}));
        }
        const auto r =
            runCli(args(db, QStringLiteral("offsets-reset")) +
                   QStringList{QStringLiteral("--to-earliest"), QStringLiteral("--execute")});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains(QStringLiteral("running")), qPrintable(r.err));
        QCOMPARE(committed(db), QStringLiteral("0:3,2:7"));
        // A dry run too, as kafka-consumer-groups refuses an active group: its plan would be stale.
        const auto dry = runCli(args(db, QStringLiteral("offsets-reset")) +
                                QStringList{QStringLiteral("--to-earliest")});
        QCOMPARE(dry.exitCode, 2);
        QVERIFY2(dry.err.contains(QStringLiteral("running")), qPrintable(dry.err));
        // Another group is not blocked, and a dead process blocks nothing.
        const auto other = runCli(
            QStringList(args(db, QStringLiteral("offsets-reset")))
                .replaceInStrings(QRegularExpression(QStringLiteral("^g$")), QStringLiteral("g2")) +
            QStringList{QStringLiteral("--to-earliest"), QStringLiteral("--execute")});
        QCOMPARE(other.exitCode, 0);
        {
            auto d = rw::Database::open(db);
            QVERIFY(d->exec(QStringLiteral("UPDATE rewind_replays SET pid = 999999999")));
        }
        const auto later =
            runCli(args(db, QStringLiteral("offsets-reset")) +
                   QStringList{QStringLiteral("--to-earliest"), QStringLiteral("--execute")});
        QVERIFY2(later.exitCode == 0, qPrintable(later.err));
        QCOMPARE(committed(db), QStringLiteral("0:0,1:5,2:0"));
    }

    void badInput_data() {
        QTest::addColumn<QStringList>("arguments");
        QTest::addColumn<QString>("culprit");
        QTest::newRow("unknown stream")
            << QStringList{QStringLiteral("--stream"), QStringLiteral("nope"),
                           QStringLiteral("--to-earliest")}
            << QStringLiteral("\"nope\"");
        QTest::newRow("malformed timestamp")
            << QStringList{QStringLiteral("--to-datetime"), QStringLiteral("yesterday-ish")}
            << QStringLiteral("yesterday-ish");
        QTest::newRow("invalid date")
            << QStringList{QStringLiteral("--to-datetime"), QStringLiteral("2025-02-30T10:00:00Z")}
            << QStringLiteral("2025-02-30");
        QTest::newRow("malformed duration")
            << QStringList{QStringLiteral("--by-duration"), QStringLiteral("P1X")}
            << QStringLiteral("P1X");
        // A number too long for 64 bits used to read as 0: the reset landed on "now".
        QTest::newRow("duration past 64 bits")
            << QStringList{QStringLiteral("--by-duration"),
                           QStringLiteral("PT9999999999999999999H")}
            << QStringLiteral("too long");
        QTest::newRow("duration of 3M days")
            << QStringList{QStringLiteral("--by-duration"), QStringLiteral("P3000000D")}
            << QStringLiteral("P3000000D");
        QTest::newRow("short duration past 64 bits")
            << QStringList{QStringLiteral("--by-duration"), QStringLiteral("99999999999999999999h")}
            << QStringLiteral("too long");
        QTest::newRow("export into a missing folder")
            << QStringList{QStringLiteral("--to-latest"), QStringLiteral("--export"),
                           QStringLiteral("/nonexistent-folder/plan.csv")}
            << QStringLiteral("nothing changed");
        QTest::newRow("partition not in the log")
            << QStringList{QStringLiteral("--to-earliest"), QStringLiteral("--partition"),
                           QStringLiteral("9")}
            << QStringLiteral("partition 9");
        QTest::newRow("partition not a number")
            << QStringList{QStringLiteral("--to-earliest"), QStringLiteral("--partition"),
                           QStringLiteral("x")}
            << QStringLiteral("--partition");
        QTest::newRow("offset not a number")
            << QStringList{QStringLiteral("--to-offset"), QStringLiteral("ten")}
            << QStringLiteral("--to-offset");
        QTest::newRow("no reset option") << QStringList{} << QStringLiteral("--to-earliest");
        QTest::newRow("two reset options")
            << QStringList{QStringLiteral("--to-earliest"), QStringLiteral("--to-latest")}
            << QStringLiteral("--to-latest");
    }

    void badInput() {
        QFETCH(QStringList, arguments);
        QFETCH(QString, culprit);
        const QString db = freshDb();
        QStringList a = args(db, QStringLiteral("offsets-reset"));
        if (arguments.contains(QStringLiteral("--stream"))) {
            const qsizetype i = a.indexOf(QStringLiteral("--stream"));
            a.remove(i, 2);
        }
        const auto r = runCli(a + arguments + QStringList{QStringLiteral("--execute")});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains(culprit), qPrintable(r.err));
        QCOMPARE(committed(db), QStringLiteral("0:3,2:7"));
    }

    void groupIsRequired() {
        const QString db = freshDb();
        const auto r =
            runCli({QStringLiteral("offsets"), QStringLiteral("--db"), db, QStringLiteral("--spec"),
                    m_spec, QStringLiteral("--stream"), QStringLiteral("ev")});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains(QStringLiteral("--group")), qPrintable(r.err));
    }
};

QTEST_GUILESS_MAIN(TestOffsets)
#include "tst_offsets.moc"
