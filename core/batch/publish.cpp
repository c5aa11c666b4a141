#include "core/batch/publish.h"

#include "core/batch/batchdiff.h"
#include "core/batch/batchjson.h"
#include "core/batch/batchsql.h"
#include "core/batch/fingerprint.h"
#include "core/batch/partitions.h"
#include "core/batch/partitionstate.h"
#include "core/batch/partitionswap.h"
#include "core/batch/publishdetail.h"
#include "core/batch/runs.h"
#include "core/batch/scd2.h"
#include "core/util/failpoint.h"
#include "core/workspace/workspace.h"

#include <QDateTime>
#include <QElapsedTimer>
#include <QLoggingCategory>
#include <QScopeGuard>
#include <QStringBuilder>
#include <QThread>
#include <algorithm>

Q_DECLARE_LOGGING_CATEGORY(lcBatch)

namespace rw {

qint64 chunkRowBudget(qint64 fallback) {
    if (!qEnvironmentVariableIsSet("REWIND_CHUNK_ROWS"))
        return fallback;
    bool ok = false;
    const QString text = qEnvironmentVariable("REWIND_CHUNK_ROWS");
    const qint64 rows = text.toLongLong(&ok);
    if (ok && rows >= 1)
        return rows;
    qCWarning(lcBatch).noquote()
        << QStringLiteral("REWIND_CHUNK_ROWS=%1: expected a whole number from 1; using %2")
               .arg(text)
               .arg(fallback);
    return fallback;
}

namespace {

// rewind_* tables key a NULL partition as ('', part_is_null = 1): the text must be empty, not NULL.
const QString kNullPartText = QStringLiteral("");

QString nowIso() {
    return QDateTime::currentDateTimeUtc().toString(Qt::ISODateWithMs);
}

} // namespace

Status recordPublished(const Database &db, const DatasetSpec &dataset, const RunResult &result,
                       const std::vector<PartitionResult> &parts,
                       const std::vector<CheckResult> &checks) {
    const QString at = nowIso();
    std::vector<runstore::Checkpoint> checkpoints;
    QStringList details;
    std::vector<partitionstate::Published> states;
    for (const PartitionResult &p : parts) {
        const QString json = QString::fromStdString(partitionJson(p).dump());
        checkpoints.push_back({p.partition, CheckpointStatus::Done, at, json});
        details << json;
        states.push_back(
            {p.partition.value_or(kNullPartText), !p.partition, p.sourceRows, p.fingerprint});
    }
    const qint64 runId = result.runId.toLongLong();
    if (auto s = runstore::recordCheckpoints(db, runId, checkpoints); !s)
        return s;
    if (auto s = runstore::recordCheckResults(db, runId, checks, at); !s)
        return s;
    // A backfill of a final partition leaves it final: the watermark passed
    // it once and only moves forward.
    if (auto s = partitionstate::markPublished(db, dataset.name, states, at, result.runId); !s)
        return s;
    return writeAudits(db, QStringLiteral("publish"), dataset.name, result.runId, details);
}

Status recordCheckFailed(const Database &db, const DatasetSpec &dataset, const RunResult &result,
                         const PartitionRef &p, const PartitionResult &partResult,
                         const std::vector<CheckResult> &checks, int maxAttempts) {
    return Database::retryTransient(maxAttempts, [&] {
        return db.writeTransaction([&]() -> Status {
            const QString at = nowIso();
            const qint64 runId = result.runId.toLongLong();
            if (auto s = runstore::recordCheckResults(db, runId, checks, at); !s)
                return s;
            if (auto s = runstore::recordCheckpoints(
                    db, runId,
                    {{p.label, CheckpointStatus::CheckFailed, at,
                      QString::fromStdString(partitionJson(partResult).dump())}});
                !s)
                return s;
            if (auto s = partitionstate::markFailed(
                    db, dataset.name, p.label.value_or(kNullPartText), !p.label, result.runId);
                !s)
                return s;
            return writeAudit(db, QStringLiteral("check failed"), dataset.name, QString(),
                              result.runId, QString::fromStdString(checksJson(checks).dump()));
        });
    });
}

void markChunkFailed(const Database &db, const DatasetSpec &dataset, const RunResult &result,
                     const std::vector<PartitionRef> &chunk, int maxAttempts) {
    // Shown as failed, as a failed check is, when the database still
    // answers (after a lost connection or a full disk it may not: the run's
    // own status says it then).
    (void)Database::retryTransient(maxAttempts, [&] {
        return db.writeTransaction([&]() -> Status {
            for (const PartitionRef &q : chunk)
                if (auto s = partitionstate::markFailed(
                        db, dataset.name, q.label.value_or(kNullPartText), !q.label, result.runId);
                    !s)
                    return s;
            return {};
        });
    });
}

bool unpublishedChunk(const Database &ctl, const DatasetSpec &dataset, const Plan &plan,
                      const BatchOptions &options, const std::vector<PartitionRef> &chunk,
                      const std::vector<PartitionResult> &parts,
                      const std::vector<CheckResult> &checks, ChunkStop stop,
                      const QString &staleDetail, const Status &outcome, RunResult &result) {
    const PartitionRef &p = chunk.front();
    result.checks.insert(result.checks.end(), checks.begin(), checks.end());
    if (stop == ChunkStop::CheckFailed) {
        PartitionResult partResult = parts.empty() ? PartitionResult{} : parts.front();
        partResult.partition = p.label;
        partResult.published = false;
        result.partitions.push_back(partResult);
        // Recorded on its own: the partition's data is untouched.
        const Status recorded =
            recordCheckFailed(ctl, dataset, result, p, partResult, checks, options.maxAttempts);
        if (recorded)
            return true;
        result.status = RunStatus::Failed;
        result.error = recorded.error().message;
        return false;
    }
    if (stop == ChunkStop::StalePlan) {
        result.status = RunStatus::StalePlan;
        result.error =
            QStringLiteral(
                "the source of partition %1 changed since plan %2 was made: preview again")
                .arg(staleDetail, plan.id);
        return false;
    }
    if (stop == ChunkStop::Cancelled || cancelled(options)) {
        result.status = RunStatus::Cancelled;
        return false;
    }
    const QString where =
        chunk.size() > 1 ? QStringLiteral("partitions %1 to %2")
                               .arg(partitionLabel(p.label), partitionLabel(chunk.back().label))
                         : QStringLiteral("partition %1").arg(partitionLabel(p.label));
    result.status = RunStatus::Failed;
    result.error = outcome.error().transient
                       ? QStringLiteral("%1: the database stayed busy after %2 attempts: %3")
                             .arg(where)
                             .arg(options.maxAttempts)
                             .arg(outcome.error().message)
                       : QStringLiteral("%1: %2").arg(where, outcome.error().message);
    markChunkFailed(ctl, dataset, result, chunk, options.maxAttempts);
    return false;
}

namespace {

// The data write of the chunk staged and diffed in the work tables:
// before-images of what changes, then the write itself.
// Partitions of an overwrite whose leaf is swapped (partitionswap.h) are
// built as tables first, then swapped in with the parent locked: `locked`
// is started then.
Status writeChunk(const Database &db, const DatasetSpec &dataset, BatchSql &sql,
                  const std::vector<PartitionRef> &chunk, const std::vector<PartitionResult> &parts,
                  const QVariant &runId, bool &imagesAligned, QElapsedTimer &locked) {
    QStringList ddl = sql.createTargetIfMissing();
    ddl << sql.createImagesIfMissing();
    if (auto s = db.execAll(ddl); !s)
        return s;
    sql.setTargetExists(true);
    if (!imagesAligned) {
        auto images = db.columns(sql.imagesTable());
        if (!images)
            return fail(images.error());
        if (auto s = db.execAll(sql.alignImages(*images)); !s)
            return s;
        imagesAligned = true;
    }
    if (sql.isScd2()) // one month per chunk: its before-images and reconciliation
        return scd2Publish(db, sql, parts.front(), runId);
    if (dataset.keepsEveryRow()) {
        // delete_insert: the deleted rows' images, the staged keys (what a
        // rollback deletes by), the delete, every staged row inserted.
        // append: the staged rows themselves, then the insert.
        qint64 deleted = 0, staged = 0;
        for (const PartitionResult &p : parts) {
            deleted += p.deleted;
            staged += p.stagedRows;
        }
        if (deleted > 0) {
            QVariantList binds{runId};
            if (auto r = db.exec(sql.saveImagesDeletedByKey(binds), binds); !r)
                return fail(r.error());
        }
        if (staged > 0)
            if (auto r = db.exec(sql.saveImagesStaged(), {runId}); !r)
                return fail(r.error());
        if (deleted > 0) {
            QVariantList binds;
            if (auto r = db.exec(sql.deleteByStagedKeys(binds), binds); !r)
                return fail(r.error());
        }
        if (staged > 0) {
            QVariantList binds;
            if (auto r = db.exec(sql.insertStaged(sql.quotedTarget(), nullptr, binds), binds); !r)
                return fail(r.error());
        }
        return {};
    }
    const bool overwrite = dataset.write == WriteMode::OverwritePartition;
    qint64 inserted = 0, updated = 0, staged = 0;
    for (const PartitionResult &p : parts) {
        inserted += p.inserted;
        updated += p.updated;
        staged += p.stagedRows;
    }
    const bool everyStagedRow = inserted == staged; // none matched a target row
    if (overwrite) {
        // By swap or by rows, each partition as PartitionLayout::choose says.
        QHash<QString, PartitionRef> refs;
        for (const PartitionRef &p : chunk)
            refs.insert(partitionKey(p.label), p);
        std::vector<PartitionRef> byRows;
        std::vector<SwapItem> swaps;
        for (const PartitionResult &p : parts) {
            const PartitionRef ref = refs.value(partitionKey(p.partition));
            const PublishChoice c =
                sql.catalog().layout.choose(p.partition, p.updated + p.unchanged + p.deleted);
            if (c.method == PublishMethod::Swap)
                swaps.push_back({ref, c.leaf, QString()});
            else
                byRows.push_back(ref);
        }
        const std::vector<PartitionRef> *only = swaps.empty() ? nullptr : &byRows;
        if (!swaps.empty())
            if (auto s = buildSwapTables(db, sql, runId, swaps); !s)
                return s;
        if (!byRows.empty()) {
            QVariantList imageBinds{runId};
            if (auto r = db.exec(sql.saveImagesReplaced(imageBinds, only), imageBinds); !r)
                return fail(r.error());
            QVariantList binds;
            if (auto r = db.exec(sql.overwriteDelete(binds, only), binds); !r)
                return fail(r.error());
            binds.clear();
            if (auto r = db.exec(sql.overwriteInsert(binds, only), binds); !r)
                return fail(r.error());
        }
        if (!swaps.empty()) {
            failpoint("before-swap");
            if (auto s = swapPartitions(db, sql, dataset.name, runId, swaps, locked); !s)
                return s;
            failpoint("after-swap");
        }
        return {};
    }
    // Before-images only of what changes: the diff already counted it.
    QVariantList imageBinds{runId};
    if (updated > 0)
        if (auto r = db.exec(sql.saveImagesUpdated(imageBinds), imageBinds); !r)
            return fail(r.error());
    if (inserted > 0)
        if (auto r = db.exec(sql.saveImagesInserted(everyStagedRow), {runId}); !r)
            return fail(r.error());
    if (updated > 0)
        for (const auto &[text, b] : sql.mergeUpdate())
            if (auto r = db.exec(text, b); !r)
                return fail(r.error());
    if (inserted > 0)
        if (auto r = db.exec(sql.mergeInsert(everyStagedRow)); !r)
            return fail(r.error());
    return {};
}

} // namespace

void publishChunks(const Database &db, const DatasetSpec &dataset, BatchSql &sql, const Plan &plan,
                   const std::vector<PartitionRef> &todo, const BatchOptions &options,
                   RunResult &result, int alreadyDone,
                   const QHash<QString, PartitionResult> &intended) {
    if (db.dialect().keepsControlApart())
        return publishIcebergChunks(db, dataset, sql, plan, todo, options, result, alreadyDone,
                                    intended);
    ChunkProgress progress(options, result, todo.size(), alreadyDone);
    const auto report = [&](const QString &phase) { progress.report(phase); };
    bool anyCheckFailed = false;
    SourceStatsReader fingerprints(db); // one second connection for the run's chunks
    ChunkSizer sizer(sql.isScd2(), plan.stats, chunkRowBudget());
    // The partition's state: this run failed on it (its data untouched).

    // The before-images table holds every column the run writes (another
    // dataset of the same target, or a hand ALTER, may have added some
    // since it was made): checked once, in the first publish.
    bool imagesAligned = false;
    // The run's copy of an unindexed target (BatchSql::runCopyPossible): a
    // window of the partitions ahead (about five chunks' rows, at most
    // 10,000 partitions: the copy is held in memory, temp_store), made in a
    // chunk's transaction, kept once that commits, and read by the chunks
    // it covers while the database's data_version (other connections'
    // commits) stays the same.
    const bool runCopyPossible = sql.runCopyPossible() && sql.runCopyFits(todo);
    bool runCopyMade = false;
    QVariant runCopyVersion;
    std::vector<PartitionRef> runCopyWindow; // the partitions in the copy
    std::size_t runCopyUntil = 0;            // todo[..runCopyUntil) is in it
    const auto dropRunCopy = qScopeGuard([&] {
        sql.setRunCopy({}, false);
        (void)db.execAll(sql.dropWorkTables());
    });
    std::size_t singlesUntil =
        0; // partitions before this index go one per chunk (a chunk retried partition by partition)
    for (std::size_t at = 0; at < todo.size();) {
        failpoint("chunk-start");
        progress.setPartition(todo[at].label);
        if (cancelled(options)) {
            result.status = RunStatus::Cancelled;
            break;
        }
        const std::size_t n = at < singlesUntil ? 1 : sizer.next(todo, at);
        const std::vector<PartitionRef> chunk(todo.begin() + qsizetype(at),
                                              todo.begin() + qsizetype(at + n));
        // Worth it where more chunks follow.
        const bool reusable = runCopyMade && at + n <= runCopyUntil;
        std::vector<PartitionRef> window;
        if (runCopyPossible && !reusable && at + n < todo.size()) {
            const std::size_t w = sizer.window(todo, at, n, 5 * sizer.budget(), 10000);
            window.assign(todo.begin() + qsizetype(at), todo.begin() + qsizetype(at + w));
            if (window.size() <= n)
                window.clear();
        }
        const bool useRunCopy = reusable || !window.empty();
        if (!reusable)
            runCopyMade = false;
        QVariant version;
        std::vector<PartitionRef> copied; // the window this attempt copied (none: reused)
        std::vector<PartitionResult> parts;
        std::vector<CheckResult> checks;
        ChunkStop stop = ChunkStop::None;
        QString staleDetail;
        Status outcome;
        for (int attempt = 1;; ++attempt) {
            checks.clear();
            parts.clear();
            stop = ChunkStop::None;
            const bool targetExisted = sql.targetExists();
            const SchemaChange pendingChange = sql.schemaChange();
            // What the attempt's schema change tells the catalog (its
            // columns and types), put back when its transaction rolls back.
            const DatasetCatalog catalogBefore = sql.catalog();
            const bool imagesAlignedBefore = imagesAligned;
            QElapsedTimer locked; // a swap's lock on the parent, held to the commit
            // The schema change with the first chunk's write, in its
            // transaction: its rows, checkpoints and audit rows commit with
            // it, and a run stopped before that commit leaves the schema as
            // it was. The diff of a merge or overwrite read the target
            // through a copy with the change made, so the table's lock
            // (PostgreSQL: ACCESS EXCLUSIVE) is held from the write to the
            // commit only; an scd2 month reconciles against the dimension
            // itself, so it is altered first.
            const auto applyPending = [&]() -> Status {
                if (pendingChange.empty())
                    return {};
                // A drop keeps the whole table in the before-images first
                // (a merge or overwrite has staged; an scd2 month has not).
                if (!pendingChange.dropped.empty())
                    if (auto s = db.execAll(sql.createImagesIfMissing(sql.isScd2())); !s)
                        return s;
                auto images = db.columns(sql.imagesTable());
                if (!images)
                    return fail(images.error());
                auto target = db.columns(dataset.target);
                if (!target)
                    return fail(target.error());
                for (const auto &[text, binds] :
                     sql.applySchemaChange(result.runId, *target, *images))
                    if (auto r = db.exec(text, binds); !r)
                        return fail(r.error());
                sql.schemaChangeApplied();
                if (auto s =
                        schemachanges::recordApplied(db, dataset.name, result.runId, pendingChange,
                                                     dataset.onSchemaChange, nowIso());
                    !s)
                    return s;
                if (auto s = writeAudit(db, QStringLiteral("schema change"), dataset.name,
                                        QString(), result.runId,
                                        QString::fromStdString(
                                            pendingChange.toJson(dataset.onSchemaChange).dump()));
                    !s)
                    return s;
                failpoint("after-schema-change");
                return {};
            };
            outcome = db.writeTransaction([&]() -> Status {
                if (sql.isScd2())
                    if (auto s = applyPending(); !s)
                        return s;
                // Inside the write lock: the fingerprints the publish records
                // are of exactly the rows it publishes. They are read on a
                // second connection while this one stages, and compared
                // before anything is published.
                if (useRunCopy) {
                    auto v = db.scalar(QStringLiteral("PRAGMA data_version"));
                    if (!v)
                        return fail(v.error());
                    version = *v;
                    copied.clear();
                    if (reusable && version == runCopyVersion) {
                        sql.setRunCopy(runCopyWindow, true);
                    } else {
                        // Someone else committed since: copied again, from here.
                        copied = window;
                        if (copied.empty()) {
                            const std::size_t w =
                                sizer.window(todo, at, n, 5 * sizer.budget(), 10000);
                            copied.assign(todo.begin() + qsizetype(at),
                                          todo.begin() + qsizetype(at + w));
                        }
                        sql.setRunCopy(copied, false);
                    }
                } else {
                    sql.setRunCopy({}, false);
                }
                fingerprints.start(sql, chunk);
                const auto now = [&]() -> Result<SourceStatsMap> {
                    auto read = fingerprints.take();
                    // A run planned afresh locks each partition as it reads it.
                    if (read)
                        for (const PartitionRef &p : chunk) {
                            const QString key = partitionKey(p.label);
                            if (plan.stats.contains(key) &&
                                read->value(key).fingerprint != plan.stats.value(key).fingerprint) {
                                stop = ChunkStop::StalePlan;
                                staleDetail = partitionLabel(p.label);
                                break;
                            }
                        }
                    return read;
                };
                auto diffed = stageAndDiff(db, dataset, sql, chunk, now, result.runId, options,
                                           false, true, checks, report);
                if (stop == ChunkStop::StalePlan)
                    return fail(Error{Error::Code::StalePlan, QString()});
                if (!diffed) {
                    if (cancelled(options))
                        stop = ChunkStop::Cancelled;
                    return fail(diffed.error());
                }
                parts = std::move(*diffed);
                if (std::any_of(checks.begin(), checks.end(),
                                [](const CheckResult &c) { return !c.passed; })) {
                    stop = ChunkStop::CheckFailed;
                    return fail(Error{Error::Code::CheckFailed, QString()});
                }
                if (cancelled(options)) {
                    stop = ChunkStop::Cancelled;
                    return internalError(QStringLiteral("cancelled"));
                }
                failpoint("before-publish");
                report(QStringLiteral("publish"));
                if (!sql.isScd2())
                    if (auto s = applyPending(); !s)
                        return s;
                if (auto s = writeChunk(db, dataset, sql, chunk, parts, result.runId, imagesAligned,
                                        locked);
                    !s)
                    return s;
                failpoint("after-write");
                for (PartitionResult &p : parts)
                    p.published = true;
                if (auto s = recordPublished(db, dataset, result, parts, checks); !s)
                    return s;
                failpoint("before-commit");
                return {};
            });
            if (outcome && locked.isValid())
                result.lockMs = result.lockMs.value_or(0) + locked.elapsed();
            if (outcome && !pendingChange.empty())
                result.schemaChange = pendingChange;
            if (!outcome) {
                sql.restoreCatalog(catalogBefore);
                imagesAligned = imagesAlignedBefore;
            }
            if (outcome)
                failpoint("after-commit");
            // A copy made in a transaction that rolled back is gone with it.
            if (outcome && !copied.empty()) {
                runCopyWindow = copied;
                runCopyUntil = at + copied.size();
            }
            runCopyMade = outcome && useRunCopy;
            runCopyVersion = version;
            if (!outcome && stop == ChunkStop::None && outcome.error().transient &&
                attempt < options.maxAttempts) {
                sql.setTargetExists(targetExisted);
                const int wait = Database::backoffMs(attempt);
                qCInfo(lcBatch) << "partition" << progress.partition() << "busy, retrying in"
                                << wait << "ms (attempt" << attempt << ")";
                QThread::msleep(wait);
                continue;
            }
            if (!outcome)
                sql.setTargetExists(targetExisted);
            break;
        }
        (void)db.execAll(sql.dropWorkTables(runCopyMade));

        if (outcome) {
            const qint64 sourceRows = progress.published(result, parts, checks);
            sizer.observe(parts.size(), sourceRows);
            at += n;
            continue;
        }
        // A gate failed, or the write did (not for a busy or lost database,
        // whose attempts are spent), in a chunk of several partitions:
        // nothing of it was written. Its partitions again, one per chunk, so
        // only the failing one stays unpublished and an error names it.
        // (Not a swap that could not lock its parent: each partition would
        // wait as long again.)
        if (n > 1 && (stop == ChunkStop::CheckFailed ||
                      (stop == ChunkStop::None && !outcome.error().transient &&
                       outcome.error().sqlState != QLatin1String("55P03")))) {
            qCInfo(lcBatch) << "chunk of" << n << "partitions from" << progress.partition()
                            << "failed; publishing them one by one";
            singlesUntil = at + n;
            continue;
        }
        if (unpublishedChunk(db, dataset, plan, options, chunk, parts, checks, stop, staleDetail,
                             outcome, result)) {
            anyCheckFailed = true;
            progress.checkFailed();
            ++at;
            continue;
        }
        break;
    }
    if (result.status == RunStatus::Running)
        result.status = anyCheckFailed ? RunStatus::CheckFailed : RunStatus::Succeeded;
    result.finishedAt = nowIso();
}

} // namespace rw
