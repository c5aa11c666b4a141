// Faults of a real Kafka cluster under Rewind's writes (issue 57), on the
// three-broker cluster (tests/kafkacluster.h). This suite kills brokers, so
// it runs alone (RUN_SERIAL) and brings every broker back before it ends:
// - the partition leader's broker SIGKILLed mid-replay: the replay completes
//   with the new leader, every event in the sink once, the group's commit at
//   the log end;
// - a call just after a partition leader dies keeps to its timeout;
// - the whole cluster stopped mid-replay and started again: the replay
//   stops naming the cluster, and the next one resumes exactly once;
// - a broker killed during `dlq replay --to-topic`: no record produced twice
//   (read back with Kafka's console consumer), every record marked once;
// - a topic below min.insync.replicas: the redrive stops with the broker's
//   error by name, nothing marked that was not acknowledged.
// On SQLite and PostgreSQL workspaces (tst_kafkafaults_pg); the PostgreSQL
// twin leaves out the two cases whose outcome is the Kafka client's alone
// (a call's timeout; the broker's refusal of a produce, whose marking is the
// redrive case's): each takes about 40 s of a serial suite.
#include "core/util/failpoint.h"
#include "tests/kafkacluster.h"
#include "tests/testsupport.h"

#include <QDeadlineTimer>
#include <QElapsedTimer>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>
#include <QStringBuilder>
#include <QTest>
#include <QThread>
#include <cstring>
#include <functional>
#include <memory>

using namespace rw;
using kafkatest::Cluster;
using kafkatest::Record;

namespace {

QJsonObject json(const QString &text) {
    return QJsonDocument::fromJson(text.toUtf8()).object();
}

constexpr int kPerPartition = 400;

// `kPerPartition` records in each of `partitions`, keyed "e<p>-<i>".
std::vector<Record> events(int partitions) {
    std::vector<Record> out;
    for (int p = 0; p < partitions; ++p)
        for (int i = 0; i < kPerPartition; ++i) {
            Record r;
            r.partition = p;
            r.key = QStringLiteral("e%1-%2").arg(p).arg(i).toUtf8();
            r.value = QStringLiteral(R"({"id": "e%1-%2", "amount": %2})").arg(p).arg(i).toUtf8();
            out.push_back(std::move(r));
        }
    return out;
}

// Calls `action` the `nth` time the code passes failpoint `name`.
void onFailpoint(const char *name, int nth, std::function<void()> action) {
    auto hits = std::make_shared<int>(0);
    setFailpointHook([=](const char *passed) {
        if (std::strcmp(passed, name) == 0 && ++*hits == nth)
            action();
    });
}

} // namespace

class TestKafkaFaults : public QObject {
    Q_OBJECT

    std::unique_ptr<Cluster> m_cluster;

    // Every broker up, every ISR whole: what the next suite starts from.
    void allBrokersBack(const QStringList &topics) {
        QList<int> down;
        for (int id = 1; id <= 3; ++id)
            if (!m_cluster->brokerAlive(id))
                down << id;
        m_cluster->startBrokers(down, topics);
    }

private Q_SLOTS:
    void initTestCase() {
        REWIND_REQUIRE_KAFKA();
        REWIND_REQUIRE_ENGINE();
        qputenv("REWIND_KAFKA_TIMEOUT_MS", "30000");
        m_cluster = std::make_unique<Cluster>(false);
    }
    void cleanup() {
        setFailpointHook({});
        qputenv("REWIND_KAFKA_TIMEOUT_MS", "30000");
        allBrokersBack({});
    }

    void leaderKilledMidReplay() {
        const QString topic = m_cluster->topic(QStringLiteral("leader"));
        m_cluster->createTopic(topic, 3);
        m_cluster->produce(topic, events(3));
        testsupport::WorkspaceFixture f({}, kafkatest::spec(m_cluster->bootstrap(), topic));
        // After the second batch's transaction, the leader of partition 0 dies.
        int killed = 0;
        onFailpoint("replay-before-follow", 2, [&] {
            killed = m_cluster->leaderOf(topic, 0);
            m_cluster->killBroker(killed);
        });
        const auto r = f.cli(
            {QStringLiteral("replay"), QStringLiteral("--stream"), QStringLiteral("payments"),
             QStringLiteral("--group"), QStringLiteral("loader"), QStringLiteral("--batch-size"),
             QStringLiteral("150"), QStringLiteral("--execute"), QStringLiteral("--json")});
        setFailpointHook({});
        QVERIFY(killed > 0);
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QCOMPARE(json(r.out).value(QStringLiteral("consumed")).toInteger(), 3 * kPerPartition);
        QCOMPARE(json(r.out).value(QStringLiteral("duplicates")).toInteger(), 0);
        QCOMPARE(kafkatest::sinkCount(f.db()), QStringLiteral("%1/%1").arg(3 * kPerPartition));
        // The surviving brokers' metadata may name the killed leader for a
        // moment after the replay ends (seen once in CI): leadership moved
        // when they agree it did.
        QTRY_VERIFY_WITH_TIMEOUT(m_cluster->leaderOf(topic, 0) != killed, 30000);
        const auto committed = m_cluster->committed(QStringLiteral("loader"), topic);
        for (int p = 0; p < 3; ++p)
            QCOMPARE(committed.value(p), kPerPartition);
        m_cluster->startBrokers({killed}, {topic});
    }

    // A call made just after a partition leader dies keeps to
    // REWIND_KAFKA_TIMEOUT_MS (librdkafka 2.0.2's watermark query waited on
    // the dead leader for minutes), and answers again once another leads.
    void aCallJustAfterALeaderDiesKeepsToItsTimeout() {
        if (testsupport::onPostgres())
            QSKIP(
                "the Kafka client's part alone, the same on every engine (the SQLite twin runs "
                "it); this suite runs serially, so its PostgreSQL twin keeps to the engine's part");
        const QString topic = m_cluster->topic(QStringLiteral("failover"));
        m_cluster->createTopic(topic, 6);
        testsupport::WorkspaceFixture f({}, kafkatest::spec(m_cluster->bootstrap(), topic));
        const QStringList offsets{QStringLiteral("offsets"), QStringLiteral("--stream"),
                                  QStringLiteral("payments"), QStringLiteral("--group"),
                                  QStringLiteral("loader")};
        // Every broker's metadata names the new topic's leader a moment after
        // the one that created it.
        int killed = -1;
        for (QDeadlineTimer known(30000); killed <= 0 && !known.hasExpired(); QThread::msleep(100))
            killed = m_cluster->leaderOf(topic, 0);
        QVERIFY(killed > 0);
        m_cluster->killBroker(killed);
        qputenv("REWIND_KAFKA_TIMEOUT_MS", "3000");
        QElapsedTimer timer;
        timer.start();
        const auto first = f.cli(offsets);
        QVERIFY2(timer.elapsed() < 15000, qPrintable(QString::number(timer.elapsed())));
        QVERIFY2(first.exitCode == 0 || first.err.contains(m_cluster->bootstrap()),
                 qPrintable(first.err));
        QDeadlineTimer deadline(60000);
        int exitCode = first.exitCode;
        while (exitCode != 0 && !deadline.hasExpired()) {
            QThread::msleep(500);
            exitCode = f.cli(offsets).exitCode;
        }
        QCOMPARE(exitCode, 0);
        m_cluster->startBrokers({killed}, {topic});
    }

    void wholeClusterStoppedMidReplay() {
        const QString topic = m_cluster->topic(QStringLiteral("stopped"));
        m_cluster->createTopic(topic, 3);
        m_cluster->produce(topic, events(3));
        testsupport::WorkspaceFixture f({}, kafkatest::spec(m_cluster->bootstrap(), topic));
        const QStringList replay{
            QStringLiteral("replay"),  QStringLiteral("--stream"),  QStringLiteral("payments"),
            QStringLiteral("--group"), QStringLiteral("loader"),    QStringLiteral("--batch-size"),
            QStringLiteral("150"),     QStringLiteral("--execute"), QStringLiteral("--json")};
        // After the second batch's transaction, every broker dies.
        qputenv("REWIND_KAFKA_TIMEOUT_MS", "5000");
        onFailpoint("replay-before-follow", 2, [&] {
            for (int id = 1; id <= 3; ++id)
                m_cluster->killBroker(id);
        });
        const auto stopped = f.cli(replay);
        setFailpointHook({});
        QCOMPARE(stopped.exitCode, 1);
        QVERIFY2(stopped.err.contains(m_cluster->bootstrap()), qPrintable(stopped.err));
        QCOMPARE(kafkatest::sinkCount(f.db()),
                 QStringLiteral("300/300")); // two batches, in the workspace

        qputenv("REWIND_KAFKA_TIMEOUT_MS", "30000");
        m_cluster->startBrokers({1, 2, 3}, {topic});
        const auto resumed = f.cli(replay);
        QVERIFY2(resumed.exitCode == 0, qPrintable(resumed.err));
        QCOMPARE(json(resumed.out).value(QStringLiteral("consumed")).toInteger(),
                 3 * kPerPartition - 300); // nothing read twice
        QCOMPARE(json(resumed.out).value(QStringLiteral("duplicates")).toInteger(), 0);
        QCOMPARE(kafkatest::sinkCount(f.db()), QStringLiteral("%1/%1").arg(3 * kPerPartition));
        const auto committed = m_cluster->committed(QStringLiteral("loader"), topic);
        for (int p = 0; p < 3; ++p)
            QCOMPARE(committed.value(p), kPerPartition);
    }

    void brokerKilledDuringRedrive() {
        const QString target = m_cluster->topic(QStringLiteral("redrive"));
        const QString dlq = m_cluster->topic(QStringLiteral("redrive.dlq"));
        m_cluster->createTopic(target, 1);
        m_cluster->createTopic(dlq, 1);
        std::vector<Record> dead;
        for (int i = 0; i < 30; ++i)
            dead.push_back({0,
                            QStringLiteral("d-%1").arg(i).toUtf8(),
                            QStringLiteral(R"({"id": "d-%1", "amount": %1})").arg(i).toUtf8(),
                            {{"__connect.errors.topic", target.toUtf8()},
                             {"__connect.errors.partition", "0"},
                             {"__connect.errors.offset", QByteArray::number(i)}},
                            -1});
        m_cluster->produce(dlq, dead);
        testsupport::WorkspaceFixture f(
            {}, kafkatest::spec(m_cluster->bootstrap(), target, QStringLiteral("{}"), dlq));
        const auto imported =
            f.cli({QStringLiteral("dlq"), QStringLiteral("import"), QStringLiteral("--stream"),
                   QStringLiteral("payments"), QStringLiteral("--execute")});
        QVERIFY2(imported.exitCode == 0, qPrintable(imported.err));
        // After the second batch is acknowledged, the target's leader dies.
        int killed = 0;
        onFailpoint("dlq-produce-after-ack", 2, [&] {
            killed = m_cluster->leaderOf(target, 0);
            m_cluster->killBroker(killed);
        });
        const auto r =
            f.cli({QStringLiteral("dlq"), QStringLiteral("replay"), QStringLiteral("--to-topic"),
                   QStringLiteral("--batch-size"), QStringLiteral("5"), QStringLiteral("--execute"),
                   QStringLiteral("--json")});
        setFailpointHook({});
        QVERIFY(killed > 0);
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QCOMPARE(json(r.out).value(QStringLiteral("replayed")).toInteger(), 30);
        // Every record marked once, with one "produced to" in its history.
        QCOMPARE(f.db()
                     .scalar(QStringLiteral("SELECT COUNT(*) FROM rewind_dlq WHERE status = "
                                            "'replayed'"))
                     ->toInt(),
                 30);
        QCOMPARE(f.db()
                     .scalar(QStringLiteral("SELECT COUNT(*) FROM rewind_dlq_history WHERE reason "
                                            "LIKE 'produced to %'"))
                     ->toInt(),
                 30);
        // Kafka's console consumer reads each rewind.dlq.id once.
        const auto read = m_cluster->tool(
            QStringLiteral("kafka-console-consumer"),
            {QStringLiteral("--topic"), target, QStringLiteral("--from-beginning"),
             QStringLiteral("--timeout-ms"), QStringLiteral("15000"), QStringLiteral("--property"),
             QStringLiteral("print.headers=true"), QStringLiteral("--isolation-level"),
             QStringLiteral("read_committed")});
        QMap<QString, int> copies;
        static const QRegularExpression id(QStringLiteral("rewind\\.dlq\\.id:(\\d+)"));
        for (const QString &line : read.out.split(u'\n', Qt::SkipEmptyParts))
            if (const auto m = id.match(line); m.hasMatch())
                ++copies[m.captured(1)];
        QCOMPARE(copies.size(), 30);
        for (auto it = copies.begin(); it != copies.end(); ++it)
            QVERIFY2(it.value() == 1,
                     qPrintable(QStringLiteral("rewind.dlq.id %1 produced %2 times")
                                    .arg(it.key())
                                    .arg(it.value())));
        m_cluster->startBrokers({killed}, {target});
    }

    void belowMinInsyncReplicas() {
        if (testsupport::onPostgres())
            QSKIP(
                "the Kafka client's part alone, the same on every engine (the SQLite twin runs "
                "it); this suite runs serially, so its PostgreSQL twin keeps to the engine's part");
        const QString target = m_cluster->topic(QStringLiteral("strict"));
        const QString dlq = m_cluster->topic(QStringLiteral("strict.dlq"));
        m_cluster->createTopic(target, 1,
                               {{QStringLiteral("min.insync.replicas"), QStringLiteral("3")}});
        m_cluster->createTopic(dlq, 1);
        std::vector<Record> dead;
        for (int i = 0; i < 5; ++i)
            dead.push_back({0,
                            QStringLiteral("s-%1").arg(i).toUtf8(),
                            QStringLiteral(R"({"id": "s-%1"})").arg(i).toUtf8(),
                            {{"__connect.errors.topic", target.toUtf8()}},
                            -1});
        m_cluster->produce(dlq, dead);
        testsupport::WorkspaceFixture f(
            {}, kafkatest::spec(m_cluster->bootstrap(), target, QStringLiteral("{}"), dlq));
        QCOMPARE(f.cli({QStringLiteral("dlq"), QStringLiteral("import"), QStringLiteral("--stream"),
                        QStringLiteral("payments"), QStringLiteral("--execute")})
                     .exitCode,
                 0);
        // A follower dies: two in-sync replicas of three needed. Not the
        // active controller: its fencing of the follower is what shrinks
        // the ISR, and a controller election first only makes that later.
        const int leader = m_cluster->leaderOf(target, 0);
        const auto quorum =
            m_cluster->tool(QStringLiteral("kafka-metadata-quorum"),
                            {QStringLiteral("describe"), QStringLiteral("--status")});
        static const QRegularExpression leaderId(QStringLiteral("LeaderId:\\s*(\\d+)"));
        const int controller = leaderId.match(quorum.out).captured(1).toInt();
        int follower = 1;
        while (follower == leader || follower == controller)
            ++follower;
        m_cluster->killBroker(follower);
        QDeadlineTimer deadline(90000);
        while (m_cluster->isrCount(target, 0) != 2 && !deadline.hasExpired())
            QThread::msleep(200);
        QVERIFY2(
            m_cluster->isrCount(target, 0) == 2,
            qPrintable(QStringLiteral("broker %1 killed (partition leader %2, controller %3); "
                                      "kafka-topics --describe:\n")
                           .arg(follower)
                           .arg(leader)
                           .arg(controller) %
                       m_cluster
                           ->tool(QStringLiteral("kafka-topics"),
                                  {QStringLiteral("--describe"), QStringLiteral("--topic"), target})
                           .out));

        qputenv("REWIND_KAFKA_TIMEOUT_MS", "8000");
        const auto r =
            f.cli({QStringLiteral("dlq"), QStringLiteral("replay"), QStringLiteral("--to-topic"),
                   QStringLiteral("--execute"), QStringLiteral("--json")});
        QVERIFY(r.exitCode != 0);
        QVERIFY2(r.err.contains(QStringLiteral("NOT_ENOUGH_REPLICAS")), qPrintable(r.err));
        QCOMPARE(f.db()
                     .scalar(QStringLiteral("SELECT COUNT(*) FROM rewind_dlq WHERE status = 'new'"))
                     ->toInt(),
                 5);
        QCOMPARE(m_cluster->watermarks(target).value(0).second, 0); // nothing on the topic
        m_cluster->startBrokers({follower}, {target});
    }
};

QTEST_GUILESS_MAIN(TestKafkaFaults)
#include "tst_kafkafaults.moc"
