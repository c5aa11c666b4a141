#include "core/streams/replay.h"

#include "core/sql/badvalue.h"
#include "core/util/failpoint.h"
#include "core/streams/offsets.h"
#include "core/streams/replaylock.h"
#include "core/workspace/workspace.h"

#include <QCoreApplication>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QMap>
#include <QScopeGuard>
#include <QStringBuilder>
#include <QTemporaryDir>

#include <algorithm>
#include <cerrno>
#include <condition_variable>
#include <mutex>
#include <thread>

#include <signal.h>

#include <nlohmann/json.hpp>

namespace rw {

namespace {

struct Slice {
    qint64 partition = 0;
    qint64 lo = 0; // first offset, inclusive
    qint64 hi = 0; // end offset, exclusive: the committed offset after the slice
};
using Batch = std::vector<Slice>;

struct Bind;

// SQL text plus its positional binds, built together so they stay in step.
struct Sql {
    QString text;
    QVariantList binds;
    Sql &operator<<(const QString &t)
    {
        text += t;
        return *this;
    }
    Sql &operator<<(const Bind &b);
};

// A bound value in an Sql stream: `sql << "x = " << Bind{v}`.
struct Bind {
    QVariant value;
};

Sql &Sql::operator<<(const Bind &b)
{
    text += u'?';
    binds << b.value;
    return *this;
}

const QString kSlicesTable = QStringLiteral("rewind_replay_slices");
const QString kBatchTable = QStringLiteral("rewind_replay_batch");
// The schema name a staged batch's scratch file is attached under (SQLite).
const QString kStageSchema = QStringLiteral("rewind_replay_stage");
// Events whose field values decide a new sink's column types (PostgreSQL).
constexpr qint64 kTypeSample = 10000;

class Replayer {
public:
    Replayer(const Database &db, const StreamSpec &stream, QString group, const ReplayOptions &options)
        : m_db(db), m_stream(stream), m_group(std::move(group)), m_options(options)
    {
        const LogColumns &c = stream.logColumns;
        m_slices = db.dialect().tempTable(kSlicesTable);
        m_p = QStringLiteral("l.") % db.quote(c.partitionId);
        m_o = QStringLiteral("l.") % db.quote(c.logOffset);
        m_e = QStringLiteral("l.") % db.quote(c.eventId);
        m_payload = QStringLiteral("l.") % db.quote(c.payload);
        m_from = QStringLiteral(" FROM ") % m_slices % QStringLiteral(" AS s ") % db.dialect().fixedOrderJoin() % u' ' % db.quoteTable(stream.log) % QStringLiteral(" AS l ON ")
                 % m_p % QStringLiteral(" = s.p AND ") % m_o % QStringLiteral(" >= s.lo AND ") % m_o % QStringLiteral(" < s.hi");
        // The same events read the other way round: the log's rows between two
        // storage positions, each kept when a slice holds it. See stageStatement().
        if (const QString pos = db.dialect().storageOrderColumn(); !pos.isEmpty()) {
            m_rangeFrom = QStringLiteral(" FROM ") % db.quoteTable(stream.log) % QStringLiteral(" AS l ") % db.dialect().fixedOrderJoin() % u' ' % m_slices
                          % QStringLiteral(" AS s ON s.p = ") % m_p % QStringLiteral(" AND ") % m_o % QStringLiteral(" >= s.lo AND ") % m_o
                          % QStringLiteral(" < s.hi WHERE l.") % pos % QStringLiteral(" BETWEEN ? AND ?");
            m_rangeProbe = QStringLiteral("SELECT MIN(l.") % pos % QStringLiteral("), MAX(l.") % pos % QStringLiteral("), COUNT(*)") % m_from;
        }
        // Events per slice: one count over the log's (partition, offset) index
        // each, about 4x cheaper than a join and GROUP BY.
        m_countSlices = QStringLiteral("SELECT s.p, (SELECT COUNT(*) FROM ") % db.quoteTable(stream.log) % QStringLiteral(" AS l WHERE ") % m_p
                        % QStringLiteral(" = s.p AND ") % m_o % QStringLiteral(" >= s.lo AND ") % m_o % QStringLiteral(" < s.hi) FROM ") % m_slices
                        % QStringLiteral(" AS s");
    }

    Result<ReplayResult> run()
    {
        QElapsedTimer timer;
        timer.start();
        m_result.stream = m_stream.name;
        m_result.group = m_group;
        m_result.executed = m_options.execute;
        if (m_options.batchSize <= 0)
            return badInput(QStringLiteral("--batch-size must be positive"));
        if (auto setup = m_db.execAll(m_db.dialect().streamSessionSetup()); !setup)
            return fail(setup.error());
        if (m_options.execute) {
            auto id = beginReplay(m_db, m_stream.name, m_group);
            if (!id)
                return fail(id.error());
            m_result.replayId = *id;
        }
        Status s = m_options.execute ? execute() : dryRun();
        if (m_restoreCache)
            m_db.exec(m_db.dialect().setPageCacheSize(*m_restoreCache));
        if (m_restoreAutoCheckpoint)
            m_db.exec(QStringLiteral("PRAGMA wal_autocheckpoint = %1").arg(*m_restoreAutoCheckpoint));
        if (m_options.execute)
            m_db.exec(m_db.dialect().dropTempTable(kBatchTable)); // its memory, on a connection that may live on
        if (m_options.execute) {
            if (!s)
                finishReplay(m_db, m_result.replayId, QStringLiteral("failed"), s.error().message);
            else if (auto f = finishReplay(m_db, m_result.replayId, m_result.status, QString()); !f)
                s = f;
        }
        if (!s)
            return fail(s.error());
        m_result.seconds = timer.nsecsElapsed() / 1e9;
        return m_result;
    }

private:
    // Where each partition starts and what the batches cover. A batch takes
    // its events from every partition with events left, in equal shares: a
    // log landed in arrival order holds the partitions interleaved, so a batch
    // then reads one stretch of the log instead of every partition's events
    // being spread over the whole table.
    Status planSlices()
    {
        auto offsets = listOffsets(m_db, m_stream, m_group);
        if (!offsets)
            return fail(offsets.error());
        qint64 budget = m_options.maxEvents.value_or(std::numeric_limits<qint64>::max());
        std::vector<qint64> next;
        for (const auto &p : *offsets) {
            const qint64 start = std::max(p.committed, p.logStart);
            const qint64 end = start + std::min(std::max<qint64>(0, p.logEnd - start), budget);
            budget -= end - start;
            m_result.partitions.push_back({p.partition, start, end, 0});
            m_offsetsTotal += end - start;
            next.push_back(start);
        }
        const auto &parts = m_result.partitions;
        for (qint64 left = m_offsetsTotal; left > 0;) {
            Batch batch;
            qint64 fill = 0;
            while (fill < m_options.batchSize && left > 0) {
                qint64 active = 0;
                for (size_t i = 0; i < parts.size(); ++i)
                    active += next[i] < parts[i].to ? 1 : 0;
                const qint64 share = std::max<qint64>(1, (m_options.batchSize - fill) / active);
                for (size_t i = 0; i < parts.size() && fill < m_options.batchSize; ++i) {
                    const qint64 take = std::min({share, parts[i].to - next[i], m_options.batchSize - fill});
                    if (take <= 0)
                        continue;
                    auto same = std::find_if(batch.begin(), batch.end(), [&](const Slice &sl) { return sl.partition == parts[i].partition; });
                    if (same != batch.end())
                        same->hi += take; // slices of one partition in a batch are contiguous
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

    Status fillSlices(const Batch &batch)
    {
        const QString big = m_db.dialect().bigintType();
        if (auto r = m_db.exec(QStringLiteral("CREATE TEMP TABLE IF NOT EXISTS rewind_replay_slices (p ") % big % QStringLiteral(" PRIMARY KEY, lo ") % big
                               % QStringLiteral(", hi ") % big % u')');
            !r)
            return fail(r.error());
        if (auto r = m_db.exec(QStringLiteral("DELETE FROM ") % m_slices); !r)
            return fail(r.error());
        nlohmann::json rows = nlohmann::json::array();
        for (const Slice &s : batch)
            rows.push_back({s.partition, s.lo, s.hi});
        auto r = m_db.exec(QStringLiteral("INSERT INTO ") % m_slices % QStringLiteral(" (p, lo, hi) ")
                               % m_db.dialect().jsonIntegerRows(QString(), 3, QString()),
                           {QString::fromStdString(rows.dump())});
        if (!r)
            return fail(r.error());
        return {};
    }

    QString pathOf(const QString &field) const
    {
        for (const auto &[name, path] : m_stream.fields)
            if (name == field)
                return path;
        return QString();
    }

    Status ensureSink()
    {
        auto exists = m_db.hasRelation(m_stream.sink);
        if (!exists)
            return fail(exists.error());
        const QString sink = m_db.quoteTable(m_stream.sink);
        if (!*exists) {
            auto types = fieldTypes();
            if (!types)
                return fail(types.error());
            QStringList cols{QStringLiteral("\"event_id\" TEXT PRIMARY KEY")};
            for (qsizetype i = 0; i < qsizetype(m_stream.fields.size()); ++i)
                cols << (types->at(i).isEmpty() ? m_db.quote(m_stream.fields[i].first)
                                                : QString(m_db.quote(m_stream.fields[i].first) % u' ' % types->at(i)));
            if (auto r = m_db.exec(QStringLiteral("CREATE TABLE ") % sink % QStringLiteral(" (") % cols.join(QStringLiteral(", ")) % u')'); !r)
                return fail(r.error());
            m_result.sinkCreated = true;
            return {};
        }
        auto unique = indexColumns(m_db.dialect().listUniqueIndexColumns(), m_stream.sink);
        if (!unique)
            return fail(unique.error());
        for (const QStringList &columns : *unique)
            if (columns == QStringList{QStringLiteral("event_id")})
                return {};
        auto r = m_db.exec(QStringLiteral("CREATE UNIQUE INDEX ") % m_db.quote(QStringLiteral("rewind_uq_") % m_stream.sink % QStringLiteral("_event_id"))
                           % QStringLiteral(" ON ") % sink % QStringLiteral(" (\"event_id\")"));
        if (!r)
            return fail(Error::badInput(QStringLiteral("sink \"%1\" of stream \"%2\" has no unique index on event_id and one cannot be added "
                                                       "(duplicate event_ids already in it?): %3")
                                            .arg(m_stream.sink, m_stream.name, r.error().message)));
        return {};
    }

    // The columns of each index a catalog query (dialect listIndexColumns
    // shape: index, position, column) reports for `relation`.
    Result<QList<QStringList>> indexColumns(const QString &catalogSql, const QString &relation) const
    {
        auto q = m_db.exec(catalogSql, {relation});
        if (!q)
            return fail(q.error());
        QMap<QString, QStringList> byIndex;
        while (q->next())
            byIndex[q->value(0).toString()] << q->value(2).toString();
        return byIndex.values();
    }

    // The declared type of each field's sink column, from the JSON types its
    // values have in the first kTypeSample events of the first batch (the
    // dialect decides; SQLite declares none).
    Result<QStringList> fieldTypes()
    {
        const SqlDialect &d = m_db.dialect();
        QStringList out;
        const bool typed = !d.sinkColumnType({}).isEmpty();
        if (typed && !m_batches.empty())
            if (auto s = fillSlices(m_batches.front()); !s)
                return fail(s.error());
        for (const auto &[name, path] : m_stream.fields) {
            QStringList seen;
            if (typed && !m_batches.empty()) {
                auto q = m_db.exec(QStringLiteral("SELECT DISTINCT t FROM (SELECT ") % d.jsonTypeAt(m_payload, QStringLiteral("?"))
                                       % QStringLiteral(" AS t") % m_from % QStringLiteral(" LIMIT ") % QString::number(kTypeSample)
                                       % QStringLiteral(") AS v"),
                                   {path});
                if (!q)
                    return fail(q.error());
                while (q->next())
                    if (!q->value(0).isNull())
                        seen << q->value(0).toString();
            }
            out << d.sinkColumnType(seen);
        }
        return out;
    }

    // Batches read offset ranges per partition: without an index on
    // (partition, offset) each would scan the whole log.
    Status ensureLogIndex()
    {
        const LogColumns &c = m_stream.logColumns;
        auto indexes = indexColumns(m_db.dialect().listIndexColumns(), m_stream.log);
        if (!indexes)
            return fail(indexes.error());
        for (const QStringList &columns : *indexes)
            if (columns.size() >= 2 && columns[0] == c.partitionId && columns[1] == c.logOffset)
                return {};
        auto r = m_db.exec(QStringLiteral("CREATE INDEX IF NOT EXISTS ") % m_db.quote(QStringLiteral("rewind_ix_") % m_stream.log % QStringLiteral("_offsets"))
                           % QStringLiteral(" ON ") % m_db.quoteTable(m_stream.log) % QStringLiteral(" (") % m_db.quote(c.partitionId)
                           % QStringLiteral(", ") % m_db.quote(c.logOffset) % u')');
        if (!r)
            return fail(r.error());
        m_result.logIndexCreated = true;
        return {};
    }

    Status dryRun()
    {
        m_result.status = QStringLiteral("dry_run");
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
        } else {
            auto types = fieldTypes();
            if (!types)
                return fail(types.error());
            for (qsizetype i = 0; i < qsizetype(m_stream.fields.size()); ++i)
                m_sinkColumns.insert(m_stream.fields[i].first, {m_stream.fields[i].first, types->at(i)});
            if (auto s = fillSlices(all); !s) // fieldTypes() read the first batch
                return s;
        }
        // The events staged as a replay stages them, judged by the same test.
        const Sql stage = stageSelect();
        Sql sql;
        // ok once per row; the DLQ and sink probes only where they matter.
        sql << QStringLiteral("SELECT COUNT(DISTINCT CASE WHEN ok = 1 AND NOT in_sink THEN e END), SUM(ok), "
                              "SUM(CASE WHEN ok = 0 AND NOT in_dlq THEN 1 ELSE 0 END), SUM(CASE WHEN ok = 0 AND in_dlq THEN 1 ELSE 0 END) FROM (SELECT "
                              "b.e AS e, CASE WHEN ")
            << stagedValid() << QStringLiteral(" THEN 1 ELSE 0 END AS ok, ")
            << (*sinkExists ? QString(QStringLiteral("EXISTS (SELECT 1 FROM ") % m_db.quoteTable(m_stream.sink)
                                      % QStringLiteral(" AS k WHERE k.\"event_id\" = b.e)"))
                            : QStringLiteral("1 = 0"))
            << QStringLiteral(" AS in_sink, EXISTS (SELECT 1 FROM rewind_dlq AS d WHERE d.source_kind = 'stream' AND d.source_name = ")
                    << Bind{m_stream.name}
            << QStringLiteral(" AND d.part = CAST(b.p AS TEXT) AND d.log_offset = b.o) AS in_dlq FROM (") << stage.text
            << QStringLiteral(") AS b) AS v");
        sql.binds << stage.binds;
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

    Status execute()
    {
        if (auto s = planSlices(); !s)
            return s;
        if (!m_batches.empty()) {
            const Status prepared = m_db.writeTransaction([&]() -> Status {
                if (auto s = ensureSink(); !s)
                    return s;
                return ensureLogIndex();
            });
            if (!prepared)
                return prepared;
        }
        m_pipelined = m_batches.size() > 1 && pipelineAvailable();
        if (!m_batches.empty())
            if (auto b = buildStatements(); !b)
                return b;
        // A page cache that holds the sink's event_id index keeps inserts off the disk.
        if (const QString size = m_db.dialect().pageCacheSize(); !size.isEmpty()) {
            auto cache = m_db.scalar(size);
            if (cache && m_db.exec(m_db.dialect().setPageCacheSize(-131072)))
                m_restoreCache = cache->toLongLong();
        }
        for (auto &p : m_result.partitions)
            p.to = p.from; // advanced as batches commit
        m_result.status = QStringLiteral("succeeded");
        std::thread stager;
        if (m_pipelined) {
            // The stager checkpoints the WAL after each batch it stages, on
            // its core, instead of this connection at its commits.
            if (auto pages = m_db.scalar(QStringLiteral("PRAGMA wal_autocheckpoint")); pages && m_db.exec(QStringLiteral("PRAGMA wal_autocheckpoint = 0")))
                m_restoreAutoCheckpoint = pages->toLongLong();
            m_ready.assign(m_batches.size(), false);
            stager = std::thread([this] { stageAhead(); });
            // The first batch is staged here while the stager does the second.
            if (auto first = stageToFile(0); !first) {
                std::lock_guard lock(m_mutex);
                m_stageError = first.error();
            } else {
                std::lock_guard lock(m_mutex);
                m_ready[0] = true;
            }
        }
        // However the loop ends, the stager stops before the scratch files go.
        const auto stopStager = qScopeGuard([&] {
            if (!stager.joinable())
                return;
            {
                std::lock_guard lock(m_mutex);
                m_stop = true;
            }
            m_wake.notify_all();
            stager.join();
        });
        for (std::size_t k = 0; k < m_batches.size(); ++k) {
            if (m_options.cancel && m_options.cancel->load()) {
                m_result.status = QStringLiteral("cancelled");
                break;
            }
            failpoint("replay-batch-start");
            if (auto s = runBatch(m_batches[k], k); !s)
                return s;
            failpoint("replay-after-commit");
            if (m_options.progress)
                m_options.progress({m_result.batches, int(m_batches.size()), m_result.consumed, m_offsetsTotal, m_result.inserted,
                                    m_result.duplicates, m_result.deadLettered});
        }
        return {};
    }

    // The batch's events, read from the log and validated once: one row per
    // event with its partition, offset, event_id, json_valid(payload) and the
    // extracted fields (NULL when the payload is not JSON). The sink insert,
    // the DLQ insert and the checks all read this instead of the log, so each
    // payload is parsed once per batch.
    static QString stageColumn(qsizetype field) { return QStringLiteral("c") % QString::number(field); }

    // The staged events' SELECT (its binds: the fields' paths). Against a
    // sink with typed columns it adds "fit" (1 when every value fits its
    // column, else 0), computed once per event for the sink and DLQ inserts.
    // Needs m_sinkColumns.
    Sql stageSelect() const { return stageSelect(m_from); }
    Sql stageSelect(const QString &from) const
    {
        const SqlDialect &d = m_db.dialect();
        Sql stage;
        stage.text = d.jsonStageSelect({{QStringLiteral("s.p"), QStringLiteral("p")}, {m_o, QStringLiteral("o")}, {m_e, QStringLiteral("e")}},
                                       m_payload, int(m_stream.fields.size()), from);
        for (const auto &field : m_stream.fields)
            stage.binds << field.second;
        if (hasTypeChecks())
            stage.text = QStringLiteral("SELECT y.*, CASE WHEN ") % valuesFit(d, stagedValues(QStringLiteral("y"))) % QStringLiteral(" THEN 1 ELSE 0 END AS fit FROM (")
                         % stage.text % d.subqueryFence() % QStringLiteral(") AS y");
        return stage;
    }

    bool hasTypeChecks() const
    {
        for (const FieldValue &f : stagedValues(QStringLiteral("b")))
            if (!m_db.dialect().valueFitsType(f.value, f.type, f.strict).isEmpty())
                return true;
        return false;
    }

    // Every required field of the staged event b is there.
    QString stagedPresent() const
    {
        QStringList terms;
        for (const QString &field : m_stream.required)
            terms << QStringLiteral("b.") % stageColumn(fieldIndex(field)) % QStringLiteral(" IS NOT NULL");
        return terms.isEmpty() ? QStringLiteral("(1 = 1)") : QString(u'(' % terms.join(QStringLiteral(" AND ")) % u')');
    }

    // The staged event's fields, each with its sink column's type.
    std::vector<FieldValue> stagedValues(const QString &alias) const
    {
        std::vector<FieldValue> values;
        for (qsizetype i = 0; i < qsizetype(m_stream.fields.size()); ++i) {
            const auto &[name, path] = m_stream.fields[i];
            const ColumnInfo column = m_sinkColumns.value(name);
            values.push_back({name, path, column.type, alias % u'.' % stageColumn(i), column.strict});
        }
        return values;
    }

    // The sink's columns and their declared types (PostgreSQL casts the extracted text to them).
    Status readSinkColumns()
    {
        auto columns = m_db.columns(m_stream.sink);
        if (!columns)
            return fail(columns.error());
        m_sinkColumns.clear();
        for (const ColumnInfo &c : *columns)
            m_sinkColumns.insert(c.name, c);
        return {};
    }

    // Whether the staged event b goes to the sink (else to the DLQ): an
    // event_id, valid JSON, every required field, and every field's value
    // one its sink column takes (dry run and replay alike).
    QString stagedValid() const
    {
        return QStringLiteral("(b.e IS NOT NULL AND ") % m_db.dialect().isTrue(QStringLiteral("b.jv")) % QStringLiteral(" AND ") % stagedPresent()
               % (hasTypeChecks() ? QStringLiteral(" AND b.fit = 1)") : QStringLiteral(")"));
    }

    qsizetype fieldIndex(const QString &field) const
    {
        for (qsizetype i = 0; i < qsizetype(m_stream.fields.size()); ++i)
            if (m_stream.fields[i].first == field)
                return i;
        return -1;
    }

    Status buildStatements()
    {
        const SqlDialect &d = m_db.dialect();
        if (auto s = readSinkColumns(); !s)
            return s;
        m_stage = stageSelect();
        if (!m_rangeFrom.isEmpty()) {
            // Not when a log column takes the position's name (it would range
            // over the column), nor on a table without one (WITHOUT ROWID, a view).
            auto columns = m_db.columns(m_stream.log);
            if (!columns)
                return fail(columns.error());
            const QString pos = d.storageOrderColumn();
            const bool shadowed = std::ranges::any_of(*columns, [&](const ColumnInfo &c) { return c.name.compare(pos, Qt::CaseInsensitive) == 0; });
            if (!shadowed && m_db.exec(QStringLiteral("SELECT ") % pos % QStringLiteral(" FROM ") % m_db.quoteTable(m_stream.log) % QStringLiteral(" LIMIT 0"))) {
                m_rangeStage = stageSelect(m_rangeFrom);
            }
        }

        const QString from = QStringLiteral(" FROM ") % (m_pipelined ? QString(kStageSchema % u'.' % kBatchTable) : d.tempTable(kBatchTable))
                             % QStringLiteral(" AS b");
        const QString ok = stagedValid();
        QStringList cols{QStringLiteral("\"event_id\"")};
        QString sink = QStringLiteral("SELECT b.e");
        for (qsizetype i = 0; i < qsizetype(m_stream.fields.size()); ++i) {
            cols << m_db.quote(m_stream.fields[i].first);
            sink += QStringLiteral(", ") % d.sinkValue(QStringLiteral("b.") % stageColumn(i), m_sinkColumns.value(m_stream.fields[i].first).type);
        }
        // In key order the unique index is walked once per batch instead of
        // probed at random; among equal event_ids the earliest offset wins.
        m_sinkInsert.text = QStringLiteral("INSERT INTO ") % m_db.quoteTable(m_stream.sink) % QStringLiteral(" (") % cols.join(QStringLiteral(", "))
                            % QStringLiteral(") ") % sink % from % QStringLiteral(" WHERE ") % ok
                            % QStringLiteral(" ORDER BY b.e, b.p, b.o ON CONFLICT (\"event_id\") DO NOTHING");

        // Why an event is invalid, naming the fields. Only the invalid events
        // (few) go back to the log, by (partition, offset), for their payload.
        // In log order, so that DLQ ids (the order the DLQ lists records in)
        // follow the log on every engine: PostgreSQL's join returns its rows
        // in any order, SQLite's happened to follow the batch table.
        Sql dlq;
        dlq << QStringLiteral("INSERT INTO rewind_dlq (source_kind, source_name, part, log_offset, event_id, record_key, error_class, "
                              "error, original_payload, payload, status, attempts, first_seen) SELECT 'stream', ")
                    << Bind{m_stream.name}
            << QStringLiteral(", CAST(b.p AS TEXT), b.o, b.e, b.e, CASE WHEN ") << d.isNotTrue(QStringLiteral("b.jv"))
            << QStringLiteral(" THEN 'invalid_json' WHEN b.e IS NULL THEN 'missing_event_id' WHEN NOT ") << stagedPresent()
            << QStringLiteral(" THEN 'missing_field' ELSE 'bad_value' END, CASE WHEN ")
            << d.isNotTrue(QStringLiteral("b.jv")) << QStringLiteral(" THEN CASE WHEN ")
            << m_payload
            << QStringLiteral(" IS NULL THEN 'payload is NULL' ELSE 'payload is not valid JSON' END WHEN b.e IS NULL THEN 'event_id is NULL' WHEN NOT ")
            << stagedPresent() << QStringLiteral(" THEN 'required field missing or null: ' || rtrim(''");
        for (const QString &field : m_stream.required)
            dlq << QStringLiteral(" || CASE WHEN b.") << stageColumn(fieldIndex(field)) << QStringLiteral(" IS NULL THEN ")
                << Bind{QString(field % QStringLiteral(" (") % pathOf(field) % QStringLiteral("), "))} << QStringLiteral(" ELSE '' END");
        dlq << QStringLiteral(", ', ') ELSE ");
        QVariantList messageBinds;
        dlq.text += badValueMessage(d, stagedValues(QStringLiteral("b")), messageBinds);
        dlq.binds << messageBinds;
        dlq << QStringLiteral(" END, ") << m_payload << QStringLiteral(", ") << m_payload << QStringLiteral(", 'new', 0, ")
            << m_db.dialect().nowUtcText() << from << u' ' % d.fixedOrderJoin() % u' ' << m_db.quoteTable(m_stream.log) << QStringLiteral(" AS l ON ")
            << m_p << QStringLiteral(" = b.p AND ") << m_o << QStringLiteral(" = b.o WHERE NOT ") << ok
            << QStringLiteral(" AND NOT EXISTS (SELECT 1 FROM rewind_dlq AS d WHERE d.source_kind = 'stream' AND d.source_name = ")
                    << Bind{m_stream.name}
            << QStringLiteral(" AND d.part = CAST(b.p AS TEXT) AND d.log_offset = b.o) ORDER BY b.p, b.o");
        m_dlqInsert = dlq;
        return {};
    }

    // The statement that stages the batch whose slices are filled. A log
    // landed in arrival order holds a batch's events together in storage:
    // reading them through the (partition, offset) index looks each row up on
    // its own, about twice the cost of scanning the stretch they lie in (2M
    // events: 4.7 s against 2.5 s). The stretch is read when it holds at most
    // twice the batch's events.
    Result<Sql> stageStatement() const
    {
        if (!m_rangeStage)
            return m_stage;
        auto q = m_db.exec(m_rangeProbe);
        if (!q)
            return fail(q.error());
        if (!q->next() || q->value(0).isNull())
            return m_stage;
        const qint64 first = q->value(0).toLongLong(), last = q->value(1).toLongLong(), events = q->value(2).toLongLong();
        if (last - first + 1 > 2 * events)
            return m_stage;
        Sql ranged = *m_rangeStage;
        ranged.binds << first << last;
        return ranged;
    }

    // --- staging ahead (SQLite) ---
    //
    // The staging statement (reading the batch from the log, json_valid,
    // json_extract) is about as much work as the rest of the batch (the sink
    // insert, DLQ rows, offsets, audit and commit). On SQLite the next batch
    // is staged on a second connection, in a thread of its own, while this
    // one writes the current batch: the two run on two cores. A staged batch
    // is a table in a scratch database file of its own (one per batch, in a
    // temporary folder), written by the stager and then attached here for
    // the batch's transaction: two files, so neither connection ever waits
    // on the other's lock. The stager reads only the log (a WAL snapshot);
    // every write to the workspace stays in this connection's per-batch
    // transaction, so a replay killed at any point resumes as before.
    // REWIND_REPLAY_PIPELINE=0 stages each batch in turn on one connection.
    bool pipelineAvailable()
    {
        if (m_db.dialect().kind() != SqlDialect::Kind::Sqlite || qgetenv("REWIND_REPLAY_PIPELINE") == "0")
            return false;
        if (!m_db.sharedAcrossConnections())
            return false;
        // Scratch folders are named for their process; a replay killed
        // before removing its own leaves one, removed here once that
        // process is gone (another user's stay: kill() is refused).
        const QString prefix = QStringLiteral("rewind-replay-");
        const QDir temp(QDir::tempPath());
        for (const QFileInfo &left : temp.entryInfoList({prefix % u'*'}, QDir::Dirs | QDir::NoDotAndDotDot)) {
            bool ok = false;
            const qint64 pid = left.fileName().mid(prefix.size()).section(u'-', 0, 0).toLongLong(&ok);
            if (ok && pid > 0 && ::kill(pid_t(pid), 0) != 0 && errno == ESRCH)
                QDir(left.filePath()).removeRecursively();
        }
        m_scratch.emplace(temp.filePath(prefix % QString::number(QCoreApplication::applicationPid()) % QStringLiteral("-XXXXXX")));
        return m_scratch->isValid();
    }

    QString scratchFile(std::size_t k) const { return m_scratch->filePath(QStringLiteral("batch-%1.db").arg(k)); }

    // The stager's thread: stages batch after batch from the second, at
    // most one ahead of the batch being written; stops at the first error
    // (kept for the writer to report).
    void stageAhead()
    {
        for (std::size_t k = 1; k < m_batches.size(); ++k) {
            {
                std::unique_lock lock(m_mutex);
                m_wake.wait(lock, [&] { return m_stop || k <= m_consumed + 1; });
                if (m_stop)
                    return;
            }
            const Status s = stageToFile(k);
            if (s) // passive: copies what the WAL holds so far, never waits on the writer
                m_db.exec(QStringLiteral("PRAGMA wal_checkpoint(PASSIVE)"));
            {
                std::lock_guard lock(m_mutex);
                if (!s)
                    m_stageError = s.error();
                else
                    m_ready[k] = true;
            }
            m_wake.notify_all();
            if (!s)
                return;
        }
    }

    Status stageToFile(std::size_t k)
    {
        const QString file = scratchFile(k);
        QFile::remove(file);
        if (auto r = m_db.exec(QStringLiteral("ATTACH DATABASE ? AS ") % kStageSchema, {file}); !r)
            return fail(r.error());
        const Status staged = [&]() -> Status {
            // Scratch: nothing to roll back, nothing to make durable.
            if (auto r = m_db.execAll({QStringLiteral("PRAGMA ") % kStageSchema % QStringLiteral(".journal_mode = OFF"),
                                       QStringLiteral("PRAGMA ") % kStageSchema % QStringLiteral(".synchronous = OFF")});
                !r)
                return r;
            if (auto f = fillSlices(m_batches[k]); !f)
                return f;
            auto stage = stageStatement();
            if (!stage)
                return fail(stage.error());
            if (auto r = m_db.exec(QStringLiteral("CREATE TABLE ") % kStageSchema % u'.' % kBatchTable % QStringLiteral(" AS ") % stage->text,
                                   stage->binds);
                !r)
                return fail(r.error());
            return {};
        }();
        m_db.exec(QStringLiteral("DETACH DATABASE ") % kStageSchema);
        return staged;
    }

    // Waits for batch k's scratch file and attaches it (outside any
    // transaction, as SQLite requires).
    Status attachStaged(std::size_t k)
    {
        {
            std::unique_lock lock(m_mutex);
            m_wake.wait(lock, [&] { return m_ready[k] || m_stageError; });
            if (!m_ready[k])
                return fail(*m_stageError);
        }
        if (auto r = m_db.exec(QStringLiteral("ATTACH DATABASE ? AS ") % kStageSchema, {scratchFile(k)}); !r)
            return fail(r.error());
        return {};
    }

    void releaseStaged(std::size_t k)
    {
        m_db.exec(QStringLiteral("DETACH DATABASE ") % kStageSchema);
        QFile::remove(scratchFile(k));
        {
            std::lock_guard lock(m_mutex);
            m_consumed = k + 1;
        }
        m_wake.notify_all();
    }

    Status runBatch(const Batch &batch, std::size_t k)
    {
        qint64 consumed = 0, inserted = 0, fresh = 0, invalid = 0;
        QMap<qint64, qint64> perPartition;
        const int number = m_result.batches + 1;
        if (m_pipelined)
            if (auto a = attachStaged(k); !a)
                return a;
        const auto release = qScopeGuard([&] {
            if (m_pipelined)
                releaseStaged(k);
        });
        const Status s = m_db.writeTransaction([&]() -> Status {
            if (auto f = fillSlices(batch); !f)
                return f;
            if (!m_pipelined) {
                if (auto r = m_db.exec(m_db.dialect().dropTempTable(kBatchTable)); !r)
                    return fail(r.error());
                auto stage = stageStatement();
                if (!stage)
                    return fail(stage.error());
                if (auto r = m_db.exec(QStringLiteral("CREATE TEMP TABLE ") % kBatchTable % QStringLiteral(" AS ") % stage->text, stage->binds); !r)
                    return fail(r.error());
            }
            auto sink = m_db.exec(m_sinkInsert.text, m_sinkInsert.binds);
            if (!sink)
                return fail(sink.error());
            inserted = sink->numRowsAffected();
            failpoint("replay-after-sink");
            auto before = m_db.scalar(QStringLiteral("SELECT COALESCE(MAX(dlq_id), 0) FROM rewind_dlq"));
            if (!before)
                return fail(before.error());
            auto dlq = m_db.exec(m_dlqInsert.text, m_dlqInsert.binds);
            if (!dlq)
                return fail(dlq.error());
            fresh = dlq->numRowsAffected();
            if (fresh > 0) {
                auto history = m_db.exec(QStringLiteral("INSERT INTO rewind_dlq_history (dlq_id, at, os_user, action, from_status, to_status, "
                                                        "reason, payload_after) SELECT dlq_id, first_seen, ?, 'quarantined', NULL, 'new', "
                                                        "? || error_class, payload FROM rewind_dlq WHERE dlq_id > ?"),
                                         {osUser(), QString(QStringLiteral("replay ") % QString::number(m_result.replayId)
                                                            % QStringLiteral(" of group ") % m_group % QStringLiteral(": ")),
                                          *before});
                if (!history)
                    return fail(history.error());
            }
            // Every DLQ record in the batch's ranges, new or read before a rewind.
            auto known = m_db.scalar(QStringLiteral("SELECT COUNT(*) FROM ") % m_slices
                                         % QStringLiteral(" AS s JOIN rewind_dlq AS d ON d.source_kind = 'stream' AND d.source_name = ? "
                                                          "AND d.part = CAST(s.p AS TEXT) AND d.log_offset >= s.lo AND d.log_offset < s.hi"),
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
            const SqlDialect &d = m_db.dialect();
            auto commit = m_db.exec(QStringLiteral("INSERT INTO rewind_offsets (stream, group_id, partition_id, committed_offset, updated_at) "
                                                   "SELECT ?, ?, p, hi, ")
                                        % d.nowUtcText() % QStringLiteral(" FROM ") % m_slices % QStringLiteral(" WHERE true")
                                        % d.upsertSet({QStringLiteral("stream"), QStringLiteral("group_id"), QStringLiteral("partition_id")},
                                                      {QStringLiteral("committed_offset"), QStringLiteral("updated_at")}),
                                    {m_stream.name, m_group});
            if (!commit)
                return fail(commit.error());
            const qint64 duplicates = consumed - invalid - inserted;
            auto progress = m_db.exec(QStringLiteral("UPDATE rewind_replays SET consumed = consumed + ?, inserted = inserted + ?, "
                                                     "duplicates = duplicates + ?, dead_lettered = dead_lettered + ?, batches = batches + 1 "
                                                     "WHERE replay_id = ?"),
                                      {consumed, inserted, duplicates, fresh, m_result.replayId});
            if (!progress)
                return fail(progress.error());
            nlohmann::json slices = nlohmann::json::array();
            for (const Slice &sl : batch)
                slices.push_back({{"partition", sl.partition}, {"from", sl.lo}, {"to", sl.hi}});
            const nlohmann::json detail = {{"replay_id", m_result.replayId}, {"group", m_group.toStdString()}, {"batch", number},
                                           {"consumed", consumed}, {"inserted", inserted}, {"duplicates", duplicates},
                                           {"dead_lettered", fresh}, {"partitions", slices}};
            if (auto a = writeAudit(m_db, QStringLiteral("replay-batch"), QString(), m_stream.name, QVariant(),
                                    QString::fromStdString(detail.dump()));
                !a)
                return a;
            failpoint("replay-before-commit");
            return {};
        });
        if (!s)
            return s;
        m_result.batches = number;
        m_result.consumed += consumed;
        m_result.inserted += inserted;
        m_result.duplicates += consumed - invalid - inserted;
        m_result.deadLettered += fresh;
        m_result.alreadyDeadLettered += invalid - fresh;
        for (const Slice &sl : batch)
            for (auto &p : m_result.partitions)
                if (p.partition == sl.partition) {
                    p.to = sl.hi;
                    p.consumed += perPartition.value(sl.partition);
                }
        return {};
    }

    const Database &m_db;
    const StreamSpec &m_stream;
    const QString m_group;
    const ReplayOptions &m_options;
    QString m_slices, m_p, m_o, m_e, m_payload, m_from, m_countSlices, m_rangeFrom, m_rangeProbe;
    Sql m_stage, m_sinkInsert, m_dlqInsert; // m_stage: the staged batch's SELECT
    std::optional<Sql> m_rangeStage; // m_stage over a stretch of storage positions (binds: first, last)
    // Staging ahead (see pipelineAvailable()). The stager thread reads the
    // members above and writes only m_ready and m_stageError, under m_mutex.
    bool m_pipelined = false;
    std::optional<QTemporaryDir> m_scratch;
    std::mutex m_mutex;
    std::condition_variable m_wake;
    std::vector<bool> m_ready;  // per batch: staged into its file
    std::size_t m_consumed = 0; // batches whose transaction is over (their files released)
    bool m_stop = false;
    std::optional<Error> m_stageError;
    QMap<QString, ColumnInfo> m_sinkColumns; // field -> its sink column (declared type, strict)
    std::vector<Batch> m_batches;
    qint64 m_offsetsTotal = 0;
    std::optional<qint64> m_restoreCache;
    std::optional<qint64> m_restoreAutoCheckpoint;
    ReplayResult m_result;
};

} // namespace

Result<ReplayResult> replay(const Database &db, const StreamSpec &stream, const QString &group, const ReplayOptions &options)
{
    return Replayer(db, stream, group, options).run();
}

} // namespace rw
