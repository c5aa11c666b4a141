#include "tests/kafkacluster.h"

#include <QDeadlineTimer>
#include <QDir>
#include <QFile>
#include <QProcess>
#include <QRandomGenerator>
#include <QRegularExpression>
#include <QStringBuilder>
#include <QThread>
#include <algorithm>
#include <cerrno>
#include <csignal>
#include <memory>

namespace kafkatest {

namespace {

QString env(const char *name) {
    return qEnvironmentVariable(name);
}

QString nodeFile(int id, const QString &file) {
    return env("REWIND_TEST_KAFKA_DIR") % QStringLiteral("/node") % QString::number(id) % u'/' %
           file;
}

void check(rd_kafka_resp_err_t err, const char *what) {
    if (err != RD_KAFKA_RESP_ERR_NO_ERROR)
        qFatal("kafka test cluster: %s: %s", what, rd_kafka_err2str(err));
}

void checkError(rd_kafka_error_t *error, const char *what) {
    if (error) {
        const QByteArray text = rd_kafka_error_string(error);
        rd_kafka_error_destroy(error);
        qFatal("kafka test cluster: %s: %s", what, text.constData());
    }
}

struct Destroy {
    void operator()(rd_kafka_t *rk) const { rd_kafka_destroy(rk); }
};
using Handle = std::unique_ptr<rd_kafka_t, Destroy>;

void produceOn(rd_kafka_t *p, const QString &topic, const std::vector<Record> &records) {
    const QByteArray name = topic.toUtf8();
    for (const Record &r : records) {
        rd_kafka_headers_t *headers = rd_kafka_headers_new(r.headers.size() + 1);
        for (const auto &[header, value] : r.headers)
            rd_kafka_header_add(headers, header.constData(), header.size(), value.constData(),
                                value.size());
        const void *key = r.key ? r.key->constData() : nullptr;
        const size_t keySize = r.key ? size_t(r.key->size()) : 0;
        void *value = r.value ? const_cast<char *>(r.value->constData()) : nullptr;
        const size_t valueSize = r.value ? size_t(r.value->size()) : 0;
        rd_kafka_resp_err_t err;
        do {
            err = rd_kafka_producev(p, RD_KAFKA_V_TOPIC(name.constData()),
                                    RD_KAFKA_V_PARTITION(r.partition), RD_KAFKA_V_KEY(key, keySize),
                                    RD_KAFKA_V_VALUE(value, valueSize), RD_KAFKA_V_HEADERS(headers),
                                    RD_KAFKA_V_TIMESTAMP(r.timestampMs >= 0 ? r.timestampMs : 0),
                                    RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_COPY), RD_KAFKA_V_END);
            if (err == RD_KAFKA_RESP_ERR__QUEUE_FULL)
                rd_kafka_poll(p, 100);
        } while (err == RD_KAFKA_RESP_ERR__QUEUE_FULL);
        if (err) {
            rd_kafka_headers_destroy(headers);
            check(err, "produce");
        }
    }
}

// Delivery reports: the first failure, kept for after the flush.
void onDelivery(rd_kafka_t *, const rd_kafka_message_t *m, void *opaque) {
    auto *failed = static_cast<rd_kafka_resp_err_t *>(opaque);
    if (m->err && *failed == RD_KAFKA_RESP_ERR_NO_ERROR)
        *failed = m->err;
}

} // namespace

QString unavailable() {
    if (env("REWIND_TEST_KAFKA_BOOTSTRAP").isEmpty())
        return QStringLiteral("Kafka cluster unavailable: REWIND_TEST_KAFKA_BOOTSTRAP is not set "
                              "(scripts/test starts one with scripts/kafka.sh)");
    return {};
}

Cluster::Cluster(bool seedPayments)
    : m_bootstrap(env("REWIND_TEST_KAFKA_BOOTSTRAP"))
    , m_suffix(QString::number(QRandomGenerator::global()->generate64(), 36)) {
    if (m_bootstrap.isEmpty())
        qFatal("%s", qPrintable(unavailable()));
    if (seedPayments)
        seed();
}

Cluster::~Cluster() = default;

QString Cluster::topic(const QString &base) const {
    return base % u'-' % m_suffix;
}

rd_kafka_t *Cluster::client(rd_kafka_type_t type, const QString &group,
                            const QStringList &extra) const {
    char err[512];
    rd_kafka_conf_t *conf = rd_kafka_conf_new();
    rd_kafka_conf_set_log_cb(conf, nullptr);
    const auto set = [&](const QByteArray &name, const QByteArray &value) {
        if (rd_kafka_conf_set(conf, name.constData(), value.constData(), err, sizeof err) !=
            RD_KAFKA_CONF_OK)
            qFatal("kafka test cluster: %s", err);
    };
    set("bootstrap.servers", m_bootstrap.toUtf8());
    if (!group.isEmpty())
        set("group.id", group.toUtf8());
    for (int i = 0; i + 1 < extra.size(); i += 2)
        set(extra[i].toUtf8(), extra[i + 1].toUtf8());
    rd_kafka_t *rk = rd_kafka_new(type, conf, err, sizeof err);
    if (!rk)
        qFatal("kafka test cluster: client: %s", err);
    return rk;
}

void Cluster::seed() {
    createTopic(payments(), kPartitions);
    createTopic(topic(QStringLiteral("other")), 1);
    std::vector<Record> records;
    for (int partition = 0; partition < kPartitions; ++partition)
        for (int i = 0; i < 5 + partition; ++i) {
            Record r;
            r.partition = partition;
            r.key = QStringLiteral("p%1-%2").arg(partition).arg(i).toUtf8();
            r.value = QStringLiteral(R"({"id": "p%1-%2", "amount": %3})")
                          .arg(partition)
                          .arg(i)
                          .arg(i * 10)
                          .toUtf8();
            records.push_back(std::move(r));
        }
    produce(payments(), records);
    commit(QStringLiteral("loader"), payments(), {{0, 2}, {1, 4}});
}

void Cluster::createTopic(const QString &name, int partitions,
                          const QMap<QString, QString> &configs, int replicas) {
    const Handle admin(client(RD_KAFKA_PRODUCER));
    char err[512];
    const QByteArray topicName = name.toUtf8();
    rd_kafka_NewTopic_t *topic =
        rd_kafka_NewTopic_new(topicName.constData(), partitions, replicas, err, sizeof err);
    if (!topic)
        qFatal("kafka test cluster: topic %s: %s", topicName.constData(), err);
    for (auto it = configs.begin(); it != configs.end(); ++it)
        check(rd_kafka_NewTopic_set_config(topic, it.key().toUtf8().constData(),
                                           it.value().toUtf8().constData()),
              "topic config");
    rd_kafka_queue_t *queue = rd_kafka_queue_new(admin.get());
    rd_kafka_AdminOptions_t *options =
        rd_kafka_AdminOptions_new(admin.get(), RD_KAFKA_ADMIN_OP_CREATETOPICS);
    rd_kafka_AdminOptions_set_operation_timeout(options, 30000, err, sizeof err);
    rd_kafka_CreateTopics(admin.get(), &topic, 1, options, queue);
    rd_kafka_event_t *event = rd_kafka_queue_poll(queue, 60000);
    if (!event)
        qFatal("kafka test cluster: CreateTopics %s: no answer", topicName.constData());
    check(rd_kafka_event_error(event), "CreateTopics");
    size_t count = 0;
    const rd_kafka_topic_result_t **results =
        rd_kafka_CreateTopics_result_topics(rd_kafka_event_CreateTopics_result(event), &count);
    for (size_t i = 0; i < count; ++i)
        if (rd_kafka_topic_result_error(results[i]))
            qFatal("kafka test cluster: CreateTopics %s: %s", topicName.constData(),
                   rd_kafka_topic_result_error_string(results[i]));
    rd_kafka_event_destroy(event);
    rd_kafka_AdminOptions_destroy(options);
    rd_kafka_NewTopic_destroy(topic);
    rd_kafka_queue_destroy(queue);
    // Until every broker's metadata gives every partition a leader (each
    // asked through a client bootstrapped on it alone): a producer that
    // asks one that does not know the topic yet fails with "Unknown partition".
    QDeadlineTimer deadline(60000);
    const QStringList brokers = m_bootstrap.split(u',');
    while (!deadline.hasExpired()) {
        const bool everywhere = std::all_of(brokers.begin(), brokers.end(), [&](const QString &b) {
            const std::vector<int> all = leaders(name, b);
            return int(all.size()) == partitions &&
                   std::all_of(all.begin(), all.end(), [](int leader) { return leader > 0; });
        });
        if (everywhere)
            return;
        QThread::msleep(100);
    }
    qFatal("kafka test cluster: topic %s has no leaders after 60 s", topicName.constData());
}

void Cluster::produce(const QString &topic, const std::vector<Record> &records) {
    rd_kafka_resp_err_t failed = RD_KAFKA_RESP_ERR_NO_ERROR;
    char err[512];
    rd_kafka_conf_t *conf = rd_kafka_conf_new();
    rd_kafka_conf_set_log_cb(conf, nullptr);
    rd_kafka_conf_set(conf, "bootstrap.servers", m_bootstrap.toUtf8().constData(), err, sizeof err);
    rd_kafka_conf_set(conf, "acks", "all", err, sizeof err);
    rd_kafka_conf_set(conf, "linger.ms", "5", err, sizeof err);
    rd_kafka_conf_set_dr_msg_cb(conf, onDelivery);
    rd_kafka_conf_set_opaque(conf, &failed);
    const Handle p(rd_kafka_new(RD_KAFKA_PRODUCER, conf, err, sizeof err));
    if (!p)
        qFatal("kafka test cluster: producer: %s", err);
    produceOn(p.get(), topic, records);
    check(rd_kafka_flush(p.get(), 60000), "flush");
    check(failed, "delivery");
}

void Cluster::produceTransaction(const QString &transactionalId, const QString &topic,
                                 const std::vector<Record> &records, bool commit) {
    const Handle p(client(RD_KAFKA_PRODUCER, QString(),
                          {QStringLiteral("transactional.id"), transactionalId,
                           QStringLiteral("linger.ms"), QStringLiteral("5")}));
    checkError(rd_kafka_init_transactions(p.get(), 60000), "init_transactions");
    checkError(rd_kafka_begin_transaction(p.get()), "begin_transaction");
    produceOn(p.get(), topic, records);
    check(rd_kafka_flush(p.get(), 60000), "flush");
    if (commit)
        checkError(rd_kafka_commit_transaction(p.get(), 60000), "commit_transaction");
    else
        checkError(rd_kafka_abort_transaction(p.get(), 60000), "abort_transaction");
}

void Cluster::commit(const QString &group, const QString &topic,
                     const std::vector<std::pair<int, qint64>> &offsets) {
    const Handle c(client(RD_KAFKA_CONSUMER, group));
    const QByteArray name = topic.toUtf8();
    rd_kafka_topic_partition_list_t *list = rd_kafka_topic_partition_list_new(int(offsets.size()));
    for (const auto &[partition, offset] : offsets)
        rd_kafka_topic_partition_list_add(list, name.constData(), partition)->offset = offset;
    rd_kafka_resp_err_t err;
    QDeadlineTimer deadline(60000);
    do { // the coordinator may move while a broker restarts
        err = rd_kafka_commit(c.get(), list, 0);
    } while ((err == RD_KAFKA_RESP_ERR_COORDINATOR_NOT_AVAILABLE ||
              err == RD_KAFKA_RESP_ERR_NOT_COORDINATOR || err == RD_KAFKA_RESP_ERR__TRANSPORT) &&
             !deadline.hasExpired() && (QThread::msleep(200), true));
    rd_kafka_topic_partition_list_destroy(list);
    check(err, "commit");
}

QMap<int, qint64> Cluster::committed(const QString &group, const QString &topic) {
    const Handle c(client(RD_KAFKA_CONSUMER, group));
    const QByteArray name = topic.toUtf8();
    const auto marks = watermarks(topic);
    rd_kafka_topic_partition_list_t *list = rd_kafka_topic_partition_list_new(int(marks.size()));
    for (auto it = marks.begin(); it != marks.end(); ++it)
        rd_kafka_topic_partition_list_add(list, name.constData(), it.key());
    check(rd_kafka_committed(c.get(), list, 30000), "committed");
    QMap<int, qint64> out;
    for (int i = 0; i < list->cnt; ++i)
        out.insert(list->elems[i].partition,
                   list->elems[i].offset < 0 ? -1 : list->elems[i].offset);
    rd_kafka_topic_partition_list_destroy(list);
    return out;
}

QMap<int, std::pair<qint64, qint64>> Cluster::watermarks(const QString &topic) {
    const Handle c(client(RD_KAFKA_CONSUMER));
    const QByteArray name = topic.toUtf8();
    QMap<int, std::pair<qint64, qint64>> out;
    const int partitions = int(leaders(topic).size());
    for (int p = 0; p < partitions; ++p) {
        int64_t lo = 0, hi = 0;
        // Just after a broker died its partitions have no leader until the
        // controller elects one: asked again, as a consumer would.
        rd_kafka_resp_err_t err;
        const QDeadlineTimer deadline(60000);
        do
            err = rd_kafka_query_watermark_offsets(c.get(), name.constData(), p, &lo, &hi, 30000);
        while ((err == RD_KAFKA_RESP_ERR_LEADER_NOT_AVAILABLE ||
                err == RD_KAFKA_RESP_ERR_NOT_LEADER_FOR_PARTITION ||
                err == RD_KAFKA_RESP_ERR__TRANSPORT) &&
               !deadline.hasExpired() && (QThread::msleep(200), true));
        check(err, "watermarks");
        out.insert(p, {lo, hi});
    }
    return out;
}

std::vector<int> Cluster::leaders(const QString &topic, const QString &via) const {
    const Handle rk(client(RD_KAFKA_PRODUCER, QString(),
                           via.isEmpty() ? QStringList()
                                         : QStringList{QStringLiteral("bootstrap.servers"), via}));
    const rd_kafka_metadata_t *md = nullptr;
    std::vector<int> out;
    if (rd_kafka_metadata(rk.get(), 1, nullptr, &md, 10000) != RD_KAFKA_RESP_ERR_NO_ERROR)
        return out;
    const QByteArray name = topic.toUtf8();
    for (int t = 0; t < md->topic_cnt; ++t)
        if (name == md->topics[t].topic && md->topics[t].err == RD_KAFKA_RESP_ERR_NO_ERROR) {
            out.assign(std::size_t(md->topics[t].partition_cnt), -1);
            for (int p = 0; p < md->topics[t].partition_cnt; ++p) {
                const int id = md->topics[t].partitions[p].id;
                if (id >= 0 && id < int(out.size()))
                    out[std::size_t(id)] = md->topics[t].partitions[p].leader;
            }
        }
    rd_kafka_metadata_destroy(md);
    return out;
}

int Cluster::leaderOf(const QString &topic, int partition) const {
    const std::vector<int> all = leaders(topic);
    return partition < int(all.size()) ? all[std::size_t(partition)] : -1;
}

int Cluster::brokersUp() const {
    const Handle rk(client(RD_KAFKA_PRODUCER));
    const rd_kafka_metadata_t *md = nullptr;
    if (rd_kafka_metadata(rk.get(), 0, nullptr, &md, 5000) != RD_KAFKA_RESP_ERR_NO_ERROR)
        return 0;
    const int n = md->broker_cnt;
    rd_kafka_metadata_destroy(md);
    return n;
}

bool Cluster::brokerAlive(int id) const {
    QFile file(nodeFile(id, QStringLiteral("pid")));
    if (!file.open(QIODevice::ReadOnly))
        return false;
    return ::kill(pid_t(file.readAll().trimmed().toLongLong()), 0) == 0;
}

void Cluster::killBroker(int id) {
    QFile file(nodeFile(id, QStringLiteral("pid")));
    if (!file.open(QIODevice::ReadOnly))
        qFatal("kafka test cluster: no pid file for broker %d", id);
    const pid_t pid = pid_t(file.readAll().trimmed().toLongLong());
    ::kill(pid, SIGKILL);
    QDeadlineTimer deadline(30000);
    while (::kill(pid, 0) == 0 && !deadline.hasExpired())
        QThread::msleep(50);
}

int Cluster::isrCount(const QString &topic, int partition) const {
    // As Kafka's own tool reads it: librdkafka 2.0.2's metadata from a fresh
    // client was seen to keep a shrunk ISR at 3 for over 90 s.
    const ToolRun run = tool(QStringLiteral("kafka-topics"),
                             {QStringLiteral("--describe"), QStringLiteral("--topic"), topic});
    if (run.exitCode != 0)
        return -1;
    static const QRegularExpression line(
        QStringLiteral("Partition:\\s*(\\d+)\\s.*\\sIsr:\\s*([0-9,]+)"));
    for (auto it = line.globalMatch(run.out); it.hasNext();) {
        const auto m = it.next();
        if (m.captured(1).toInt() == partition)
            return int(m.captured(2).split(u',', Qt::SkipEmptyParts).size());
    }
    return -1;
}

void Cluster::startBrokers(const QList<int> &ids, const QStringList &topics) {
    for (int id : ids)
        if (QProcess::execute(QStringLiteral("/bin/sh"), {nodeFile(id, QStringLiteral("start"))}) !=
            0)
            qFatal("kafka test cluster: broker %d did not start", id);
    const int id = ids.value(0);
    QDeadlineTimer deadline(120000);
    while (!deadline.hasExpired()) {
        bool whole = brokersUp() == 3;
        if (whole) {
            const Handle rk(client(RD_KAFKA_PRODUCER));
            const rd_kafka_metadata_t *md = nullptr;
            whole =
                rd_kafka_metadata(rk.get(), 1, nullptr, &md, 10000) == RD_KAFKA_RESP_ERR_NO_ERROR;
            for (int t = 0; whole && t < md->topic_cnt; ++t) {
                const QString name = QString::fromUtf8(md->topics[t].topic);
                if (!topics.contains(name) && name != QLatin1String("__consumer_offsets") &&
                    name != QLatin1String("__transaction_state"))
                    continue;
                for (int p = 0; whole && p < md->topics[t].partition_cnt; ++p)
                    whole = md->topics[t].partitions[p].isr_cnt == 3 &&
                            md->topics[t].partitions[p].leader > 0;
            }
            if (md)
                rd_kafka_metadata_destroy(md);
        }
        if (whole)
            return;
        QThread::msleep(250);
    }
    qFatal("kafka test cluster: broker %d did not rejoin every ISR within 120 s (its log: %s)", id,
           qPrintable(nodeFile(id, QStringLiteral("server.log"))));
}

ToolRun Cluster::tool(const QString &name, const QStringList &args) const {
    QProcess p;
    p.start(env("REWIND_TEST_KAFKA_BIN") % u'/' % name,
            QStringList{QStringLiteral("--bootstrap-server"), m_bootstrap} + args);
    if (!p.waitForStarted(10000))
        qFatal("kafka test cluster: %s did not start: %s", qPrintable(name),
               qPrintable(p.errorString()));
    if (!p.waitForFinished(180000))
        qFatal("kafka test cluster: %s did not finish within 180 s", qPrintable(name));
    return {p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1,
            QString::fromUtf8(p.readAllStandardOutput()),
            QString::fromUtf8(p.readAllStandardError())};
}

Cluster::Member::Member(const QString &bootstrap, const QString &group, const QString &topic) {
    char err[512];
    rd_kafka_conf_t *conf = rd_kafka_conf_new();
    rd_kafka_conf_set_log_cb(conf, nullptr);
    rd_kafka_conf_set(conf, "bootstrap.servers", bootstrap.toUtf8().constData(), err, sizeof err);
    rd_kafka_conf_set(conf, "group.id", group.toUtf8().constData(), err, sizeof err);
    rd_kafka_conf_set(conf, "enable.auto.commit", "false", err, sizeof err);
    m_rk = rd_kafka_new(RD_KAFKA_CONSUMER, conf, err, sizeof err);
    if (!m_rk)
        qFatal("kafka test cluster: member: %s", err);
    rd_kafka_poll_set_consumer(m_rk);
    rd_kafka_topic_partition_list_t *topics = rd_kafka_topic_partition_list_new(1);
    rd_kafka_topic_partition_list_add(topics, topic.toUtf8().constData(), RD_KAFKA_PARTITION_UA);
    check(rd_kafka_subscribe(m_rk, topics), "subscribe");
    rd_kafka_topic_partition_list_destroy(topics);
    m_thread = std::thread([this] {
        while (!m_stop) {
            if (rd_kafka_message_t *m = rd_kafka_consumer_poll(m_rk, 100))
                rd_kafka_message_destroy(m);
            rd_kafka_topic_partition_list_t *a = nullptr;
            if (rd_kafka_assignment(m_rk, &a) == RD_KAFKA_RESP_ERR_NO_ERROR && a) {
                if (a->cnt > 0)
                    m_assigned = true;
                rd_kafka_topic_partition_list_destroy(a);
            }
        }
        rd_kafka_consumer_close(m_rk);
    });
}

Cluster::Member::~Member() {
    m_stop = true;
    m_thread.join();
    rd_kafka_destroy(m_rk);
}

bool Cluster::Member::waitAssigned(int ms) {
    QDeadlineTimer deadline(ms);
    while (!m_assigned && !deadline.hasExpired())
        QThread::msleep(50);
    return m_assigned;
}

QString sinkCount(const rw::Database &db) {
    auto q =
        db.exec(QStringLiteral("SELECT COUNT(*), COUNT(DISTINCT event_id) FROM payment_events"));
    if (!q || !q->next())
        return QStringLiteral("(no sink)");
    const QString out = q->value(0).toString() % u'/' % q->value(1).toString();
    q->finish();
    return out;
}

QByteArray spec(const QString &bootstrap, const QString &topic, const QString &config,
                const QString &dlqTopic) {
    return QStringLiteral(R"({"streams": {"payments": {
        "kafka": {"bootstrap": "%1", "topic": "%2", "config": %3, "groups": ["loader", "idle"]%4},
        "event_id": "key", "sink": "payment_events",
        "fields": {"payment_id": "$.id", "amount": "$.amount"}, "required": ["payment_id"]}}})")
        .arg(bootstrap, topic, config,
             dlqTopic.isEmpty() ? QString()
                                : QStringLiteral(", \"dlq_topic\": \"") + dlqTopic + u'"')
        .toUtf8();
}

} // namespace kafkatest
