// A librdkafka mock cluster holding a topic to benchmark Kafka replay on
// (bench/kafka): `kafka_mock EVENTS PARTITIONS` creates topic "payments",
// produces EVENTS records round-robin over PARTITIONS (key "e<i>", a JSON
// value of 120 bytes: {"id":"e<i>","amount":N,"pad":"x..."}), prints the
// bootstrap address once they are all acknowledged, and serves until killed.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <librdkafka/rdkafka.h>
#include <librdkafka/rdkafka_mock.h>
#include <string>
#include <thread>

int main(int argc, char **argv) {
    const long events = argc > 1 ? std::atol(argv[1]) : 1000000;
    const int partitions = argc > 2 ? std::atoi(argv[2]) : 32;
    char err[512];
    rd_kafka_conf_t *conf = rd_kafka_conf_new();
    rd_kafka_conf_set_log_cb(conf, nullptr);
    rd_kafka_t *host = rd_kafka_new(RD_KAFKA_PRODUCER, conf, err, sizeof err);
    if (!host) {
        std::fprintf(stderr, "kafka_mock: %s\n", err);
        return 1;
    }
    rd_kafka_mock_cluster_t *cluster = rd_kafka_mock_cluster_new(host, 1);
    const std::string bootstrap = rd_kafka_mock_cluster_bootstraps(cluster);
    rd_kafka_mock_topic_create(cluster, "payments", partitions, 1);

    conf = rd_kafka_conf_new();
    rd_kafka_conf_set_log_cb(conf, nullptr);
    rd_kafka_conf_set(conf, "bootstrap.servers", bootstrap.c_str(), err, sizeof err);
    rd_kafka_conf_set(conf, "linger.ms", "20", err, sizeof err);
    rd_kafka_conf_set(conf, "queue.buffering.max.messages", "1000000", err, sizeof err);
    rd_kafka_t *producer = rd_kafka_new(RD_KAFKA_PRODUCER, conf, err, sizeof err);
    for (long i = 0; i < events; ++i) {
        const std::string key = "e" + std::to_string(i);
        std::string value =
            "{\"id\":\"" + key + "\",\"amount\":" + std::to_string(i % 1000) + ",\"pad\":\"";
        value.append(120 - value.size() - 2, 'x');
        value += "\"}";
        while (rd_kafka_producev(producer, RD_KAFKA_V_TOPIC("payments"),
                                 RD_KAFKA_V_PARTITION(int32_t(i % partitions)),
                                 RD_KAFKA_V_VALUE(value.data(), value.size()),
                                 RD_KAFKA_V_KEY(key.data(), key.size()),
                                 RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_COPY),
                                 RD_KAFKA_V_END) == RD_KAFKA_RESP_ERR__QUEUE_FULL)
            rd_kafka_poll(producer, 10);
    }
    if (rd_kafka_flush(producer, 600000) != RD_KAFKA_RESP_ERR_NO_ERROR) {
        std::fprintf(stderr, "kafka_mock: not every record was acknowledged\n");
        return 1;
    }
    rd_kafka_destroy(producer);
    std::printf("%s\n", bootstrap.c_str());
    std::fflush(stdout);
    for (;;)
        std::this_thread::sleep_for(std::chrono::hours(1));
}
