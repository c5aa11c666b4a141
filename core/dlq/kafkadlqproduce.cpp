// Dead-letter topics: DLQ records produced to Kafka (dlq replay --to-topic)
// and a Kafka replay's dead letters published to the dlq_topic.
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
#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <tuple>

namespace rw {

namespace {

using namespace kafkaclient;
using namespace kafkadlq_detail;

// A delivery report, kept by the record's place in its batch.
struct Delivery {
    bool done = false;
    rd_kafka_resp_err_t err = RD_KAFKA_RESP_ERR_NO_ERROR;
    qint64 partition = -1;
    qint64 offset = -1;
};

void onDelivery(rd_kafka_t *, const rd_kafka_message_t *m, void *) {
    auto *d = static_cast<Delivery *>(m->_private);
    if (!d)
        return;
    d->done = true;
    d->err = m->err;
    d->partition = m->partition;
    d->offset = m->offset;
}

// After a flush that timed out: what is still queued or in flight is
// purged, and the purge's delivery reports are served now, while the
// records they point to still exist. False when anything had to be purged.
bool isPurged(rd_kafka_resp_err_t err) {
    return err == RD_KAFKA_RESP_ERR__PURGE_QUEUE || err == RD_KAFKA_RESP_ERR__PURGE_INFLIGHT;
}

bool settleDeliveries(rd_kafka_t *rk) {
    if (rd_kafka_outq_len(rk) == 0)
        return true;
    rd_kafka_purge(rk, RD_KAFKA_PURGE_F_QUEUE | RD_KAFKA_PURGE_F_INFLIGHT);
    rd_kafka_flush(rk, 1000); // serves the purged messages' reports
    return false;
}

// A selected record's source, and where its records go.
struct Route {
    const StreamSpec *stream = nullptr;
    std::unique_ptr<ProduceErrors> errors = std::make_unique<ProduceErrors>(); // outlives producer
    Handle producer;
};

const QString kProduced = QStringLiteral("rewind_dlq_produced");

// A record's stored headers (headersJson) as librdkafka headers to produce,
// in order, without Connect's __connect.errors.* (its error context, which
// stays in the DLQ), then rewind.dlq.id.
rd_kafka_headers_t *outgoingHeaders(const QString &stored, qint64 dlqId) {
    rd_kafka_headers_t *headers = rd_kafka_headers_new(16);
    const auto parsed = nlohmann::json::parse(stored.toStdString(), nullptr, false);
    if (parsed.is_array())
        for (const auto &h : parsed) {
            if (!h.is_array() || h.size() != 2 || !h[0].is_string())
                continue;
            const std::string name = h[0].get<std::string>();
            if (QByteArray::fromStdString(name).startsWith(kConnectPrefix))
                continue;
            const QByteArray value =
                h[1].is_string()
                    ? QByteArray::fromBase64(QByteArray::fromStdString(h[1].get<std::string>()))
                    : QByteArray();
            rd_kafka_header_add(headers, name.data(), ssize_t(name.size()),
                                h[1].is_string() ? value.constData() : nullptr, value.size());
        }
    const QByteArray id = QByteArray::number(dlqId);
    rd_kafka_header_add(headers, kDlqIdHeader, -1, id.constData(), id.size());
    return headers;
}

} // namespace

Result<DlqProduceResult> produceDlq(const Database &db, const Spec &spec,
                                    const DlqSelection &selection,
                                    const DlqProduceOptions &options) {
    if (options.batchSize <= 0)
        return badInput(QStringLiteral("--batch-size must be positive"));
    if (options.maxPerSecond && !(*options.maxPerSecond > 0))
        return badInput(QStringLiteral("--max-per-second must be positive"));
    if (auto s = dlqinternal::requireIds(db, selection.ids); !s)
        return fail(s.error());
    if (options.execute) // before a record reaches the cluster
        if (auto s = requireDlqWritePrivileges(db, QStringLiteral("DLQ redrive")); !s)
            return fail(s.error());
    if (auto s = dlqinternal::ensureFunctions(db); !s)
        return fail(s.error());
    QVariantList binds;
    auto pred = dlqinternal::selectionPredicate(db.dialect(), selection, binds);
    if (!pred)
        return fail(pred.error());
    const bool defaultStatuses = selection.ids.isEmpty() && selection.statuses.isEmpty();
    const QString selected =
        *pred % (defaultStatuses ? QStringLiteral(" AND d.status IN ('new', 'fixed')") : QString());
    const QString producible =
        selected % QStringLiteral(" AND d.status IN ('new', 'fixed', 'failed')");

    DlqProduceResult result;
    result.executed = options.execute;
    auto counts = db.exec(QStringLiteral("SELECT COUNT(*), COALESCE(SUM(CASE WHEN d.status IN "
                                         "('new', 'fixed', 'failed') THEN 1 ELSE 0 END), 0) "
                                         "FROM rewind_dlq AS d WHERE ") %
                              selected,
                          binds);
    if (!counts)
        return fail(counts.error());
    qint64 toProduce = 0;
    if (counts->next()) {
        result.selected = counts->value(0).toLongLong();
        toProduce = counts->value(1).toLongLong();
        result.skipped = result.selected - toProduce;
    }
    counts->finish();

    // Which cluster and topic each source's records go to, checked before
    // anything is produced.
    std::map<QString, Route> routes; // by stream name
    QMap<QString, qint64> byTopic;
    auto sources = db.exec(
        QStringLiteral("SELECT d.source_kind, d.source_name, d.kafka_topic, COUNT(*) FROM "
                       "rewind_dlq AS d WHERE ") %
            producible % QStringLiteral(" GROUP BY d.source_kind, d.source_name, d.kafka_topic"),
        binds);
    if (!sources)
        return fail(sources.error());
    struct Source {
        QString kind, name, topic;
        qint64 count;
    };
    std::vector<Source> list;
    while (sources->next())
        list.push_back({sources->value(0).toString(), sources->value(1).toString(),
                        sources->value(2).toString(), sources->value(3).toLongLong()});
    sources->finish();
    for (const Source &src : list) {
        const StreamSpec *stream =
            src.kind == QLatin1String("stream") ? spec.stream(src.name) : nullptr;
        if (!stream || !stream->kafka)
            return badInput(
                QStringLiteral(
                    "%1 selected record(s) come from %2:%3, which is not a Kafka stream of the "
                    "spec: there is no cluster to "
                    "produce them to; nothing produced (narrow the selection, e.g. --source)")
                    .arg(src.count)
                    .arg(src.kind, src.name));
        const QString target = !options.topic.isEmpty() ? options.topic
                               : !src.topic.isEmpty()   ? src.topic
                                                        : stream->kafka->topic;
        byTopic[stream->name % u'\x1f' % target] += src.count;
        routes[stream->name].stream = stream;
    }
    for (const auto &[name, route] : routes)
        result.streams << name;
    for (auto &[name, route] : routes) {
        ProduceErrors *errors = route.errors.get();
        auto rk = connect(*route.stream, QString(),
                          {{QStringLiteral("enable.idempotence"), QStringLiteral("true")},
                           {QStringLiteral("linger.ms"), QStringLiteral("5")}},
                          false, [errors](rd_kafka_conf_t *conf) {
                              rd_kafka_conf_set_dr_msg_cb(conf, onDelivery);
                              errors->install(conf);
                          });
        if (!rk)
            return fail(rk.error());
        route.producer = std::move(*rk);
        // Every target topic must exist: never auto-created.
        for (auto it = byTopic.cbegin(); it != byTopic.cend(); ++it)
            if (it.key().section(u'\x1f', 0, 0) == name)
                if (auto p = topicPartitions(route.producer.get(), *route.stream,
                                             it.key().section(u'\x1f', 1));
                    !p)
                    return fail(Error{p.error().code,
                                      p.error().message % QStringLiteral("; nothing produced")});
    }
    for (auto it = byTopic.cbegin(); it != byTopic.cend(); ++it) {
        const QString topic = it.key().section(u'\x1f', 1);
        auto found = std::find_if(result.byTopic.begin(), result.byTopic.end(),
                                  [&](const auto &e) { return e.first == topic; });
        if (found == result.byTopic.end())
            result.byTopic.emplace_back(topic, it.value());
        else
            found->second += it.value();
    }
    if (!options.execute) {
        result.produced = toProduce;
        return result;
    }

    if (auto r = db.exec(db.dialect().dropTempTable(kProduced)); !r)
        return fail(r.error());
    const QString big = db.dialect().bigintType();
    if (auto r = db.exec(
            QStringLiteral("CREATE TEMP TABLE ") % kProduced % QStringLiteral(" (dlq_id ") % big %
            QStringLiteral(" PRIMARY KEY, from_status TEXT, topic TEXT, partition_id ") % big %
            QStringLiteral(", log_offset ") % big % QStringLiteral(", error TEXT)"));
        !r)
        return fail(r.error());
    const auto dropWork =
        qScopeGuard([&] { (void)db.exec(db.dialect().dropTempTable(kProduced)); });

    QElapsedTimer clock;
    clock.start();
    const auto cancelled = [&] { return options.cancel && options.cancel->load(); };
    qint64 lastId = 0, done = 0;
    qint64 batchSize = options.batchSize;
    if (options.maxPerSecond)
        batchSize = std::min<qint64>(batchSize, std::max<qint64>(1, qint64(*options.maxPerSecond)));
    while (done < toProduce) {
        if (cancelled())
            break;
        if (options.maxPerSecond) {
            const double due =
                double(done + std::min(batchSize, toProduce - done)) / *options.maxPerSecond;
            timeutil::waitUntil(clock, due, cancelled);
            if (cancelled())
                break;
        }
        QVariantList pageBinds = binds;
        pageBinds << lastId;
        // The value: the payload, unless it is untouched and kafka_value
        // holds the value's bytes exactly (the payload's text could not).
        auto page = db.exec(
            QStringLiteral("SELECT d.dlq_id, d.source_name, d.kafka_topic, d.kafka_key, "
                           "d.kafka_headers, d.payload, d.record_key, d.status, "
                           "d.kafka_value, CASE WHEN d.kafka_value IS NOT NULL AND (d.payload IS "
                           "NULL OR d.payload = d.original_payload) THEN 1 ELSE 0 END "
                           "FROM rewind_dlq AS d WHERE ") %
                producible %
                QStringLiteral(" AND d.dlq_id > ? ORDER BY d.dlq_id LIMIT %1").arg(batchSize),
            pageBinds);
        if (!page)
            return fail(page.error());
        struct Out {
            qint64 id = 0;
            QString topic;
            QString fromStatus;
            rd_kafka_t *producer = nullptr;
            std::optional<QByteArray> key;
            QString headersJson;
            std::optional<QByteArray> payload;
            Delivery delivery;
        };
        std::vector<Out> outs;
        outs.reserve(size_t(batchSize));
        while (page->next()) {
            const Route &route = routes.at(page->value(1).toString());
            Out o;
            o.id = page->value(0).toLongLong();
            o.topic = !options.topic.isEmpty()   ? options.topic
                      : !page->value(2).isNull() ? page->value(2).toString()
                                                 : route.stream->kafka->topic;
            o.fromStatus = page->value(7).toString();
            o.producer = route.producer.get();
            // The key as it was in Kafka; for a record Rewind's own replay
            // dead-lettered, its event_id where that is the key.
            if (!page->value(3).isNull())
                o.key = page->value(3).toByteArray();
            else if (route.stream->eventId == QLatin1String("key") && !page->value(6).isNull())
                o.key = page->value(6).toString().toUtf8();
            o.headersJson = page->value(4).toString();
            if (page->value(9).toInt() == 1)
                o.payload = page->value(8).toByteArray();
            else if (!page->value(5).isNull())
                o.payload = page->value(5).toByteArray();
            outs.push_back(std::move(o));
        }
        page->finish();
        if (outs.empty())
            break;
        // Produce the batch, then wait for every acknowledgement.
        std::set<rd_kafka_t *> used;
        for (Out &o : outs) {
            used.insert(o.producer);
            rd_kafka_headers_t *headers = outgoingHeaders(o.headersJson, o.id);
            const QByteArray topic = o.topic.toUtf8();
            void *value = o.payload ? const_cast<char *>(o.payload->constData())
                                    : nullptr; // null: a tombstone
            const size_t valueSize = o.payload ? size_t(o.payload->size()) : 0;
            const void *key = o.key ? o.key->constData() : nullptr;
            const size_t keySize = o.key ? size_t(o.key->size()) : 0;
            const rd_kafka_resp_err_t err = rd_kafka_producev(
                o.producer, RD_KAFKA_V_TOPIC(topic.constData()), RD_KAFKA_V_VALUE(value, valueSize),
                RD_KAFKA_V_KEY(key, keySize), RD_KAFKA_V_HEADERS(headers),
                RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_COPY), RD_KAFKA_V_OPAQUE(&o.delivery),
                RD_KAFKA_V_END);
            if (err != RD_KAFKA_RESP_ERR_NO_ERROR) {
                rd_kafka_headers_destroy(headers); // not taken over on failure
                o.delivery.done = true;
                o.delivery.err = err;
            }
        }
        for (rd_kafka_t *rk : used)
            rd_kafka_flush(rk, timeoutMs());
        for (rd_kafka_t *rk :
             used) // before `outs` is read: the unacknowledged purged, their reports served
            settleDeliveries(rk);
        qint64 acked = 0, refused = 0, unknown = 0;
        QVariantList rowsBinds;
        for (Out &o : outs) {
            if (!o.delivery.done ||
                isPurged(o.delivery.err)) { // on the broker or not: left as it was
                ++unknown;
                continue;
            }
            const bool ok = o.delivery.err == RD_KAFKA_RESP_ERR_NO_ERROR;
            (ok ? acked : refused) += 1;
            rowsBinds << o.id << o.fromStatus << o.topic
                      << (ok ? QVariant(o.delivery.partition) : nullInt())
                      << (ok ? QVariant(o.delivery.offset) : nullInt())
                      << (ok ? nullText()
                             : QVariant(QString::fromUtf8(rd_kafka_err2str(o.delivery.err))));
            if (result.records.size() < 1000)
                result.records.push_back(
                    {o.id, o.topic, ok ? o.delivery.partition : -1, ok ? o.delivery.offset : -1,
                     ok ? QString() : QString::fromUtf8(rd_kafka_err2str(o.delivery.err))});
        }
        failpoint("dlq-produce-after-ack"); // the batch is on the broker, not yet marked
        const Status s = Database::retryTransient(5, [&] {
            return db.writeTransaction([&]() -> Status {
                if (auto r = db.exec(QStringLiteral("DELETE FROM ") % kProduced); !r)
                    return fail(r.error());
                if (auto r =
                        db.execRows(QStringLiteral("INSERT INTO ") % kProduced %
                                        QStringLiteral(" (dlq_id, from_status, topic, "
                                                       "partition_id, log_offset, error) VALUES "),
                                    QStringLiteral("(?, ?, ?, ?, ?, ?)"), 6, rowsBinds);
                    !r)
                    return r;
                if (auto r = dlqstore::settleRedrive(db, kProduced); !r)
                    return r;
                const nlohmann::json detail = {{"produced", acked},
                                               {"failed", refused},
                                               {"topic", options.topic.toStdString()}};
                return writeAudit(db, QStringLiteral("dlq-redrive"), QString(), QString(),
                                  QVariant(), QString::fromStdString(detail.dump()));
            });
        });
        if (!s)
            return fail(s.error());
        result.produced += acked;
        result.failed += refused;
        ++result.batches;
        done += qint64(outs.size());
        lastId = outs.back().id;
        if (unknown > 0) {
            // What the brokers answered meanwhile, where one refused the batch.
            QStringList answered;
            for (const auto &[name, route] : routes)
                if (const QString e = route.errors->last(); !e.isEmpty())
                    answered << e;
            return internalError(
                QStringLiteral(
                    "%1 record(s) of the batch after DLQ id %2 were not acknowledged by the "
                    "cluster within %3 s "
                    "(REWIND_KAFKA_TIMEOUT_MS)%5: they stay as they were and the next redrive "
                    "produces them again "
                    "(consumers can drop a repeat by its rewind.dlq.id header); %4 produced before")
                    .arg(unknown)
                    .arg(outs.front().id - 1)
                    .arg(double(timeoutMs()) / 1000.0)
                    .arg(result.produced)
                    .arg(answered.isEmpty() ? QString()
                                            : QStringLiteral("; the broker answered ") %
                                                  answered.join(QStringLiteral(", "))));
        }
        if (options.progress)
            options.progress({result.batches, result.selected, result.produced, result.failed});
    }
    result.cancelled = cancelled() && done < toProduce;
    return result;
}

Status checkDeadLetterTopic(const StreamSpec &stream) {
    if (!stream.kafka || stream.kafka->dlqTopic.isEmpty())
        return badInput(QStringLiteral("--dlq-to-topic: stream \"%1\" names no kafka.dlq_topic to "
                                       "produce its dead letters to")
                            .arg(stream.name));
    auto rk = connect(stream);
    if (!rk)
        return fail(rk.error());
    if (auto p = topicPartitions(rk->get(), stream, stream.kafka->dlqTopic); !p)
        return fail(p.error());
    return {};
}

Result<qint64> publishDeadLetters(const Database &db, const StreamSpec &stream, int pageSize) {
    if (!stream.kafka || stream.kafka->dlqTopic.isEmpty())
        return badInput(QStringLiteral("stream \"%1\" names no kafka.dlq_topic").arg(stream.name));
    const QString topic = stream.kafka->dlqTopic;
    const QByteArray topicBytes = topic.toUtf8();
    auto rk = connect(stream, QString(),
                      {{QStringLiteral("enable.idempotence"), QStringLiteral("true")},
                       {QStringLiteral("linger.ms"), QStringLiteral("5")}},
                      false,
                      [](rd_kafka_conf_t *conf) { rd_kafka_conf_set_dr_msg_cb(conf, onDelivery); });
    if (!rk)
        return fail(rk.error());
    struct Out {
        qint64 id = 0;
        Delivery delivery;
    };
    // Page by page (by DLQ id): produced, acknowledged, then marked with
    // their place on the topic in one transaction.
    const int pageRows = std::max(1, pageSize);
    qint64 published = 0, notPublished = 0, lastId = 0, stoppedAt = 0;
    QString firstError;
    for (;;) {
        auto rows =
            db.exec(QStringLiteral("SELECT dlq_id, kafka_topic, part, log_offset, error_class, "
                                   "error, kafka_key, kafka_value, original_payload, "
                                   "kafka_headers FROM rewind_dlq WHERE source_kind = 'stream' AND "
                                   "source_name = ? AND kafka_topic IS NOT NULL "
                                   "AND dlq_topic IS NULL AND status IN ('new', 'fixed', 'failed') "
                                   "AND dlq_id > ? ORDER BY dlq_id LIMIT %1")
                        .arg(pageRows),
                    {stream.name, lastId});
        if (!rows)
            return fail(rows.error());
        std::vector<QVariantList> pending;
        while (rows->next())
            pending.push_back({rows->value(0), rows->value(1), rows->value(2), rows->value(3),
                               rows->value(4), rows->value(5), rows->value(6), rows->value(7),
                               rows->value(8), rows->value(9)});
        rows->finish();
        if (pending.empty())
            break;
        std::vector<Out> outs(pending.size()); // never resized: the delivery reports point into it
        for (size_t i = 0; i < pending.size(); ++i) {
            const QVariantList &r = pending[i];
            Out &o = outs[i];
            o.id = r[0].toLongLong();
            rd_kafka_headers_t *headers = outgoingHeaders(r[9].toString(), o.id);
            const auto add = [&](const char *suffix, const QString &value) {
                const QByteArray name = kConnectPrefix + suffix, v = value.toUtf8();
                rd_kafka_header_add(headers, name.constData(), name.size(), v.constData(),
                                    v.size());
            };
            add("topic", r[1].toString());
            add("partition", r[2].toString());
            add("offset", r[3].toString());
            add("exception.class.name", r[4].toString());
            add("exception.message", r[5].toString());
            const std::optional<QByteArray> key =
                r[6].isNull() ? std::nullopt : std::optional<QByteArray>(r[6].toByteArray());
            const std::optional<QByteArray> value =
                !r[7].isNull()  ? std::optional<QByteArray>(r[7].toByteArray())
                : r[8].isNull() ? std::nullopt
                                : std::optional<QByteArray>(r[8].toByteArray());
            void *valuePtr = value ? const_cast<char *>(value->constData()) : nullptr;
            const size_t valueSize = value ? size_t(value->size()) : 0;
            const void *keyPtr = key ? key->constData() : nullptr;
            const size_t keySize = key ? size_t(key->size()) : 0;
            const rd_kafka_resp_err_t err = rd_kafka_producev(
                rk->get(), RD_KAFKA_V_TOPIC(topicBytes.constData()),
                RD_KAFKA_V_VALUE(valuePtr, valueSize), RD_KAFKA_V_KEY(keyPtr, keySize),
                RD_KAFKA_V_HEADERS(headers), RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_COPY),
                RD_KAFKA_V_OPAQUE(&o.delivery), RD_KAFKA_V_END);
            if (err != RD_KAFKA_RESP_ERR_NO_ERROR) {
                rd_kafka_headers_destroy(headers);
                o.delivery.done = true;
                o.delivery.err = err;
            }
        }
        pending.clear();
        rd_kafka_flush(rk->get(), timeoutMs());
        // Before `outs` is read (and before it goes): what the flush did not
        // see acknowledged is purged, its reports served now.
        const bool settled = settleDeliveries(rk->get());
        QVariantList binds;
        qint64 pagePublished = 0;
        for (const Out &o : outs) {
            if (!o.delivery.done || o.delivery.err != RD_KAFKA_RESP_ERR_NO_ERROR) {
                ++notPublished;
                if (firstError.isEmpty())
                    firstError = !o.delivery.done || isPurged(o.delivery.err)
                                     ? QStringLiteral("not acknowledged in time")
                                     : QString::fromUtf8(rd_kafka_err2str(o.delivery.err));
                continue;
            }
            binds << o.id << QVariant() << topic << o.delivery.partition << o.delivery.offset
                  << QVariant();
            ++pagePublished;
        }
        failpoint("dlq-publish-after-ack");
        if (pagePublished > 0) {
            const Status s = Database::retryTransient(5, [&] {
                return db.writeTransaction([&]() -> Status {
                    if (auto r = db.exec(db.dialect().dropTempTable(kProduced)); !r)
                        return fail(r.error());
                    const QString big = db.dialect().bigintType();
                    if (auto r = db.exec(
                            QStringLiteral("CREATE TEMP TABLE ") % kProduced %
                            QStringLiteral(" (dlq_id ") % big %
                            QStringLiteral(
                                " PRIMARY KEY, from_status TEXT, topic TEXT, partition_id ") %
                            big % QStringLiteral(", log_offset ") % big %
                            QStringLiteral(", error TEXT)"));
                        !r)
                        return fail(r.error());
                    if (auto r = db.execRows(
                            QStringLiteral("INSERT INTO ") % kProduced %
                                QStringLiteral(" (dlq_id, from_status, topic, partition_id, "
                                               "log_offset, error) VALUES "),
                            QStringLiteral("(?, ?, ?, ?, ?, ?)"), 6, binds);
                        !r)
                        return r;
                    if (auto r = dlqstore::settlePublished(db, kProduced); !r)
                        return r;
                    const nlohmann::json detail = {{"topic", topic.toStdString()},
                                                   {"published", pagePublished}};
                    if (auto a =
                            writeAudit(db, QStringLiteral("dlq-publish"), QString(), stream.name,
                                       QVariant(), QString::fromStdString(detail.dump()));
                        !a)
                        return a;
                    return Status{};
                });
            });
            if (!s)
                return fail(s.error());
        }
        published += pagePublished;
        lastId = outs.back().id;
        if (!settled) { // the cluster is not answering: the rest wait for the next replay
            stoppedAt = lastId;
            break;
        }
        if (qint64(outs.size()) < pageRows)
            break; // that was the last page
    }
    if (stoppedAt > 0) {
        auto untried = db.scalar(
            QStringLiteral(
                "SELECT COUNT(*) FROM rewind_dlq WHERE source_kind = 'stream' AND source_name = ? "
                "AND kafka_topic IS NOT NULL "
                "AND dlq_topic IS NULL AND status IN ('new', 'fixed', 'failed') AND dlq_id > ?"),
            {stream.name, stoppedAt});
        if (!untried)
            return fail(untried.error());
        notPublished += untried->toLongLong();
    }
    if (notPublished > 0)
        return internalError(
            context(stream) %
            QStringLiteral(
                "%1 dead-lettered record(s) were not published to %2 (%3); %4 were, and the next "
                "replay with --dlq-to-topic tries the rest again")
                .arg(notPublished)
                .arg(topic, firstError)
                .arg(published));
    return published;
}

} // namespace rw
