#include "core/kafka/kafkaclient.h"

#include <QRegularExpression>
#include <QStringBuilder>
#include <QStringDecoder>
#include <QtGlobal>
#include <algorithm>
#include <cstring>
#include <nlohmann/json.hpp>

namespace rw::kafkaclient {

QString context(const StreamSpec &s) {
    return QStringLiteral("stream \"") % s.name % QStringLiteral("\": ");
}

int timeoutMs() {
    bool ok = false;
    const int ms = qEnvironmentVariableIntValue("REWIND_KAFKA_TIMEOUT_MS", &ok);
    return ok && ms > 0 ? ms : 10000;
}

Result<Handle> connect(const StreamSpec &s, const QString &group, const Properties &extra,
                       bool consumer, const std::function<void(rd_kafka_conf_t *)> &tweak) {
    const KafkaSpec &k = *s.kafka;
    rd_kafka_conf_t *conf = rd_kafka_conf_new();
    char err[512];
    const auto set = [&](const QString &property, const QString &value, bool fromSpec) -> Status {
        const rd_kafka_conf_res_t res = rd_kafka_conf_set(
            conf, property.toUtf8().constData(), value.toUtf8().constData(), err, sizeof err);
        if (res == RD_KAFKA_CONF_OK)
            return {};
        if (res == RD_KAFKA_CONF_UNKNOWN)
            return badInput(context(s) % QStringLiteral("kafka.config: \"") % property %
                            QStringLiteral("\" is not a librdkafka property"));
        // librdkafka's message quotes the value, which may be a secret.
        return badInput(context(s) %
                        (fromSpec
                             ? QStringLiteral("kafka.config: librdkafka refuses the value of \"") %
                                   property % u'"'
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
    Properties own = extra;
    if (!group.isEmpty()) {
        own.emplace_back(QStringLiteral("group.id"), group);
        own.emplace_back(QStringLiteral("enable.auto.commit"), QStringLiteral("false"));
    }
    for (const auto &[p, v] : own)
        if (auto st = set(p, v, false); !st)
            return fail(st.error());
    // Requests without a timeout of their own (a commit) wait no longer than
    // the calls that have one, unless the spec says otherwise.
    const bool ownSocketTimeout = std::any_of(k.config.begin(), k.config.end(), [](const auto &p) {
        return p.first == QLatin1String("socket.timeout.ms");
    });
    if (!ownSocketTimeout)
        if (auto st = set(QStringLiteral("socket.timeout.ms"),
                          QString::number(std::max(timeoutMs(), 10)), false);
            !st)
            return fail(st.error());
    rd_kafka_conf_set_log_cb(conf,
                             nullptr); // quiet: failures are reported by the calls that meet them
    if (tweak)
        tweak(conf);
    rd_kafka_t *rk =
        rd_kafka_new(group.isEmpty() && !consumer ? RD_KAFKA_PRODUCER : RD_KAFKA_CONSUMER, conf,
                     err, sizeof err);
    if (!rk)
        return fail(Error::internal(context(s) % QStringLiteral("cannot create a Kafka client: ") %
                                    QString::fromUtf8(err)));
    return Handle(rk);
}

Error unreachable(const StreamSpec &s, rd_kafka_resp_err_t err) {
    return Error::internal(context(s) % QStringLiteral("cannot reach the Kafka cluster at ") %
                           s.kafka->bootstrap %
                           QStringLiteral(" within %1 s (REWIND_KAFKA_TIMEOUT_MS): ")
                               .arg(double(timeoutMs()) / 1000.0) %
                           QString::fromUtf8(rd_kafka_err2str(err)));
}

Result<std::vector<qint32>> topicPartitions(rd_kafka_t *rk, const StreamSpec &s,
                                            const QString &name) {
    const QString topicName = name.isEmpty() ? s.kafka->topic : name;
    const rd_kafka_metadata_t *raw = nullptr;
    const rd_kafka_resp_err_t err = rd_kafka_metadata(rk, 1, nullptr, &raw, timeoutMs());
    if (err != RD_KAFKA_RESP_ERR_NO_ERROR)
        return fail(unreachable(s, err));
    const std::unique_ptr<const rd_kafka_metadata_t, MetadataDeleter> md(raw);
    const QByteArray topic = topicName.toUtf8();
    QStringList others;
    for (int t = 0; t < md->topic_cnt; ++t) {
        const rd_kafka_metadata_topic_t &mt = md->topics[t];
        if (topic != mt.topic) {
            others << QString::fromUtf8(mt.topic);
            continue;
        }
        if (mt.err != RD_KAFKA_RESP_ERR_NO_ERROR)
            return fail(Error::internal(context(s) % QStringLiteral("topic \"") % topicName %
                                        QStringLiteral("\": ") %
                                        QString::fromUtf8(rd_kafka_err2str(mt.err))));
        std::vector<qint32> ids;
        for (int p = 0; p < mt.partition_cnt; ++p)
            ids.push_back(mt.partitions[p].id);
        std::sort(ids.begin(), ids.end());
        return ids;
    }
    others.sort();
    return badInput(
        context(s) % QStringLiteral("topic \"") % topicName %
        QStringLiteral("\" does not exist on ") % s.kafka->bootstrap %
        QStringLiteral(" (it has: ") %
        (others.isEmpty() ? QStringLiteral("no topics") : others.join(QStringLiteral(", "))) %
        u')');
}

bool transient(rd_kafka_resp_err_t err) {
    switch (err) {
    case RD_KAFKA_RESP_ERR__TIMED_OUT:
    case RD_KAFKA_RESP_ERR__TRANSPORT:
    case RD_KAFKA_RESP_ERR__ALL_BROKERS_DOWN:
    case RD_KAFKA_RESP_ERR__WAIT_COORD:
    case RD_KAFKA_RESP_ERR_COORDINATOR_NOT_AVAILABLE:
    case RD_KAFKA_RESP_ERR_NOT_COORDINATOR:
    case RD_KAFKA_RESP_ERR_COORDINATOR_LOAD_IN_PROGRESS:
    case RD_KAFKA_RESP_ERR_REQUEST_TIMED_OUT:
    case RD_KAFKA_RESP_ERR_NETWORK_EXCEPTION:
        return true;
    default:
        return false;
    }
}

QVariant text(const void *data, size_t size) {
    if (!data)
        return QVariant(QMetaType::fromType<QString>());
    return QString::fromUtf8(static_cast<const char *>(data), qsizetype(size));
}

QVariant textIfClean(const void *data, size_t size) {
    if (!data)
        return QVariant(QMetaType::fromType<QString>());
    const QByteArrayView bytes(static_cast<const char *>(data), qsizetype(size));
    QStringDecoder utf8(QStringDecoder::Utf8, QStringDecoder::Flag::Stateless);
    const QString text = utf8(bytes);
    if (utf8.hasError() || bytes.contains('\0'))
        return QVariant(QMetaType::fromType<QString>());
    return text;
}

QVariant bytesOrNull(const void *data, size_t size) {
    return data ? QVariant(QByteArray(static_cast<const char *>(data), qsizetype(size)))
                : QVariant(QMetaType::fromType<QByteArray>());
}

QString headersJson(rd_kafka_headers_t *headers) {
    nlohmann::json out = nlohmann::json::array();
    const char *name = nullptr;
    const void *value = nullptr;
    size_t size = 0;
    for (size_t i = 0; headers && rd_kafka_header_get_all(headers, i, &name, &value, &size) ==
                                      RD_KAFKA_RESP_ERR_NO_ERROR;
         ++i)
        out.push_back({name, value ? nlohmann::json(QByteArray(static_cast<const char *>(value),
                                                               qsizetype(size))
                                                        .toBase64()
                                                        .toStdString())
                                   : nlohmann::json()});
    return QString::fromStdString(
        out.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
}

RecordView RecordView::of(const rd_kafka_message_t *m) {
    RecordView r;
    r.partition = m->partition;
    r.offset = m->offset;
    rd_kafka_timestamp_type_t type;
    r.timestampMs = rd_kafka_message_timestamp(m, &type);
    r.key = m->key;
    r.keyLen = m->key_len;
    r.payload = m->payload;
    r.len = m->len;
    rd_kafka_headers_t *headers = nullptr;
    if (rd_kafka_message_headers(m, &headers) == RD_KAFKA_RESP_ERR_NO_ERROR)
        r.headers = headers;
    return r;
}

QString bytesType(const SqlDialect &dialect) {
    return dialect.name() == QLatin1String("postgresql") ? QStringLiteral("BYTEA")
                                                         : QStringLiteral("BLOB");
}

void ProduceErrors::install(rd_kafka_conf_t *conf) {
    char err[256];
    // "msg" debug lines carry each message set's error, retried or not.
    rd_kafka_conf_set(conf, "debug", "msg", err, sizeof err);
    rd_kafka_conf_set_opaque(conf, this);
    rd_kafka_conf_set_log_cb(conf, [](const rd_kafka_t *rk, int, const char *, const char *line) {
        auto *self = static_cast<ProduceErrors *>(rd_kafka_opaque(rk));
        static const char marker[] = "encountered error: ";
        const char *at = line ? std::strstr(line, marker) : nullptr;
        if (!self || !at)
            return;
        const QByteArray rest(at + sizeof marker - 1);
        const QByteArray description = rest.left(rest.indexOf(" (actions"));
        // The broker's error by librdkafka's own name for it.
        const struct rd_kafka_err_desc *descs = nullptr;
        size_t count = 0;
        rd_kafka_get_err_descs(&descs, &count);
        // Only the broker's: a local one (named with a leading '_', as the
        // purge of what is still in flight when Rewind stops waiting) is
        // not an answer, and must not hide the broker's last refusal.
        for (size_t i = 0; i < count; ++i)
            if (descs[i].desc && descs[i].name && descs[i].name[0] != '_' &&
                description == descs[i].desc) {
                const std::lock_guard lock(self->m_mutex);
                self->m_last = QString::fromUtf8(descs[i].name) % QStringLiteral(" (") %
                               QString::fromUtf8(description) % u')';
                return;
            }
    });
}

QString ProduceErrors::last() const {
    const std::lock_guard lock(m_mutex);
    return m_last;
}

} // namespace rw::kafkaclient

namespace rw {

Result<QString> expandEnvironment(const QString &property, const QString &value) {
    static const QRegularExpression name(QStringLiteral(R"(\$\{([A-Za-z_][A-Za-z0-9_]*)\})"));
    QString out;
    qsizetype at = 0;
    for (auto it = name.globalMatch(value); it.hasNext();) {
        const QRegularExpressionMatch m = it.next();
        const QString var = m.captured(1);
        if (!qEnvironmentVariableIsSet(var.toUtf8().constData()))
            return badInput(QStringLiteral("kafka.config: \"") % property %
                            QStringLiteral("\" reads ${") % var %
                            QStringLiteral("}, which is not set in the environment"));
        out +=
            value.mid(at, m.capturedStart() - at) % qEnvironmentVariable(var.toUtf8().constData());
        at = m.capturedEnd();
    }
    return out + value.mid(at);
}

} // namespace rw
