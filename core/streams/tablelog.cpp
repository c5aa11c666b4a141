#include "core/streams/tablelog.h"

#include "core/sql/timejson.h"
#include "core/streams/offsetstore.h"
#include "core/streams/streamsdialect.h"

#include <QStringBuilder>
#include <algorithm>
#include <nlohmann/json.hpp>

namespace rw {

TableLog::TableLog(Database db, StreamSpec stream)
    : m_db(std::move(db))
    , m_stream(std::move(stream)) {}

QString TableLog::extentPerPartition() const {
    const QString p = m_db.quote(m_stream.logColumns.partitionId);
    const QString o = m_db.quote(m_stream.logColumns.logOffset);
    return QStringLiteral("SELECT ") % p % QStringLiteral(" AS p, MIN(") % o %
           QStringLiteral(") AS lo, MAX(") % o % QStringLiteral(") + 1 AS hi FROM ") %
           m_db.quoteTable(m_stream.log) % QStringLiteral(" WHERE ") % p %
           QStringLiteral(" IS NOT NULL GROUP BY ") % p;
}

Result<std::vector<StreamPartitionInfo>> TableLog::partitions() const {
    const LogColumns &c = m_stream.logColumns;
    const QString p = m_db.quote(c.partitionId);
    const QString o = m_db.quote(c.logOffset);
    const QString ts = m_db.quote(c.recordTs);
    auto q = m_db.exec(QStringLiteral("SELECT ") % p % QStringLiteral(", MIN(") % o %
                       QStringLiteral("), MAX(") % o % QStringLiteral(") + 1, COUNT(*), ") %
                       m_db.dialect().castText(QStringLiteral("MIN(") % ts % u')') %
                       QStringLiteral(", ") %
                       m_db.dialect().castText(QStringLiteral("MAX(") % ts % u')') %
                       QStringLiteral(" FROM ") % m_db.quoteTable(m_stream.log) %
                       QStringLiteral(" GROUP BY ") % p % QStringLiteral(" ORDER BY ") % p);
    if (!q)
        return fail(q.error());
    std::vector<StreamPartitionInfo> out;
    while (q->next())
        out.push_back({q->value(0).toLongLong(), q->value(1).toLongLong(), q->value(2).toLongLong(),
                       q->value(3).toLongLong(), q->value(4).toString(), q->value(5).toString()});
    return out;
}

Result<std::vector<PartitionOffsets>> TableLog::committedOffsets(const QString &group) const {
    const QString p = m_db.quote(m_stream.logColumns.partitionId);
    auto q = m_db.exec(
        QStringLiteral("SELECT l.p, l.lo, l.hi, c.committed_offset FROM (") % extentPerPartition() %
            QStringLiteral(") AS l LEFT JOIN rewind_offsets AS c ON c.stream = ? AND c.group_id = "
                           "? AND c.partition_id = l.p "
                           // and the group's commits in partitions that have no events left
                           "UNION ALL SELECT c.partition_id, NULL, NULL, c.committed_offset FROM "
                           "rewind_offsets AS c "
                           "WHERE c.stream = ? AND c.group_id = ? AND NOT EXISTS (SELECT 1 FROM ") %
            m_db.quoteTable(m_stream.log) % QStringLiteral(" AS e WHERE e.") % p %
            QStringLiteral(" = c.partition_id) ORDER BY 1"),
        {m_stream.name, group, m_stream.name, group});
    if (!q)
        return fail(q.error());
    std::vector<PartitionOffsets> out;
    while (q->next()) {
        PartitionOffsets r;
        r.partition = q->value(0).toLongLong();
        r.stored = !q->value(3).isNull();
        r.noEvents = q->value(1).isNull();
        r.committed = r.stored ? q->value(3).toLongLong() : q->value(1).toLongLong();
        r.logStart = r.noEvents ? r.committed : q->value(1).toLongLong();
        r.logEnd = r.noEvents ? r.committed : q->value(2).toLongLong();
        r.lag = std::max<qint64>(0, r.logEnd - std::max(r.committed, r.logStart));
        out.push_back(r);
    }
    return out;
}

Result<std::vector<ConsumerGroupInfo>> TableLog::consumerGroups() const {
    // Every group against every log partition, one row each: a partition the
    // group never committed in counts from the log start, as in committedOffsets.
    auto q = m_db.exec(
        QStringLiteral("SELECT g.group_id, g.parts, g.last_at, l.p, l.lo, l.hi, c.committed_offset "
                       "FROM (SELECT group_id, COUNT(*) AS parts, MAX(updated_at) AS last_at FROM "
                       "rewind_offsets "
                       "WHERE stream = ? GROUP BY group_id) AS g CROSS JOIN (") %
            extentPerPartition() %
            QStringLiteral(
                ") AS l LEFT JOIN rewind_offsets AS c ON c.stream = ? AND c.group_id = g.group_id "
                "AND c.partition_id = l.p ORDER BY g.group_id, l.p"),
        {m_stream.name, m_stream.name});
    if (!q)
        return fail(q.error());
    std::vector<ConsumerGroupInfo> out;
    while (q->next()) {
        const QString group = q->value(0).toString();
        if (out.empty() || out.back().group != group) {
            ConsumerGroupInfo g;
            g.group = group;
            g.partitions = q->value(1).toLongLong();
            g.lastCommitAt = q->value(2).toString();
            out.push_back(std::move(g));
        }
        PartitionOffsets o;
        o.partition = q->value(3).toLongLong();
        o.logStart = q->value(4).toLongLong();
        o.logEnd = q->value(5).toLongLong();
        o.stored = !q->value(6).isNull();
        o.committed = o.stored ? q->value(6).toLongLong() : o.logStart;
        o.lag = std::max<qint64>(0, o.logEnd - std::max(o.committed, o.logStart));
        out.back().lag += o.lag;
        out.back().offsets.push_back(o);
    }
    return out;
}

// How many timestamps could not be read comes in the same pass over the log.
Result<QMap<qint64, FirstAtOrAfter>> TableLog::firstOffsetsAtOrAfter(qint64 ms) const {
    const LogColumns &c = m_stream.logColumns;
    // The record timestamp's declared type: text, numbers and (PostgreSQL)
    // timestamp columns are read differently.
    auto columns = m_db.columns(m_stream.log);
    if (!columns)
        return fail(columns.error());
    QString type;
    for (const ColumnInfo &col : *columns)
        if (col.name == c.recordTs)
            type = col.type;
    auto q = m_db.exec(QStringLiteral("SELECT p, MIN(CASE WHEN t >= ? THEN o END), SUM(CASE WHEN t "
                                      "IS NULL THEN 1 ELSE 0 END) FROM (SELECT ") %
                           m_db.quote(c.partitionId) % QStringLiteral(" AS p, ") %
                           m_db.quote(c.logOffset) % QStringLiteral(" AS o, ") %
                           TimeJson::of(m_db.dialect()).epochMs(m_db.quote(c.recordTs), type) %
                           QStringLiteral(" AS t FROM ") % m_db.quoteTable(m_stream.log) %
                           QStringLiteral(") AS l GROUP BY p"),
                       {ms});
    if (!q)
        return fail(q.error());
    QMap<qint64, FirstAtOrAfter> out;
    while (q->next()) {
        FirstAtOrAfter f;
        if (!q->value(1).isNull())
            f.offset = q->value(1).toLongLong();
        f.unreadable = q->value(2).toLongLong();
        out.insert(q->value(0).toLongLong(), f);
    }
    return out;
}

Status TableLog::commit(const QString &group,
                        const std::vector<std::pair<qint64, qint64>> &offsets) const {
    return offsetstore::commit(m_db, m_stream.name, group, offsets);
}

// Batches read offset ranges per partition: without an index on
// (partition, offset) each would scan the whole log.
Result<bool> TableLog::prepareReads() const {
    const LogColumns &c = m_stream.logColumns;
    auto indexes = relationIndexColumns(m_db, m_db.dialect().listIndexColumns(), m_stream.log);
    if (!indexes)
        return fail(indexes.error());
    for (const QStringList &columns : *indexes)
        if (columns.size() >= 2 && columns[0] == c.partitionId && columns[1] == c.logOffset)
            return false;
    auto r = m_db.exec(
        QStringLiteral("CREATE INDEX IF NOT EXISTS ") %
        m_db.quote(QStringLiteral("rewind_ix_") % m_stream.log % QStringLiteral("_offsets")) %
        QStringLiteral(" ON ") % m_db.quoteTable(m_stream.log) % QStringLiteral(" (") %
        m_db.quote(c.partitionId) % QStringLiteral(", ") % m_db.quote(c.logOffset) % u')');
    if (!r)
        return fail(r.error());
    return true;
}

} // namespace rw
