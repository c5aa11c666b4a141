#include "core/lateness/finalize.h"

#include "core/batch/batchjson.h"
#include "core/batch/partitions.h"
#include "core/batch/partitionstate.h"
#include "core/batch/planstore.h"
#include "core/sql/sqliteepoch.h"
#include "core/sql/timejson.h"
#include "core/workspace/workspace.h"

#include <QDateTime>
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

} // namespace

std::optional<qint64> dayPartitionStartMs(const QString &value) {
    if (value.size() != 10 || value.at(4) != u'-' || value.at(7) != u'-')
        return std::nullopt;
    const QByteArray text = value.toLatin1();
    auto ms = parseEpochMs(text.constData(), text.size());
    if (!ms)
        return std::nullopt;
    return ms;
}

std::optional<std::pair<qint64, qint64>> partitionWindowMs(const DatasetSpec &dataset,
                                                           const QString &value) {
    const QString &grain = dataset.partitionGranularity;
    if (grain == QLatin1String("hour")) {
        // 2025-05-06T05:00:00Z
        if (value.size() != 20 || !value.endsWith(QLatin1String(":00:00Z")))
            return std::nullopt;
        const QByteArray text = value.toLatin1();
        auto ms = parseEpochMs(text.constData(), text.size());
        if (!ms)
            return std::nullopt;
        return std::pair{*ms, *ms + 3'600'000};
    }
    const auto start = dayPartitionStartMs(value);
    if (!start)
        return std::nullopt;
    if (grain == QLatin1String("month")) {
        const QDateTime first = QDateTime::fromMSecsSinceEpoch(*start, Qt::UTC);
        if (first.date().day() != 1)
            return std::nullopt;
        return std::pair{*start, first.addMonths(1).toMSecsSinceEpoch()};
    }
    return std::pair{*start, *start + 86'400'000};
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

    Result<std::vector<PartitionInfo>> parts =
        options.partitions && !options.execute
            ? Result<std::vector<PartitionInfo>>(*options.partitions)
            : listPartitions(db, dataset);
    if (!parts)
        return fail(parts.error());
    QSet<QString> finalizedBefore;
    auto finalizedParts = partitionstate::finalizedParts(db, dataset.name);
    if (!finalizedParts)
        return fail(finalizedParts.error());
    for (const QString &part : std::as_const(*finalizedParts))
        finalizedBefore.insert(part);

    for (const PartitionInfo &info : *parts) {
        const auto window =
            info.partition ? partitionWindowMs(dataset, *info.partition) : std::nullopt;
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
        auto plan = loadPlan(db, options.planId);
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
        const Status marked = db.writeTransaction([&]() -> Status {
            // A partition published moments ago has a state row; the run
            // recorded its fingerprint, so late data arriving since shows as stale.
            if (auto s = partitionstate::markFinal(db, dataset.name, result.finalized, nowIso());
                !s)
                return s;
            const Json detail = {{"watermark", isoUtc(*result.watermarkMs).toStdString()},
                                 {"allowed_lateness_seconds", result.allowedLatenessSeconds},
                                 {"partitions", list(result.finalized)}};
            return writeAudit(db, QStringLiteral("finalize"), dataset.name, QString(), run->runId,
                              QString::fromStdString(detail.dump()));
        });
        if (!marked)
            return fail(marked.error());
    }
    return result;
}

Json toJson(const FinalizeResult &r) {
    Json undated = Json::array();
    for (const auto &p : r.undated)
        undated.push_back(p ? Json(p->toStdString()) : Json(nullptr));
    return {
        {"dataset", r.dataset.toStdString()},
        {"watermark", r.watermarkMs ? Json(isoUtc(*r.watermarkMs).toStdString()) : Json(nullptr)},
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
