#pragma once

// The real Apache Kafka cluster the Kafka suites run against: three KRaft
// nodes on 127.0.0.1 that scripts/kafka.sh starts (REWIND_TEST_KAFKA_*), one
// for every suite. Suites run side by side on it, so each Cluster names its
// topics with a suffix of its own; the groups a test commits to are per topic
// on the cluster, and a test that runs a member names its group with that
// suffix too. Suites that kill brokers are RUN_SERIAL (tests/CMakeLists.txt).
//
// What this gives a test: topics (replication factor 3), producing (plain,
// with timestamps, transactional, committed or aborted), committing a group's
// offsets from outside it, a live group member, Kafka's own tools from the
// same jars, and a broker's leaderships, kill and restart.
#include "core/sql/database.h"

#include <QByteArray>
#include <QMap>
#include <QString>
#include <QStringList>
#include <atomic>
#include <librdkafka/rdkafka.h>
#include <optional>
#include <thread>
#include <utility>
#include <vector>

namespace kafkatest {

// Why no cluster is there (REWIND_TEST_KAFKA_BOOTSTRAP unset), or empty.
QString unavailable();
// In initTestCase: no cluster fails the suite when scripts/test runs it
// (REWIND_TEST_KAFKA_REQUIRED), and skips it, saying why, for a hand run.
#define REWIND_REQUIRE_KAFKA()                                                                     \
    do {                                                                                           \
        if (const QString why = kafkatest::unavailable(); !why.isEmpty()) {                        \
            if (qEnvironmentVariableIsSet("REWIND_TEST_KAFKA_REQUIRED"))                           \
                QFAIL(qPrintable(why));                                                            \
            QSKIP(qPrintable(why));                                                                \
        }                                                                                          \
    } while (false)

inline constexpr int kPartitions = 3;

// One record to produce: key and value may be absent; headers in order;
// timestampMs < 0: the producer's clock.
struct Record {
    int partition = 0;
    std::optional<QByteArray> key;
    std::optional<QByteArray> value;
    std::vector<std::pair<QByteArray, QByteArray>> headers;
    qint64 timestampMs = -1;
};

// What a tool printed, and how it ended.
struct ToolRun {
    int exitCode = -1;
    QString out;
    QString err;
};

class Cluster {
public:
    // With `seedPayments`, as the mock-cluster tests began: topic
    // topic("payments") of 3 partitions, partition p holding 5 + p records
    // ({"id": "p<p>-<i>", "amount": i*10}, keyed "p<p>-<i>"); topic
    // topic("other") of 1; group "loader" committed 2 in partition 0 and 4
    // in partition 1, nothing in partition 2.
    explicit Cluster(bool seedPayments = true);
    ~Cluster();
    Cluster(const Cluster &) = delete;
    Cluster &operator=(const Cluster &) = delete;

    const QString &bootstrap() const { return m_bootstrap; }
    // `base` with this cluster's suffix: the name a test's topic has.
    QString topic(const QString &base) const;
    // The seeded topic, topic("payments").
    QString payments() const { return topic(QStringLiteral("payments")); }
    // A group name of this test only (for groups with members).
    QString group(const QString &base) const { return topic(base); }

    // Creates `name` (as given) with `partitions`, `replicas` (replication
    // factor) and the topic `configs`; returns once every partition has a leader.
    void createTopic(const QString &name, int partitions,
                     const QMap<QString, QString> &configs = {}, int replicas = 3);
    // Produces `records` (acks=all) and waits for every acknowledgement.
    void produce(const QString &topic, const std::vector<Record> &records);
    // One transaction of a transactional producer (`transactionalId`),
    // committed or aborted.
    void produceTransaction(const QString &transactionalId, const QString &topic,
                            const std::vector<Record> &records, bool commit);
    // Commits `offsets` (partition, offset) of `topic` to `group` from outside it.
    void commit(const QString &group, const QString &topic,
                const std::vector<std::pair<int, qint64>> &offsets);
    // Per partition the group's committed offset (-1: none), as the cluster holds it.
    QMap<int, qint64> committed(const QString &group, const QString &topic);
    // Per partition the log start and the high watermark.
    QMap<int, std::pair<qint64, qint64>> watermarks(const QString &topic);

    // A consumer that joins `group` subscribed to `topic` and stays a member
    // until destroyed (it polls on a thread of its own).
    class Member {
    public:
        Member(const QString &bootstrap, const QString &group, const QString &topic);
        ~Member();
        // Until the member holds an assignment, or false after `ms`.
        bool waitAssigned(int ms = 30000);

    private:
        rd_kafka_t *m_rk = nullptr;
        std::atomic<bool> m_stop{false};
        std::atomic<bool> m_assigned{false};
        std::thread m_thread;
    };

    // Kafka's own tool `name` (kafka-consumer-groups, ...) with `args`,
    // --bootstrap-server added first; fails the test when it cannot start.
    ToolRun tool(const QString &name, const QStringList &args) const;

    // The broker leading each partition of `topic` (-1: none now); empty
    // where the topic does not exist. `via`: ask through that broker alone.
    std::vector<int> leaders(const QString &topic, const QString &via = QString()) const;
    // The broker id leading `partition` of `topic` (-1: none now).
    int leaderOf(const QString &topic, int partition) const;
    // Whether broker `id`'s process runs.
    bool brokerAlive(int id) const;
    // SIGKILLs broker `id` (1-3) and returns once it is gone.
    void killBroker(int id);
    // Starts brokers `ids` again; returns once all three are in the
    // metadata and in every replica set of `topics` and of Kafka's own
    // topics (each partition's ISR has 3 again).
    void startBrokers(const QList<int> &ids, const QStringList &topics = {});
    // The in-sync replicas of `partition` of `topic` (-1: not known now).
    int isrCount(const QString &topic, int partition) const;
    // The brokers the metadata lists now.
    int brokersUp() const;

private:
    rd_kafka_t *client(rd_kafka_type_t type, const QString &group = QString(),
                       const QStringList &extra = {}) const;
    void seed();

    QString m_bootstrap;
    QString m_suffix;
};

// The sink payment_events of `db` as "rows/distinct event ids" (each event
// once: equal numbers).
QString sinkCount(const rw::Database &db);

// A stream spec on `topic` of `bootstrap`: stream "payments", groups
// "loader" and "idle", event id from the key, sink payment_events.
QByteArray spec(const QString &bootstrap, const QString &topic,
                const QString &config = QStringLiteral("{}"), const QString &dlqTopic = QString());

} // namespace kafkatest
