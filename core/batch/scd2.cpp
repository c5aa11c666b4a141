#include "core/batch/scd2.h"

#include "core/batch/batchdiff.h"
#include "core/batch/partitions.h"
#include "core/batch/partitionstate.h"
#include "core/util/failpoint.h"

#include <QSqlRecord>
#include <QStringBuilder>
#include <set>

namespace rw {

namespace {

Status execWith(const Database &db, const QStringList &statements, int bindsAt,
                const QVariantList &binds) {
    for (qsizetype i = 0; i < statements.size(); ++i)
        if (auto r = db.exec(statements[i], i == bindsAt ? binds : QVariantList()); !r)
            return fail(r.error());
    return {};
}

} // namespace

Result<std::vector<PartitionResult>> scd2Diff(const Database &db, const BatchSql &sql,
                                              const std::vector<PartitionRef> &scope, bool simulate,
                                              int samples, const std::atomic<bool> *cancel) {
    const bool targetExists = sql.targetExists();
    QString dim = sql.quotedTarget();
    if (simulate || !targetExists) {
        if (auto s = db.execAll(sql.createScd2Sim(targetExists)); !s)
            return fail(s.error());
        dim = sql.scd2SimTable();
    }
    std::vector<PartitionResult> out;
    for (std::size_t i = 0; i < scope.size(); ++i) {
        const PartitionRef &month = scope[i];
        if (cancel && cancel->load())
            return internalError(QStringLiteral("cancelled"));
        QVariantList binds;
        if (auto s = execWith(db, sql.createScd2Work(dim, month, binds), 1, binds); !s)
            return fail(s.error());
        auto q = db.exec(sql.scd2Counts());
        if (!q)
            return fail(q.error());
        if (!q->next())
            return internalError(QStringLiteral("scd2: no counts"));
        const qint64 opened = q->value(0).toLongLong(), closed = q->value(1).toLongLong(),
                     extended = q->value(2).toLongLong(), deleted = q->value(3).toLongLong(),
                     acted = q->value(4).toLongLong(), keys = q->value(5).toLongLong(),
                     gone = q->value(6).toLongLong();
        PartitionResult r;
        r.partition = month.label;
        r.stagedRows = keys;
        r.inserted = opened;
        r.updated = closed + extended;
        r.deleted = deleted;
        r.unchanged = keys - (acted - gone);
        r.versionsOpened = opened;
        r.versionsClosed = closed;
        if (sql.invalidatesHardDeletes())
            r.versionsInvalidated = gone;
        if (samples > 0) {
            Samples s;
            const int width = int(sql.columns().size());
            auto ins = sampleRows(db, sql.scd2SampleOpened(), {}, samples, width);
            if (!ins)
                return fail(ins.error());
            s.inserted = *ins;
            auto same = sampleRows(db, sql.scd2SampleUnchanged(), {}, samples, width);
            if (!same)
                return fail(same.error());
            s.unchanged = *same;
            const int full = int(sql.targetColumns().size());
            auto closedRows = db.exec(sql.scd2SampleClosed(dim), {samples});
            if (!closedRows)
                return fail(closedRows.error());
            while (closedRows->next()) {
                const QSqlRecord rec = closedRows->record();
                s.updated.emplace_back(recordToJson(db.dialect(), rec, 0, full),
                                       recordToJson(db.dialect(), rec, full, full));
            }
            r.samples = s;
        }
        // A preview applies the month to its copy so the next month sees it.
        if (simulate && i + 1 < scope.size() && sql.publishesInOneStatement()) {
            if (opened + closed + extended + deleted > 0)
                if (auto a = db.exec(sql.scd2Merge(dim)); !a)
                    return fail(a.error());
        } else if (simulate && i + 1 < scope.size()) {
            const QStringList apply = sql.scd2Apply(dim);
            const qint64 needed[] = {deleted, closed, extended, opened};
            for (qsizetype k = 0; k < apply.size(); ++k)
                if (needed[k] > 0)
                    if (auto a = db.exec(apply[k]); !a)
                        return fail(a.error());
        }
        out.push_back(std::move(r));
    }
    return out;
}

Status scd2Publish(const Database &db, const BatchSql &sql, const PartitionResult &diffed,
                   const QVariant &runId) {
    const qint64 opened = diffed.versionsOpened.value_or(0),
                 closed = diffed.versionsClosed.value_or(0);
    const qint64 extended = diffed.updated - closed, deleted = diffed.deleted;
    const QStringList images = sql.scd2SaveImages(); // deleted, updated, inserted
    const qint64 imageNeeded[] = {deleted, closed + extended, opened};
    for (qsizetype k = 0; k < images.size(); ++k)
        if (imageNeeded[k] > 0)
            if (auto r = db.exec(images[k], {runId}); !r)
                return fail(r.error());
    failpoint("scd2-after-images");
    const QStringList apply = sql.scd2Apply(sql.quotedTarget()); // delete, close, extend, insert
    const qint64 needed[] = {deleted, closed, extended, opened};
    for (qsizetype k = 0; k < apply.size(); ++k) {
        if (needed[k] > 0)
            if (auto r = db.exec(apply[k]); !r)
                return fail(r.error());
        // Old versions closed, their successors not open yet: the torn state
        // only the chunk's transaction keeps anyone from seeing.
        if (k == 1)
            failpoint("scd2-after-close");
    }
    return {};
}

Status refuseScd2OutOfOrder(const Database &db, const DatasetSpec &dataset, const BatchSql &sql,
                            const std::vector<PartitionRef> &scope) {
    if (scope.empty())
        return {};
    for (const auto &p : scope)
        if (!p.label)
            return badInput(QStringLiteral("dataset \"%1\" (scd2): some rows have no effective "
                                           "date (%2 is NULL); scd2 needs one per row")
                                .arg(dataset.name, dataset.partitionColumn));
    // Months already applied: recorded by Rewind, or present as versions.
    auto published = partitionstate::publishedParts(db.control(), dataset.name);
    if (!published)
        return fail(published.error());
    QStringList applied = *published;
    if (sql.targetExists()) {
        const QString vf = db.quote(dataset.scd2->validFrom);
        // Labelled as partitions are (a timestamp in ISO form, not the
        // driver's), so that the two compare.
        auto versions = db.exec(QStringLiteral("SELECT DISTINCT ") %
                                BatchDialect::of(db.dialect()).partitionText(vf) %
                                QStringLiteral(" FROM ") % sql.quotedTarget() %
                                QStringLiteral(" WHERE ") % vf % QStringLiteral(" IS NOT NULL"));
        if (!versions)
            return fail(versions.error());
        while (versions->next())
            applied << versions->value(0).toString();
    }
    const std::optional<QString> first = scope.front().label;
    std::set<QString> inScope;
    for (const auto &p : scope)
        inScope.insert(*p.label);
    QStringList missing;
    std::optional<QString> last;
    for (const QString &a : applied) {
        if (!partitionLess(first, std::optional<QString>(a)))
            continue;
        if (!last || partitionLess(last, std::optional<QString>(a)))
            last = a;
        if (!inScope.count(a) && !missing.contains(a))
            missing << a;
    }
    if (missing.isEmpty())
        return {};
    std::sort(missing.begin(), missing.end(),
              [](const QString &a, const QString &b) { return partitionLess(a, b); });
    return badInput(
        QStringLiteral(
            "dataset \"%1\" (scd2): cannot apply %2 while later months are already applied and not "
            "re-run (%3): "
            "history after %2 builds on it. Re-run the whole range from it: --from %2 --to %4")
            .arg(dataset.name, *first, missing.join(QStringLiteral(", ")), *last));
}

} // namespace rw
