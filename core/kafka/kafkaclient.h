#pragma once

// What the Kafka code of core/streams and core/dlq shares (KafkaLog, the
// dead-letter topics): a client of a stream's cluster made from its spec, bounded waits,
// and errors that name the stream and the cluster, never a config value.

#include "core/sql/sqldialect.h"
#include "core/util/error.h"
#include "core/workspace/spec.h"

#include <QVariant>
#include <functional>
#include <librdkafka/rdkafka.h>
#include <memory>
#include <mutex>
#include <utility>
#include <vector>

namespace rw::kafkaclient {

// REWIND_KAFKA_TIMEOUT_MS (default 10 s): the longest any call waits for the cluster.
int timeoutMs();

struct HandleDeleter {
    void operator()(rd_kafka_t *rk) const {
        rd_kafka_destroy_flags(rk, RD_KAFKA_DESTROY_F_NO_CONSUMER_CLOSE);
    }
};
using Handle = std::unique_ptr<rd_kafka_t, HandleDeleter>;

struct MetadataDeleter {
    void operator()(const rd_kafka_metadata_t *md) const { rd_kafka_metadata_destroy(md); }
};

struct ListDeleter {
    void operator()(rd_kafka_topic_partition_list_t *list) const {
        rd_kafka_topic_partition_list_destroy(list);
    }
};

struct MessageDeleter {
    void operator()(rd_kafka_message_t *m) const { rd_kafka_message_destroy(m); }
};
using Message = std::unique_ptr<rd_kafka_message_t, MessageDeleter>;

struct TopicDeleter {
    void operator()(rd_kafka_topic_t *t) const { rd_kafka_topic_destroy(t); }
};

using Properties = std::vector<std::pair<QString, QString>>;

// "stream \"S\": ", the start of every message.
QString context(const StreamSpec &s);

// A client of the stream's cluster; with `group`, a consumer of that group
// that never joins it (committed offsets are read, records are fetched by
// assignment, commits come from outside the group). `extra`: Rewind's own
// properties for this use. A producer unless `group` or `consumer`.
// `tweak` may set callbacks on the configuration before the client is made.
Result<Handle> connect(const StreamSpec &s, const QString &group = QString(),
                       const Properties &extra = {}, bool consumer = false,
                       const std::function<void(rd_kafka_conf_t *)> &tweak = {});

// The cluster could not be reached within the wait: names the bootstrap
// list and librdkafka's reason.
Error unreachable(const StreamSpec &s, rd_kafka_resp_err_t err);

// The partition ids of `topic` (default: the stream's), from the cluster's
// metadata of every topic (asking for one by name would create it where the
// broker auto-creates). BadInput naming the topics there when it does not exist.
Result<std::vector<qint32>> topicPartitions(rd_kafka_t *rk, const StreamSpec &s,
                                            const QString &topic = QString());

// Errors worth another attempt: the cluster or its coordinator is away for now.
bool transient(rd_kafka_resp_err_t err);

// Bytes as UTF-8 text; a null QString for none.
QVariant text(const void *data, size_t size);
// Bytes as text where they are UTF-8 without NUL (what a TEXT column holds
// on both engines), else a null QString.
QVariant textIfClean(const void *data, size_t size);
// Bytes as a QByteArray (a BLOB or BYTEA bind); a null one for none.
QVariant bytesOrNull(const void *data, size_t size);
// A record's headers as Rewind stores them: a JSON array of
// [name, base64 value or null], in order; "[]" for none. A name that is not
// UTF-8 has its bad bytes replaced (U+FFFD); its value is kept exactly.
QString headersJson(rd_kafka_headers_t *headers);

// A consumed record's parts, as the decoders read them: from a message, or
// made by hand from bytes (headers from rd_kafka_headers_new) by a test.
struct RecordView {
    qint32 partition = 0;
    qint64 offset = 0;
    qint64 timestampMs = -1; // -1: none
    const void *key = nullptr;
    size_t keyLen = 0;
    const void *payload = nullptr;
    size_t len = 0;
    rd_kafka_headers_t *headers = nullptr; // none: null
    static RecordView of(const rd_kafka_message_t *m);
};
// The errors the brokers answered a producer's requests with, including
// those librdkafka retries until a message times out without saying why
// (NOT_ENOUGH_REPLICAS of a partition below min.insync.replicas, say).
// install() in a connect() tweak: it turns on librdkafka's "msg" debug lines
// for that client and keeps the newest broker error one names, by librdkafka's
// own error table (never a local one, such as the purge of a request still in
// flight). Must outlive the client. Thread-safe.
class ProduceErrors {
public:
    void install(rd_kafka_conf_t *conf);
    // "NOT_ENOUGH_REPLICAS (Broker: Not enough in-sync replicas)"; empty for none.
    QString last() const;

private:
    mutable std::mutex m_mutex;
    QString m_last;
};

// The column type for raw bytes: BYTEA on PostgreSQL, BLOB on SQLite.
QString bytesType(const SqlDialect &dialect);

} // namespace rw::kafkaclient

namespace rw {

// `value` with each ${NAME} replaced by the environment's NAME; BadInput
// naming `property` and NAME when one is not set.
Result<QString> expandEnvironment(const QString &property, const QString &value);

} // namespace rw
