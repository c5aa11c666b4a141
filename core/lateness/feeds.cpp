#include "core/lateness/feeds.h"

#include "core/sql/timejson.h"
#include "core/streams/streamlog.h"
#include "core/streams/streamsdialect.h"

#include <QDateTime>
#include <QLocale>
#include <QSet>
#include <QStringBuilder>
#include <algorithm>

namespace rw {

namespace {

// The groups of `stream` that may hold a watermark (feeds.h): those the
// spec names and those that replayed into its sink; none of either: every
// group the log lists (nullopt).
Result<std::optional<QSet<QString>>> holdingGroups(const Database &db, const StreamSpec &stream) {
    QSet<QString> groups;
    if (stream.kafka)
        for (const QString &g : stream.kafka->groups)
            groups.insert(g);
    auto q =
        db.exec(QStringLiteral("SELECT DISTINCT group_id FROM rewind_replays WHERE stream = ?"),
                {stream.name});
    if (!q)
        return fail(q.error());
    while (q->next())
        groups.insert(q->value(0).toString());
    if (groups.isEmpty())
        return std::optional<QSet<QString>>();
    return std::optional<QSet<QString>>(std::move(groups));
}

// The earliest event time, in epoch ms, of the first record at or after
// each range's `from` in `relation` (offsets may have gaps: retention,
// compaction, transaction markers): through the stream's mapping of the
// dataset's event_time column, else (and where the payload is no JSON or
// the value no time) the record timestamp.
Result<std::optional<qint64>> earliestEventMs(const Database &db, const StreamSpec &stream,
                                              const DatasetSpec &dataset,
                                              const EventRelation &relation,
                                              const std::vector<OffsetRange> &ranges) {
    if (auto s = prepareStreamSession(db); !s) // the JSON helpers of the session
        return fail(s.error());
    const TimeJson &tj = TimeJson::of(db.dialect());
    const LogColumns &c = relation.columns;
    QString path;
    for (const auto &[column, jsonPath] : stream.fields)
        if (column == dataset.eventTime)
            path = jsonPath;
    const QString recordTs = tj.epochMs(QStringLiteral("r.") % db.quote(c.recordTs));
    const QString eventMs =
        path.isEmpty()
            ? recordTs
            : QString(QStringLiteral("COALESCE(") %
                      tj.epochMs(StreamsDialect::of(db).jsonTextAt(
                          QStringLiteral("r.") % db.quote(c.payload), QStringLiteral("?"))) %
                      QStringLiteral(", ") % recordTs % u')');
    // One scalar subquery per partition: its first record from `from` on.
    QStringList firsts;
    QVariantList binds;
    for (const OffsetRange &r : ranges) {
        firsts << QStringLiteral("SELECT (SELECT ") % eventMs % QStringLiteral(" FROM ") %
                      db.quoteTable(relation.table) % QStringLiteral(" AS r WHERE r.") %
                      db.quote(c.partitionId) % QStringLiteral(" = ? AND r.") %
                      db.quote(c.logOffset) % QStringLiteral(" >= ? ORDER BY r.") %
                      db.quote(c.logOffset) % QStringLiteral(" LIMIT 1) AS e");
        if (!path.isEmpty())
            binds << path;
        binds << r.partition << r.from;
    }
    auto q = db.exec(QStringLiteral("SELECT MIN(e) FROM (") %
                         firsts.join(QStringLiteral(" UNION ALL ")) % QStringLiteral(") AS t"),
                     binds);
    if (!q)
        return fail(q.error());
    if (!q->next() || q->value(0).isNull())
        return std::optional<qint64>();
    return std::optional<qint64>(q->value(0).toLongLong());
}

} // namespace

Result<std::vector<WatermarkHold>> watermarkHolds(const Database &db, const DatasetSpec &dataset) {
    std::vector<WatermarkHold> holds;
    const qint64 latenessMs = dataset.allowedLatenessSeconds.value_or(0) * 1000;
    for (const StreamSpec &stream : dataset.feeds) {
        auto only = holdingGroups(db, stream);
        if (!only)
            return fail(only.error());
        const auto log = openStreamLog(db, stream);
        auto groups = log->consumerGroups();
        if (!groups) {
            // A cluster that does not answer holds the watermark, saying
            // why; a log table that cannot be read is an error as any other.
            if (!stream.kafka)
                return fail(groups.error());
            holds.push_back({stream.name, QString(), 0, std::nullopt, groups.error().message});
            continue;
        }
        for (const ConsumerGroupInfo &g : *groups) {
            if (g.lag <= 0 || (*only && !(*only)->contains(g.group)))
                continue;
            // Kafka: where a replay of the group would start, which the
            // workspace's offsets correct where a crash kept a replay's
            // commit from the cluster (streamlog.h).
            std::vector<PartitionOffsets> offsets = g.offsets;
            if (stream.kafka) {
                auto start = log->replayStart(g.group, false);
                if (!start) {
                    holds.push_back(
                        {stream.name, g.group, g.lag, std::nullopt, start.error().message});
                    continue;
                }
                offsets = std::move(*start);
            }
            std::vector<OffsetRange> lagging;
            qint64 lag = 0;
            for (const PartitionOffsets &o : offsets)
                if (o.lag > 0) {
                    const qint64 next = std::max(o.committed, o.logStart);
                    // A few records on: the first one present is the one read.
                    lagging.push_back({o.partition, next, std::min(o.logEnd, next + 64)});
                    lag += o.lag;
                }
            if (lagging.empty())
                continue;
            WatermarkHold hold{stream.name, g.group, lag, std::nullopt, QString()};
            if (auto s = log->readRange(lagging); !s) {
                if (!stream.kafka)
                    return fail(s.error());
                hold.unreachable = s.error().message;
            } else {
                auto earliest = earliestEventMs(db, stream, dataset, log->eventRelation(), lagging);
                if (!earliest)
                    return fail(earliest.error());
                if (*earliest)
                    hold.heldAtMs = **earliest - latenessMs;
            }
            holds.push_back(std::move(hold));
        }
    }
    return holds;
}

QString describeHold(const WatermarkHold &h) {
    if (!h.unreachable.isEmpty())
        return QStringLiteral("watermark held where the last finalize left it: stream %1%2 "
                              "cannot be read: %3")
            .arg(h.stream,
                 h.group.isEmpty() ? QString() : QStringLiteral(" (group %1)").arg(h.group),
                 h.unreachable.section(u'\n', 0, 0));
    const QString behind = QLocale(QLocale::English).toString(h.lag);
    if (!h.heldAtMs)
        return QStringLiteral("watermark held where the last finalize left it by group %1 of "
                              "stream %2, %3 events behind (their event times cannot be read)")
            .arg(h.group, h.stream, behind);
    return QStringLiteral("watermark held at %1 by group %2 of stream %3, %4 events behind")
        .arg(QDateTime::fromMSecsSinceEpoch(*h.heldAtMs, Qt::UTC).toString(Qt::ISODate), h.group,
             h.stream, behind);
}

} // namespace rw
