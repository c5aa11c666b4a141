#include "core/streams/lag.h"

#include <QStringBuilder>
#include <algorithm>
#include <iterator>

namespace rw {

QString lagStatusName(LagStatus status) {
    switch (status) {
    case LagStatus::Unknown:
        return QStringLiteral("unknown");
    case LagStatus::Ok:
        return QStringLiteral("OK");
    case LagStatus::Warn:
        return QStringLiteral("WARN");
    case LagStatus::Stop:
        return QStringLiteral("STOP");
    case LagStatus::Stall:
        return QStringLiteral("STALL");
    case LagStatus::Rewind:
        return QStringLiteral("REWIND");
    }
    return QString();
}

LagStatus partitionLagStatus(const std::vector<LagSample> &samples, qint64 currentLag, qint64 nowMs,
                             std::optional<bool> hasMembers) {
    // Samples before the group's first commit in the partition are not
    // commits (Burrow has no offset for them).
    std::vector<LagSample> window;
    std::copy_if(samples.begin(), samples.end(), std::back_inserter(window),
                 [](const LagSample &s) { return s.committed.has_value(); });
    if (window.size() < 2)
        return LagStatus::Unknown;
    // Rule 1: lag that is zero now, or was at any point of the window, is OK.
    if (currentLag == 0 ||
        std::any_of(window.begin(), window.end(), [](const LagSample &s) { return s.lag == 0; }))
        return LagStatus::Ok;
    // Rule 2: the committed offset went back.
    for (size_t i = 1; i < window.size(); ++i)
        if (*window[i].committed < *window[i - 1].committed)
            return LagStatus::Rewind;
    // Rule 3, on the commits seen: the time each offset was first sampled
    // stands for its commit time. Stopped when the time since the newest
    // commit exceeds the span from the window's first commit to it (an
    // offset that never moved in the window has a span of 0).
    qint64 lastCommitMs = window.front().sampledMs;
    for (size_t i = 1; i < window.size(); ++i)
        if (*window[i].committed != *window[i - 1].committed)
            lastCommitMs = window[i].sampledMs;
    if (nowMs - lastCommitMs > lastCommitMs - window.front().sampledMs)
        // Rule 4 can only be told from rule 3 by members: consumers that are
        // there but do not move the offset are stalled.
        return hasMembers == true ? LagStatus::Stall : LagStatus::Stop;
    // Rule 5: the offset moves, but the lag never went down.
    bool lagFell = false;
    for (size_t i = 1; i < window.size(); ++i)
        lagFell = lagFell || window[i].lag < window[i - 1].lag;
    return lagFell ? LagStatus::Ok : LagStatus::Warn;
}

LagStatus groupLagStatus(const QMap<qint64, std::vector<LagSample>> &windows, qint64 nowMs,
                         std::optional<bool> hasMembers) {
    LagStatus worst = LagStatus::Unknown;
    for (const auto &w : windows)
        if (!w.empty())
            worst = std::max(worst, partitionLagStatus(w, w.back().lag, nowMs, hasMembers));
    return worst;
}

Status recordLagSamples(const Database &db, const QString &stream, const QString &group,
                        const std::vector<PartitionOffsets> &offsets, qint64 nowMs) {
    if (offsets.empty())
        return {};
    QVariantList binds;
    binds.reserve(qsizetype(offsets.size()) * 7);
    for (const PartitionOffsets &o : offsets)
        binds << stream << group << o.partition << nowMs
              << (o.stored ? QVariant(o.committed) : QVariant(QMetaType::fromType<qint64>()))
              << o.logEnd << o.lag;
    return db.writeTransaction([&]() -> Status {
        // At most one sample a second: a page that reads the group list and
        // then the group's offsets must not put two samples in the window.
        auto newest = db.scalar(
            QStringLiteral(
                "SELECT MAX(sampled_ms) FROM rewind_lag_samples WHERE stream = ? AND group_id = ?"),
            {stream, group});
        if (!newest)
            return fail(newest.error());
        if (!newest->isNull() && newest->toLongLong() > nowMs - kLagMinSpacingMs)
            return Status{};
        if (auto s = db.execRows(
                QStringLiteral("INSERT INTO rewind_lag_samples (stream, group_id, partition_id, "
                               "sampled_ms, committed_offset, log_end, lag) VALUES "),
                QStringLiteral("(?, ?, ?, ?, ?, ?, ?)"), 7, binds,
                QStringLiteral(" ON CONFLICT DO NOTHING"));
            !s)
            return s;
        // The newest kLagRetention sample times stay.
        auto trimmed = db.exec(
            QStringLiteral(
                "DELETE FROM rewind_lag_samples WHERE stream = ? AND group_id = ? AND sampled_ms < "
                "(SELECT MIN(t) FROM (SELECT DISTINCT sampled_ms AS t FROM rewind_lag_samples "
                "WHERE stream = ? AND group_id = ? ORDER BY sampled_ms DESC LIMIT %1) AS newest)")
                .arg(kLagRetention),
            {stream, group, stream, group});
        if (!trimmed)
            return fail(trimmed.error());
        return {};
    });
}

Result<QMap<qint64, std::vector<LagSample>>> recentLagSamples(const Database &db,
                                                              const QString &stream,
                                                              const QString &group,
                                                              int perPartition) {
    auto q = db.exec(
        QStringLiteral("SELECT partition_id, sampled_ms, committed_offset, log_end, lag FROM "
                       "(SELECT s.*, ROW_NUMBER() OVER (PARTITION BY partition_id ORDER BY "
                       "sampled_ms DESC) AS n "
                       "FROM rewind_lag_samples AS s WHERE stream = ? AND group_id = ?) AS r "
                       "WHERE n <= ? ORDER BY partition_id, sampled_ms"),
        {stream, group, perPartition});
    if (!q)
        return fail(q.error());
    QMap<qint64, std::vector<LagSample>> out;
    while (q->next()) {
        LagSample s;
        s.sampledMs = q->value(1).toLongLong();
        if (!q->value(2).isNull())
            s.committed = q->value(2).toLongLong();
        s.logEnd = q->value(3).toLongLong();
        s.lag = q->value(4).toLongLong();
        out[q->value(0).toLongLong()].push_back(s);
    }
    return out;
}

Result<std::vector<LagPoint>> lagHistory(const Database &db, const QString &stream,
                                         const QString &group, qint64 sinceMs) {
    auto q = db.exec(QStringLiteral("SELECT sampled_ms, SUM(lag) FROM rewind_lag_samples WHERE "
                                    "stream = ? AND group_id = ? AND sampled_ms >= ? "
                                    "GROUP BY sampled_ms ORDER BY sampled_ms"),
                     {stream, group, sinceMs});
    if (!q)
        return fail(q.error());
    std::vector<LagPoint> out;
    while (q->next())
        out.push_back({q->value(0).toLongLong(), q->value(1).toLongLong()});
    return out;
}

} // namespace rw
