// The replay's reading side of a Kafka stream: the consumer that fetches a
// batch's ranges into the connection's work table, and the count of records
// the committed read passed over.
#include "core/dlq/dlqstore.h"
#include "core/kafka/kafkaclient.h"
#include "core/streams/kafkalog.h"
#include "core/streams/kafkalogdetail.h"
#include "core/streams/offsetstore.h"
#include "core/streams/streamsdialect.h"
#include "core/util/failpoint.h"
#include "core/util/timeutil.h"

#include <QDeadlineTimer>
#include <QElapsedTimer>
#include <QHash>
#include <QLoggingCategory>
#include <QRegularExpression>
#include <QScopeGuard>
#include <QSqlError>
#include <QSqlQuery>
#include <QStringBuilder>
#include <QThread>
#include <algorithm>
#include <array>
#include <cstring>
#include <deque>
#include <librdkafka/rdkafka.h>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>

namespace rw {

namespace {

using namespace kafkaclient;
using namespace kafkalog_detail;

const QString kEventsTable = eventsTable();

} // namespace

// Replay's consumer: a legacy (assigning) consumer of the topic with the
// group's id, each partition fetched from where a batch starts. Records
// fetched past a batch's end are held for the next batch, which starts there.
struct KafkaLog::Reader {
    Handle rk;
    std::unique_ptr<rd_kafka_topic_t, TopicDeleter> rkt;
    struct Part {
        bool started = false;
        qint64 next = 0;
        std::deque<Message> held;
        // Where the fetch last reached the partition's end (-1: not yet):
        // with nothing held, no record lies in [next, eof). A batch that
        // ends on offsets without a record (transaction markers, aborted
        // records, compaction) leaves the next batch to start there, and the
        // end is not reported twice.
        qint64 eof = -1;
    };
    std::map<qint32, Part> parts;
    ~Reader() {
        for (auto &[id, part] : parts)
            if (part.started) {
                part.held.clear();
                rd_kafka_consume_stop(rkt.get(), id);
            }
    }
};

// After Reader, which the members' clean-up needs complete.
KafkaLog::KafkaLog(Database db, StreamSpec stream)
    : m_db(std::move(db))
    , m_stream(std::move(stream)) {}

KafkaLog::~KafkaLog() {
    if (m_reader) {
        m_reader.reset();
        m_db.exec(m_db.dialect().dropTempTable(
            kEventsTable)); // its rows, on a connection that may live on
    }
}

Result<KafkaLog::Reader *> KafkaLog::reader() const {
    if (m_reader)
        return m_reader.get();
    auto rk = connect(m_stream, QString(),
                      {{QStringLiteral("enable.partition.eof"), QStringLiteral("true")},
                       {QStringLiteral("auto.offset.reset"), QStringLiteral("error")},
                       {QStringLiteral("isolation.level"), QStringLiteral("read_committed")}},
                      true);
    if (!rk)
        return fail(rk.error());
    auto r = std::make_unique<Reader>();
    r->rkt.reset(
        rd_kafka_topic_new(rk->get(), m_stream.kafka->topic.toUtf8().constData(), nullptr));
    if (!r->rkt)
        return internalError(context(m_stream) % QStringLiteral("cannot open topic \"") %
                             m_stream.kafka->topic % QStringLiteral("\": ") %
                             QString::fromUtf8(rd_kafka_err2str(rd_kafka_last_error())));
    r->rk = std::move(*rk);
    m_reader = std::move(r);
    return m_reader.get();
}

Result<bool> KafkaLog::prepareReads() const {
    if (auto s = createWorkTable(); !s)
        return fail(s.error());
    return false; // a table of this connection or a scratch file: the workspace is unchanged
}

QString KafkaLog::workTable() const {
    return m_workSchema.isEmpty() ? kEventsTable : QString(m_workSchema % u'.' % kEventsTable);
}

Status KafkaLog::createWorkTable() const {
    const QString big = m_db.dialect().bigintType();
    // key_bytes, headers and raw_value are for the records the replay
    // dead-letters (annotateDeadLetters): the key and headers as they were,
    // and the value's bytes where payload (text) cannot hold them.
    const QString bytes = bytesType(m_db.dialect());
    auto r =
        m_db.exec((m_createAside.isEmpty() ? QStringLiteral("CREATE TEMP TABLE") : m_createAside) %
                  QStringLiteral(" IF NOT EXISTS ") % workTable() %
                  QStringLiteral(" (partition_id ") % big % QStringLiteral(", log_offset ") % big %
                  QStringLiteral(", event_id TEXT, record_ts TEXT, payload TEXT, key_bytes ") %
                  bytes % QStringLiteral(", headers TEXT, raw_value ") % bytes %
                  QStringLiteral(", PRIMARY KEY (partition_id, log_offset))"));
    if (!r)
        return fail(r.error());
    return {};
}

bool KafkaLog::readAside(const QString &schema, const QString &createTable) {
    m_workSchema = schema;
    m_createAside = createTable;
    return true;
}

EventRelation KafkaLog::eventRelation() const {
    return {kEventsTable, m_workSchema, LogColumns{}, m_createAside.isEmpty(), true};
}

Status KafkaLog::readRange(const std::vector<OffsetRange> &ranges) const {
    const std::lock_guard lock(m_readerMutex);
    QElapsedTimer clock;
    clock.start();
    qint64 loaded = 0;
    const auto report = qScopeGuard([&] {
        qCDebug(lcKafka, "read %lld records of %zu ranges in %lld ms", loaded, ranges.size(),
                clock.elapsed());
    });
    const QString table = workTable();
    if (auto p = createWorkTable(); !p)
        return p;
    if (auto r = m_db.exec(QStringLiteral("DELETE FROM ") % table); !r)
        return fail(r.error());
    auto made = reader();
    if (!made)
        return fail(made.error());
    Reader &rd = **made;
    auto conn = m_db.connection();
    if (!conn)
        return fail(conn.error());
    auto load = BulkLoad::open(*conn, table, KafkaEventRows::columns());
    if (!load)
        return fail(load.error());
    KafkaEventRows rows(m_stream.eventId);
    rd_kafka_message_t *batch[4096];
    // Every partition of the batch starts fetching before any is read: the
    // broker then serves them all in each fetch, not one after another (a
    // first fetch waits up to fetch.wait.max.ms: 32 partitions started in
    // turn took 16 s).
    for (const OffsetRange &range : ranges) {
        const auto id = qint32(range.partition);
        Reader::Part &part = rd.parts[id];
        if (range.from >= range.to || (part.started && part.next == range.from))
            continue;
        if (part.started) {
            part.held.clear();
            rd_kafka_consume_stop(rd.rkt.get(), id);
        }
        if (rd_kafka_consume_start(rd.rkt.get(), id, range.from) == -1)
            return internalError(context(m_stream) %
                                 QStringLiteral("partition %1: cannot fetch from offset %2: ")
                                     .arg(id)
                                     .arg(range.from) %
                                 QString::fromUtf8(rd_kafka_err2str(rd_kafka_last_error())));
        part.started = true;
        part.next = range.from;
        part.eof = -1;
    }
    std::vector<OffsetRange> gapped; // ranges with offsets that held no committed record
    for (const OffsetRange &range : ranges) {
        const auto id = qint32(range.partition);
        Reader::Part &part = rd.parts[id];
        QDeadlineTimer quiet(timeoutMs());
        const qint64 startedAt = part.next;
        qint64 delivered = 0;
        const auto noteGap = qScopeGuard([&] {
            if (part.next - startedAt > delivered)
                gapped.push_back({range.partition, startedAt, part.next});
        });
        while (part.next < range.to) {
            if (part.held.empty() && part.eof > part.next) {
                part.next = std::min(part.eof, range.to);
                continue;
            }
            if (part.held.empty()) {
                const ssize_t n =
                    rd_kafka_consume_batch(rd.rkt.get(), id, 100, batch,
                                           size_t(std::min<qint64>(range.to - part.next, 4096)));
                if (n < 0)
                    return internalError(
                        context(m_stream) % QStringLiteral("partition %1: ").arg(id) %
                        QString::fromUtf8(rd_kafka_err2str(rd_kafka_last_error())));
                for (ssize_t i = 0; i < n; ++i)
                    part.held.emplace_back(batch[i]);
                if (n == 0 && quiet.hasExpired())
                    return internalError(
                        context(m_stream) %
                        QStringLiteral(
                            "no record of partition %1 from offset %2 arrived from %3 within %4 s "
                            "(REWIND_KAFKA_TIMEOUT_MS); the batches before it are committed")
                            .arg(id)
                            .arg(part.next)
                            .arg(m_stream.kafka->bootstrap)
                            .arg(double(timeoutMs()) / 1000.0));
                continue;
            }
            Message m = std::move(part.held.front());
            part.held.pop_front();
            if (m->err == RD_KAFKA_RESP_ERR__PARTITION_EOF) {
                // No record before the end but those read: the rest of the
                // range up to it holds none (compaction, transaction markers,
                // aborted records).
                part.eof = m->offset;
                continue;
            }
            if (m->err)
                return internalError(
                    context(m_stream) %
                    QStringLiteral("partition %1 at offset %2: ").arg(id).arg(part.next) %
                    QString::fromUtf8(rd_kafka_message_errstr(m.get())));
            quiet = QDeadlineTimer(timeoutMs());
            if (m->offset >= range.to) {
                part.held.push_front(std::move(m)); // the next batch's
                part.next = range.to;
                break;
            }
            if (m->offset < part.next)
                continue;
            part.next = m->offset + 1;
            ++delivered;
            ++loaded;
            if (auto a = (*load)->add(rows.row(RecordView::of(m.get()))); !a)
                return internalError(QStringLiteral("storing fetched records: ") %
                                     a.error().message);
        }
    }
    if (auto f = (*load)->finish(); !f)
        return internalError(QStringLiteral("storing fetched records: ") % f.error().message);
    // Each offset is counted once, however often it is read (on PostgreSQL
    // a replay reads its first batch twice: once to sample the sink's
    // column types).
    for (OffsetRange &g : gapped) {
        qint64 &counted = m_abortedCountedTo[g.partition];
        g.from = std::max(g.from, counted);
        counted = std::max(counted, g.to);
    }
    gapped.erase(std::remove_if(gapped.begin(), gapped.end(),
                                [](const OffsetRange &g) { return g.from >= g.to; }),
                 gapped.end());
    if (!gapped.empty()) {
        // Offsets without a committed record: transaction markers, records
        // of aborted transactions, or what compaction removed. Those read
        // uncommitted, less those read, are the aborted records.
        qint64 committed = 0;
        for (const OffsetRange &g : gapped) {
            auto n = m_db.scalar(QStringLiteral("SELECT COUNT(*) FROM ") % table %
                                     QStringLiteral(" WHERE partition_id = ? AND log_offset >= ? "
                                                    "AND log_offset < ?"),
                                 {g.partition, g.from, g.to});
            if (!n)
                return fail(n.error());
            committed += n->toLongLong();
        }
        auto all = recordsIn(gapped);
        if (!all)
            return fail(all.error());
        m_aborted += std::max<qint64>(0, *all - committed);
    }
    if (m_stream.eventId.startsWith(u'$')) {
        auto r = m_db.exec(
            QStringLiteral("UPDATE ") % table % QStringLiteral(" SET event_id = ") %
                StreamsDialect::of(m_db).jsonTextAt(QStringLiteral("payload"), QStringLiteral("?")),
            {m_stream.eventId});
        if (!r)
            return fail(r.error());
    }
    return {};
}

Result<qint64> KafkaLog::recordsIn(const std::vector<OffsetRange> &ranges) const {
    auto rk = connect(m_stream, QString(),
                      {{QStringLiteral("enable.partition.eof"), QStringLiteral("true")},
                       {QStringLiteral("auto.offset.reset"), QStringLiteral("error")},
                       {QStringLiteral("isolation.level"), QStringLiteral("read_uncommitted")}},
                      true);
    if (!rk)
        return fail(rk.error());
    const std::unique_ptr<rd_kafka_topic_t, TopicDeleter> rkt(
        rd_kafka_topic_new(rk->get(), m_stream.kafka->topic.toUtf8().constData(), nullptr));
    qint64 records = 0;
    rd_kafka_message_t *batch[1024];
    for (const OffsetRange &range : ranges) {
        const auto id = qint32(range.partition);
        if (rd_kafka_consume_start(rkt.get(), id, range.from) == -1)
            return internalError(context(m_stream) %
                                 QStringLiteral("partition %1: cannot fetch from offset %2: ")
                                     .arg(id)
                                     .arg(range.from) %
                                 QString::fromUtf8(rd_kafka_err2str(rd_kafka_last_error())));
        const auto stop = qScopeGuard([&] { rd_kafka_consume_stop(rkt.get(), id); });
        QDeadlineTimer quiet(timeoutMs());
        qint64 next = range.from;
        while (next < range.to) {
            const ssize_t n = rd_kafka_consume_batch(rkt.get(), id, 100, batch, 1024);
            if (n < 0)
                return internalError(context(m_stream) % QStringLiteral("partition %1: ").arg(id) %
                                     QString::fromUtf8(rd_kafka_err2str(rd_kafka_last_error())));
            if (n == 0 && quiet.hasExpired())
                return fail(unreachable(m_stream, RD_KAFKA_RESP_ERR__TIMED_OUT));
            for (ssize_t i = 0; i < n; ++i) {
                const Message m(batch[i]);
                if (m->err == RD_KAFKA_RESP_ERR__PARTITION_EOF) {
                    next = std::max<qint64>(next, m->offset);
                    if (m->offset >= range.to)
                        next = range.to;
                    continue;
                }
                if (m->err)
                    return internalError(context(m_stream) %
                                         QStringLiteral("partition %1: ").arg(id) %
                                         QString::fromUtf8(rd_kafka_message_errstr(m.get())));
                quiet = QDeadlineTimer(timeoutMs());
                if (m->offset >= range.from && m->offset < range.to)
                    ++records;
                next = std::max<qint64>(next, m->offset + 1);
            }
        }
    }
    return records;
}

Status KafkaLog::annotateDeadLetters(const QVariant &afterDlqId) const {
    // Set-based, from the batch's work table: the records just dead-lettered
    // by this stream, matched by partition and offset.
    return dlqstore::setKafkaOrigin(m_db, afterDlqId, m_stream.name, m_stream.kafka->topic,
                                    workTable());
}

} // namespace rw
