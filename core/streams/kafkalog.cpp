#include "core/streams/kafkalog.h"

#include <QRegularExpression>
#include <QStringBuilder>

#include <librdkafka/rdkafka.h>

#include <algorithm>
#include <memory>

namespace rw {

namespace {

int timeoutMs()
{
    bool ok = false;
    const int ms = qEnvironmentVariableIntValue("REWIND_KAFKA_TIMEOUT_MS", &ok);
    return ok && ms > 0 ? ms : 10000;
}

struct HandleDeleter {
    void operator()(rd_kafka_t *rk) const { rd_kafka_destroy_flags(rk, RD_KAFKA_DESTROY_F_NO_CONSUMER_CLOSE); }
};
using Handle = std::unique_ptr<rd_kafka_t, HandleDeleter>;

struct MetadataDeleter {
    void operator()(const rd_kafka_metadata_t *md) const { rd_kafka_metadata_destroy(md); }
};

struct ListDeleter {
    void operator()(rd_kafka_topic_partition_list_t *list) const { rd_kafka_topic_partition_list_destroy(list); }
};

QString context(const StreamSpec &s) { return QStringLiteral("stream \"") % s.name % QStringLiteral("\": "); }

// A client of the stream's cluster; with `group`, a consumer of that group
// that never joins it (committed offsets are read, not consumed).
Result<Handle> connect(const StreamSpec &s, const QString &group = QString())
{
    const KafkaSpec &k = *s.kafka;
    rd_kafka_conf_t *conf = rd_kafka_conf_new();
    char err[512];
    const auto set = [&](const QString &property, const QString &value, bool fromSpec) -> Status {
        const rd_kafka_conf_res_t res = rd_kafka_conf_set(conf, property.toUtf8().constData(), value.toUtf8().constData(), err, sizeof err);
        if (res == RD_KAFKA_CONF_OK)
            return {};
        if (res == RD_KAFKA_CONF_UNKNOWN)
            return badInput(context(s) % QStringLiteral("kafka.config: \"") % property % QStringLiteral("\" is not a librdkafka property"));
        // librdkafka's message quotes the value, which may be a secret.
        return badInput(context(s) % (fromSpec ? QStringLiteral("kafka.config: librdkafka refuses the value of \"") % property % u'"'
                                               : QStringLiteral("librdkafka refuses \"") % property % u'"'));
    };
    const auto fail = [&](const Error &e) -> Result<Handle> {
        rd_kafka_conf_destroy(conf);
        return rw::fail(e);
    };
    if (auto st = set(QStringLiteral("bootstrap.servers"), k.bootstrap, false); !st)
        return fail(st.error());
    for (const auto &[property, raw] : k.config) {
        auto value = expandEnvironment(property, raw);
        if (!value)
            return fail(Error::badInput(context(s) % value.error().message));
        if (auto st = set(property, *value, true); !st)
            return fail(st.error());
    }
    if (!group.isEmpty()) {
        for (const auto &[p, v] : {std::pair{QStringLiteral("group.id"), group}, std::pair{QStringLiteral("enable.auto.commit"), QStringLiteral("false")}})
            if (auto st = set(p, v, false); !st)
                return fail(st.error());
    }
    // Requests without a timeout of their own (a commit) wait no longer than
    // the calls that have one, unless the spec says otherwise.
    const bool ownSocketTimeout = std::any_of(k.config.begin(), k.config.end(), [](const auto &p) { return p.first == QLatin1String("socket.timeout.ms"); });
    if (!ownSocketTimeout)
        if (auto st = set(QStringLiteral("socket.timeout.ms"), QString::number(std::max(timeoutMs(), 10)), false); !st)
            return fail(st.error());
    rd_kafka_conf_set_log_cb(conf, nullptr); // quiet: failures are reported by the calls that meet them
    rd_kafka_t *rk = rd_kafka_new(group.isEmpty() ? RD_KAFKA_PRODUCER : RD_KAFKA_CONSUMER, conf, err, sizeof err);
    if (!rk)
        return fail(Error::internal(context(s) % QStringLiteral("cannot create a Kafka client: ") % QString::fromUtf8(err)));
    return Handle(rk);
}

Error unreachable(const StreamSpec &s, rd_kafka_resp_err_t err)
{
    return Error::internal(context(s) % QStringLiteral("cannot reach the Kafka cluster at ") % s.kafka->bootstrap
                           % QStringLiteral(" within %1 s (REWIND_KAFKA_TIMEOUT_MS): ").arg(double(timeoutMs()) / 1000.0)
                           % QString::fromUtf8(rd_kafka_err2str(err)));
}

// The topic's partition ids, from the cluster's metadata of every topic
// (asking for one by name would create it where the broker auto-creates).
Result<std::vector<qint32>> topicPartitions(rd_kafka_t *rk, const StreamSpec &s)
{
    const rd_kafka_metadata_t *raw = nullptr;
    const rd_kafka_resp_err_t err = rd_kafka_metadata(rk, 1, nullptr, &raw, timeoutMs());
    if (err != RD_KAFKA_RESP_ERR_NO_ERROR)
        return fail(unreachable(s, err));
    const std::unique_ptr<const rd_kafka_metadata_t, MetadataDeleter> md(raw);
    const QByteArray topic = s.kafka->topic.toUtf8();
    QStringList others;
    for (int t = 0; t < md->topic_cnt; ++t) {
        const rd_kafka_metadata_topic_t &mt = md->topics[t];
        if (topic != mt.topic) {
            others << QString::fromUtf8(mt.topic);
            continue;
        }
        if (mt.err != RD_KAFKA_RESP_ERR_NO_ERROR)
            return fail(Error::internal(context(s) % QStringLiteral("topic \"") % s.kafka->topic % QStringLiteral("\": ")
                                        % QString::fromUtf8(rd_kafka_err2str(mt.err))));
        std::vector<qint32> ids;
        for (int p = 0; p < mt.partition_cnt; ++p)
            ids.push_back(mt.partitions[p].id);
        std::sort(ids.begin(), ids.end());
        return ids;
    }
    others.sort();
    return badInput(context(s) % QStringLiteral("topic \"") % s.kafka->topic % QStringLiteral("\" does not exist on ") % s.kafka->bootstrap
                    % QStringLiteral(" (it has: ") % (others.isEmpty() ? QStringLiteral("no topics") : others.join(QStringLiteral(", "))) % u')');
}

} // namespace

Result<QString> expandEnvironment(const QString &property, const QString &value)
{
    static const QRegularExpression name(QStringLiteral(R"(\$\{([A-Za-z_][A-Za-z0-9_]*)\})"));
    QString out;
    qsizetype at = 0;
    for (auto it = name.globalMatch(value); it.hasNext();) {
        const QRegularExpressionMatch m = it.next();
        const QString var = m.captured(1);
        if (!qEnvironmentVariableIsSet(var.toUtf8().constData()))
            return badInput(QStringLiteral("kafka.config: \"") % property % QStringLiteral("\" reads ${") % var
                            % QStringLiteral("}, which is not set in the environment"));
        out += value.mid(at, m.capturedStart() - at) % qEnvironmentVariable(var.toUtf8().constData());
        at = m.capturedEnd();
    }
    return out + value.mid(at);
}

KafkaLog::KafkaLog(Database db, StreamSpec stream) : m_db(std::move(db)), m_stream(std::move(stream)) {}

Result<std::vector<StreamPartitionInfo>> KafkaLog::partitions() const
{
    auto rk = connect(m_stream);
    if (!rk)
        return fail(rk.error());
    auto ids = topicPartitions(rk->get(), m_stream);
    if (!ids)
        return fail(ids.error());
    const QByteArray topic = m_stream.kafka->topic.toUtf8();
    std::vector<StreamPartitionInfo> out;
    for (const qint32 id : *ids) {
        int64_t lo = 0, hi = 0;
        const rd_kafka_resp_err_t err = rd_kafka_query_watermark_offsets(rk->get(), topic.constData(), id, &lo, &hi, timeoutMs());
        if (err != RD_KAFKA_RESP_ERR_NO_ERROR)
            return fail(unreachable(m_stream, err));
        StreamPartitionInfo p;
        p.partition = id;
        p.logStart = lo;
        p.logEnd = hi;
        p.events = hi - lo; // compacted topics may hold fewer
        out.push_back(p);
    }
    return out;
}

Result<std::vector<PartitionOffsets>> KafkaLog::committedOffsets(const QString &group) const
{
    auto parts = partitions();
    if (!parts)
        return fail(parts.error());
    auto rk = connect(m_stream, group);
    if (!rk)
        return fail(rk.error());
    const std::unique_ptr<rd_kafka_topic_partition_list_t, ListDeleter> list(rd_kafka_topic_partition_list_new(int(parts->size())));
    const QByteArray topic = m_stream.kafka->topic.toUtf8();
    for (const StreamPartitionInfo &p : *parts)
        rd_kafka_topic_partition_list_add(list.get(), topic.constData(), qint32(p.partition));
    const rd_kafka_resp_err_t err = rd_kafka_committed(rk->get(), list.get(), timeoutMs());
    if (err != RD_KAFKA_RESP_ERR_NO_ERROR)
        return fail(unreachable(m_stream, err));
    std::vector<PartitionOffsets> out;
    for (int i = 0; i < list->cnt; ++i) {
        const rd_kafka_topic_partition_t &e = list->elems[i];
        if (e.err != RD_KAFKA_RESP_ERR_NO_ERROR)
            return fail(Error::internal(context(m_stream) % QStringLiteral("group \"") % group % QStringLiteral("\", partition %1: ").arg(e.partition)
                                        % QString::fromUtf8(rd_kafka_err2str(e.err))));
        const auto info = std::find_if(parts->begin(), parts->end(), [&](const StreamPartitionInfo &p) { return p.partition == e.partition; });
        PartitionOffsets o;
        o.partition = e.partition;
        o.logStart = info->logStart;
        o.logEnd = info->logEnd;
        o.stored = e.offset >= 0;
        o.committed = o.stored ? e.offset : info->logStart;
        o.lag = std::max<qint64>(0, o.logEnd - std::max(o.committed, o.logStart));
        out.push_back(o);
    }
    return out;
}

Result<std::vector<ConsumerGroupInfo>> KafkaLog::consumerGroups() const
{
    std::vector<ConsumerGroupInfo> out;
    QStringList groups = m_stream.kafka->groups;
    groups.sort();
    for (const QString &group : std::as_const(groups)) {
        auto offsets = committedOffsets(group);
        if (!offsets)
            return fail(offsets.error());
        ConsumerGroupInfo g;
        g.group = group;
        for (const PartitionOffsets &o : *offsets) {
            g.partitions += o.stored ? 1 : 0;
            g.lag += o.lag;
        }
        out.push_back(g);
    }
    return out;
}

Status KafkaLog::notYet(const QString &what) const
{
    return badInput(context(m_stream) % what % QStringLiteral(" on a Kafka topic is not available yet: today Rewind reads a Kafka stream's "
                                                              "partitions, watermarks and committed offsets (streams, offsets, consumer-groups) "
                                                              "and resets a group's offsets, except by time"));
}

Result<QMap<qint64, FirstAtOrAfter>> KafkaLog::firstOffsetsAtOrAfter(qint64) const
{
    return fail(notYet(QStringLiteral("a reset by time")).error());
}

Status KafkaLog::commit(const QString &group, const std::vector<std::pair<qint64, qint64>> &offsets) const
{
    auto rk = connect(m_stream, group);
    if (!rk)
        return fail(rk.error());
    const std::unique_ptr<rd_kafka_topic_partition_list_t, ListDeleter> list(rd_kafka_topic_partition_list_new(int(offsets.size())));
    const QByteArray topic = m_stream.kafka->topic.toUtf8();
    for (const auto &[partition, offset] : offsets)
        rd_kafka_topic_partition_list_add(list.get(), topic.constData(), qint32(partition))->offset = offset;
    // A commit from outside the group (no member, no generation), as
    // kafka-consumer-groups --reset-offsets makes one; the coordinator
    // refuses it while the group has members.
    const rd_kafka_resp_err_t err = rd_kafka_commit(rk->get(), list.get(), 0);
    switch (err) {
    case RD_KAFKA_RESP_ERR_NO_ERROR: return {};
    case RD_KAFKA_RESP_ERR_UNKNOWN_MEMBER_ID:
    case RD_KAFKA_RESP_ERR_ILLEGAL_GENERATION:
    case RD_KAFKA_RESP_ERR_REBALANCE_IN_PROGRESS:
        return badInput(QStringLiteral("refused: consumer group \"%1\" of stream \"%2\" has active members (state: %3; the cluster refused a commit "
                                       "from outside the group); stop its consumers, then reset its offsets. Nothing was changed.")
                            .arg(group, m_stream.name, err == RD_KAFKA_RESP_ERR_REBALANCE_IN_PROGRESS ? QStringLiteral("rebalancing") : QStringLiteral("with members")));
    case RD_KAFKA_RESP_ERR__TIMED_OUT:
    case RD_KAFKA_RESP_ERR__TRANSPORT:
    case RD_KAFKA_RESP_ERR__ALL_BROKERS_DOWN:
        return fail(unreachable(m_stream, err));
    default:
        return internalError(context(m_stream) % QStringLiteral("committing offsets of group \"") % group % QStringLiteral("\": ")
                             % QString::fromUtf8(rd_kafka_err2str(err)));
    }
}

Result<bool> KafkaLog::prepareReads() const { return fail(notYet(QStringLiteral("replay")).error()); }

Status KafkaLog::readRange(const std::vector<OffsetRange> &) const { return notYet(QStringLiteral("replay")); }

Status KafkaLog::followCommitted(const QString &, const std::vector<OffsetRange> &) const { return notYet(QStringLiteral("replay")); }

} // namespace rw
