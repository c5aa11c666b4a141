#include "core/batch/prune.h"

#include "core/batch/batch.h"
#include "core/batch/batchsql.h"
#include "core/batch/runs.h"
#include "core/batch/swapstore.h"
#include "core/sql/audit.h"
#include "core/sql/privileges.h"
#include "core/util/timeutil.h"

#include <QDateTime>
#include <QHash>
#include <QRegularExpression>
#include <QStringBuilder>
#include <nlohmann/json.hpp>

namespace rw {

namespace {

// --before as rewind_runs.finished_at holds times (ISO-8601 UTC with
// milliseconds), so that the two compare as text.
Result<QString> normalisedBefore(const QString &text) {
    static const QRegularExpression date(QStringLiteral("^\\d{4}-\\d{2}-\\d{2}$"));
    if (date.match(text).hasMatch()) {
        const QDate d = QDate::fromString(text, Qt::ISODate);
        if (!d.isValid())
            return badInput(QStringLiteral("--before \"%1\" is not a date").arg(text));
        return d.toString(Qt::ISODate) % QStringLiteral("T00:00:00.000Z");
    }
    auto t = timeutil::parseTimestamp(text);
    if (!t)
        return badInput(
            QStringLiteral("--before \"%1\" is not a time (ISO-8601, e.g. 2026-11-01 or "
                           "2026-11-01T12:00:00Z): %2")
                .arg(text, t.error().message));
    return t->toUTC().toString(Qt::ISODateWithMs);
}

QString marks(qsizetype n) {
    QStringList m;
    for (qsizetype i = 0; i < n; ++i)
        m << QStringLiteral("?");
    return m.join(QStringLiteral(", "));
}

// Image rows per run, for `runs`, in one GROUP BY per 500 runs.
Status countImages(const Database &db, const QString &images, std::vector<PrunedRun> &runs) {
    QHash<qint64, PrunedRun *> byId;
    for (PrunedRun &r : runs)
        byId.insert(r.runId, &r);
    for (size_t from = 0; from < runs.size(); from += 500) {
        const size_t n = std::min<size_t>(500, runs.size() - from);
        QVariantList binds;
        for (size_t i = 0; i < n; ++i)
            binds << runs[from + i].runId;
        auto q = db.exec(QStringLiteral("SELECT rewind_run_id, COUNT(*) FROM ") % images %
                             QStringLiteral(" WHERE rewind_run_id IN (") % marks(qsizetype(n)) %
                             QStringLiteral(") GROUP BY rewind_run_id"),
                         binds);
        if (!q)
            return fail(q.error());
        while (q->next())
            if (PrunedRun *r = byId.value(q->value(0).toLongLong()))
                r->imageRows = q->value(1).toLongLong();
    }
    return {};
}

} // namespace

Result<PruneResult> pruneImages(const Database &db, const Spec &spec, const PruneOptions &options) {
    auto dataset = spec.requireDataset(options.dataset);
    if (!dataset)
        return fail(dataset.error());
    const DatasetSpec &ds = **dataset;
    if (!options.before && !options.keep)
        return badInput(QStringLiteral(
            "prune needs --before TIME (runs finished before it) or --keep N (all but the newest "
            "N runs that can be rolled back), or both"));
    if (options.keep && *options.keep < 0)
        return badInput(
            QStringLiteral("--keep %1: a number of runs, 0 or more").arg(*options.keep));

    PruneResult result;
    result.dataset = ds.name;
    result.keep = options.keep;
    result.executed = options.execute;
    if (options.before) {
        auto before = normalisedBefore(*options.before);
        if (!before)
            return fail(before.error());
        result.before = *before;
    }

    // Finished runs that cannot be resumed, newest first: the newest `keep`
    // that can still be rolled back (succeeded, images kept) keep them; of
    // the others, those finished before --before whose images are still
    // there go (a rolled-back run's images serve nothing any more).
    auto q = db.exec(QStringLiteral("SELECT run_id, status, finished_at, images_pruned_at FROM "
                                    "rewind_runs WHERE dataset = ? AND status IN (?, ?) "
                                    "ORDER BY run_id DESC"),
                     {ds.name, enumName(RunStatus::Succeeded), enumName(RunStatus::RolledBack)});
    if (!q)
        return fail(q.error());
    int kept = 0;
    while (q->next()) {
        const bool pruned = !q->value(3).isNull() && !q->value(3).toString().isEmpty();
        if (pruned)
            continue;
        const bool undoable = q->value(1).toString() == enumName(RunStatus::Succeeded);
        if (options.keep && undoable && kept < *options.keep) {
            ++kept;
            continue;
        }
        const QString finished = q->value(2).toString();
        if (options.before && (finished.isEmpty() || finished >= result.before))
            continue;
        result.runs.push_back({q->value(0).toLongLong(), q->value(1).toString(), finished, 0, 0});
    }
    std::reverse(result.runs.begin(), result.runs.end());
    if (result.runs.empty())
        return result;

    auto sql = BatchSql::make(db, ds);
    if (!sql)
        return fail(sql.error());
    auto hasImages = db.hasRelation(sql->imagesTable());
    if (!hasImages)
        return fail(hasImages.error());
    const QString images = db.quote(sql->imagesTable());
    {
        QHash<qint64, PrunedRun *> byId;
        for (PrunedRun &r : result.runs)
            byId.insert(r.runId, &r);
        auto saved = db.exec(QStringLiteral("SELECT run_id, COUNT(saved_table) FROM rewind_swaps "
                                            "WHERE dataset = ? GROUP BY run_id"),
                             {ds.name});
        if (!saved)
            return fail(saved.error());
        while (saved->next())
            if (PrunedRun *r = byId.value(saved->value(0).toLongLong()))
                r->savedLeaves = saved->value(1).toInt();
    }
    {
        std::vector<privileges::Need> needs;
        // Counted (a dry run too); deleted, and indexed as rollback reads
        // them first (CREATE INDEX: the table's owner's).
        if (*hasImages)
            privileges::addTable(needs, sql->imagesTable(),
                                 options.execute ? QStringLiteral("SELECT, OWNER, DELETE")
                                                 : QStringLiteral("SELECT"),
                                 QStringLiteral("the before-images"));
        if (options.execute) {
            // The leaves swaps detached were the target's (its owner's to drop).
            if (std::any_of(result.runs.begin(), result.runs.end(),
                            [](const PrunedRun &r) { return r.savedLeaves > 0; }))
                privileges::addTable(needs, ds.target, QStringLiteral("OWNER"),
                                     QStringLiteral("the target, whose detached partitions are "
                                                    "dropped"));
            privileges::addControl(needs, {QStringLiteral("rewind_runs")},
                                   QStringLiteral("SELECT, UPDATE"));
            privileges::addControl(needs, {QStringLiteral("rewind_swaps")},
                                   QStringLiteral("SELECT, DELETE"));
            privileges::addControl(needs, {QStringLiteral("rewind_audit")},
                                   QStringLiteral("INSERT"));
        }
        if (auto s = privileges::require(
                db, QStringLiteral("prune of ") % ds.name % QStringLiteral("'s before-images"),
                needs);
            !s)
            return fail(s.error());
    }
    if (*hasImages)
        if (auto s = countImages(db, images, result.runs); !s)
            return fail(s.error());
    if (!options.execute)
        return result;

    // The delete of each run's images finds them by the index rollback uses
    // (run, kind, ...), made here when missing: without it, a scan of every
    // image per run.
    if (*hasImages) {
        auto kept = db.columns(sql->imagesTable());
        if (!kept)
            return fail(kept.error());
        QStringList names;
        for (const ColumnInfo &c : *kept)
            names << c.name;
        sql->setImagesColumns(names);
        if (auto s = db.execAll({sql->indexImages()}); !s)
            return fail(s.error());
    }
    for (PrunedRun &run : result.runs) {
        const Status done = Database::retryTransient(5, [&] {
            return db.writeTransaction([&]() -> Status {
                if (*hasImages) {
                    auto r = db.exec(QStringLiteral("DELETE FROM ") % images %
                                         QStringLiteral(" WHERE rewind_run_id = ?"),
                                     {run.runId});
                    if (!r)
                        return fail(r.error());
                    run.imageRows = r->numRowsAffected();
                }
                auto dropped = swapstore::dropSaved(db, run.runId, ds.name);
                if (!dropped)
                    return fail(dropped.error());
                run.savedLeaves = *dropped;
                const QString at = QDateTime::currentDateTimeUtc().toString(Qt::ISODateWithMs);
                if (auto s = runstore::markImagesPruned(db, run.runId, at); !s)
                    return s;
                return writeAudit(db, QStringLiteral("prune images"), ds.name, QString(), run.runId,
                                  QString::fromStdString(nlohmann::ordered_json{
                                      {"image_rows", run.imageRows},
                                      {"saved_leaves",
                                       run.savedLeaves}}.dump()));
            });
        });
        if (!done)
            return fail(Error{done.error().code, QStringLiteral("prune of run %1's images: %2")
                                                     .arg(run.runId)
                                                     .arg(done.error().message)});
    }
    return result;
}

} // namespace rw
