#pragma once

// librdkafka's mock cluster for tests (a real Kafka protocol endpoint on
// 127.0.0.1, in the test process), with the topic, records and commits the
// Kafka tests start from, and a spec of a stream on it.
#include "tests/kafkacluster.h"

#include <QByteArray>
#include <QString>
#include <QTest>
#include <librdkafka/rdkafka.h>
#include <librdkafka/rdkafka_mock.h>
#include <optional>
#include <utility>
#include <vector>

namespace kafkamock {

inline constexpr int kPartitions = 3;
inline const char *const kTopic = "payments";

// A mock cluster of one broker with topic "payments" of 3 partitions:
// partition p holds 5 + p records; group "loader" committed 2 in partition
// 0 and 4 in partition 1, nothing in partition 2.
class MockCluster {
public:
    MockCluster() {
        char err[512];
        rd_kafka_conf_t *conf = rd_kafka_conf_new();
        rd_kafka_conf_set_log_cb(conf, nullptr);
        m_host = rd_kafka_new(RD_KAFKA_PRODUCER, conf, err, sizeof err);
        QVERIFY2(m_host, err);
        m_cluster = rd_kafka_mock_cluster_new(m_host, 1);
        QVERIFY(m_cluster);
        m_bootstrap = QString::fromUtf8(rd_kafka_mock_cluster_bootstraps(m_cluster));
        QCOMPARE(rd_kafka_mock_topic_create(m_cluster, kTopic, kPartitions, 1),
                 RD_KAFKA_RESP_ERR_NO_ERROR);
        QCOMPARE(rd_kafka_mock_topic_create(m_cluster, "other", 1, 1), RD_KAFKA_RESP_ERR_NO_ERROR);
        produce();
        commit(QStringLiteral("loader"), {{0, 2}, {1, 4}});
    }
    ~MockCluster() {
        if (m_cluster)
            rd_kafka_mock_cluster_destroy(m_cluster);
        if (m_host)
            rd_kafka_destroy(m_host);
    }
    const QString &bootstrap() const { return m_bootstrap; }
    // The broker (id 1) stops answering: its connections are closed and new
    // ones refused, until up() again.
    void down() {
        QCOMPARE(rd_kafka_mock_broker_set_down(m_cluster, 1), RD_KAFKA_RESP_ERR_NO_ERROR);
    }
    void up() { QCOMPARE(rd_kafka_mock_broker_set_up(m_cluster, 1), RD_KAFKA_RESP_ERR_NO_ERROR); }
    void createTopic(const char *name, int partitions) {
        QCOMPARE(rd_kafka_mock_topic_create(m_cluster, name, partitions, 1),
                 RD_KAFKA_RESP_ERR_NO_ERROR);
    }

    // A record to produce: key and value may be absent (nullopt); headers in order.
    struct Record {
        int partition = 0;
        std::optional<QByteArray> key;
        std::optional<QByteArray> value;
        std::vector<std::pair<QByteArray, QByteArray>> headers;
    };
    // Produces `records` to `topic` and waits until all are acknowledged.
    void produceRecords(const char *topic, const std::vector<Record> &records) {
        rd_kafka_t *p = client(RD_KAFKA_PRODUCER);
        for (const Record &r : records) {
            rd_kafka_headers_t *headers = rd_kafka_headers_new(r.headers.size() + 1);
            for (const auto &[name, value] : r.headers)
                rd_kafka_header_add(headers, name.constData(), name.size(), value.constData(),
                                    value.size());
            const void *key = r.key ? r.key->constData() : nullptr;
            const size_t keySize = r.key ? size_t(r.key->size()) : 0;
            void *value = r.value ? const_cast<char *>(r.value->constData()) : nullptr;
            const size_t valueSize = r.value ? size_t(r.value->size()) : 0;
            const rd_kafka_resp_err_t err =
                rd_kafka_producev(p, RD_KAFKA_V_TOPIC(topic), RD_KAFKA_V_PARTITION(r.partition),
                                  RD_KAFKA_V_KEY(key, keySize), RD_KAFKA_V_VALUE(value, valueSize),
                                  RD_KAFKA_V_HEADERS(headers),
                                  RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_COPY), RD_KAFKA_V_END);
            if (err)
                qFatal("produce: %s", rd_kafka_err2str(err));
        }
        if (rd_kafka_flush(p, 10000) != RD_KAFKA_RESP_ERR_NO_ERROR)
            qFatal("flush did not finish");
        rd_kafka_destroy(p);
    }

private:
    rd_kafka_t *client(rd_kafka_type_t type, const QString &group = QString()) {
        char err[512];
        rd_kafka_conf_t *conf = rd_kafka_conf_new();
        rd_kafka_conf_set_log_cb(conf, nullptr);
        rd_kafka_conf_set(conf, "bootstrap.servers", m_bootstrap.toUtf8().constData(), err,
                          sizeof err);
        if (!group.isEmpty())
            rd_kafka_conf_set(conf, "group.id", group.toUtf8().constData(), err, sizeof err);
        rd_kafka_t *rk = rd_kafka_new(type, conf, err, sizeof err);
        if (!rk)
            qFatal("kafka client: %s", err);
        return rk;
    }

    void produce() {
        rd_kafka_t *p = client(RD_KAFKA_PRODUCER);
        for (int partition = 0; partition < kPartitions; ++partition)
            for (int i = 0; i < 5 + partition; ++i) {
                const QByteArray value = QStringLiteral(R"({"id": "p%1-%2", "amount": %3})")
                                             .arg(partition)
                                             .arg(i)
                                             .arg(i * 10)
                                             .toUtf8();
                const QByteArray key = QStringLiteral("p%1-%2").arg(partition).arg(i).toUtf8();
                const rd_kafka_resp_err_t err = rd_kafka_producev(
                    p, RD_KAFKA_V_TOPIC(kTopic), RD_KAFKA_V_PARTITION(partition),
                    RD_KAFKA_V_VALUE(const_cast<char *>(value.constData()), size_t(value.size())),
                    RD_KAFKA_V_KEY(key.constData(), size_t(key.size())),
                    RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_COPY), RD_KAFKA_V_END);
                if (err)
                    qFatal("produce: %s", rd_kafka_err2str(err));
            }
        if (rd_kafka_flush(p, 10000) != RD_KAFKA_RESP_ERR_NO_ERROR)
            qFatal("flush did not finish");
        rd_kafka_destroy(p);
    }

    void commit(const QString &group, const std::vector<std::pair<int, qint64>> &offsets) {
        rd_kafka_t *c = client(RD_KAFKA_CONSUMER, group);
        rd_kafka_topic_partition_list_t *list =
            rd_kafka_topic_partition_list_new(int(offsets.size()));
        for (const auto &[partition, offset] : offsets)
            rd_kafka_topic_partition_list_add(list, kTopic, partition)->offset = offset;
        const rd_kafka_resp_err_t err = rd_kafka_commit(c, list, 0);
        rd_kafka_topic_partition_list_destroy(list);
        if (err)
            qFatal("commit: %s", rd_kafka_err2str(err));
        rd_kafka_destroy_flags(c, RD_KAFKA_DESTROY_F_NO_CONSUMER_CLOSE);
    }

    rd_kafka_t *m_host = nullptr;
    rd_kafka_mock_cluster_t *m_cluster = nullptr;
    QString m_bootstrap;
};

// The stream spec of tests/kafkacluster.h on the mock's topic.
inline QByteArray kafkaSpec(const QString &bootstrap,
                            const QString &topic = QString::fromLatin1(kTopic),
                            const QString &config = QStringLiteral("{}"),
                            const QString &dlqTopic = QStringLiteral("payments.dlq")) {
    return kafkatest::spec(bootstrap, topic, config, dlqTopic);
}

} // namespace kafkamock
