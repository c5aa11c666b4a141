// Streams on Apache Kafka (issue 30), against the real three-broker cluster
// scripts/kafka.sh starts (tests/kafkacluster.h), which rewindctl
// (in-process or a child) and an independent client (python3-kafka) both
// talk to. librdkafka's mock cluster only where a real broker cannot do what
// a test needs (answer no offset to a lookup by time; go down for a moment
// without taking the other suites' cluster with it). On SQLite and
// PostgreSQL workspaces (tst_kafka_pg).
#include "tests/kafkacluster.h"
#include "tests/kafkamock.h"
#include "tests/testsupport.h"

#include <QElapsedTimer>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QStringBuilder>
#include <QTest>
#include <QThread>
#include <memory>

using namespace rw;

namespace {

using namespace kafkatest;

QJsonObject json(const QString &text) {
    return QJsonDocument::fromJson(text.toUtf8()).object();
}

QStringList replayArgs(int batchSize = 100) {
    return {QStringLiteral("replay"),   QStringLiteral("--stream"),  QStringLiteral("payments"),
            QStringLiteral("--group"),  QStringLiteral("loader"),    QStringLiteral("--batch-size"),
            QString::number(batchSize), QStringLiteral("--execute"), QStringLiteral("--json")};
}

// What python3-kafka, an independent client, reads: per partition the
// group's committed offset (-1: none) and the log end.
QMap<int, std::pair<qint64, qint64>>
independentOffsets(const QString &bootstrap, const QString &group, const QString &topic) {
    const QString script = QStringLiteral(R"(
import json, sys
from kafka import KafkaConsumer, TopicPartition
c = KafkaConsumer(bootstrap_servers=sys.argv[1], group_id=sys.argv[2], enable_auto_commit=False, api_version_auto_timeout_ms=10000)
parts = [TopicPartition(sys.argv[3], p) for p in sorted(c.partitions_for_topic(sys.argv[3]))]
ends = c.end_offsets(parts)
print(json.dumps({str(tp.partition): [c.committed(tp) if c.committed(tp) is not None else -1, ends[tp]] for tp in parts}))
c.close()
)");
    QProcess py;
    py.start(QStringLiteral("/usr/bin/python3"),
             {QStringLiteral("-c"), script, bootstrap, group, topic});
    if (!py.waitForFinished(60000) || py.exitCode() != 0)
        qFatal("python3-kafka failed: %s", py.readAllStandardError().constData());
    QMap<int, std::pair<qint64, qint64>> out;
    const QJsonObject o = QJsonDocument::fromJson(py.readAllStandardOutput()).object();
    for (auto it = o.begin(); it != o.end(); ++it)
        out.insert(it.key().toInt(),
                   {it->toArray().at(0).toInteger(), it->toArray().at(1).toInteger()});
    return out;
}

} // namespace

class TestKafka : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase() {
        REWIND_REQUIRE_KAFKA();
        qputenv("REWIND_KAFKA_TIMEOUT_MS", "8000");
    }

    // `offsets` on a Kafka stream: the group's committed offsets and each
    // partition's watermarks, as the cluster holds them and as an
    // independent client reads them.
    void offsetsAsTheClusterHoldsThem() {
        Cluster cluster;
        testsupport::WorkspaceFixture f({}, spec(cluster.bootstrap(), cluster.payments()));
        const auto r = f.cli({QStringLiteral("offsets"), QStringLiteral("--stream"),
                              QStringLiteral("payments"), QStringLiteral("--group"),
                              QStringLiteral("loader"), QStringLiteral("--json")});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        const QJsonArray parts = json(r.out).value(QStringLiteral("partitions")).toArray();
        QCOMPARE(parts.size(), kPartitions);
        const qint64 committed[kPartitions] = {
            2, 4, 0}; // partition 2: nothing committed, read from the log start
        for (int p = 0; p < kPartitions; ++p) {
            const QJsonObject o = parts.at(p).toObject();
            QCOMPARE(o.value(QStringLiteral("partition")).toInteger(), p);
            QCOMPARE(o.value(QStringLiteral("log_start")).toInteger(), 0);
            QCOMPARE(o.value(QStringLiteral("log_end")).toInteger(), 5 + p);
            QCOMPARE(o.value(QStringLiteral("committed")).toInteger(), committed[p]);
            QCOMPARE(o.value(QStringLiteral("lag")).toInteger(), 5 + p - committed[p]);
        }
        // python3-kafka reads the same from the cluster.
        const auto independent =
            independentOffsets(cluster.bootstrap(), QStringLiteral("loader"), cluster.payments());
        QCOMPARE(independent.size(), kPartitions);
        for (int p = 0; p < kPartitions; ++p) {
            const QJsonObject o = parts.at(p).toObject();
            QCOMPARE(independent.value(p).second, o.value(QStringLiteral("log_end")).toInteger());
            QCOMPARE(independent.value(p).first,
                     p == 2 ? -1 : o.value(QStringLiteral("committed")).toInteger());
        }

        // consumer-groups: the spec's groups with their lag.
        const auto groups = f.cli({QStringLiteral("consumer-groups"), QStringLiteral("--stream"),
                                   QStringLiteral("payments"), QStringLiteral("--json")});
        QVERIFY2(groups.exitCode == 0, qPrintable(groups.err));
        QVERIFY2(groups.out.contains(QStringLiteral("\"loader\"")) &&
                     groups.out.contains(QStringLiteral("\"idle\"")),
                 qPrintable(groups.out));

        // streams: the topic and cluster, never the config's values.
        const auto streams = f.cli({QStringLiteral("streams"), QStringLiteral("--json")});
        QCOMPARE(streams.exitCode, 0);
        const QJsonObject s =
            json(streams.out).value(QStringLiteral("streams")).toArray().at(0).toObject();
        QVERIFY(s.value(QStringLiteral("log")).isNull());
        QCOMPARE(testsupport::jsonAt(s, "kafka/topic").toString(), cluster.payments());
    }

    // Bad input names the culprit, exit 2; a cluster that does not answer is
    // exit 1 naming it, within the bounded wait; no secret is ever printed.
    void badInputAndAnUnreachableCluster() {
        Cluster cluster;
        const QStringList offsets{QStringLiteral("offsets"),  QStringLiteral("--stream"),
                                  QStringLiteral("payments"), QStringLiteral("--group"),
                                  QStringLiteral("loader"),   QStringLiteral("--json")};
        {
            testsupport::WorkspaceFixture f({},
                                            spec(cluster.bootstrap(), QStringLiteral("paymnets")));
            const auto r = f.cli(offsets);
            QCOMPARE(r.exitCode, 2);
            QVERIFY2(r.err.contains(QStringLiteral("topic \"paymnets\" does not exist")) &&
                         r.err.contains(QStringLiteral("payments")),
                     qPrintable(r.err));
        }
        {
            testsupport::WorkspaceFixture f({},
                                            spec(cluster.bootstrap(), cluster.payments(),
                                                 QStringLiteral(R"({"fetch.max.bites": "1"})")));
            const auto r = f.cli(offsets);
            QCOMPARE(r.exitCode, 2);
            QVERIFY2(
                r.err.contains(QStringLiteral("\"fetch.max.bites\" is not a librdkafka property")),
                qPrintable(r.err));
        }
        {
            qunsetenv("REWIND_TEST_UNSET_SECRET");
            testsupport::WorkspaceFixture f(
                {}, spec(cluster.bootstrap(), cluster.payments(),
                         QStringLiteral(R"({"sasl.password": "${REWIND_TEST_UNSET_SECRET}"})")));
            const auto r = f.cli(offsets);
            QCOMPARE(r.exitCode, 2);
            QVERIFY2(
                r.err.contains(QStringLiteral("${REWIND_TEST_UNSET_SECRET}, which is not set")),
                qPrintable(r.err));
        }
        {
            // Nothing listens on port 1: refused, within the wait, naming the bootstrap list; the
            // password never shows.
            qputenv("REWIND_TEST_SECRET", "hunter2-secret");
            qputenv("REWIND_KAFKA_TIMEOUT_MS", "2000");
            testsupport::WorkspaceFixture f(
                {},
                spec(QStringLiteral("127.0.0.1:1"), cluster.payments(),
                     QStringLiteral(
                         R"({"sasl.username": "ops", "sasl.password": "${REWIND_TEST_SECRET}"})")));
            QElapsedTimer t;
            t.start();
            const auto r = f.cli(offsets);
            qputenv("REWIND_KAFKA_TIMEOUT_MS", "8000");
            QCOMPARE(r.exitCode, 1);
            QVERIFY2(t.elapsed() < 15000, qPrintable(QString::number(t.elapsed())));
            QVERIFY2(r.err.contains(QStringLiteral("127.0.0.1:1")), qPrintable(r.err));
            QVERIFY(!r.err.contains(QStringLiteral("hunter2")) &&
                    !r.out.contains(QStringLiteral("hunter2")));
        }
        {
            // A spec naming both a log table and a topic is refused whole.
            QByteArray both = spec(cluster.bootstrap(), cluster.payments());
            both.replace("\"event_id\": \"key\",",
                         "\"event_id\": \"key\", \"log\": \"payments_log\",");
            testsupport::WorkspaceFixture f({}, spec(cluster.bootstrap(), cluster.payments()));
            const QString path = testsupport::writeFile(f.dir, QStringLiteral("both.json"), both);
            const auto r = testsupport::runCli({QStringLiteral("streams"), QStringLiteral("--db"),
                                                f.dbPath, QStringLiteral("--spec"), path});
            QCOMPARE(r.exitCode, 2);
            QVERIFY2(r.err.contains(QStringLiteral("\"log\": and \"kafka\" are exclusive")),
                     qPrintable(r.err));
            // An event id that is neither the key, a JSON path nor a header.
            QByteArray badId = spec(cluster.bootstrap(), cluster.payments());
            badId.replace("\"event_id\": \"key\"", "\"event_id\": \"value.id\"");
            const QString badPath =
                testsupport::writeFile(f.dir, QStringLiteral("badid.json"), badId);
            const auto id = testsupport::runCli({QStringLiteral("streams"), QStringLiteral("--db"),
                                                 f.dbPath, QStringLiteral("--spec"), badPath});
            QCOMPARE(id.exitCode, 2);
            QVERIFY2(
                id.err.contains(QStringLiteral("\"event_id\": \"value.id\": expected \"key\"")),
                qPrintable(id.err));
        }
    }

    // offsets-reset --execute commits to the group on the cluster (as an
    // independent client then reads), audited; --partition limits it.
    void resetCommitsToTheCluster() {
        Cluster cluster;
        testsupport::WorkspaceFixture f({}, spec(cluster.bootstrap(), cluster.payments()));
        const QStringList base{QStringLiteral("offsets-reset"), QStringLiteral("--stream"),
                               QStringLiteral("payments"), QStringLiteral("--group"),
                               QStringLiteral("loader")};
        const auto dry =
            f.cli(base + QStringList{QStringLiteral("--to-latest"), QStringLiteral("--json")});
        QVERIFY2(dry.exitCode == 0, qPrintable(dry.err));
        QCOMPARE(json(dry.out).value(QStringLiteral("executed")).toBool(), false);
        QCOMPARE(
            independentOffsets(cluster.bootstrap(), QStringLiteral("loader"), cluster.payments())
                .value(0)
                .first,
            2); // a dry run changes nothing

        const auto latest =
            f.cli(base + QStringList{QStringLiteral("--to-latest"), QStringLiteral("--execute"),
                                     QStringLiteral("--json")});
        QVERIFY2(latest.exitCode == 0, qPrintable(latest.err));
        auto after =
            independentOffsets(cluster.bootstrap(), QStringLiteral("loader"), cluster.payments());
        for (int p = 0; p < kPartitions; ++p)
            QCOMPARE(after.value(p).first, 5 + p);
        const auto shifted =
            f.cli(base + QStringList{QStringLiteral("--shift-by"), QStringLiteral("-3"),
                                     QStringLiteral("--partition"), QStringLiteral("1"),
                                     QStringLiteral("--execute"), QStringLiteral("--json")});
        QVERIFY2(shifted.exitCode == 0, qPrintable(shifted.err));
        after =
            independentOffsets(cluster.bootstrap(), QStringLiteral("loader"), cluster.payments());
        QCOMPARE(after.value(0).first, 5);
        QCOMPARE(after.value(1).first, 3);
        QCOMPARE(after.value(2).first, 7);
        auto audited =
            f.db().scalar(QStringLiteral("SELECT COUNT(*) FROM rewind_audit WHERE action = "
                                         "'offsets-reset' AND stream = 'payments'"));
        QVERIFY(audited);
        QCOMPARE(audited->toInt(), 2);
    }

    // A group with a member: the reset is refused, naming the group and
    // saying to stop its consumers; its offsets stay, and nothing is audited.
    void resetRefusedWhileTheGroupHasMembers() {
        Cluster cluster;
        testsupport::WorkspaceFixture f({}, spec(cluster.bootstrap(), cluster.payments()));
        const QString busy = cluster.group(QStringLiteral("busy"));
        auto member =
            std::make_unique<Cluster::Member>(cluster.bootstrap(), busy, cluster.payments());
        const bool assigned = member->waitAssigned();
        QVERIFY2(assigned, "the member never joined");

        const auto r = f.cli({QStringLiteral("offsets-reset"), QStringLiteral("--stream"),
                              QStringLiteral("payments"), QStringLiteral("--group"), busy,
                              QStringLiteral("--to-latest"), QStringLiteral("--execute")});
        member.reset();
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains(u'"' + busy + u'"') &&
                     r.err.contains(QStringLiteral("active member")) &&
                     r.err.contains(QStringLiteral("stop its consumers")),
                 qPrintable(r.err));
        auto audited = f.db().scalar(
            QStringLiteral("SELECT COUNT(*) FROM rewind_audit WHERE action = 'offsets-reset'"));
        QVERIFY(audited);
        QCOMPARE(audited->toInt(), 0);
    }

    // replay --execute: each event once in the sink, the workspace's and the
    // cluster's offsets at the log end (read back by python3-kafka); run
    // again after a reset to the earliest, nothing doubles.
    void replayLandsEachEventOnceAndCommitsToTheGroup() {
        Cluster cluster;
        testsupport::WorkspaceFixture f({}, spec(cluster.bootstrap(), cluster.payments()));
        const QStringList replay{QStringLiteral("replay"),   QStringLiteral("--stream"),
                                 QStringLiteral("payments"), QStringLiteral("--group"),
                                 QStringLiteral("loader"),   QStringLiteral("--execute"),
                                 QStringLiteral("--json")};
        const auto first = f.cli(replay);
        QVERIFY2(first.exitCode == 0, qPrintable(first.err));
        // From the committed 2, 4 and nothing: 3 + 2 + 7 events.
        QCOMPARE(json(first.out).value(QStringLiteral("consumed")).toInteger(), 12);
        QCOMPARE(json(first.out).value(QStringLiteral("inserted")).toInteger(), 12);
        auto rows = f.db().scalar(QStringLiteral("SELECT COUNT(*) FROM payment_events"));
        QVERIFY(rows);
        QCOMPARE(rows->toInt(), 12);
        auto offsets = f.db().exec(
            QStringLiteral("SELECT o.partition_id, o.committed_offset, k.cluster_offset FROM "
                           "rewind_offsets AS o JOIN rewind_kafka_offsets AS k "
                           "ON k.group_id = o.group_id AND k.partition_id = o.partition_id WHERE "
                           "o.group_id = 'loader' ORDER BY 1"));
        QVERIFY(offsets);
        for (int p = 0; p < kPartitions; ++p) {
            QVERIFY(offsets->next());
            QCOMPARE(offsets->value(1).toLongLong(), 5 + p);
            QCOMPARE(offsets->value(2).toLongLong(), 5 + p);
        }
        offsets->finish(); // its read snapshot would hide the next replay's rows
        const auto independent =
            independentOffsets(cluster.bootstrap(), QStringLiteral("loader"), cluster.payments());
        for (int p = 0; p < kPartitions; ++p)
            QCOMPARE(independent.value(p).first, 5 + p);

        // Back to the earliest: the 6 events before the old commits land, the 12 are duplicates.
        const auto reset =
            f.cli({QStringLiteral("offsets-reset"), QStringLiteral("--stream"),
                   QStringLiteral("payments"), QStringLiteral("--group"), QStringLiteral("loader"),
                   QStringLiteral("--to-earliest"), QStringLiteral("--execute")});
        QVERIFY2(reset.exitCode == 0, qPrintable(reset.err));
        const auto again = f.cli(replay);
        QVERIFY2(again.exitCode == 0, qPrintable(again.err));
        QCOMPARE(json(again.out).value(QStringLiteral("consumed")).toInteger(), 18);
        QCOMPARE(json(again.out).value(QStringLiteral("inserted")).toInteger(), 6);
        QCOMPARE(json(again.out).value(QStringLiteral("duplicates")).toInteger(), 12);
        rows = f.db().scalar(QStringLiteral(
            "SELECT COUNT(DISTINCT event_id) * 1000 + COUNT(*) FROM payment_events"));
        QCOMPARE(rows->toInt(), 18018);
    }

    // Each record as it was produced, however awkward its bytes, through
    // the replay's work table (SQLite: one prepared insert; PostgreSQL:
    // COPY, whose text format escapes tabs, newlines and backslashes): JSON
    // escapes, raw tabs, CRs and newlines between tokens, multi-byte text,
    // a key that is not UTF-8; a value that is neither UTF-8 nor NUL-free
    // dead-lettered with its exact bytes, key and headers. In one batch,
    // and in batches of two (the later ones fetched ahead into their
    // scratch: the dead letter's key and headers read there).
    void recordsLandByteForByte_data() {
        QTest::addColumn<int>("batchSize");
        QTest::newRow("one batch") << 100;
        QTest::newRow("batches of two") << 2;
    }
    void recordsLandByteForByte() {
        QFETCH(int, batchSize);
        Cluster cluster(false);
        const QString topic = cluster.topic(QStringLiteral("bytes"));
        cluster.createTopic(topic, 1);
        const QByteArray badKey("k\xff\xfe-4", 6); // and a NUL
        const QByteArray badValue("\xff{\"id\": \"x\"}\0\\\t\n", 16);
        const QByteArray header("\0\x01\\\t", 4);
        cluster.produce(
            topic,
            {{0,
              QByteArray("k-esc"),
              QByteArray("{\"id\": \"a\\tb\\\\c\\n\\\"q\\\"\", \"amount\": 1.5}"),
              {},
              1700000000123},
             {0, QByteArray("k-ws"), QByteArray("{\t\"id\":\r\n \"p2\",\n\"amount\": 2}"), {}, -1},
             {0,
              QByteArray("k-utf8"),
              QStringLiteral(u"{\"id\": \"caf\u00e9 \u20ac \U0001F600\", \"amount\": 3}").toUtf8(),
              {},
              -1},
             {0, badKey, QByteArray("{\"id\": \"p4\", \"amount\": 4}"), {}, -1},
             {0, QByteArray("k-bad"), badValue, {{QByteArray("h"), header}}, -1}});
        testsupport::WorkspaceFixture f({}, spec(cluster.bootstrap(), topic));
        const auto run = f.cli(replayArgs(batchSize));
        QVERIFY2(run.exitCode == 0, qPrintable(run.err));
        QCOMPARE(json(run.out).value(QStringLiteral("batches")).toInteger(),
                 batchSize == 2 ? 3 : 1);
        QCOMPARE(json(run.out).value(QStringLiteral("inserted")).toInteger(), 4);
        QCOMPARE(json(run.out).value(QStringLiteral("dead_lettered")).toInteger(), 1);
        auto sink = f.db().exec(
            QStringLiteral("SELECT event_id, payment_id FROM payment_events ORDER BY amount"));
        QVERIFY(sink);
        const std::vector<std::pair<QString, QString>> expected{
            {QStringLiteral("k-esc"), QStringLiteral("a\tb\\c\n\"q\"")},
            {QStringLiteral("k-ws"), QStringLiteral("p2")},
            {QStringLiteral("k-utf8"), QStringLiteral(u"caf\u00e9 \u20ac \U0001F600")},
            {QString::fromUtf8(badKey).replace(QChar(0), QChar::ReplacementCharacter),
             QStringLiteral("p4")}};
        for (const auto &[eventId, paymentId] : expected) {
            QVERIFY(sink->next());
            QCOMPARE(sink->value(0).toString(), eventId);
            QCOMPARE(sink->value(1).toString(), paymentId);
        }
        QVERIFY(!sink->next());
        auto dlq = f.db().exec(QStringLiteral(
            "SELECT error_class, kafka_key, kafka_value, kafka_headers, payload FROM rewind_dlq"));
        QVERIFY(dlq && dlq->next());
        QCOMPARE(dlq->value(0).toString(), QStringLiteral("invalid_json"));
        QCOMPARE(dlq->value(1).toByteArray(), QByteArray("k-bad"));
        QCOMPARE(dlq->value(2).toByteArray(), badValue);
        QCOMPARE(dlq->value(3).toString(),
                 QStringLiteral("[[\"h\",\"%1\"]]").arg(QString::fromLatin1(header.toBase64())));
        QCOMPARE(dlq->value(4).toString(),
                 QString::fromUtf8(badValue).replace(QChar(0), QChar::ReplacementCharacter));
        QVERIFY(!dlq->next());
    }

    // --to-datetime: the mock answers no offset to every lookup, so a time
    // before every record is found by searching the records' timestamps;
    // one after every record is the log end, as the broker said.
    void resetByTimeSearchesRecordsWhereTheBrokerAnswersNone() {
        kafkamock::MockCluster cluster;
        testsupport::WorkspaceFixture f({}, kafkamock::kafkaSpec(cluster.bootstrap()));
        const auto byTime = [&](const QString &t) {
            return f.cli({QStringLiteral("offsets-reset"), QStringLiteral("--stream"),
                          QStringLiteral("payments"), QStringLiteral("--group"),
                          QStringLiteral("loader"), QStringLiteral("--to-datetime"), t,
                          QStringLiteral("--json")});
        };
        const auto past = byTime(QStringLiteral("2000-01-01T00:00:00Z"));
        QVERIFY2(past.exitCode == 0, qPrintable(past.err));
        const QJsonArray parts = json(past.out).value(QStringLiteral("partitions")).toArray();
        QCOMPARE(parts.size(), kafkamock::kPartitions);
        for (const auto &v : parts) {
            const QJsonObject o = v.toObject();
            QCOMPARE(o.value(QStringLiteral("new")).toInteger(), 0);
            QCOMPARE(o.value(QStringLiteral("found_by")).toString(),
                     QStringLiteral("record_search"));
            QVERIFY(!o.value(QStringLiteral("new_record_ts")).toString().isEmpty());
            QVERIFY(o.value(QStringLiteral("previous_record_ts")).isNull());
        }
        const auto future = byTime(QStringLiteral("2999-01-01T00:00:00Z"));
        QVERIFY2(future.exitCode == 0, qPrintable(future.err));
        for (const auto &v : json(future.out).value(QStringLiteral("partitions")).toArray()) {
            const QJsonObject o = v.toObject();
            QCOMPARE(o.value(QStringLiteral("new")).toInteger(),
                     o.value(QStringLiteral("log_end")).toInteger());
            QVERIFY(o.value(QStringLiteral("new_record_ts")).isNull());
            QVERIFY(!o.value(QStringLiteral("previous_record_ts")).toString().isEmpty());
        }
        // A dry run: the group is where it was.
        const auto independent = independentOffsets(cluster.bootstrap(), QStringLiteral("loader"),
                                                    QStringLiteral("payments"));
        QCOMPARE(independent.value(0).first, 2);
        QCOMPARE(independent.value(1).first, 4);
    }

    // --export writes kafka-consumer-groups' one-group CSV (topic,partition,
    // offset); --from-file reads it, and its several-groups form.
    void exportAndImportKafkaCsv() {
        Cluster cluster;
        testsupport::WorkspaceFixture f({}, spec(cluster.bootstrap(), cluster.payments()));
        const QString csv = f.dir.filePath(QStringLiteral("plan.csv"));
        const QStringList reset{QStringLiteral("offsets-reset"), QStringLiteral("--stream"),
                                QStringLiteral("payments"), QStringLiteral("--group"),
                                QStringLiteral("loader")};
        const auto dry = f.cli(
            reset + QStringList{QStringLiteral("--to-latest"), QStringLiteral("--export"), csv});
        QVERIFY2(dry.exitCode == 0, qPrintable(dry.err));
        QFile file(csv);
        QVERIFY(file.open(QIODevice::ReadOnly));
        const QString t = cluster.payments();
        QCOMPARE(QString::fromUtf8(file.readAll()), t % QStringLiteral(",0,5\n") % t %
                                                        QStringLiteral(",1,6\n") % t %
                                                        QStringLiteral(",2,7\n"));
        QCOMPARE(
            independentOffsets(cluster.bootstrap(), QStringLiteral("loader"), cluster.payments())
                .value(0)
                .first,
            2); // a dry run

        const auto applied = f.cli(
            reset + QStringList{QStringLiteral("--from-file"), csv, QStringLiteral("--execute")});
        QVERIFY2(applied.exitCode == 0, qPrintable(applied.err));
        auto seen =
            independentOffsets(cluster.bootstrap(), QStringLiteral("loader"), cluster.payments());
        for (int p = 0; p < kPartitions; ++p)
            QCOMPARE(seen.value(p).first, 5 + p);

        // Several groups: only loader's row on payments is applied.
        const QString several =
            testsupport::writeFile(f.dir, QStringLiteral("several.csv"),
                                   QStringLiteral("idle,%1,0,1\nloader,%1,1,2\nloader,%2,0,3\n")
                                       .arg(t, cluster.topic(QStringLiteral("other")))
                                       .toUtf8());
        const auto mine =
            f.cli(reset + QStringList{QStringLiteral("--from-file"), several,
                                      QStringLiteral("--execute"), QStringLiteral("--json")});
        QVERIFY2(mine.exitCode == 0, qPrintable(mine.err));
        QCOMPARE(json(mine.out).value(QStringLiteral("partitions")).toArray().size(), 1);
        seen =
            independentOffsets(cluster.bootstrap(), QStringLiteral("loader"), cluster.payments());
        QCOMPARE(seen.value(0).first, 5);
        QCOMPARE(seen.value(1).first, 2);
        QCOMPARE(seen.value(2).first, 7);
    }

    // A replay SIGKILLed between a batch's database transaction and its
    // group commit: the next replay starts at the workspace's offsets (not
    // the cluster's older ones), lands each event once, and catches the
    // group up, as python3-kafka reads it.
    void replayKilledBeforeTheGroupCommitResumes() {
        Cluster cluster;
        testsupport::WorkspaceFixture f({}, spec(cluster.bootstrap(), cluster.payments()));
        // Batches of 2, each taking one event from partitions 0 (from offset
        // 2) and 1 (from 4); the kill is after the second batch's transaction.
        const auto killed = testsupport::runRewindctl(replayArgs(2) + f.args(),
                                                      QStringLiteral("replay-before-follow:2"));
        QVERIFY2(killed.crashed && killed.err.contains("failpoint replay-before-follow:2 reached"),
                 killed.err.constData());
        const auto afterKill =
            independentOffsets(cluster.bootstrap(), QStringLiteral("loader"), cluster.payments());
        QCOMPARE(afterKill.value(0).first, 3); // the first batch's commit reached the group
        QCOMPARE(afterKill.value(1).first, 5); // the second batch's did not
        QCOMPARE(afterKill.value(2).first, -1);
        QCOMPARE(kafkatest::sinkCount(f.db()), QStringLiteral("4/4"));
        // On PostgreSQL each batch is fetched ahead into a schema of its own:
        // the killed replay leaves the written batch's (and perhaps the
        // next one's); the next replay drops those of sessions that are gone.
        const auto scratchSchemas = [&](const QString &where) {
            auto n = f.db().scalar(
                QStringLiteral("SELECT COUNT(*) FROM pg_namespace AS n WHERE n.nspname ~ "
                               "'^rewind_replay_[0-9]+_[0-9]+$' ") %
                where);
            return n ? n->toInt() : -1;
        };
        if (testsupport::onPostgres()) {
            QVERIFY(scratchSchemas({}) >= 1);
            QTRY_COMPARE_WITH_TIMEOUT(
                scratchSchemas(QStringLiteral(
                    "AND CAST(split_part(n.nspname, '_', 3) AS integer) IN (SELECT pid FROM "
                    "pg_stat_activity WHERE pid IS NOT NULL)")),
                0, 10000); // the killed client's session has ended
        }
        {
            auto q = f.db().exec(
                QStringLiteral("SELECT partition_id, committed_offset FROM rewind_offsets WHERE "
                               "group_id = 'loader' ORDER BY partition_id"));
            QVERIFY(q);
            QStringList workspace;
            while (q->next())
                workspace << q->value(0).toString() % u':' % q->value(1).toString();
            QCOMPARE(
                workspace.join(u','),
                QStringLiteral("0:4,1:6,2:0")); // the second batch, and the start recorded for 2
        }

        const auto resumed = testsupport::runRewindctl(replayArgs(2) + f.args());
        QVERIFY2(resumed.exitCode == 0, resumed.err.constData());
        const QJsonObject r = QJsonDocument::fromJson(resumed.out).object();
        QCOMPARE(r.value(QStringLiteral("consumed")).toInteger(), 8); // 12 - 4, nothing read twice
        QCOMPARE(r.value(QStringLiteral("duplicates")).toInteger(), 0);
        QCOMPARE(kafkatest::sinkCount(f.db()), QStringLiteral("12/12"));
        if (testsupport::onPostgres())
            QCOMPARE(scratchSchemas({}), 0);
        const auto end =
            independentOffsets(cluster.bootstrap(), QStringLiteral("loader"), cluster.payments());
        for (int p = 0; p < kPartitions; ++p)
            QCOMPARE(end.value(p).first, 5 + p);
    }

    // The broker goes down: a command fails within the timeout naming the
    // cluster; a replay started while it is down and brought back up within
    // the timeout completes; nothing doubles.
    void brokerDownThenUp() {
        kafkamock::MockCluster cluster;
        testsupport::WorkspaceFixture f({}, kafkamock::kafkaSpec(cluster.bootstrap()));
        cluster.down();
        QElapsedTimer timer;
        timer.start();
        const auto offsets = f.cli({QStringLiteral("offsets"), QStringLiteral("--stream"),
                                    QStringLiteral("payments"), QStringLiteral("--group"),
                                    QStringLiteral("loader")});
        QCOMPARE(offsets.exitCode, 1);
        QVERIFY2(offsets.err.contains(cluster.bootstrap()), qPrintable(offsets.err));
        QVERIFY2(timer.elapsed() < 30000, qPrintable(QString::number(timer.elapsed())));

        QProcess child;
        child.setProcessChannelMode(QProcess::SeparateChannels);
        child.start(QStringLiteral(REWINDCTL_PATH), replayArgs(4) + f.args());
        QVERIFY(child.waitForStarted());
        QThread::msleep(1500);
        cluster.up();
        QVERIFY(child.waitForFinished(60000));
        const QByteArray err = child.readAllStandardError();
        QVERIFY2(child.exitStatus() == QProcess::NormalExit && child.exitCode() == 0,
                 err.constData());
        QCOMPARE(QJsonDocument::fromJson(child.readAllStandardOutput())
                     .object()
                     .value(QStringLiteral("consumed"))
                     .toInteger(),
                 12);
        QCOMPARE(kafkatest::sinkCount(f.db()), QStringLiteral("12/12"));

        // Down in the middle of nothing to do: the next replay after it is up
        // finds the group at the log end and adds nothing.
        const auto again = f.cli(replayArgs());
        QVERIFY2(again.exitCode == 0, qPrintable(again.err));
        QCOMPARE(json(again.out).value(QStringLiteral("consumed")).toInteger(), 0);
        QCOMPARE(kafkatest::sinkCount(f.db()), QStringLiteral("12/12"));
        const auto end = independentOffsets(cluster.bootstrap(), QStringLiteral("loader"),
                                            QStringLiteral("payments"));
        for (int p = 0; p < kPartitions; ++p)
            QCOMPARE(end.value(p).first, 5 + p);
    }
};

QTEST_GUILESS_MAIN(TestKafka)
#include "tst_kafka.moc"
