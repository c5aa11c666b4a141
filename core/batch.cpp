#include "batch.h"

#include "batchchecks.h"
#include "batchjson.h"
#include "batchsql.h"
#include "failpoint.h"
#include "partitions.h"
#include "plans.h"
#include "runs.h"
#include "scd2.h"
#include "workspace.h"

#include <QCoreApplication>
#include <QDateTime>
#include <QJsonDocument>
#include <QLoggingCategory>
#include <QRandomGenerator>
#include <QSqlRecord>
#include <QStringBuilder>
#include <QSysInfo>
#include <QThread>

Q_LOGGING_CATEGORY(lcBatch, "rewind.batch")

namespace rw {

PartitionResult RunResult::totals() const
{
    PartitionResult t;
    for (const auto &p : partitions) {
        t.sourceRows += p.sourceRows;
        t.stagedRows += p.stagedRows;
        t.duplicatesDropped += p.duplicatesDropped;
        t.inserted += p.inserted;
        t.updated += p.updated;
        t.deleted += p.deleted;
        t.unchanged += p.unchanged;
    }
    return t;
}

bool RunResult::checksPassed() const
{
    return std::all_of(checks.begin(), checks.end(), [](const CheckResult &c) { return c.passed; });
}

int exitCodeOf(const RunResult &result)
{
    if (result.status == QLatin1String("stale_plan"))
        return 4;
    if (result.status == QLatin1String("check_failed"))
        return 3;
    if (result.status == QLatin1String("failed") || result.status == QLatin1String("cancelled"))
        return 1;
    return 0;
}

namespace {

// rewind_* tables key a NULL partition as ('', part_is_null = 1): the text must be empty, not NULL.
const QString kNullPartText = QStringLiteral("");

QString nowIso() { return QDateTime::currentDateTimeUtc().toString(Qt::ISODateWithMs); }

bool cancelled(const BatchOptions &o) { return o.cancel && o.cancel->load(); }

QJsonObject recordToJson(const SqlDialect &dialect, const QSqlRecord &record, int offset, int count)
{
    QJsonObject o;
    for (int i = 0; i < count; ++i)
        o.insert(record.fieldName(offset + i), dialect.jsonValue(record.field(offset + i)));
    return o;
}

Result<std::vector<QJsonObject>> sampleRows(const Database &db, const QString &sql, QVariantList binds, int limit, int width)
{
    binds << limit;
    auto q = db.exec(sql, binds);
    if (!q)
        return fail(q.error());
    std::vector<QJsonObject> out;
    while (q->next())
        out.push_back(recordToJson(db.dialect(), q->record(), 0, width));
    return out;
}

// Sample rows of each diff category of `r`, skipping the empty ones (their
// queries would scan the whole partition to find nothing).
Result<Samples> takeSamples(const Database &db, const BatchSql &sql, const PartitionRef &p, int limit, const PartitionResult &r)
{
    Samples s;
    const int width = int(sql.columns().size());
    QVariantList binds;
    if (r.inserted > 0) {
        const QString insertedSql = sql.sampleInserted(p, binds);
        auto inserted = sampleRows(db, insertedSql, binds, limit, width);
        if (!inserted)
            return fail(inserted.error());
        s.inserted = *inserted;
    }
    if (r.unchanged > 0) {
        binds.clear();
        const QString unchangedSql = sql.sampleUnchanged(p, binds);
        auto unchanged = sampleRows(db, unchangedSql, binds, limit, width);
        if (!unchanged)
            return fail(unchanged.error());
        s.unchanged = *unchanged;
    }
    if (r.deleted > 0) {
        binds.clear();
        const QString deletedSql = sql.sampleDeleted(p, binds);
        auto deleted = sampleRows(db, deletedSql, binds, limit, width);
        if (!deleted)
            return fail(deleted.error());
        s.deleted = *deleted;
    }
    if (r.updated == 0)
        return s;
    binds.clear();
    const QString updatedSql = sql.sampleUpdated(p, binds);
    binds << limit;
    auto q = db.exec(updatedSql, binds);
    if (!q)
        return fail(q.error());
    while (q->next()) {
        const QSqlRecord r = q->record();
        s.updated.emplace_back(recordToJson(db.dialect(), r, width, width), recordToJson(db.dialect(), r, 0, width));
    }
    return s;
}

// Per-partition counts of a GROUP BY query returning (label, is-null, n...),
// or, given the key of its one partition, of a query returning (n...).
Result<QHash<QString, QList<qint64>>> countsBy(const Database &db, const QString &sql, const QVariantList &binds, int values,
                                               const std::optional<QString> &onePartition = std::nullopt)
{
    auto q = db.exec(sql, binds);
    if (!q)
        return fail(q.error());
    QHash<QString, QList<qint64>> out;
    const int first = onePartition ? 0 : 2;
    while (q->next()) {
        QList<qint64> v;
        for (int i = 0; i < values; ++i)
            v << q->value(first + i).toLongLong();
        if (onePartition) {
            out.insert(*onePartition, v);
            continue;
        }
        const std::optional<QString> label = q->value(1).toInt() ? std::nullopt : std::optional<QString>(q->value(0).toString());
        out.insert(partitionKey(label), v);
    }
    return out;
}

using Counts = QHash<QString, QList<qint64>>; // per partitionKey

// Each partition's result from its counts: deduped and staged rows, the diff
// (join rows, inserted, updated) and, for an overwrite, the target's rows.
std::vector<PartitionResult> partitionResults(const std::vector<PartitionRef> &scope, const SourceStatsMap &stats, const Counts &deduped,
                                              const Counts &staged, const Counts &diff, const std::optional<Counts> &target)
{
    std::vector<PartitionResult> out;
    for (const auto &p : scope) {
        const QString key = partitionKey(p.label);
        PartitionResult r;
        r.partition = p.label;
        r.sourceRows = stats.value(key).rows;
        r.fingerprint = stats.value(key).fingerprint;
        r.duplicatesDropped = r.sourceRows - deduped.value(key, {0}).value(0);
        r.stagedRows = staged.value(key, {0}).value(0);
        const QList<qint64> d = diff.value(key, {0, 0, 0});
        r.inserted = d.value(1);
        r.updated = d.value(2);
        r.unchanged = r.stagedRows - r.inserted - r.updated;
        // Overwrite: every target row not matched by a staged row goes
        // (extra copies of a duplicated key included).
        r.deleted = target ? target->value(key, {0}).value(0) - (r.stagedRows - r.inserted) : 0;
        out.push_back(std::move(r));
    }
    return out;
}

// The target's rows per partition in the scope of the last createTargetCopy.
Result<Counts> targetRowCounts(const Database &db, const BatchSql &sql)
{
    QVariantList binds;
    const QString text = sql.targetCounts(binds);
    return countsBy(db, text, binds, 1, sql.countedPartition());
}

// The results of stageAndDiff from its counts: the overwrite's target rows
// and the source fingerprint read here.
Result<std::vector<PartitionResult>> finishResults(const Database &db, const DatasetSpec &dataset, const BatchSql &sql,
                                                   const std::vector<PartitionRef> &scope,
                                                   const std::function<Result<SourceStatsMap>()> &sourceStats, const Counts &deduped,
                                                   const Counts &staged, const Counts &diff)
{
    std::optional<Counts> target;
    if (dataset.write == QLatin1String("overwrite_partition")) {
        auto counts = targetRowCounts(db, sql);
        if (!counts)
            return fail(counts.error());
        target = std::move(*counts);
    }
    auto read = sourceStats();
    if (!read)
        return fail(read.error());
    return partitionResults(scope, *read, deduped, staged, diff, target);
}

// Runs `count` (per partition: staged rows, join rows, inserted, updated, 1
// when a staged partition or key is NULL) until its answer stands: first on
// plain `=`; after a NULL, again null-safe (`rewrite` first, where the staged
// rows must be written again); after join rows beyond the staged ones (a key
// the target repeats), again counting each staged row's update once.
// Returns the staged rows and the diff (join rows, inserted, updated).
Result<std::pair<Counts, Counts>> countAskingAgain(const BatchSql &sql, const std::function<Result<Counts>(bool targetKeysRepeat)> &count,
                                                    const std::function<Status()> &rewrite)
{
    sql.setStageKeysNotNull(true);
    bool targetKeysRepeat = false;
    for (;;) {
        auto counts = count(targetKeysRepeat);
        if (!counts)
            return fail(counts.error());
        const bool anyNull = std::any_of(counts->cbegin(), counts->cend(), [](const QList<qint64> &v) { return v.value(4) != 0; });
        const bool repeats = std::any_of(counts->cbegin(), counts->cend(), [](const QList<qint64> &v) { return v.value(1) != v.value(0); });
        if (anyNull && sql.stageKeysNotNull()) {
            sql.setStageKeysNotNull(false);
            if (rewrite)
                if (auto s = rewrite(); !s)
                    return fail(s.error());
            continue;
        }
        if (repeats && !targetKeysRepeat) {
            targetKeysRepeat = true;
            continue;
        }
        std::pair<Counts, Counts> out;
        for (auto it = counts->cbegin(); it != counts->cend(); ++it) {
            out.first.insert(it.key(), {it.value().value(0)});
            out.second.insert(it.key(), it.value().mid(1, 3));
        }
        return out;
    }
}

// A preview with no gates and no samples reads nothing of the staged rows but
// their counts: the deduped rows are counted and joined to the target in one
// statement and never written, where the engine does that faster
// (SqlDialect::stagesJoinedToTarget). Measured on PostgreSQL, 95,000 staged
// rows: 210-340 ms against 510-530 ms to write the stage, count it and diff
// it; on SQLite, 19,000 rows, 79-92 ms against 57-60 ms.
// A NULL partition or key (plain `=` leaves it unmatched) or a key the
// target repeats (each staged row's update counted once) asks again.
Result<std::vector<PartitionResult>> diffWithoutStage(const Database &db, const DatasetSpec &dataset, const BatchSql &sql,
                                                      const std::vector<PartitionRef> &scope,
                                                      const std::function<Result<SourceStatsMap>()> &sourceStats,
                                                      const std::function<void(const QString &)> &phase)
{
    phase(QStringLiteral("diff"));
    QVariantList binds;
    const QStringList copy = sql.createTargetCopy(scope, binds);
    for (qsizetype i = 0; i < copy.size(); ++i)
        if (auto r = db.exec(copy[i], i == 1 ? binds : QVariantList()); !r)
            return fail(r.error());
    const std::optional<QString> one = BatchSql::onePartitionKey(scope);
    auto counts = countAskingAgain(
        sql,
        [&](bool targetKeysRepeat) {
            QVariantList b;
            const QString text = sql.dedupedDiffCounts(scope, targetKeysRepeat, b);
            return countsBy(db, text, b, 5, one);
        },
        {});
    if (!counts)
        return fail(counts.error());
    return finishResults(db, dataset, sql, scope, sourceStats, counts->first, counts->first, counts->second);
}

// A merge publish of one partition into a target read directly, with no
// gates and no samples, where the engine is faster that way
// (SqlDialect::stagesJoinedToTarget): the staged rows are written once,
// already joined to their target rows (createStageWithMatches), and one read
// of them counts everything (matchSummary). Matched on plain `=` first:
// measured on PostgreSQL, 95,000 staged rows, the null-safe match sorted both
// sides on disk (about 800 ms) where `=` hashes them. A NULL partition or key
// (which `=` leaves unmatched: it would be inserted twice) writes the stage
// again, null-safe; a key the target repeats counts again, each staged row's
// update once. (Probing the source for NULL keys first cost a scan of its
// partition in every run, 110 ms of 100,000 rows, for a rare case; the NULL
// probe, the staged total and the counts as three reads, 50-60 ms.)
Result<std::vector<PartitionResult>> diffWithMatches(const Database &db, const DatasetSpec &dataset, const BatchSql &sql,
                                                     const std::vector<PartitionRef> &scope,
                                                     const std::function<Result<SourceStatsMap>()> &sourceStats,
                                                     const BatchOptions &options, const std::function<void(const QString &)> &phase)
{
    phase(QStringLiteral("stage"));
    const std::optional<QString> one = BatchSql::onePartitionKey(scope);
    const auto writeStage = [&]() -> Status {
        QVariantList binds;
        const QStringList stage = sql.createStageWithMatches(scope, binds);
        for (qsizetype i = 0; i < stage.size(); ++i)
            if (auto r = db.exec(stage[i], i == stage.size() - 1 ? binds : QVariantList()); !r)
                return fail(r.error());
        return {};
    };
    sql.setStageKeysNotNull(true);
    if (auto s = writeStage(); !s)
        return fail(s.error());
    auto counts = countAskingAgain(
        sql, [&](bool targetKeysRepeat) { return countsBy(db, sql.matchSummary(targetKeysRepeat), {}, 5, one); }, writeStage);
    if (!counts)
        return fail(counts.error());
    failpoint("after-stage");
    if (cancelled(options))
        return internalError(QStringLiteral("cancelled"));
    phase(QStringLiteral("diff"));
    QVariantList binds;
    const QStringList copy = sql.createTargetCopy(scope, binds); // reads the target directly: sets the scope only
    for (qsizetype i = 0; i < copy.size(); ++i)
        if (auto r = db.exec(copy[i], i == 1 ? binds : QVariantList()); !r)
            return fail(r.error());
    return finishResults(db, dataset, sql, scope, sourceStats, counts->first, counts->first, counts->second);
}

// Stages the scope, runs the gates, and diffs against the target: the work
// shared by preview and by each chunk of a run. Leaves rewind_stage and
// rewind_tgt in place for the publish (`publish`: index the stage for it).
Result<std::vector<PartitionResult>> stageAndDiff(const Database &db, const DatasetSpec &dataset, const BatchSql &sql,
                                                  const std::vector<PartitionRef> &scope,
                                                  const std::function<Result<SourceStatsMap>()> &sourceStats,
                                                  const QVariant &runId, const BatchOptions &options, bool simulate, bool publish,
                                                  std::vector<CheckResult> &checks, const std::function<void(const QString &)> &phase)
{
    if (!publish && !sql.isScd2() && dataset.checks.empty() && options.samples == 0 && sql.targetExists() && !dataset.key.isEmpty()
        && db.dialect().stagesJoinedToTarget())
        return diffWithoutStage(db, dataset, sql, scope, sourceStats, phase);
    const bool overwrite = dataset.write == QLatin1String("overwrite_partition");
    // A merge publish into an indexed target works by row identity (no stage
    // index); with no gates and no samples to read the stage, the staged
    // rows are written once, already joined to their target rows.
    const bool useMatches = publish && !overwrite && !sql.isScd2() && sql.readsTargetDirectly();
    const bool stageInMatches = useMatches && dataset.checks.empty() && options.samples == 0 && scope.size() == 1
                                && db.dialect().stagesJoinedToTarget();
    sql.setUseMatches(useMatches);
    sql.setStageInMatches(stageInMatches);
    if (stageInMatches)
        return diffWithMatches(db, dataset, sql, scope, sourceStats, options, phase);
    phase(QStringLiteral("stage"));
    QVariantList binds;
    const QStringList stage = sql.createStage(scope, binds);
    int created = -1; // rows the stage's CREATE TABLE ... AS reported, where it does
    for (qsizetype i = 0; i < stage.size(); ++i) {
        auto r = db.exec(stage[i], i == stage.size() - 1 ? binds : QVariantList());
        if (!r)
            return fail(r.error());
        if (i == stage.size() - 1 && db.dialect().createdTableReportsRows())
            created = r->numRowsAffected();
    }
    failpoint("after-stage");
    // Staged rows per partition.
    auto countStage = [&]() -> Result<QHash<QString, QList<qint64>>> {
        if (scope.size() != 1)
            return countsBy(db, sql.stagedCounts(), {}, 1);
        auto n = db.scalar(sql.stagedTotal());
        if (!n)
            return fail(n.error());
        return QHash<QString, QList<qint64>>{{partitionKey(scope.front().label), {n->toLongLong()}}};
    };
    // One partition's count as the engine reported it writing the stage
    // (PostgreSQL: a read of 95,000 staged rows less, 30-40 ms).
    auto dedupedCounts = created >= 0 && scope.size() == 1
                             ? Result<QHash<QString, QList<qint64>>>(
                                   QHash<QString, QList<qint64>>{{partitionKey(scope.front().label), {qint64(created)}}})
                             : countStage();
    if (!dedupedCounts)
        return fail(dedupedCounts.error());
    const QHash<QString, QList<qint64>> deduped = *dedupedCounts;
    // Indexed for what looks staged rows up by key: gates, SCD2, a merge's
    // update by key match, samples. An overwrite's publish reads the stage
    // whole (its diff probes the target, not the stage).
    if (!dataset.checks.empty() || sql.isScd2()
        || (db.dialect().indexesStageForJoins() && ((publish && !useMatches && !overwrite) || (overwrite && options.samples > 0))))
        if (auto r = db.exec(sql.indexStage()); !r)
            return fail(r.error());

    if (cancelled(options))
        return internalError(QStringLiteral("cancelled"));
    phase(QStringLiteral("checks"));
    auto results = runChecks(db, dataset, sql, scope, runId);
    if (!results)
        return fail(results.error());
    checks.insert(checks.end(), results->begin(), results->end());
    failpoint("after-checks");

    phase(QStringLiteral("diff"));
    if (sql.isScd2()) {
        auto parts = scd2Diff(db, sql, scope, simulate, options.samples, options.cancel);
        if (!parts)
            return fail(parts.error());
        auto read = sourceStats();
        if (!read)
            return fail(read.error());
        const SourceStatsMap &stats = *read;
        for (auto &r : *parts) {
            const QString key = partitionKey(r.partition);
            r.sourceRows = stats.value(key).rows;
            r.fingerprint = stats.value(key).fingerprint;
            r.duplicatesDropped = r.sourceRows - deduped.value(key, {0}).value(0);
        }
        return parts;
    }
    auto nullKey = db.exec(sql.stageKeysNullProbe());
    if (!nullKey)
        return fail(nullKey.error());
    sql.setStageKeysNotNull(!nullKey->next());
    binds.clear();
    const QStringList copy = sql.createTargetCopy(scope, binds);
    for (qsizetype i = 0; i < copy.size(); ++i)
        if (auto r = db.exec(copy[i], i == 1 ? binds : QVariantList()); !r)
            return fail(r.error());
    // Gates may have quarantined staged rows.
    auto stagedCounts = dataset.checks.empty() ? dedupedCounts : countStage();
    if (!stagedCounts)
        return fail(stagedCounts.error());
    const QHash<QString, QList<qint64>> staged = *stagedCounts;
    if (useMatches) {
        binds.clear();
        const QStringList matches = sql.createMatches(binds);
        for (qsizetype i = 0; i < matches.size(); ++i)
            if (auto r = db.exec(matches[i], i == matches.size() - 1 ? binds : QVariantList()); !r)
                return fail(r.error());
    }
    const auto diffQuery = [&](bool targetKeysRepeat) {
        binds.clear();
        const QString counts = useMatches ? sql.matchCounts(targetKeysRepeat) : sql.diffCounts(targetKeysRepeat, binds);
        return countsBy(db, counts, binds, 3, sql.countedPartition());
    };
    auto diff = diffQuery(false);
    if (!diff)
        return fail(diff.error());
    for (auto it = diff->cbegin(); it != diff->cend(); ++it)
        if (it.value().value(0) != staged.value(it.key(), {0}).value(0)) { // a key the target holds twice
            diff = diffQuery(true);
            if (!diff)
                return fail(diff.error());
            break;
        }
    auto out = finishResults(db, dataset, sql, scope, sourceStats, deduped, staged, *diff);
    if (out && options.samples > 0)
        for (std::size_t i = 0; i < out->size(); ++i) {
            auto samples = takeSamples(db, sql, scope[i], options.samples, (*out)[i]);
            if (!samples)
                return fail(samples.error());
            (*out)[i].samples = *samples;
        }
    return out;
}

QString resultJsonText(const RunResult &r) { return QString::fromStdString(toJson(r).dump()); }

Status setRunStatus(const Database &db, const RunResult &result, const QString &error)
{
    return Database::retryTransient(5, [&] { return db.writeTransaction([&]() -> Status {
        auto r = db.exec(QStringLiteral("UPDATE rewind_runs SET status = ?, finished_at = ?, error = ?, result_json = ? WHERE run_id = ?"),
                         {result.status, result.finishedAt.isEmpty() ? QVariant() : QVariant(result.finishedAt),
                          error.isEmpty() ? QVariant() : QVariant(error), resultJsonText(result), result.runId});
        if (!r)
            return fail(r.error());
        return writeAudit(db, QStringLiteral("run ") % result.status, result.dataset, QString(), result.runId,
                          QString::fromStdString(nlohmann::ordered_json{{"plan_id", result.planId.toStdString()},
                                                                        {"error", error.toStdString()}}
                                                     .dump()));
    }); });
}

// The error that stops a chunk's transaction, and why.
enum class ChunkStop { None, CheckFailed, StalePlan, Cancelled };

// Publishes the partitions of `todo` one chunk at a time into `result`.
void executeChunks(const Database &db, const DatasetSpec &dataset, BatchSql &sql, const Plan &plan,
                   const std::vector<PartitionRef> &todo, const BatchOptions &options, RunResult &result, int alreadyDone)
{
    const bool overwrite = dataset.write == QLatin1String("overwrite_partition");
    Progress progress;
    progress.partitionsTotal = int(todo.size()) + alreadyDone;
    progress.partitionsDone = alreadyDone;
    for (const auto &pr : result.partitions)
        progress.rowsDone += pr.stagedRows;
    auto report = [&](const QString &phase) {
        progress.phase = phase;
        if (options.progress)
            options.progress(progress);
    };
    bool anyCheckFailed = false;
    SourceStatsReader fingerprints(db); // one second connection for the run's chunks
    // The partition's state: this run failed on it (its data untouched).
    const auto markFailed = [&](const PartitionRef &p) -> Status {
        if (auto r = db.exec(QStringLiteral("INSERT INTO rewind_partition_state (dataset, part, part_is_null, status, last_run_id) VALUES (?, ?, ?, 'failed', ?)")
                                 % db.dialect().upsertSet({QStringLiteral("dataset"), QStringLiteral("part"), QStringLiteral("part_is_null")},
                                                          {QStringLiteral("status"), QStringLiteral("last_run_id")}),
                             {dataset.name, p.label.value_or(kNullPartText), p.label ? 0 : 1, result.runId});
            !r)
            return fail(r.error());
        return {};
    };

    for (const PartitionRef &p : todo) {
        failpoint("chunk-start");
        progress.partition = partitionLabel(p.label);
        if (cancelled(options)) {
            result.status = QStringLiteral("cancelled");
            break;
        }
        const std::vector<PartitionRef> one{p};
        PartitionResult partResult;
        std::vector<CheckResult> checks;
        ChunkStop stop = ChunkStop::None;
        QString staleDetail;
        Status outcome;
        for (int attempt = 1;; ++attempt) {
            checks.clear();
            stop = ChunkStop::None;
            const bool targetExisted = sql.targetExists();
            outcome = db.writeTransaction([&]() -> Status {
                // Inside the write lock: the fingerprint the publish records
                // is of exactly the rows it publishes. It is read on a second
                // connection while this one stages, and compared before
                // anything is published.
                fingerprints.start(sql, one);
                const QString key = partitionKey(p.label);
                bool stale = false;
                const auto now = [&]() -> Result<SourceStatsMap> {
                    auto read = fingerprints.take();
                    // A run planned afresh locks each partition as it reads it.
                    if (read && plan.stats.contains(key) && read->value(key).fingerprint != plan.stats.value(key).fingerprint)
                        stale = true;
                    return read;
                };
                auto parts = stageAndDiff(db, dataset, sql, one, now, result.runId, options, false, true, checks, report);
                if (stale) {
                    stop = ChunkStop::StalePlan;
                    staleDetail = partitionLabel(p.label);
                    return fail(Error{Error::Code::StalePlan, QString()});
                }
                if (!parts) {
                    if (cancelled(options))
                        stop = ChunkStop::Cancelled;
                    return fail(parts.error());
                }
                partResult = parts->front();
                if (std::any_of(checks.begin(), checks.end(), [](const CheckResult &c) { return !c.passed; })) {
                    stop = ChunkStop::CheckFailed;
                    return fail(Error{Error::Code::CheckFailed, QString()});
                }
                if (cancelled(options)) {
                    stop = ChunkStop::Cancelled;
                    return internalError(QStringLiteral("cancelled"));
                }
                failpoint("before-publish");
                report(QStringLiteral("publish"));
                QStringList ddl = sql.createTargetIfMissing();
                ddl << sql.createImagesIfMissing();
                if (auto s = db.execAll(ddl); !s)
                    return s;
                sql.setTargetExists(true);
                if (sql.isScd2()) {
                    // Before-images and the reconciliation of the month.
                    if (auto s = scd2Publish(db, sql, partResult, result.runId); !s)
                        return s;
                } else {
                    // Before-images only of what changes: the diff already counted it.
                    QVariantList imageBinds{result.runId};
                    if (overwrite || partResult.updated > 0) {
                        const QString images = overwrite ? sql.saveImagesReplaced(imageBinds) : sql.saveImagesUpdated(imageBinds);
                        if (auto r = db.exec(images, imageBinds); !r)
                            return fail(r.error());
                    }
                    if (!overwrite && partResult.inserted > 0)
                        if (auto r = db.exec(sql.saveImagesInserted(), {result.runId}); !r)
                            return fail(r.error());
                    QVariantList binds;
                    if (overwrite) {
                        if (auto r = db.exec(sql.overwriteDelete(p, binds), binds); !r)
                            return fail(r.error());
                        if (auto r = db.exec(sql.overwriteInsert()); !r)
                            return fail(r.error());
                    } else {
                        if (partResult.updated > 0)
                            if (auto r = db.exec(sql.mergeUpdate(p, binds), binds); !r)
                                return fail(r.error());
                        if (partResult.inserted > 0)
                            if (auto r = db.exec(sql.mergeInsert()); !r)
                                return fail(r.error());
                    }
                }
                failpoint("after-write");
                partResult.published = true;
                const QString label = p.label.value_or(kNullPartText);
                const int isNull = p.label ? 0 : 1;
                const QString counts = QString::fromStdString(partitionJson(partResult).dump());
                if (auto r = db.exec(QStringLiteral("INSERT INTO rewind_checkpoints (run_id, part, part_is_null, status, committed_at, counts_json) "
                                                    "VALUES (?, ?, ?, 'done', ?, ?)")
                                         % db.dialect().upsertSet({QStringLiteral("run_id"), QStringLiteral("part"), QStringLiteral("part_is_null")},
                                                                  {QStringLiteral("status"), QStringLiteral("committed_at"), QStringLiteral("counts_json")}),
                                     {result.runId, label, isNull, nowIso(), counts});
                    !r)
                    return fail(r.error());
                for (const auto &c : checks)
                    if (auto r = db.exec(QStringLiteral("INSERT INTO rewind_check_results (run_id, part, part_is_null, name, passed, detail, at) VALUES (?, ?, ?, ?, ?, ?, ?)"),
                                         {result.runId, label, isNull, c.name, c.passed ? 1 : 0, c.detail, nowIso()});
                        !r)
                        return fail(r.error());
                // A backfill of a final partition leaves it final: the
                // watermark passed it once and only moves forward.
                if (auto r = db.exec(QStringLiteral("INSERT INTO rewind_partition_state (dataset, part, part_is_null, status, source_rows, source_sig, published_at, finalized_at, last_run_id) "
                                                    "VALUES (?, ?, ?, 'published', ?, ?, ?, NULL, ?) ON CONFLICT (dataset, part, part_is_null) DO UPDATE SET "
                                                    "status = CASE WHEN rewind_partition_state.finalized_at IS NOT NULL THEN 'final' ELSE 'published' END, "
                                                    "source_rows = excluded.source_rows, source_sig = excluded.source_sig, "
                                                    "published_at = excluded.published_at, last_run_id = excluded.last_run_id"),
                                     {dataset.name, label, isNull, partResult.sourceRows, partResult.fingerprint, nowIso(), result.runId});
                    !r)
                    return fail(r.error());
                if (auto s = writeAudit(db, QStringLiteral("publish"), dataset.name, QString(), result.runId,
                                        QString::fromStdString(partitionJson(partResult).dump()));
                    !s)
                    return s;
                failpoint("before-commit");
                return {};
            });
            if (outcome)
                failpoint("after-commit");
            if (!outcome && stop == ChunkStop::None && outcome.error().transient && attempt < options.maxAttempts) {
                sql.setTargetExists(targetExisted);
                const int wait = Database::backoffMs(attempt);
                qCInfo(lcBatch) << "partition" << progress.partition << "busy, retrying in" << wait << "ms (attempt" << attempt << ")";
                QThread::msleep(wait);
                continue;
            }
            if (!outcome)
                sql.setTargetExists(targetExisted);
            break;
        }
        (void)db.execAll(sql.dropWorkTables());

        result.checks.insert(result.checks.end(), checks.begin(), checks.end());
        if (outcome) {
            result.partitions.push_back(partResult);
            ++progress.partitionsDone;
            progress.rowsDone += partResult.stagedRows;
            report(QStringLiteral("published"));
            continue;
        }
        if (stop == ChunkStop::CheckFailed) {
            anyCheckFailed = true;
            partResult.published = false;
            result.partitions.push_back(partResult);
            // Record the failure on its own: the partition's data is untouched.
            const Status recorded = Database::retryTransient(options.maxAttempts, [&] { return db.writeTransaction([&]() -> Status {
                const QString label = p.label.value_or(kNullPartText);
                const int isNull = p.label ? 0 : 1;
                for (const auto &c : checks)
                    if (auto r = db.exec(QStringLiteral("INSERT INTO rewind_check_results (run_id, part, part_is_null, name, passed, detail, at) VALUES (?, ?, ?, ?, ?, ?, ?)"),
                                         {result.runId, label, isNull, c.name, c.passed ? 1 : 0, c.detail, nowIso()});
                        !r)
                        return fail(r.error());
                if (auto r = db.exec(QStringLiteral("INSERT INTO rewind_checkpoints (run_id, part, part_is_null, status, committed_at, counts_json) VALUES (?, ?, ?, 'check_failed', ?, ?)")
                                         % db.dialect().upsertSet({QStringLiteral("run_id"), QStringLiteral("part"), QStringLiteral("part_is_null")},
                                                                  {QStringLiteral("status"), QStringLiteral("committed_at"), QStringLiteral("counts_json")}),
                                     {result.runId, label, isNull, nowIso(), QString::fromStdString(partitionJson(partResult).dump())});
                    !r)
                    return fail(r.error());
                if (auto s = markFailed(p); !s)
                    return s;
                return writeAudit(db, QStringLiteral("check failed"), dataset.name, QString(), result.runId,
                                  QString::fromStdString(checksJson(checks).dump()));
            }); });
            if (!recorded) {
                result.status = QStringLiteral("failed");
                result.error = recorded.error().message;
                break;
            }
            ++progress.partitionsDone;
            report(QStringLiteral("check failed"));
            continue;
        }
        if (stop == ChunkStop::StalePlan) {
            result.status = QStringLiteral("stale_plan");
            result.error = QStringLiteral("the source of partition %1 changed since plan %2 was made: preview again").arg(staleDetail, plan.id);
            break;
        }
        if (stop == ChunkStop::Cancelled || cancelled(options)) {
            result.status = QStringLiteral("cancelled");
            break;
        }
        result.status = QStringLiteral("failed");
        result.error = outcome.error().transient
                           ? QStringLiteral("partition %1: the database stayed busy after %2 attempts: %3")
                                 .arg(progress.partition)
                                 .arg(options.maxAttempts)
                                 .arg(outcome.error().message)
                           : QStringLiteral("partition %1: %2").arg(progress.partition, outcome.error().message);
        // Shown as failed, as a failed check is, when the database still
        // answers (after a lost connection or a full disk it may not: the
        // run's own status says it then).
        (void)Database::retryTransient(options.maxAttempts, [&] { return db.writeTransaction([&] { return markFailed(p); }); });
        break;
    }
    if (result.status == QLatin1String("running"))
        result.status = anyCheckFailed ? QStringLiteral("check_failed") : QStringLiteral("succeeded");
    result.finishedAt = nowIso();
}

Status refuseFrozen(const Database &db, const DatasetSpec &dataset, const BatchOptions &options)
{
    if (options.ignoreFreeze)
        return {};
    auto frozen = db.exec(QStringLiteral("SELECT frozen_at, os_user, reason FROM rewind_frozen WHERE dataset = ?"), {dataset.name});
    if (!frozen)
        return fail(frozen.error());
    if (frozen->next())
        return internalError(QStringLiteral("dataset \"%1\" is frozen since %2 by %3%4: writes are refused until rewindctl unfreeze")
                                 .arg(dataset.name, frozen->value(0).toString(), frozen->value(1).toString(),
                                      frozen->value(2).toString().isEmpty() ? QString() : QStringLiteral(" (") % frozen->value(2).toString() % u')'));
    return {};
}

Result<RunResult> finish(const Database &db, RunResult result)
{
    if (auto s = setRunStatus(db, result, result.error); !s)
        return fail(s.error());
    if (result.status == QLatin1String("stale_plan"))
        return fail(Error{Error::Code::StalePlan, result.error});
    return result;
}

} // namespace

Result<RunResult> preview(const Database &db, const DatasetSpec &dataset, const BatchOptions &options)
{
    auto sql = BatchSql::make(db, dataset);
    if (!sql)
        return fail(sql.error());
    if (!options.planId.isEmpty())
        return badInput(QStringLiteral("--plan is for executing a stored plan: add --execute"));
    auto scope = resolveScope(db, dataset, *sql, options.scope);
    if (!scope)
        return fail(scope.error());
    if (sql->isScd2())
        if (auto s = refuseScd2OutOfOrder(db, dataset, *sql, *scope); !s)
            return fail(s.error());
    RunResult result;
    result.dataset = dataset.name;
    result.mode = dataset.write;
    result.startedAt = nowIso();
    // The fingerprint that locks the plan, read while the scope is staged.
    SourceStatsReader fingerprints(db);
    fingerprints.start(*sql, *scope);
    std::optional<SourceStatsMap> stats;
    const auto now = [&]() -> Result<SourceStatsMap> {
        auto read = fingerprints.take();
        if (read)
            stats = *read;
        return read;
    };
    Progress progress;
    progress.partitionsTotal = int(scope->size());
    auto parts = stageAndDiff(db, dataset, *sql, *scope, now, QVariant(), options, true, false, result.checks, [&](const QString &phase) {
        progress.phase = phase;
        if (options.progress)
            options.progress(progress);
    });
    (void)db.execAll(sql->dropWorkTables());
    if (!parts)
        return fail(parts.error());
    result.partitions = std::move(*parts);
    result.status = QStringLiteral("previewed");
    result.finishedAt = nowIso();

    Plan plan{newPlanId(), dataset.name, dataset.write, *scope, *stats};
    result.planId = plan.id;
    const Status stored = Database::retryTransient(options.maxAttempts, [&] { return db.writeTransaction([&]() -> Status {
        if (auto s = storePlan(db, plan, resultJsonText(result)); !s)
            return s;
        return writeAudit(db, QStringLiteral("preview"), dataset.name, QString(), QVariant(),
                          QString::fromStdString(nlohmann::ordered_json{{"plan_id", plan.id.toStdString()},
                                                                        {"partitions", scope->size()},
                                                                        {"totals", partitionJson(result.totals())}}
                                                     .dump()));
    }); });
    if (!stored)
        return fail(stored.error());
    return result;
}

Result<RunResult> run(const Database &db, const DatasetSpec &dataset, const BatchOptions &options)
{
    if (!options.execute)
        return preview(db, dataset, options);
    if (auto s = refuseFrozen(db, dataset, options); !s)
        return fail(s.error());
    auto sql = BatchSql::make(db, dataset);
    if (!sql)
        return fail(sql.error());

    Plan plan;
    if (!options.planId.isEmpty()) {
        const ScopeRequest &r = options.scope;
        if (!r.partitions.isEmpty() || r.from || r.to || r.stale)
            return badInput(QStringLiteral("--plan fixes the scope: drop --partition, --from, --to and --stale"));
        auto loaded = loadPlan(db, options.planId);
        if (!loaded)
            return fail(loaded.error());
        if (loaded->dataset != dataset.name)
            return badInput(QStringLiteral("plan %1 is for dataset \"%2\", not \"%3\"").arg(options.planId, loaded->dataset, dataset.name));
        if (loaded->mode != dataset.write)
            return badInput(QStringLiteral("plan %1 was made for write mode %2, but the spec now says %3: preview again")
                                .arg(options.planId, loaded->mode, dataset.write));
        auto stale = stalePartitions(db, *sql, *loaded);
        if (!stale)
            return fail(stale.error());
        if (!stale->isEmpty())
            return fail(Error{Error::Code::StalePlan, QStringLiteral("plan %1 is stale: the source of %2 changed since the preview; preview again")
                                                          .arg(options.planId, stale->join(QStringLiteral(", ")))});
        plan = *loaded;
    } else {
        // Planned afresh: each chunk fingerprints its partition inside its
        // own transaction, so no separate pass over the source is needed.
        auto scope = resolveScope(db, dataset, *sql, options.scope);
        if (!scope)
            return fail(scope.error());
        plan = Plan{newPlanId(), dataset.name, dataset.write, *scope, {}};
    }
    if (sql->isScd2())
        if (auto s = refuseScd2OutOfOrder(db, dataset, *sql, plan.scope); !s)
            return fail(s.error());

    RunResult result;
    result.dataset = dataset.name;
    result.mode = dataset.write;
    result.planId = plan.id;
    result.executed = true;
    result.status = QStringLiteral("running");
    result.startedAt = nowIso();
    const Status started = Database::retryTransient(options.maxAttempts, [&] { return db.writeTransaction([&]() -> Status {
        if (auto s = refuseConcurrentRun(db, dataset.name); !s)
            return s;
        if (options.planId.isEmpty())
            if (auto s = storePlan(db, plan, QString()); !s)
                return s;
        auto r = db.exec(QStringLiteral("INSERT INTO rewind_runs (dataset, kind, plan_id, mode, status, started_at, os_user, scope_json, pid, host) "
                                        "VALUES (?, 'run', ?, ?, 'running', ?, ?, ?, ?, ?)"),
                         {dataset.name, plan.id, plan.mode, result.startedAt, osUser(), scopeToJson(plan.scope),
                          QCoreApplication::applicationPid(), QSysInfo::machineHostName()});
        if (!r)
            return fail(r.error());
        auto id = db.scalar(QStringLiteral("SELECT MAX(run_id) FROM rewind_runs"));
        if (!id)
            return fail(id.error());
        result.runId = *id;
        return writeAudit(db, QStringLiteral("run started"), dataset.name, QString(), result.runId,
                          QString::fromStdString(nlohmann::ordered_json{{"plan_id", plan.id.toStdString()},
                                                                        {"partitions", plan.scope.size()}}
                                                     .dump()));
    }); });
    if (!started)
        return fail(started.error());
    executeChunks(db, dataset, *sql, plan, plan.scope, options, result, 0);
    return finish(db, std::move(result));
}

Result<RunResult> resume(const Database &db, const Spec &spec, qint64 runId, const BatchOptions &options)
{
    auto info = loadRun(db, runId);
    if (!info)
        return fail(info.error());
    if (info->status == QLatin1String("succeeded"))
        return badInput(QStringLiteral("run %1 already succeeded: nothing to resume").arg(runId));
    if (info->status == QLatin1String("rolled_back"))
        return badInput(QStringLiteral("run %1 was rolled back: start a new run").arg(runId));
    if (info->status == QLatin1String("running"))
        return badInput(QStringLiteral("run %1 is still running (process %2 on %3)").arg(runId).arg(info->pid).arg(info->host));
    auto dataset = spec.requireDataset(info->dataset);
    if (!dataset)
        return fail(dataset.error());
    if (!options.execute)
        return badInput(QStringLiteral("resume publishes: add --execute"));
    if (auto s = refuseFrozen(db, **dataset, options); !s)
        return fail(s.error());
    auto sql = BatchSql::make(db, **dataset);
    if (!sql)
        return fail(sql.error());
    auto plan = loadPlan(db, info->planId);
    if (!plan)
        return fail(plan.error());

    RunResult result;
    result.dataset = info->dataset;
    result.mode = plan->mode;
    result.planId = plan->id;
    result.runId = runId;
    result.executed = true;
    result.status = QStringLiteral("running");
    result.startedAt = info->startedAt;
    std::vector<PartitionRef> todo;
    for (const auto &p : plan->scope) {
        const auto done = info->done.constFind(partitionKey(p.label));
        if (done != info->done.cend())
            result.partitions.push_back(*done);
        else
            todo.push_back(p);
    }
    if (sql->isScd2())
        if (auto s = refuseScd2OutOfOrder(db, **dataset, *sql, todo); !s)
            return fail(s.error());
    Plan remaining = *plan;
    remaining.scope = todo;
    auto stale = stalePartitions(db, *sql, remaining);
    if (!stale)
        return fail(stale.error());
    if (!stale->isEmpty())
        return fail(Error{Error::Code::StalePlan, QStringLiteral("run %1 cannot resume: the source of %2 changed since its plan %3; start a new run")
                                                      .arg(runId)
                                                      .arg(stale->join(QStringLiteral(", ")), plan->id)});
    const Status marked = Database::retryTransient(options.maxAttempts, [&] { return db.writeTransaction([&]() -> Status {
        if (auto s = refuseConcurrentRun(db, info->dataset, runId); !s)
            return s;
        auto r = db.exec(QStringLiteral("UPDATE rewind_runs SET status = 'running', pid = ?, host = ?, finished_at = NULL, error = NULL WHERE run_id = ?"),
                         {QCoreApplication::applicationPid(), QSysInfo::machineHostName(), runId});
        if (!r)
            return fail(r.error());
        return writeAudit(db, QStringLiteral("run resumed"), info->dataset, QString(), runId,
                          QString::fromStdString(nlohmann::ordered_json{{"remaining", todo.size()}}.dump()));
    }); });
    if (!marked)
        return fail(marked.error());
    executeChunks(db, **dataset, *sql, *plan, todo, options, result, int(result.partitions.size()));
    // Keep the plan's order in the result.
    std::sort(result.partitions.begin(), result.partitions.end(),
              [](const PartitionResult &a, const PartitionResult &b) { return partitionLess(a.partition, b.partition); });
    return finish(db, std::move(result));
}

} // namespace rw
