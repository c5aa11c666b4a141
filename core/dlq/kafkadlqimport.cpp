// Dead-letter topics: import (dlq import). The redrive and the publishing
// of dead letters are in kafkadlqproduce.cpp.
#include "core/dlq/dlqstore.h"
#include "core/dlq/kafkadlq.h"
#include "core/dlq/kafkadlqinternal.h"
#include "core/kafka/kafkaclient.h"
#include "core/util/failpoint.h"
#include "core/util/timeutil.h"
#include "core/workspace/workspace.h"

#include <QDeadlineTimer>
#include <QElapsedTimer>
#include <QMap>
#include <QRegularExpression>
#include <QScopeGuard>
#include <QSet>
#include <QStringBuilder>
#include <QStringDecoder>
#include <QThread>
#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <tuple>

namespace rw {

namespace {

using namespace kafkaclient;
using namespace kafkadlq_detail;

std::optional<QByteArray> lastHeader(rd_kafka_headers_t *headers, const char *name) {
    const void *value = nullptr;
    size_t size = 0;
    if (!headers ||
        rd_kafka_header_get_last(headers, name, &value, &size) != RD_KAFKA_RESP_ERR_NO_ERROR)
        return std::nullopt;
    return value ? QByteArray(static_cast<const char *>(value), qsizetype(size)) : QByteArray();
}

// A JSON path of the spec ($.a.b, $."a b", $.items[0]) into a document: its
// value as text (strings unquoted), none where absent.
std::optional<QString> jsonPathText(const nlohmann::json &doc, const QString &path) {
    static const QRegularExpression step(
        QStringLiteral(R"re(^(?:\.([A-Za-z_][A-Za-z0-9_]*)|\."((?:[^"\\]|\\.)*)"|\[(\d+)\]))re"));
    if (!path.startsWith(u'$'))
        return std::nullopt;
    const nlohmann::json *at = &doc;
    QString rest = path.mid(1);
    while (!rest.isEmpty()) {
        const auto m = step.match(rest);
        if (!m.hasMatch())
            return std::nullopt;
        if (!m.captured(3).isEmpty()) {
            const auto i = size_t(m.captured(3).toULongLong());
            if (!at->is_array() || i >= at->size())
                return std::nullopt;
            at = &(*at)[i];
        } else {
            const std::string key =
                (m.captured(1).isEmpty() ? m.captured(2) : m.captured(1)).toStdString();
            if (!at->is_object() || !at->contains(key))
                return std::nullopt;
            at = &(*at)[key];
        }
        rest = rest.mid(m.capturedLength());
    }
    if (at->is_null())
        return std::nullopt;
    return QString::fromStdString(at->is_string() ? at->get<std::string>() : at->dump());
}

} // namespace

dlqstore::ImportedRecord kafkadlq_detail::importRow(const StreamSpec &stream,
                                                    const kafkaclient::RecordView &record,
                                                    const QString &dlqTopic, bool textPayloads) {
    const kafkaclient::RecordView *m = &record;
    rd_kafka_headers_t *headers = record.headers;
    const auto origin = lastHeader(headers, "__connect.errors.topic");
    const auto header = [&](const char *suffix) {
        return lastHeader(headers, QByteArray(kConnectPrefix + suffix).constData());
    };
    const auto number = [](const std::optional<QByteArray> &v) -> QVariant {
        bool ok = false;
        const qint64 n = v ? v->trimmed().toLongLong(&ok) : 0;
        return ok ? QVariant(n) : nullInt();
    };
    QVariant eventId = nullText();
    const QString &rule = stream.eventId;
    if (rule == QLatin1String("key")) {
        eventId = textIfClean(m->key, m->keyLen);
    } else if (rule.startsWith(QLatin1String("header:"))) {
        if (const auto h = lastHeader(headers, rule.mid(7).toUtf8().constData()))
            eventId = textIfClean(h->constData(), size_t(h->size()));
    } else if (m->payload) {
        const auto doc =
            nlohmann::json::parse(static_cast<const char *>(m->payload),
                                  static_cast<const char *>(m->payload) + m->len, nullptr, false);
        if (!doc.is_discarded())
            if (const auto v = jsonPathText(doc, rule))
                eventId = *v;
    }
    QVariant part, offset, errorClass, error, topic;
    if (origin) {
        topic = textIfClean(origin->constData(), size_t(origin->size()));
        const QVariant p = number(header("partition"));
        part = p.isNull() ? nullText() : QVariant(p.toString());
        offset = number(header("offset"));
        const auto cls = header("exception.class.name");
        errorClass = cls ? QString::fromUtf8(*cls).remove(QChar(0)) : QStringLiteral("unknown");
        const auto msg = header("exception.message");
        // A Connect record may carry no message (an exception without one):
        // the error column says so rather than stay empty.
        error = msg ? QString::fromUtf8(*msg).remove(QChar(0))
                    : QStringLiteral("no __connect.errors.exception.message header");
    } else {
        topic = dlqTopic;
        part = QString::number(m->partition);
        offset = qint64(m->offset);
        errorClass = QStringLiteral("unknown");
        error =
            QStringLiteral("no __connect.errors headers: imported as it was in %1").arg(dlqTopic);
    }
    const QVariant key = textIfClean(m->key, m->keyLen);
    QVariant payload = bytesOrNull(m->payload, m->len);
    QVariant exact = QVariant(QMetaType::fromType<QByteArray>());
    if (textPayloads && m->payload) {
        payload = textIfClean(m->payload, m->len);
        if (payload.isNull())
            exact = bytesOrNull(m->payload, m->len);
    }
    return {stream.name,
            part,
            offset,
            eventId,
            key,
            errorClass,
            error,
            payload,
            topic,
            bytesOrNull(m->key, m->keyLen),
            exact,
            headersJson(headers),
            dlqTopic,
            qint64(m->partition),
            qint64(m->offset)};
}

Result<DlqImportResult> importDlqTopic(const Database &db, const StreamSpec &stream,
                                       const DlqImportOptions &options) {
    if (!stream.kafka)
        return badInput(
            QStringLiteral("stream \"%1\" reads the log table %2, not Kafka: dlq import reads a "
                           "stream's Kafka dead-letter topic (kafka.dlq_topic)")
                .arg(stream.name, stream.log));
    const QString topic = stream.kafka->dlqTopic;
    if (topic.isEmpty())
        return badInput(context(stream) %
                        QStringLiteral("the spec names no kafka.dlq_topic to import from"));
    if (options.batchSize <= 0)
        return badInput(QStringLiteral("--batch-size must be positive"));
    if (options.execute)
        if (auto s = requireDlqImportPrivileges(
                db, QStringLiteral("DLQ import of %1's dead-letter topic").arg(stream.name));
            !s)
            return fail(s.error());
    auto rk = connect(stream, QString(),
                      {{QStringLiteral("enable.partition.eof"), QStringLiteral("true")},
                       {QStringLiteral("auto.offset.reset"), QStringLiteral("error")}},
                      true);
    if (!rk)
        return fail(rk.error());
    auto ids = topicPartitions(rk->get(), stream, topic);
    if (!ids)
        return fail(ids.error());
    const QByteArray topicBytes = topic.toUtf8();

    DlqImportResult result;
    result.stream = stream.name;
    result.topic = topic;
    result.executed = options.execute;
    // Where the last import stopped, per partition.
    QMap<qint64, qint64> next;
    // Only imported records count: one Rewind published there may sit past
    // records of others not imported yet.
    auto done = db.exec(QStringLiteral("SELECT dlq_partition, MAX(dlq_offset) + 1 FROM rewind_dlq "
                                       "WHERE dlq_topic = ? AND dlq_source = 'imported' "
                                       "GROUP BY dlq_partition"),
                        {topic});
    if (!done)
        return fail(done.error());
    while (done->next())
        next.insert(done->value(0).toLongLong(), done->value(1).toLongLong());
    done->finish();
    auto already = db.scalar(
        QStringLiteral(
            "SELECT COUNT(*) FROM rewind_dlq WHERE dlq_topic = ? AND dlq_source = 'imported'"),
        {topic});
    if (!already)
        return fail(already.error());
    result.alreadyImported = already->toLongLong();
    qint64 total = 0;
    for (const qint32 id : *ids) {
        int64_t lo = 0, hi = 0;
        const rd_kafka_resp_err_t err = rd_kafka_query_watermark_offsets(
            rk->get(), topicBytes.constData(), id, &lo, &hi, timeoutMs());
        if (err != RD_KAFKA_RESP_ERR_NO_ERROR)
            return fail(unreachable(stream, err));
        const qint64 from = std::max<qint64>(lo, next.value(id, lo));
        result.partitions.push_back({id, std::min<qint64>(from, hi), hi});
        total += std::max<qint64>(0, hi - from);
    }
    if (!options.execute) {
        result.imported = total;
        return result;
    }

    const std::unique_ptr<rd_kafka_topic_t, TopicDeleter> rkt(
        rd_kafka_topic_new(rk->get(), topicBytes.constData(), nullptr));
    std::vector<qint32> started;
    const auto stopAll = qScopeGuard([&] {
        for (const qint32 id : started)
            rd_kafka_consume_stop(rkt.get(), id);
    });
    for (const DlqImportPartition &p : result.partitions) {
        if (p.from >= p.to)
            continue;
        if (rd_kafka_consume_start(rkt.get(), qint32(p.partition), p.from) == -1)
            return internalError(context(stream) %
                                 QStringLiteral("%1 partition %2: cannot fetch from offset %3: ")
                                     .arg(topic)
                                     .arg(p.partition)
                                     .arg(p.from) %
                                 QString::fromUtf8(rd_kafka_err2str(rd_kafka_last_error())));
        started.push_back(qint32(p.partition));
    }

    std::vector<dlqstore::ImportedRecord> records;
    qint64 read = 0;
    const bool textPayloads = db.dialect().blobType() == QLatin1String("TEXT");
    const auto writeBatch = [&]() -> Status {
        if (records.empty())
            return {};
        qint64 added = 0;
        const Status s = Database::retryTransient(5, [&] {
            return db.writeTransaction([&]() -> Status {
                auto imported = dlqstore::importRecords(
                    db, records, QStringLiteral("imported from %1: ").arg(topic));
                if (!imported)
                    return fail(imported.error());
                added = imported->added;
                const nlohmann::json detail = {{"topic", topic.toStdString()},
                                               {"imported", added},
                                               {"read", qint64(records.size())}};
                return writeAudit(db, QStringLiteral("dlq-import"), QString(), stream.name,
                                  QVariant(), QString::fromStdString(detail.dump()));
            });
        });
        if (!s)
            return s;
        result.imported += added;
        records.clear();
        failpoint("dlq-import-after-commit");
        if (options.progress)
            options.progress({read, total});
        return {};
    };

    rd_kafka_message_t *batch[1024];
    for (const DlqImportPartition &p : result.partitions) {
        const auto id = qint32(p.partition);
        qint64 at = p.from;
        QDeadlineTimer quiet(timeoutMs());
        bool partitionDone = at >= p.to;
        while (!partitionDone) {
            if (options.cancel && options.cancel->load()) {
                result.cancelled = true;
                break;
            }
            const ssize_t n = rd_kafka_consume_batch(rkt.get(), id, 100, batch, std::size(batch));
            if (n < 0)
                return internalError(context(stream) %
                                     QStringLiteral("%1 partition %2: ").arg(topic).arg(id) %
                                     QString::fromUtf8(rd_kafka_err2str(rd_kafka_last_error())));
            if (n == 0 && quiet.hasExpired())
                return internalError(
                    context(stream) %
                    QStringLiteral(
                        "no record of %1 partition %2 from offset %3 arrived from %4 within %5 s "
                        "(REWIND_KAFKA_TIMEOUT_MS); the batches before it are imported")
                        .arg(topic)
                        .arg(id)
                        .arg(at)
                        .arg(stream.kafka->bootstrap)
                        .arg(double(timeoutMs()) / 1000.0));
            Status failed;
            for (ssize_t i = 0; i < n; ++i) {
                const Message m(batch[i]);
                if (partitionDone || !failed)
                    continue; // the rest of this fetch is past the range: destroyed unread
                if (m->err == RD_KAFKA_RESP_ERR__PARTITION_EOF) {
                    if (m->offset >= p.to)
                        partitionDone = true;
                    continue;
                }
                if (m->err) {
                    failed = internalError(context(stream) %
                                           QStringLiteral("%1 partition %2 at offset %3: ")
                                               .arg(topic)
                                               .arg(id)
                                               .arg(at) %
                                           QString::fromUtf8(rd_kafka_message_errstr(m.get())));
                    continue;
                }
                quiet = QDeadlineTimer(timeoutMs());
                if (m->offset >= p.to) {
                    partitionDone = true;
                    continue;
                }
                if (m->offset < at)
                    continue;
                at = m->offset + 1;
                ++read;
                records.push_back(
                    importRow(stream, kafkaclient::RecordView::of(m.get()), topic, textPayloads));
                if (qint64(records.size()) >= options.batchSize)
                    failed = writeBatch();
            }
            if (!failed)
                return fail(failed.error());
            if (at >= p.to)
                partitionDone = true;
        }
        if (result.cancelled)
            break;
    }
    if (auto s = writeBatch(); !s)
        return fail(s.error());
    return result;
}

} // namespace rw
