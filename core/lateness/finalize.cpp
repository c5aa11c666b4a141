#include "core/lateness/finalize.h"

#include "core/batch/batchjson.h"
#include "core/batch/partitions.h"
#include "core/batch/partitionstate.h"
#include "core/batch/planstore.h"
#include "core/sql/audit.h"
#include "core/sql/sqliteepoch.h"
#include "core/sql/timejson.h"
#include "core/workspace/workspace.h"

#include <QDateTime>
#include <QMap>
#include <QRegularExpression>
#include <QSet>
#include <QStringBuilder>

namespace rw {

namespace {

using Json = nlohmann::ordered_json;

Json list(const QStringList &values) {
    Json out = Json::array();
    for (const QString &v : values)
        out.push_back(v.toStdString());
    return out;
}

QString nowIso() {
    return QDateTime::currentDateTimeUtc().toString(Qt::ISODateWithMs);
}

// The watermark the last finalize of `dataset` used (its audit row), if any.
Result<std::optional<qint64>> lastFinalizeWatermark(const Database &db, const QString &dataset) {
    AuditFilter filter;
    filter.dataset = dataset;
    filter.action = QStringLiteral("finalize");
    auto rows = listAudit(db.control(), filter, 1);
    if (!rows)
        return fail(rows.error());
    if (rows->empty())
        return std::optional<qint64>();
    const auto detail = Json::parse(rows->front().detail.toStdString(), nullptr, false);
    if (!detail.is_object() || !detail.value("watermark", Json()).is_string())
        return std::optional<qint64>();
    const std::string text = detail["watermark"].get<std::string>();
    return parseEpochMs(text.c_str(), qsizetype(text.size()));
}

// Holds result.watermarkMs back while a feeding group lags (feeds.h): at the
// earliest held point; where a feeding log cannot be read (or its lagging
// records carry no event time), at most where the last finalize left it.
Status holdWatermark(const Database &db, const DatasetSpec &dataset, FinalizeResult &result) {
    if (dataset.feeds.empty())
        return {};
    auto holds = watermarkHolds(db, dataset);
    if (!holds)
        return fail(holds.error());
    result.heldBy = std::move(*holds);
    std::optional<qint64> held;
    bool unknown = false;
    for (const WatermarkHold &h : result.heldBy) {
        if (h.heldAtMs)
            held = held ? std::min(*held, *h.heldAtMs) : *h.heldAtMs;
        else
            unknown = true;
    }
    if (unknown) {
        auto last = lastFinalizeWatermark(db, dataset.name);
        if (!last)
            return fail(last.error());
        if (!*last) { // nowhere it was: nothing becomes final
            result.watermarkMs.reset();
            return {};
        }
        held = held ? std::min(*held, **last) : **last;
    }
    if (held && result.watermarkMs)
        result.watermarkMs = std::min(*result.watermarkMs, *held);
    return {};
}

} // namespace

namespace {

// The window a value names, by its shape: its grain and first instant.
std::optional<std::pair<WindowGrain, qint64>> windowOf(const QString &value) {
    static const QRegularExpression day(QStringLiteral("^(\\d{4}-\\d{2}-\\d{2})$"));
    static const QRegularExpression month(QStringLiteral("^(\\d{4}-\\d{2})$"));
    static const QRegularExpression hour(QStringLiteral(
        "^(\\d{4}-\\d{2}-\\d{2})[T ](\\d{2})(?::00(?::00(?:\\.0+)?)?)?(?:Z|\\+00(?::?00)?)?$"));
    const auto at = [](const QString &iso) -> std::optional<qint64> {
        const QByteArray text = iso.toLatin1();
        return parseEpochMs(text.constData(), text.size());
    };
    if (const auto m = day.match(value); m.hasMatch()) {
        if (auto ms = at(m.captured(1)))
            return std::pair{WindowGrain::Day, *ms};
    } else if (const auto mo = month.match(value); mo.hasMatch()) {
        if (auto ms = at(mo.captured(1) % QStringLiteral("-01")))
            return std::pair{WindowGrain::Month, *ms};
    } else if (const auto h = hour.match(value); h.hasMatch()) {
        if (h.captured(2).toInt() < 24)
            if (auto ms = at(h.captured(1) % u'T' % h.captured(2) % QStringLiteral(":00:00Z")))
                return std::pair{WindowGrain::Hour, *ms};
    }
    return std::nullopt;
}

} // namespace

Result<std::optional<WindowGrain>> windowGrain(const DatasetSpec &dataset,
                                               const QList<std::optional<QString>> &values) {
    const QString &granularity = dataset.partitionGranularity;
    std::optional<WindowGrain> declared;
    if (!granularity.isEmpty()) {
        declared = enumFromName<WindowGrain>(granularity);
        for (const auto &v : values)
            if (v && !partitionWindowMs(*declared, *v))
                return badInput(
                    QStringLiteral("dataset \"%1\": partition value \"%2\" of \"%3\" is not a %4, "
                                   "as \"partition_granularity\": \"%4\" says: its windows cannot "
                                   "be finalized")
                        .arg(dataset.name, *v, dataset.partitionColumn, granularity));
        return declared;
    }
    // Without one: the values' own shape, one for all.
    QMap<WindowGrain, QString> seen; // grain -> an example
    for (const auto &v : values)
        if (v)
            if (const auto w = windowOf(*v); w && !seen.contains(w->first))
                seen.insert(w->first, *v);
    if (seen.size() > 1) {
        QStringList shapes;
        for (auto it = seen.cbegin(); it != seen.cend(); ++it)
            shapes << QStringLiteral("%1s (\"%2\")").arg(enumName(it.key()), it.value());
        return badInput(
            QStringLiteral("dataset \"%1\": the values of \"partition_column\" (%2) "
                           "are of mixed shapes, %3: a watermark finalizes windows of "
                           "one calendar grain (set \"partition_granularity\", or make "
                           "the values alike)")
                .arg(dataset.name, dataset.partitionColumn, shapes.join(QStringLiteral(" and "))));
    }
    if (seen.isEmpty())
        return std::optional<WindowGrain>();
    return std::optional<WindowGrain>(seen.firstKey());
}

std::optional<std::pair<qint64, qint64>> partitionWindowMs(WindowGrain grain,
                                                           const QString &value) {
    const auto w = windowOf(value);
    if (!w)
        return std::nullopt;
    // A month may be named by its first day, as Rewind labels months.
    const bool monthByDay = grain == WindowGrain::Month && w->first == WindowGrain::Day &&
                            QDateTime::fromMSecsSinceEpoch(w->second, Qt::UTC).date().day() == 1;
    if (w->first != grain && !monthByDay)
        return std::nullopt;
    switch (grain) {
    case WindowGrain::Hour:
        return std::pair{w->second, w->second + 3'600'000};
    case WindowGrain::Day:
        return std::pair{w->second, w->second + 86'400'000};
    case WindowGrain::Month:
        return std::pair{
            w->second,
            QDateTime::fromMSecsSinceEpoch(w->second, Qt::UTC).addMonths(1).toMSecsSinceEpoch()};
    }
    return std::nullopt;
}

QString isoUtc(qint64 ms) {
    const QDateTime t = QDateTime::fromMSecsSinceEpoch(ms, Qt::UTC);
    return t.toString(ms % 1000 == 0 ? Qt::ISODate : Qt::ISODateWithMs);
}

Result<FinalizeResult> finalize(const Database &db, const DatasetSpec &dataset,
                                const FinalizeOptions &options) {
    if (dataset.eventTime.isEmpty())
        return badInput(QStringLiteral("dataset \"%1\" has no event_time: set \"event_time\" in "
                                       "the spec to compute a watermark")
                            .arg(dataset.name));
    if (!dataset.allowedLatenessSeconds)
        return badInput(
            QStringLiteral("dataset \"%1\" has no allowed_lateness: set \"allowed_lateness\" (like "
                           "\"2h\") in the spec to finalize partitions")
                .arg(dataset.name));

    FinalizeResult result;
    result.dataset = dataset.name;
    result.allowedLatenessSeconds = *dataset.allowedLatenessSeconds;

    // The watermark: one aggregate over the source's event times, those
    // not after now (a clock or parsing error in the future would pass
    // every day up to it).
    const qint64 nowMs = QDateTime::currentMSecsSinceEpoch();
    auto maxEvent =
        db.exec(QStringLiteral("SELECT MAX(CASE WHEN e <= ? THEN e END), SUM(CASE WHEN "
                               "e > ? THEN 1 ELSE 0 END) FROM (SELECT ") %
                    TimeJson::of(db.dialect()).epochMs(db.quote(dataset.eventTime)) %
                    QStringLiteral(" AS e FROM ") %
                    sourceRelation(dataset, db, QStringLiteral("src")) % QStringLiteral(") AS t"),
                {nowMs, nowMs});
    if (!maxEvent)
        return fail(maxEvent.error());
    if (maxEvent->next()) {
        if (!maxEvent->value(0).isNull()) {
            result.maxEventMs = maxEvent->value(0).toLongLong();
            result.watermarkMs = *result.maxEventMs - *dataset.allowedLatenessSeconds * 1000;
        }
        result.futureEvents = maxEvent->value(1).toLongLong();
    }
    maxEvent->finish(); // an open read would lock the temporary tables the publish drops (SQLite)
    result.unheldWatermarkMs = result.watermarkMs;
    if (auto s = holdWatermark(db, dataset, result); !s)
        return fail(s.error());

    Result<std::vector<PartitionInfo>> parts =
        options.partitions && !options.execute
            ? Result<std::vector<PartitionInfo>>(*options.partitions)
            : listPartitions(db, dataset);
    if (!parts)
        return fail(parts.error());
    QSet<QString> finalizedBefore;
    // Rewind's own tables live in the control store (on Trino, apart from the data).
    const Database ctl = db.control();
    auto finalizedParts = partitionstate::finalizedParts(ctl, dataset.name);
    if (!finalizedParts)
        return fail(finalizedParts.error());
    for (const QString &part : std::as_const(*finalizedParts))
        finalizedBefore.insert(part);

    QList<std::optional<QString>> values;
    for (const PartitionInfo &info : *parts)
        values << info.partition;
    auto grain = windowGrain(dataset, values);
    if (!grain)
        return fail(grain.error());
    result.grain = *grain;

    for (const PartitionInfo &info : *parts) {
        const auto window = info.partition && result.grain
                                ? partitionWindowMs(*result.grain, *info.partition)
                                : std::nullopt;
        if (!window) {
            result.undated << info.partition;
            continue;
        }
        const QString &day = *info.partition;
        const bool passed = result.watermarkMs && *result.watermarkMs >= window->second;
        if (info.status == PartitionStatus::Final)
            result.alreadyFinal << day;
        else if (info.sourceChanged && finalizedBefore.contains(day))
            result.stale << day; // late arrivals after finalization: a backfill, not a finalization
        else if (passed)
            result.finalized << day;
        else if (info.sourceChanged)
            result.stale << day;
        else
            result.provisional << day;
    }

    // A plan is checked whether or not anything is eligible: an unknown one,
    // or one covering a day that is not, is refused (exit 2), dry run or not.
    if (!options.planId.isEmpty()) {
        auto plan = loadPlan(ctl, options.planId);
        if (!plan)
            return fail(plan.error());
        QStringList outside;
        for (const PartitionRef &p : plan->scope)
            if (!p.label || !result.finalized.contains(*p.label))
                outside << partitionLabel(p.label);
        if (!outside.isEmpty())
            return badInput(QStringLiteral("plan %1 covers %2, which the watermark has not made "
                                           "final-eligible (or that are final "
                                           "already): preview the days to finalize again")
                                .arg(options.planId, outside.join(QStringLiteral(", "))));
    }
    if (!options.execute || result.finalized.isEmpty()) {
        result.executed = options.execute;
        return result;
    }

    BatchOptions batch;
    if (options.planId.isEmpty())
        batch.scope.partitions = result.finalized;
    else
        batch.planId = options.planId;
    batch.execute = true;
    batch.progress = options.progress;
    batch.cancel = options.cancel;
    auto run = rw::run(db, dataset, batch);
    if (!run)
        return fail(run.error());
    result.executed = true;
    const QStringList eligible = result.finalized;
    result.finalized.clear();
    for (const auto &p : run->partitions)
        if (p.published && p.partition)
            result.finalized << *p.partition;
    for (const QString &day : eligible)
        if (!result.finalized.contains(day))
            result.failed << day;
    result.run = *run;

    if (!result.finalized.isEmpty()) {
        const Status marked = ctl.writeTransaction([&]() -> Status {
            // A partition published moments ago has a state row; the run
            // recorded its fingerprint, so late data arriving since shows as stale.
            if (auto s = partitionstate::markFinal(ctl, dataset.name, result.finalized, nowIso());
                !s)
                return s;
            const Json detail = {{"watermark", isoUtc(*result.watermarkMs).toStdString()},
                                 {"allowed_lateness_seconds", result.allowedLatenessSeconds},
                                 {"partitions", list(result.finalized)}};
            return writeAudit(ctl, QStringLiteral("finalize"), dataset.name, QString(), run->runId,
                              QString::fromStdString(detail.dump()));
        });
        if (!marked)
            return fail(marked.error());
    }
    return result;
}

Json toJson(const std::vector<WatermarkHold> &holds) {
    Json heldBy = Json::array();
    for (const WatermarkHold &h : holds) {
        Json one = {
            {"stream", h.stream.toStdString()},
            {"group", h.group.isEmpty() ? Json(nullptr) : Json(h.group.toStdString())},
            {"lag", h.lag},
            {"held_at", h.heldAtMs ? Json(isoUtc(*h.heldAtMs).toStdString()) : Json(nullptr)}};
        if (!h.unreachable.isEmpty())
            one["reason"] = h.unreachable.toStdString();
        heldBy.push_back(std::move(one));
    }
    return heldBy;
}

Json toJson(const FinalizeResult &r) {
    Json undated = Json::array();
    for (const auto &p : r.undated)
        undated.push_back(p ? Json(p->toStdString()) : Json(nullptr));
    return {
        {"dataset", r.dataset.toStdString()},
        {"watermark", r.watermarkMs ? Json(isoUtc(*r.watermarkMs).toStdString()) : Json(nullptr)},
        {"held_by", toJson(r.heldBy)},
        {"grain", r.grain ? Json(std::string(enumName(*r.grain).toStdString())) : Json(nullptr)},
        {"finalized", list(r.finalized)},
        {"provisional", list(r.provisional)},
        {"stale", list(r.stale)},
        {"executed", r.executed},
        {"allowed_lateness_seconds", r.allowedLatenessSeconds},
        {"max_event_time",
         r.maxEventMs ? Json(isoUtc(*r.maxEventMs).toStdString()) : Json(nullptr)},
        {"future_events", r.futureEvents},
        {"already_final", list(r.alreadyFinal)},
        {"undated", undated},
        {"failed", list(r.failed)},
        {"run_id", r.run ? Json(r.run->runId.toLongLong()) : Json(nullptr)},
        {"run", r.run ? toJson(*r.run) : Json(nullptr)},
    };
}

int exitCodeOf(const FinalizeResult &result) {
    return result.run ? exitCodeOf(*result.run) : 0;
}

} // namespace rw
