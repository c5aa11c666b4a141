// What a real Kafka broker enforces (issue 57), on the real cluster
// (tests/kafkacluster.h), which librdkafka's mock never did:
// - consumer groups: the coordinator's state, protocol and members; a reset
//   or replay of a group with a live member refused before any change; a
//   member that joins between Rewind's check and its commit refused by the
//   coordinator itself, named;
// - transactions: a topic written by a transactional producer, committed and
//   aborted transactions interleaved: committed records only, each once,
//   offsets across the control markers, the aborted records counted; a
//   dead-letter topic written the same way imports its committed records;
// - retention and compaction: a log start moved by kafka-delete-records and a
//   compacted topic with offset gaps, replayed and measured.
// On SQLite and PostgreSQL workspaces (tst_kafkabroker_pg).
#include "core/util/failpoint.h"
#include "tests/kafkacluster.h"
#include "tests/testsupport.h"

#include <QDeadlineTimer>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QStringBuilder>
#include <QTest>
#include <QThread>
#include <memory>

using namespace rw;
using kafkatest::Cluster;
using kafkatest::Record;

namespace {

QJsonObject json(const QString &text) {
    return QJsonDocument::fromJson(text.toUtf8()).object();
}

QStringList replayArgs(const QString &group, int batchSize = 1000) {
    return {QStringLiteral("replay"),
            QStringLiteral("--stream"),
            QStringLiteral("payments"),
            QStringLiteral("--group"),
            group,
            QStringLiteral("--batch-size"),
            QString::number(batchSize),
            QStringLiteral("--execute"),
            QStringLiteral("--json")};
}

// `count` records of partition `partition`, keyed and identified "<prefix>-<i>".
std::vector<Record> records(int partition, const QString &prefix, int count) {
    std::vector<Record> out;
    for (int i = 0; i < count; ++i) {
        Record r;
        r.partition = partition;
        r.key = QString(prefix % u'-' % QString::number(i)).toUtf8();
        r.value = QStringLiteral(R"({"id": "%1-%2", "amount": %2})").arg(prefix).arg(i).toUtf8();
        out.push_back(std::move(r));
    }
    return out;
}

// The sink's event ids, sorted, joined by commas.
QString sinkIds(const testsupport::WorkspaceFixture &f) {
    QStringList ids;
    auto q = f.db().exec(QStringLiteral("SELECT event_id FROM payment_events"));
    while (q && q->next())
        ids << q->value(0).toString();
    ids.sort();
    return ids.join(u',');
}

// kafka-consumer-groups --describe: partition -> [current offset, log end, lag].
QMap<int, QList<qint64>> described(const Cluster &cluster, const QString &group,
                                   const QString &topic) {
    const auto r = cluster.tool(QStringLiteral("kafka-consumer-groups"),
                                {QStringLiteral("--describe"), QStringLiteral("--group"), group});
    QMap<int, QList<qint64>> out;
    for (const QString &line : r.out.split(u'\n', Qt::SkipEmptyParts)) {
        const QStringList f = line.simplified().split(u' ');
        if (f.size() >= 6 && f[1] == topic)
            out.insert(f[2].toInt(), {f[3].toLongLong(), f[4].toLongLong(), f[5].toLongLong()});
    }
    return out;
}

} // namespace

class TestKafkaBroker : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase() {
        REWIND_REQUIRE_KAFKA();
        REWIND_REQUIRE_ENGINE();
        qputenv("REWIND_KAFKA_TIMEOUT_MS", "15000");
    }
    void cleanup() { setFailpointHook({}); }

    // consumer-groups: the coordinator's state, protocol and members (with
    // the partitions each was assigned); a reset and a replay of the group
    // while it has a member refused before any change, naming the member.
    void aGroupWithALiveMember() {
        Cluster cluster;
        const QString group = cluster.group(QStringLiteral("live"));
        cluster.commit(group, cluster.payments(), {{0, 1}, {1, 1}, {2, 1}});
        QByteArray spec = kafkatest::spec(cluster.bootstrap(), cluster.payments());
        spec.replace(
            "\"groups\": [\"loader\", \"idle\"]",
            QString(QStringLiteral("\"groups\": [\"") + group + QStringLiteral("\"]")).toUtf8());
        testsupport::WorkspaceFixture f({}, spec);
        const QStringList groups{QStringLiteral("consumer-groups"), QStringLiteral("--stream"),
                                 QStringLiteral("payments"), QStringLiteral("--json")};
        const auto byName = [&](const testsupport::CliResult &r) {
            for (const auto &v : json(r.out).value(QStringLiteral("groups")).toArray())
                if (v.toObject().value(QStringLiteral("group")).toString() == group)
                    return v.toObject();
            return QJsonObject();
        };
        {
            const auto r = f.cli(groups);
            QVERIFY2(r.exitCode == 0, qPrintable(r.err));
            QCOMPARE(byName(r).value(QStringLiteral("state")).toString(), QStringLiteral("Empty"));
            QVERIFY(byName(r).value(QStringLiteral("members")).toArray().isEmpty());
        }

        auto member =
            std::make_unique<Cluster::Member>(cluster.bootstrap(), group, cluster.payments());
        QVERIFY2(member->waitAssigned(), "the member never joined");
        {
            const auto r = f.cli(groups);
            QVERIFY2(r.exitCode == 0, qPrintable(r.err));
            const QJsonObject g = byName(r);
            QCOMPARE(g.value(QStringLiteral("state")).toString(), QStringLiteral("Stable"));
            QCOMPARE(g.value(QStringLiteral("protocol")).toString(), QStringLiteral("range"));
            const QJsonArray members = g.value(QStringLiteral("members")).toArray();
            QCOMPARE(members.size(), 1);
            QCOMPARE(members.at(0)[QStringLiteral("client_id")].toString(),
                     QStringLiteral("rdkafka"));
            QCOMPARE(members.at(0)[QStringLiteral("partitions")].toArray().size(),
                     kafkatest::kPartitions);
            // Kafka's own tool sees the same member.
            const auto tool = cluster.tool(QStringLiteral("kafka-consumer-groups"),
                                           {QStringLiteral("--describe"), QStringLiteral("--group"),
                                            group, QStringLiteral("--members")});
            QVERIFY2(tool.out.contains(members.at(0)[QStringLiteral("member_id")].toString()),
                     qPrintable(tool.out));
        }
        const QMap<int, qint64> before = cluster.committed(group, cluster.payments());
        const auto reset = f.cli({QStringLiteral("offsets-reset"), QStringLiteral("--stream"),
                                  QStringLiteral("payments"), QStringLiteral("--group"), group,
                                  QStringLiteral("--to-latest"), QStringLiteral("--execute")});
        QCOMPARE(reset.exitCode, 2);
        QVERIFY2(reset.err.contains(u'"' + group + u'"') &&
                     reset.err.contains(
                         QStringLiteral("1 active member(s) (state Stable: rdkafka on")) &&
                     reset.err.contains(QStringLiteral("stop its consumers")),
                 qPrintable(reset.err));
        const auto replay = f.cli(replayArgs(group));
        QCOMPARE(replay.exitCode, 2);
        QVERIFY2(replay.err.contains(QStringLiteral("active member(s)")), qPrintable(replay.err));
        QCOMPARE(cluster.committed(group, cluster.payments()), before);
        QCOMPARE(f.db()
                     .scalar(QStringLiteral("SELECT COUNT(*) FROM rewind_audit WHERE action = "
                                            "'offsets-reset'"))
                     ->toInt(),
                 0);
        QVERIFY(!*f.db().hasRelation(QStringLiteral("payment_events")));

        // The member leaves: Empty again, and the reset goes through.
        member.reset();
        QDeadlineTimer deadline(30000);
        while (byName(f.cli(groups)).value(QStringLiteral("state")).toString() !=
                   QLatin1String("Empty") &&
               !deadline.hasExpired())
            QThread::msleep(200);
        QCOMPARE(byName(f.cli(groups)).value(QStringLiteral("state")).toString(),
                 QStringLiteral("Empty"));
        const auto again = f.cli({QStringLiteral("offsets-reset"), QStringLiteral("--stream"),
                                  QStringLiteral("payments"), QStringLiteral("--group"), group,
                                  QStringLiteral("--to-latest"), QStringLiteral("--execute")});
        QVERIFY2(again.exitCode == 0, qPrintable(again.err));
        QCOMPARE(cluster.committed(group, cluster.payments()).value(2), 7);
    }

    // A member joins after Rewind found the group empty and before its
    // commit: the coordinator refuses the commit, and Rewind names its refusal.
    void aMemberJoiningBeforeTheCommitIsRefusedByTheCoordinator() {
        Cluster cluster;
        const QString group = cluster.group(QStringLiteral("racing"));
        cluster.commit(group, cluster.payments(), {{0, 1}});
        testsupport::WorkspaceFixture f({},
                                        kafkatest::spec(cluster.bootstrap(), cluster.payments()));
        std::unique_ptr<Cluster::Member> member;
        setFailpointHook([&](const char *name) {
            if (qstrcmp(name, "kafka-before-commit") == 0 && !member) {
                member = std::make_unique<Cluster::Member>(cluster.bootstrap(), group,
                                                           cluster.payments());
                member->waitAssigned();
            }
        });
        const auto reset = f.cli({QStringLiteral("offsets-reset"), QStringLiteral("--stream"),
                                  QStringLiteral("payments"), QStringLiteral("--group"), group,
                                  QStringLiteral("--to-latest"), QStringLiteral("--execute")});
        setFailpointHook({});
        QVERIFY(member);
        QCOMPARE(reset.exitCode, 2);
        QVERIFY2((reset.err.contains(QStringLiteral("UNKNOWN_MEMBER_ID")) ||
                  reset.err.contains(QStringLiteral("REBALANCE_IN_PROGRESS")) ||
                  reset.err.contains(QStringLiteral("ILLEGAL_GENERATION"))) &&
                     reset.err.contains(QStringLiteral("group coordinator refused")),
                 qPrintable(reset.err));
        member.reset();
        QCOMPARE(cluster.committed(group, cluster.payments()).value(0), 1);
        QCOMPARE(f.db()
                     .scalar(QStringLiteral("SELECT COUNT(*) FROM rewind_audit WHERE action = "
                                            "'offsets-reset'"))
                     ->toInt(),
                 0);
    }

    // Committed and aborted transactions interleaved, in two partitions: the
    // replay (in batches of 3, so batches end on markers and aborted records)
    // lands each committed record once and none of the aborted, says how many
    // it passed over, and leaves the group at the log end with no lag, as
    // kafka-consumer-groups reads it.
    void aTransactionalTopic() {
        Cluster cluster(false);
        const QString topic = cluster.topic(QStringLiteral("txn"));
        cluster.createTopic(topic, 2);
        const QString tid = cluster.topic(QStringLiteral("txn-producer"));
        for (int p = 0; p < 2; ++p) {
            const QString tag = QStringLiteral("p") + QString::number(p);
            cluster.produceTransaction(tid, topic, records(p, tag % QStringLiteral("c1"), 4), true);
            cluster.produceTransaction(tid, topic, records(p, tag % QStringLiteral("a1"), 3),
                                       false);
            cluster.produceTransaction(tid, topic, records(p, tag % QStringLiteral("c2"), 2), true);
            cluster.produceTransaction(tid, topic, records(p, tag % QStringLiteral("a2"), 2),
                                       false);
        }
        // Each partition: 4 + 3 + 2 + 2 records and 4 markers: the log ends at 15.
        for (const auto &[start, end] : cluster.watermarks(topic))
            QCOMPARE(end, 15);
        const QString group = QStringLiteral("loader");
        testsupport::WorkspaceFixture f({}, kafkatest::spec(cluster.bootstrap(), topic));

        const auto dry =
            f.cli({QStringLiteral("replay"), QStringLiteral("--stream"), QStringLiteral("payments"),
                   QStringLiteral("--group"), group, QStringLiteral("--json")});
        QVERIFY2(dry.exitCode == 0, qPrintable(dry.err));
        QCOMPARE(json(dry.out).value(QStringLiteral("consumed")).toInteger(), 12);
        QCOMPARE(json(dry.out).value(QStringLiteral("aborted_skipped")).toInteger(), 10);

        const auto r = f.cli(replayArgs(group, 3));
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QCOMPARE(json(r.out).value(QStringLiteral("consumed")).toInteger(), 12);
        QCOMPARE(json(r.out).value(QStringLiteral("inserted")).toInteger(), 12);
        QCOMPARE(json(r.out).value(QStringLiteral("duplicates")).toInteger(), 0);
        QCOMPARE(json(r.out).value(QStringLiteral("aborted_skipped")).toInteger(), 10);
        QStringList want;
        for (int p = 0; p < 2; ++p)
            for (const auto &[tag, n] : {std::pair{"c1", 4}, std::pair{"c2", 2}})
                for (int i = 0; i < n; ++i)
                    want << QStringLiteral("p%1%2-%3").arg(p).arg(QLatin1String(tag)).arg(i);
        want.sort();
        QCOMPARE(sinkIds(f), want.join(u','));
        // The group at the log end on the cluster: no lag, by Kafka's tool and by Rewind.
        const auto judged = described(cluster, group, topic);
        QCOMPARE(judged.size(), 2);
        for (const auto &row : judged)
            QCOMPARE(row, (QList<qint64>{15, 15, 0}));
        const auto offsets = f.cli({QStringLiteral("offsets"), QStringLiteral("--stream"),
                                    QStringLiteral("payments"), QStringLiteral("--group"), group,
                                    QStringLiteral("--json")});
        QCOMPARE(json(offsets.out).value(QStringLiteral("total_lag")).toInteger(), 0);

        // One more committed transaction: only it, from behind the last marker.
        cluster.produceTransaction(tid, topic, records(1, QStringLiteral("p1c3"), 2), true);
        const auto more = f.cli(replayArgs(group, 3));
        QVERIFY2(more.exitCode == 0, qPrintable(more.err));
        QCOMPARE(json(more.out).value(QStringLiteral("consumed")).toInteger(), 2);
        QCOMPARE(json(more.out).value(QStringLiteral("aborted_skipped")).toInteger(), 0);
        QCOMPARE(described(cluster, group, topic).value(1), (QList<qint64>{18, 18, 0}));
    }

    // A dead-letter topic written by a transactional producer: the import
    // takes the committed records only, once.
    void aTransactionalDeadLetterTopic() {
        Cluster cluster;
        const QString dlq = cluster.topic(QStringLiteral("payments.dlq"));
        cluster.createTopic(dlq, 1);
        const QString tid = cluster.topic(QStringLiteral("dlq-producer"));
        cluster.produceTransaction(tid, dlq, records(0, QStringLiteral("kept"), 2), true);
        cluster.produceTransaction(tid, dlq, records(0, QStringLiteral("dropped"), 3), false);
        cluster.produceTransaction(tid, dlq, records(0, QStringLiteral("late"), 1), true);
        testsupport::WorkspaceFixture f({}, kafkatest::spec(cluster.bootstrap(), cluster.payments(),
                                                            QStringLiteral("{}"), dlq));
        const QStringList import{QStringLiteral("dlq"),       QStringLiteral("import"),
                                 QStringLiteral("--stream"),  QStringLiteral("payments"),
                                 QStringLiteral("--execute"), QStringLiteral("--json")};
        const auto r = f.cli(import);
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QCOMPARE(json(r.out).value(QStringLiteral("imported")).toInteger(), 3);
        QStringList keys;
        auto q =
            f.db().exec(QStringLiteral("SELECT kafka_key FROM rewind_dlq ORDER BY dlq_offset"));
        while (q && q->next())
            keys << QString::fromUtf8(q->value(0).toByteArray());
        QCOMPARE(keys.join(u','), QStringLiteral("kept-0,kept-1,late-0"));
        const auto again = f.cli(import);
        QCOMPARE(json(again.out).value(QStringLiteral("imported")).toInteger(), 0);
    }

    // The log start moved by kafka-delete-records: a group committed below it
    // replays from the new start, and offsets shows where the log starts.
    void aLogStartMovedByDeleteRecords() {
        Cluster cluster;
        QTemporaryDir dir;
        const QString file = testsupport::writeFile(
            dir, QStringLiteral("delete.json"),
            QStringLiteral(
                R"({"partitions": [{"topic": "%1", "partition": 1, "offset": 5}], "version": 1})")
                .arg(cluster.payments())
                .toUtf8());
        const auto deleted = cluster.tool(QStringLiteral("kafka-delete-records"),
                                          {QStringLiteral("--offset-json-file"), file});
        QVERIFY2(deleted.exitCode == 0, qPrintable(deleted.err));
        // loader committed 4 in partition 1, now below the log start 5.
        testsupport::WorkspaceFixture f({},
                                        kafkatest::spec(cluster.bootstrap(), cluster.payments()));
        const auto offsets = f.cli({QStringLiteral("offsets"), QStringLiteral("--stream"),
                                    QStringLiteral("payments"), QStringLiteral("--group"),
                                    QStringLiteral("loader"), QStringLiteral("--json")});
        QVERIFY2(offsets.exitCode == 0, qPrintable(offsets.err));
        const QJsonObject p1 = testsupport::jsonAt(json(offsets.out), "partitions/1").toObject();
        QCOMPARE(p1.value(QStringLiteral("log_start")).toInteger(), 5);
        QCOMPARE(p1.value(QStringLiteral("log_end")).toInteger(), 6);
        QCOMPARE(p1.value(QStringLiteral("lag")).toInteger(), 1);
        const auto r = f.cli(replayArgs(QStringLiteral("loader")));
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        // 3 from partition 0, 1 from partition 1 (offset 5), 7 from partition 2.
        QCOMPARE(json(r.out).value(QStringLiteral("consumed")).toInteger(), 11);
        QCOMPARE(testsupport::jsonAt(json(r.out), "partitions/1/from").toInteger(), 5);
        QCOMPARE(cluster.committed(QStringLiteral("loader"), cluster.payments()).value(1), 6);
    }

    // A compacted topic whose cleaner has left offset gaps: the replay reads
    // what is left (the newest record of each key), each once, and commits
    // the log end.
    void aCompactedTopicWithOffsetGaps() {
        Cluster cluster(false);
        const QString topic = cluster.topic(QStringLiteral("compacted"));
        cluster.createTopic(topic, 1,
                            {{QStringLiteral("cleanup.policy"), QStringLiteral("compact")},
                             {QStringLiteral("segment.ms"), QStringLiteral("100")},
                             {QStringLiteral("min.cleanable.dirty.ratio"), QStringLiteral("0.001")},
                             {QStringLiteral("delete.retention.ms"), QStringLiteral("100")},
                             {QStringLiteral("min.compaction.lag.ms"), QStringLiteral("0")}});
        // Five keys, four versions each; the value's id is its version's own.
        std::vector<Record> versions;
        for (int round = 0; round < 4; ++round)
            for (int k = 0; k < 5; ++k) {
                Record r;
                r.key = QStringLiteral("k%1").arg(k).toUtf8();
                r.value = QStringLiteral(R"({"id": "k%1-v%2"})").arg(k).arg(round).toUtf8();
                versions.push_back(r);
            }
        cluster.produce(topic, versions);
        // A later segment, so the one holding the versions can be cleaned.
        QThread::msleep(300);
        cluster.produce(topic,
                        {Record{0, QByteArray("k0"), QByteArray(R"({"id": "k0-v4"})"), {}, -1}});
        // Until the cleaner has run: fewer records than offsets.
        QByteArray spec = kafkatest::spec(cluster.bootstrap(), topic);
        spec.replace("\"event_id\": \"key\"", "\"event_id\": \"$.id\"");
        testsupport::WorkspaceFixture f({}, spec);
        QDeadlineTimer deadline(90000);
        qint64 consumed = 21;
        while (consumed == 21 && !deadline.hasExpired()) {
            QThread::msleep(1000);
            const auto dry = f.cli({QStringLiteral("replay"), QStringLiteral("--stream"),
                                    QStringLiteral("payments"), QStringLiteral("--group"),
                                    QStringLiteral("loader"), QStringLiteral("--json")});
            QVERIFY2(dry.exitCode == 0, qPrintable(dry.err));
            consumed = json(dry.out).value(QStringLiteral("consumed")).toInteger();
        }
        QVERIFY2(consumed < 21, "the log cleaner did not compact the topic within 90 s");
        const auto r = f.cli(replayArgs(QStringLiteral("loader"), 4));
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QCOMPARE(json(r.out).value(QStringLiteral("consumed")).toInteger(), consumed);
        QCOMPARE(json(r.out).value(QStringLiteral("aborted_skipped")).toInteger(), 0);
        // The newest version of each key is there, once.
        const QString ids = sinkIds(f);
        for (const char *newest : {"k0-v4", "k1-v3", "k2-v3", "k3-v3", "k4-v3"})
            QVERIFY2(ids.split(u',').count(QString::fromLatin1(newest)) == 1, qPrintable(ids));
        QCOMPARE(cluster.committed(QStringLiteral("loader"), topic).value(0), 21);
        QCOMPARE(described(cluster, QStringLiteral("loader"), topic).value(0),
                 (QList<qint64>{21, 21, 0}));
    }
};

QTEST_GUILESS_MAIN(TestKafkaBroker)
#include "tst_kafkabroker.moc"
