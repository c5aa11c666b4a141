#include "core/streams/replay.h"

#include "core/dlq/dlqstore.h"
#include "core/dlq/kafkadlq.h"
#include "core/sql/privileges.h"
#include "core/streams/offsets.h"
#include "core/streams/offsetstore.h"
#include "core/streams/replayer.h"
#include "core/streams/replaylock.h"
#include "core/util/failpoint.h"
#include "core/util/timeutil.h"
#include "core/workspace/workspace.h"

#include <QElapsedTimer>
#include <QScopeGuard>
#include <QStringBuilder>
#include <algorithm>
#include <limits>
#include <nlohmann/json.hpp>

namespace rw {

namespace replay_detail {

namespace {

const QString kSlicesTable = QStringLiteral("rewind_replay_slices");
const QString kBatchTable = QStringLiteral("rewind_replay_batch");

} // namespace

Replayer::Replayer(const Database &db, const StreamSpec &stream, QString group,
                   const ReplayOptions &options)
    : m_db(db)
    , m_stream(stream)
    , m_group(std::move(group))
    , m_options(options)
    , m_sd(StreamsDialect::of(db))
    , m_log(openStreamLog(db, stream)) {
    readEventsFrom(m_log->eventRelation());
}

// The statements' text that names the relation the events are read from.
void Replayer::readEventsFrom(EventRelation events) {
    m_events = std::move(events);
    const LogColumns &c = m_events.columns;
    const QString log =
        m_events.schema.isEmpty()
            ? m_db.quoteTable(m_events.table)
            : QString(m_db.quote(m_events.schema) % u'.' % m_db.quote(m_events.table));
    m_eventsSql = log;
    m_slices = m_sd.tempTable(kSlicesTable);
    m_p = QStringLiteral("l.") % m_db.quote(c.partitionId);
    m_o = QStringLiteral("l.") % m_db.quote(c.logOffset);
    m_e = QStringLiteral("l.") % m_db.quote(c.eventId);
    m_payload = QStringLiteral("l.") % m_db.quote(c.payload);
    m_from = QStringLiteral(" FROM ") % m_slices % QStringLiteral(" AS s ") %
             m_sd.fixedOrderJoin() % u' ' % log % QStringLiteral(" AS l ON ") % m_p %
             QStringLiteral(" = s.p AND ") % m_o % QStringLiteral(" >= s.lo AND ") % m_o %
             QStringLiteral(" < s.hi");
    // The same events read the other way round: the log's rows between two
    // storage positions, each kept when a slice holds it. See stageStatement().
    if (const QString pos = m_sd.storageOrderColumn(); !pos.isEmpty()) {
        m_rangeFrom = QStringLiteral(" FROM ") % log % QStringLiteral(" AS l ") %
                      m_sd.fixedOrderJoin() % u' ' % m_slices % QStringLiteral(" AS s ON s.p = ") %
                      m_p % QStringLiteral(" AND ") % m_o % QStringLiteral(" >= s.lo AND ") % m_o %
                      QStringLiteral(" < s.hi WHERE l.") % pos % QStringLiteral(" BETWEEN ? AND ?");
        m_rangeProbe = QStringLiteral("SELECT MIN(l.") % pos % QStringLiteral("), MAX(l.") % pos %
                       QStringLiteral("), COUNT(*)") % m_from;
    }
    // Events per slice: one count over the log's (partition, offset) index
    // each, about 4x cheaper than a join and GROUP BY.
    m_countSlices = QStringLiteral("SELECT s.p, (SELECT COUNT(*) FROM ") % log %
                    QStringLiteral(" AS l WHERE ") % m_p % QStringLiteral(" = s.p AND ") % m_o %
                    QStringLiteral(" >= s.lo AND ") % m_o % QStringLiteral(" < s.hi) FROM ") %
                    m_slices % QStringLiteral(" AS s");
}

Status Replayer::requirePrivileges() const {
    return requireReplayPrivileges(m_db, m_stream, m_group, m_options.execute);
}

Result<ReplayResult> Replayer::run() {
    QElapsedTimer timer;
    timer.start();
    m_result.stream = m_stream.name;
    m_result.group = m_group;
    m_result.executed = m_options.execute;
    if (m_options.batchSize <= 0)
        return badInput(QStringLiteral("--batch-size must be positive"));
    if (m_options.maxPerSecond && !(*m_options.maxPerSecond > 0))
        return badInput(QStringLiteral("--max-per-second must be positive"));
    m_batchSize = m_options.maxPerSecond
                      ? std::min<qint64>(m_options.batchSize,
                                         std::max<qint64>(1, qint64(*m_options.maxPerSecond)))
                      : m_options.batchSize;
    if (auto s = requirePrivileges(); !s)
        return fail(s.error());
    if (auto setup = prepareStreamSession(m_db); !setup)
        return fail(setup.error());
    if (m_options.publishDeadLetters)
        if (auto c = checkDeadLetterTopic(m_stream); !c) // before anything is written
            return fail(c.error());
    if (m_options.execute) {
        auto id = beginReplay(m_db, m_stream.name, m_group);
        if (!id)
            return fail(id.error());
        m_result.replayId = *id;
    }
    Status s = m_options.execute ? execute() : dryRun();
    if (s && m_options.execute && m_options.publishDeadLetters && m_result.batches == 0)
        s = publishNow(); // nothing consumed: still catch up what earlier replays dead-lettered
    m_result.abortedSkipped = m_log->abortedSkipped();
    if (m_restoreCache)
        m_db.exec(m_sd.setPageCacheSize(*m_restoreCache));
    if (m_restoreAutoCheckpoint)
        m_db.exec(QStringLiteral("PRAGMA wal_autocheckpoint = %1").arg(*m_restoreAutoCheckpoint));
    if (m_options.execute)
        m_db.exec(m_db.dialect().dropTempTable(
            kBatchTable)); // its memory, on a connection that may live on
    if (m_options.execute) {
        if (!s)
            finishReplay(m_db, m_result.replayId, ReplayStatus::Failed, s.error().message);
        else if (auto f = finishReplay(m_db, m_result.replayId, m_result.status, QString()); !f)
            s = f;
    }
    if (!s)
        return fail(s.error());
    m_result.seconds = timer.nsecsElapsed() / 1e9;
    return m_result;
}

Status Replayer::publishNow() {
    auto n = publishDeadLetters(m_db, m_stream);
    if (!n)
        return fail(n.error());
    m_result.publishedDeadLetters += *n;
    return {};
}

namespace {

// `budget` shared out over `wants` by water-filling: equal parts, what a
// small want leaves over going to the others; the remainder of an uneven
// split to the first ones. Sums to min(budget, sum of wants).
std::vector<qint64> fairShares(const std::vector<qint64> &wants, qint64 budget) {
    std::vector<qint64> got(wants.size(), 0);
    std::vector<size_t> open;
    for (size_t i = 0; i < wants.size(); ++i)
        if (wants[i] > 0)
            open.push_back(i);
    while (budget > 0 && !open.empty()) {
        const qint64 part = budget / qint64(open.size());
        std::vector<size_t> still;
        qint64 given = 0;
        for (const size_t i : open) {
            const qint64 take = std::min(std::max<qint64>(part, 0), wants[i] - got[i]);
            got[i] += take;
            given += take;
            if (got[i] < wants[i])
                still.push_back(i);
        }
        budget -= given;
        if (part == 0) { // fewer left than partitions: one each, in order
            for (const size_t i : still)
                if (budget > 0) {
                    ++got[i];
                    --budget;
                }
            break;
        }
        open = std::move(still);
    }
    return got;
}

} // namespace

// Where each partition starts and what the batches cover. A batch takes
// its events from every partition with events left, in equal shares: a
// log landed in arrival order holds the partitions interleaved, so a batch
// then reads one stretch of the log instead of every partition's events
// being spread over the whole table.
Status Replayer::planSlices() {
    auto offsets = m_log->replayStart(m_group, m_options.execute);
    if (!offsets)
        return fail(offsets.error());
    // --max-events is shared out in equal parts, a partition with less left
    // than its part leaving the rest to the others: every lagging partition
    // moves, none is starved by the ones before it.
    std::vector<qint64> starts, lags;
    for (const auto &p : *offsets) {
        starts.push_back(std::max(p.committed, p.logStart));
        lags.push_back(std::max<qint64>(0, p.logEnd - starts.back()));
    }
    const std::vector<qint64> takes =
        m_options.maxEvents ? fairShares(lags, *m_options.maxEvents) : lags;
    std::vector<qint64> next;
    for (size_t i = 0; i < offsets->size(); ++i) {
        m_result.partitions.push_back(
            {(*offsets)[i].partition, starts[i], starts[i] + takes[i], 0});
        m_offsetsTotal += takes[i];
        next.push_back(starts[i]);
    }
    const auto &parts = m_result.partitions;
    for (qint64 left = m_offsetsTotal; left > 0;) {
        Batch batch;
        qint64 fill = 0;
        while (fill < m_batchSize && left > 0) {
            qint64 active = 0;
            for (size_t i = 0; i < parts.size(); ++i)
                active += next[i] < parts[i].to ? 1 : 0;
            const qint64 share = std::max<qint64>(1, (m_batchSize - fill) / active);
            for (size_t i = 0; i < parts.size() && fill < m_batchSize; ++i) {
                const qint64 take = std::min({share, parts[i].to - next[i], m_batchSize - fill});
                if (take <= 0)
                    continue;
                auto same = std::find_if(batch.begin(), batch.end(), [&](const Slice &sl) {
                    return sl.partition == parts[i].partition;
                });
                if (same != batch.end())
                    same->to += take; // slices of one partition in a batch are contiguous
                else
                    batch.push_back({parts[i].partition, next[i], next[i] + take});
                next[i] += take;
                fill += take;
                left -= take;
            }
        }
        m_batches.push_back(std::move(batch));
    }
    return {};
}

Status Replayer::dryRun() {
    m_result.status = ReplayStatus::DryRun;
    if (auto s = planSlices(); !s)
        return s;
    Batch all;
    for (const auto &p : m_result.partitions)
        if (p.to > p.from)
            all.push_back({p.partition, p.from, p.to});
    m_result.batches = int(m_batches.size());
    if (all.empty())
        return {};
    // Temp tables live in this connection only: the database is not written.
    if (auto s = fillSlices(all); !s)
        return s;
    if (auto s = m_log->readRange(all); !s)
        return s;
    auto perPartition = m_db.exec(m_countSlices);
    if (!perPartition)
        return fail(perPartition.error());
    QMap<qint64, qint64> counts;
    while (perPartition->next())
        counts[perPartition->value(0).toLongLong()] += perPartition->value(1).toLongLong();
    for (auto &p : m_result.partitions) {
        p.consumed = counts.value(p.partition);
        m_result.consumed += p.consumed;
    }
    auto sinkExists = m_db.hasRelation(m_stream.sink);
    if (!sinkExists)
        return fail(sinkExists.error());
    // The sink's column types, or those its first replay would give it.
    if (*sinkExists) {
        if (auto s = readSinkColumns(); !s)
            return s;
        auto missing = fieldsWithoutColumn();
        if (!missing)
            return fail(missing.error());
        for (const qsizetype i : *missing)
            m_result.sinkColumnsAdded << m_stream.fields[std::size_t(i)].first;
    } else {
        auto types = fieldTypes();
        if (!types)
            return fail(types.error());
        for (qsizetype i = 0; i < qsizetype(m_stream.fields.size()); ++i)
            m_sinkColumns.insert(m_stream.fields[i].first,
                                 {m_stream.fields[i].first, types->at(i)});
        if (auto s = fillSlices(all); !s) // fieldTypes() read the first batch
            return s;
    }
    const Sql sql = dryRunCounts(*sinkExists);
    auto q = m_db.exec(sql.text, sql.binds);
    if (!q)
        return fail(q.error());
    if (q->next()) {
        m_result.inserted = q->value(0).toLongLong();
        m_result.duplicates = q->value(1).toLongLong() - m_result.inserted;
        m_result.deadLettered = q->value(2).toLongLong();
        m_result.alreadyDeadLettered = q->value(3).toLongLong();
    }
    return {};
}

Status Replayer::execute() {
    if (auto s = planSlices(); !s)
        return s;
    if (!m_batches.empty()) {
        const Status prepared = m_db.writeTransaction([&]() -> Status {
            if (auto s = ensureSink(); !s)
                return s;
            auto created = m_log->prepareReads();
            if (!created)
                return fail(created.error());
            m_result.logIndexCreated = *created;
            return {};
        });
        if (!prepared)
            return prepared;
    }
    if (m_batches.size() > 1) {
        // A log fetched into a work table of one connection (Kafka) reads
        // each batch into the batch's scratch instead, on the stager,
        // in order: the next batch is fetched while this one is written.
        const bool fetched = m_events.thisConnectionOnly;
        m_pipeline = ReplayPipeline::open(
            m_db, m_batches.size(),
            [this](std::size_t k, const QString &createTable) {
                return stageBatch(m_batches[k], createTable);
            },
            fetched);
        if (m_pipeline && fetched) {
            if (m_log->readAside(m_pipeline->workSchema(), m_pipeline->createTable()))
                readEventsFrom(m_log->eventRelation());
            else
                m_pipeline.reset();
        }
    }
    // However the loop ends, the stager stops before the scratch goes.
    const auto stopStager = qScopeGuard([&] { m_pipeline.reset(); });
    if (!m_batches.empty())
        if (auto b = buildStatements(); !b)
            return b;
    // A page cache that holds the sink's event_id index keeps inserts off the disk.
    if (const QString size = m_sd.pageCacheSize(); !size.isEmpty()) {
        auto cache = m_db.scalar(size);
        if (cache && m_db.exec(m_sd.setPageCacheSize(-131072)))
            m_restoreCache = cache->toLongLong();
    }
    for (auto &p : m_result.partitions)
        p.to = p.from; // advanced as batches commit
    m_result.status = ReplayStatus::Succeeded;
    if (m_pipeline && m_pipeline->checkpointsAside()) {
        // The stager checkpoints the WAL after each batch it stages, on
        // its core, instead of this connection at its commits.
        if (auto pages = m_db.scalar(QStringLiteral("PRAGMA wal_autocheckpoint"));
            pages && m_db.exec(QStringLiteral("PRAGMA wal_autocheckpoint = 0")))
            m_restoreAutoCheckpoint = pages->toLongLong();
    }
    if (m_pipeline)
        m_pipeline->start();
    const auto cancelled = [&] { return m_options.cancel && m_options.cancel->load(); };
    QElapsedTimer clock;
    clock.start();
    qint64 offsetsDone = 0;
    for (std::size_t k = 0; k < m_batches.size(); ++k) {
        qint64 planned = 0;
        for (const Slice &sl : m_batches[k])
            planned += sl.to - sl.from;
        if (m_options.maxPerSecond) {
            // Velocity: a batch starts (and so commits) no earlier than
            // (offsets read with it) / R seconds after the first: the
            // measured rate never exceeds R.
            const double due = double(offsetsDone + planned) / *m_options.maxPerSecond;
            timeutil::waitUntil(clock, due, cancelled);
        }
        if (cancelled()) {
            m_result.status = ReplayStatus::Cancelled;
            break;
        }
        offsetsDone += planned;
        failpoint("replay-batch-start");
        if (auto s = runBatch(m_batches[k], k); !s)
            return s;
        failpoint("replay-after-commit");
        if (m_options.progress)
            m_options.progress({m_result.batches, int(m_batches.size()), m_result.consumed,
                                m_offsetsTotal, m_result.inserted, m_result.duplicates,
                                m_result.deadLettered});
    }
    return {};
}

Status Replayer::runBatch(const Batch &batch, std::size_t k) {
    qint64 consumed = 0, inserted = 0, fresh = 0, invalid = 0;
    QMap<qint64, qint64> perPartition;
    const int number = m_result.batches + 1;
    if (m_pipeline)
        if (auto a = m_pipeline->attach(k); !a)
            return a;
    const auto release = qScopeGuard([&] {
        if (m_pipeline)
            m_pipeline->release(k);
    });
    const Status s = m_db.writeTransaction([&]() -> Status {
        if (m_pipeline) {
            if (auto e = m_pipeline->enter(k); !e)
                return e;
            if (auto f = fillSlices(batch); !f)
                return f;
        } else {
            if (auto r = m_db.exec(m_db.dialect().dropTempTable(kBatchTable)); !r)
                return fail(r.error());
            if (auto f = stageBatch(batch, QStringLiteral("CREATE TEMP TABLE ") % kBatchTable); !f)
                return f;
        }
        auto sink = m_db.exec(m_sinkInsert.text, m_sinkInsert.binds);
        if (!sink)
            return fail(sink.error());
        inserted = sink->numRowsAffected();
        failpoint("replay-after-sink");
        auto anyInvalid = m_db.exec(m_anyInvalid);
        if (!anyInvalid)
            return fail(anyInvalid.error());
        if (anyInvalid->next()) {
            anyInvalid->finish();
            auto dlq = dlqstore::quarantine(
                m_db, m_dlqInsert,
                QStringLiteral("replay ") % QString::number(m_result.replayId) %
                    QStringLiteral(" of group ") % m_group % QStringLiteral(": "),
                true);
            if (!dlq)
                return fail(dlq.error());
            fresh = dlq->added;
            if (fresh > 0)
                if (auto s = m_log->annotateDeadLetters(dlq->afterId); !s)
                    return fail(s.error());
        }
        // Every DLQ record in the batch's ranges, new or read before a rewind.
        auto known = m_db.scalar(
            QStringLiteral("SELECT COUNT(*) FROM ") % m_slices %
                QStringLiteral(
                    " AS s JOIN rewind_dlq AS d ON d.source_kind = 'stream' AND d.source_name = ? "
                    "AND d.part = CAST(s.p AS TEXT) AND d.log_offset >= s.lo AND d.log_offset < "
                    "s.hi"),
            {m_stream.name});
        if (!known)
            return fail(known.error());
        invalid = known->toLongLong();
        auto counts = m_db.exec(m_countSlices);
        if (!counts)
            return fail(counts.error());
        while (counts->next()) {
            perPartition[counts->value(0).toLongLong()] += counts->value(1).toLongLong();
            consumed += counts->value(1).toLongLong();
        }
        // The workspace's record of what reached the sink, in the same transaction.
        if (auto s = offsetstore::commitReached(m_db, m_stream.name, m_group, m_slices); !s)
            return fail(s.error());
        const qint64 duplicates = consumed - invalid - inserted;
        if (auto s =
                recordReplayBatch(m_db, m_result.replayId, consumed, inserted, duplicates, fresh);
            !s)
            return fail(s.error());
        nlohmann::json slices = nlohmann::json::array();
        for (const Slice &sl : batch)
            slices.push_back({{"partition", sl.partition}, {"from", sl.from}, {"to", sl.to}});
        const nlohmann::json detail = {{"replay_id", m_result.replayId},
                                       {"group", m_group.toStdString()},
                                       {"batch", number},
                                       {"consumed", consumed},
                                       {"inserted", inserted},
                                       {"duplicates", duplicates},
                                       {"dead_lettered", fresh},
                                       {"partitions", slices}};
        if (auto a = writeAudit(m_db, QStringLiteral("replay-batch"), QString(), m_stream.name,
                                QVariant(), QString::fromStdString(detail.dump()));
            !a)
            return a;
        failpoint("replay-before-commit");
        return {};
    });
    if (!s)
        return s;
    failpoint("replay-before-follow"); // the batch is in the workspace, not yet in the log's own
                                       // record (a Kafka group)
    if (auto f = m_log->followCommitted(m_group, batch); !f)
        return f;
    if (m_options.publishDeadLetters)
        if (auto p = publishNow(); !p)
            return p;
    m_result.batches = number;
    m_result.consumed += consumed;
    m_result.inserted += inserted;
    m_result.duplicates += consumed - invalid - inserted;
    m_result.deadLettered += fresh;
    m_result.alreadyDeadLettered += invalid - fresh;
    for (const Slice &sl : batch)
        for (auto &p : m_result.partitions)
            if (p.partition == sl.partition) {
                p.to = sl.to;
                p.consumed += perPartition.value(sl.partition);
            }
    return {};
}

} // namespace replay_detail

Status requireReplayPrivileges(const Database &db, const StreamSpec &stream, const QString &group,
                               bool execute) {
    std::vector<privileges::Need> needs;
    addGroupNeeds(needs, stream, execute);
    if (execute) {
        if (auto s = privileges::addTableOrCreate(db, needs, stream.sink,
                                                  QStringLiteral("SELECT, INSERT"),
                                                  QStringLiteral("the sink"));
            !s)
            return s;
        privileges::addControl(needs, {QStringLiteral("rewind_replays")},
                               QStringLiteral("INSERT, UPDATE"));
        privileges::addControl(needs, {QStringLiteral("rewind_dlq_history")},
                               QStringLiteral("INSERT"));
        // A Kafka dead letter gets its origin, a published one its settlement: UPDATEs.
        privileges::addControl(needs, {QStringLiteral("rewind_dlq")},
                               stream.kafka ? QStringLiteral("SELECT, INSERT, UPDATE")
                                            : QStringLiteral("SELECT, INSERT"));
    }
    return privileges::require(
        db, QStringLiteral("replay of %1 for group %2").arg(stream.name, group), needs);
}

Result<ReplayResult> replay(const Database &db, const StreamSpec &stream, const QString &group,
                            const ReplayOptions &options) {
    return replay_detail::Replayer(db, stream, group, options).run();
}

} // namespace rw
