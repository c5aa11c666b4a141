// The publish of a run on a Trino warehouse (Apache Iceberg tables). Trino
// commits one statement at a time, and Rewind's control tables live in a
// store of their own (Database::control()), so no transaction covers a
// chunk's data write and its checkpoint. Instead, per chunk:
//
//   1. the chunk is staged and diffed against the target (work tables in
//      the session's scratch schema) and its gates checked, writing nothing;
//   2. the control store records the commit about to be made: each
//      partition's checkpoint as "publishing", with its counts and the
//      target's snapshot before it;
//   3. one statement (BatchSql::icebergPublish: a MERGE, or an INSERT for
//      append) writes the chunk: one Iceberg snapshot, atomic, so a reader
//      sees each partition before it or after it, never in between;
//   4. the control store records the checkpoints as done, with the
//      snapshot committed (found in $snapshots by the statement's query id),
//      the partitions' states and the audit rows, in one transaction.
//
// A run stopped between 2 and 4 leaves "publishing" checkpoints. Its
// resume stages each such partition again (from the same source snapshot
// the plan locked) and diffs it against the target: a merge or an
// overwrite applied once more changes nothing, so a partition with nothing
// left to write is one whose commit landed; it is recorded as done, with
// the counts its intent recorded (recognised), and written again otherwise.
// Either way no partition is published twice and none is lost.
#include "core/batch/batchdiff.h"
#include "core/batch/batchjson.h"
#include "core/batch/batchsql.h"
#include "core/batch/iceberg.h"
#include "core/batch/partitions.h"
#include "core/batch/partitionstate.h"
#include "core/batch/publish.h"
#include "core/batch/publishdetail.h"
#include "core/batch/runs.h"
#include "core/sql/audit.h"
#include "core/sql/trinodriver.h"
#include "core/util/failpoint.h"

#include <QDateTime>
#include <QLoggingCategory>

Q_DECLARE_LOGGING_CATEGORY(lcBatch)

namespace rw {

namespace {

QString nowIso() {
    return QDateTime::currentDateTimeUtc().toString(Qt::ISODateWithMs);
}

bool writesNothing(const PartitionResult &p) {
    return p.inserted == 0 && p.updated == 0 && p.deleted == 0;
}

// Step 2: the commit about to be made, recorded first.
Status recordIntent(const Database &ctl, const RunResult &result,
                    const std::vector<PartitionResult> &parts) {
    const QString at = nowIso();
    std::vector<runstore::Checkpoint> rows;
    for (const PartitionResult &p : parts)
        rows.push_back({p.partition, CheckpointStatus::Publishing, at,
                        QString::fromStdString(partitionJson(p).dump())});
    return ctl.writeTransaction([&]() -> Status {
        return runstore::recordCheckpoints(ctl, result.runId.toLongLong(), rows);
    });
}

} // namespace

void publishIcebergChunks(const Database &db, const DatasetSpec &dataset, BatchSql &sql,
                          const Plan &plan, const std::vector<PartitionRef> &todo,
                          const BatchOptions &options, RunResult &result, int alreadyDone,
                          const QHash<QString, PartitionResult> &intended) {
    const Database ctl = db.control();
    ChunkProgress progress(options, result, todo.size(), alreadyDone);
    const auto report = [&](const QString &phase) { progress.report(phase); };
    bool anyCheckFailed = false;
    SourceStatsReader fingerprints(db);
    ChunkSizer sizer(false, plan.stats, chunkRowBudget());
    std::size_t singlesUntil = 0; // partitions before this index go one per chunk
    const auto dropWork = [&] { (void)db.execAll(sql.dropWorkTables()); };
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
        std::vector<CheckResult> checks;
        ChunkStop stop = ChunkStop::None;
        QString staleDetail;
        fingerprints.start(sql, chunk);
        const auto now = [&]() -> Result<SourceStatsMap> {
            auto read = fingerprints.take();
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
        // Step 1.
        auto diffed = stageAndDiff(db, dataset, sql, chunk, now, result.runId, options, false, true,
                                   checks, report);
        std::vector<PartitionResult> parts;
        Status outcome;
        bool splitChunk = false;
        if (stop == ChunkStop::StalePlan) {
            outcome = fail(Error{Error::Code::StalePlan, QString()});
        } else if (!diffed) {
            if (cancelled(options))
                stop = ChunkStop::Cancelled;
            outcome = fail(diffed.error());
        } else if (std::any_of(checks.begin(), checks.end(),
                               [](const CheckResult &c) { return !c.passed; })) {
            stop = ChunkStop::CheckFailed;
            parts = std::move(*diffed);
            outcome = fail(Error{Error::Code::CheckFailed, QString()});
        } else if (cancelled(options)) {
            stop = ChunkStop::Cancelled;
            outcome = internalError(QStringLiteral("cancelled"));
        } else {
            parts = std::move(*diffed);
            // Commits a stopped run recorded as about to be made, which landed.
            std::size_t recognised = 0;
            for (PartitionResult &p : parts) {
                const auto it = intended.constFind(partitionKey(p.partition));
                if (it == intended.cend() || !writesNothing(p))
                    continue;
                const QString before = it->snapshotBefore;
                const QString fingerprint = p.fingerprint; // the intent's JSON keeps none
                p = *it;
                p.fingerprint = fingerprint;
                p.recognised = true;
                p.published = true;
                if (!before.isEmpty()) {
                    auto since = iceberg::commitsSince(db, dataset.target, before);
                    if (since && !since->empty())
                        p.snapshotAfter = since->front().snapshot;
                }
                ++recognised;
            }
            const bool anyToWrite = std::any_of(parts.begin(), parts.end(), [](const auto &p) {
                return !p.recognised && !writesNothing(p);
            });
            if (recognised > 0 && recognised < parts.size() && anyToWrite && n > 1) {
                // The statement writes the whole stage: a partition already
                // written must not be in it. One by one.
                splitChunk = true;
            } else {
                outcome = [&]() -> Status {
                    if (!anyToWrite) {
                        for (PartitionResult &p : parts)
                            p.published = true;
                        return {};
                    }
                    auto before = iceberg::currentSnapshot(db, dataset.target);
                    if (!before)
                        return fail(before.error());
                    for (PartitionResult &p : parts)
                        p.snapshotBefore = *before;
                    // Step 2.
                    if (auto s = recordIntent(ctl, result, parts); !s)
                        return s;
                    failpoint("before-publish");
                    report(QStringLiteral("publish"));
                    // Step 3.
                    const auto [text, binds] = sql.icebergPublish(chunk);
                    if (auto r = db.exec(text, binds); !r)
                        return fail(r.error());
                    failpoint("after-write");
                    auto after = iceberg::snapshotOfQuery(db, dataset.target, lastTrinoQueryId());
                    if (!after)
                        return fail(after.error());
                    for (PartitionResult &p : parts) {
                        p.snapshotAfter = *after;
                        p.published = true;
                    }
                    return {};
                }();
            }
            // Step 4.
            if (!splitChunk && outcome)
                outcome = Database::retryTransient(options.maxAttempts, [&] {
                    return ctl.writeTransaction([&]() -> Status {
                        if (auto s = recordPublished(ctl, dataset, result, parts, checks); !s)
                            return s;
                        failpoint("before-commit");
                        return {};
                    });
                });
        }
        dropWork();
        if (splitChunk) {
            singlesUntil = at + n;
            continue;
        }
        if (outcome) {
            failpoint("after-commit");
            const qint64 sourceRows = progress.published(result, parts, checks);
            sizer.observe(parts.size(), sourceRows);
            at += n;
            continue;
        }
        // A gate failed in a chunk of several partitions: nothing of it was
        // written. Its partitions again, one per chunk, so only the failing
        // one stays unpublished.
        if (n > 1 && stop == ChunkStop::CheckFailed) {
            singlesUntil = at + n;
            continue;
        }
        if (unpublishedChunk(ctl, dataset, plan, options, chunk, parts, checks, stop, staleDetail,
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
