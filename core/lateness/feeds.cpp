#include "core/lateness/feeds.h"

#include "core/sql/timejson.h"
#include "core/streams/streamlog.h"

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

// The event time, in epoch ms, of the records of `relation` at `ranges`'
// first offsets: through the stream's mapping of the dataset's event_time
// column, else (and where that is unreadable) the record timestamp.
Result<std::optional<qint64>> earliestEventMs(const Database &db, const StreamSpec &stream,
                                              const DatasetSpec &dataset,
                                              const EventRelation &relation,
                                              const std::vector<OffsetRange> &ranges) {
    const TimeJson &tj = TimeJson::of(db.dialect());
    const LogColumns &c = relation.columns;
    QString path;
    for (const auto &[column, jsonPath] : stream.fields)
        if (column == dataset.eventTime)
            path = jsonPath;
    const QString recordTs = tj.epochMs(db.quote(c.recordTs));
    QVariantList binds;
    if (!path.isEmpty())
        binds << path;
    const QString eventMs =
        path.isEmpty()
            ? recordTs
            : QString(QStringLiteral("COALESCE(") %
                      tj.epochMs(tj.jsonExtract(db.quote(c.payload), QStringLiteral("?"))) %
                      QStringLiteral(", ") % recordTs % u')');
    QStringList at;
    for (const OffsetRange &r : ranges) {
        at << QStringLiteral("(") % db.quote(c.partitionId) % QStringLiteral(" = ? AND ") %
                  db.quote(c.logOffset) % QStringLiteral(" = ?)");
        binds << r.partition << r.from;
    }
    auto q = db.exec(QStringLiteral("SELECT MIN(") % eventMs % QStringLiteral(") FROM ") %
                         db.quoteTable(relation.table) % QStringLiteral(" WHERE ") %
                         at.join(QStringLiteral(" OR ")),
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
            // The log cannot be read (a workspace error would have failed
            // the query above): the stream holds the watermark, saying why.
            holds.push_back({stream.name, QString(), 0, std::nullopt, groups.error().message});
            continue;
        }
        for (const ConsumerGroupInfo &g : *groups) {
            if (g.lag <= 0 || (*only && !(*only)->contains(g.group)))
                continue;
            std::vector<OffsetRange> lagging;
            for (const PartitionOffsets &o : g.offsets)
                if (o.lag > 0) {
                    const qint64 next = std::max(o.committed, o.logStart);
                    lagging.push_back({o.partition, next, next + 1});
                }
            WatermarkHold hold{stream.name, g.group, g.lag, std::nullopt, QString()};
            if (auto s = log->readRange(lagging); !s) {
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
