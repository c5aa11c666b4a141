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
//      append), beginning with a comment that tags it, writes the chunk: one
//      Iceberg snapshot, atomic, so a reader sees each partition before it
//      or after it, never in between; the query id Trino gives it is
//      recorded with the intent before Trino submits it (TrinoQueryWatch):
//      a statement whose id could not be recorded never runs;
//   4. the control store records the checkpoints as done, with the
//      snapshot committed (found in $snapshots by the statement's query id),
//      the partitions' states and the audit rows, in one transaction.
//
// A run stopped between 2 and 4 leaves "publishing" checkpoints. Its
// resume stages each such partition again (from the same source snapshot
// the plan locked) and diffs it against the target: a merge or an
// overwrite applied once more changes nothing, so a partition with nothing
// left to write is one whose commit landed. An append (or a delete+insert)
// would write again, so its statement is looked for instead: by its
// recorded query id among the table's snapshots, after one still running is
// killed and waited for (iceberg::findCommit); no id recorded means the
// statement never ran. A partition whose commit landed is recorded as
// done, with the counts its intent recorded (recognised), and written again
// otherwise; one that cannot be told stops the run, nothing written. Either
// way no partition is published twice and none is lost.
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
#include <QRandomGenerator>

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

// The partitions of `parts` whose commit a stopped run recorded as about to
// be made (`intended`) and which landed: recorded as done with the counts of
// the intent (recognised). A merge or an overwrite applied again changes
// nothing, so the data says it: nothing left to write means it landed. An
// append or a delete+insert would write again: its statement says it
// (iceberg::findCommit), and a commit that cannot be tied to it or ruled
// out stops the run before anything is written. How many were recognised.
Result<std::size_t> recogniseLanded(const Database &db, const DatasetSpec &dataset,
                                    const QHash<QString, PartitionResult> &intended,
                                    std::vector<PartitionResult> &parts) {
    const bool byData =
        dataset.write == WriteMode::Merge || dataset.write == WriteMode::OverwritePartition;
    QHash<QString, iceberg::CommitFound> statements; // by tag
    std::size_t recognised = 0;
    for (PartitionResult &p : parts) {
        const auto it = intended.constFind(partitionKey(p.partition));
        if (it == intended.cend())
            continue;
        QString landed;
        if (byData) {
            if (!writesNothing(p))
                continue;
            if (!it->snapshotBefore.isEmpty()) {
                auto since = iceberg::commitsSince(db, dataset.target, it->snapshotBefore);
                if (since && !since->empty())
                    landed = since->front().snapshot;
            }
        } else {
            auto found = statements.find(it->commitTag);
            if (found == statements.end()) {
                auto f = iceberg::findCommit(db, dataset.target, it->snapshotBefore, it->commitTag,
                                             it->commitQuery);
                if (!f)
                    return fail(f.error());
                found = statements.insert(it->commitTag, *f);
            }
            if (found->outcome == iceberg::CommitFound::Outcome::NotLanded)
                continue;
            if (found->outcome == iceberg::CommitFound::Outcome::Unknown)
                return badInput(
                    QStringLiteral("cannot tell whether the commit this run was making when it "
                                   "stopped (%1 of %2, its snapshot before %3) landed: %4. "
                                   "Nothing more was written; compare the table's $snapshots "
                                   "with the run's checkpoints before resuming it again")
                        .arg(enumName(dataset.write), dataset.target,
                             it->snapshotBefore.isEmpty() ? QStringLiteral("none")
                                                          : it->snapshotBefore,
                             found->detail));
            landed = found->snapshot;
        }
        const QString fingerprint = p.fingerprint; // the intent's JSON keeps none
        p = *it;
        p.fingerprint = fingerprint;
        p.recognised = true;
        p.published = true;
        p.snapshotAfter = landed;
        ++recognised;
    }
    return recognised;
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
    ChunkSizer sizer(sql.isScd2(), plan.stats,
                     chunkRowBudget(kIcebergChunkRows)); // scd2: a month a chunk
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
            auto recognised = recogniseLanded(db, dataset, intended, parts);
            if (!recognised) {
                outcome = fail(recognised.error());
                dropWork();
                if (!unpublishedChunk(ctl, dataset, plan, options, chunk, parts, checks, stop,
                                      staleDetail, outcome, result))
                    break;
                ++at;
                continue;
            }
            const bool anyToWrite = std::any_of(parts.begin(), parts.end(), [](const auto &p) {
                return !p.recognised && !writesNothing(p);
            });
            if (*recognised > 0 && *recognised < parts.size() && anyToWrite && n > 1) {
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
                    // The statement's tag: unique to this commit.
                    const QString tag =
                        QStringLiteral("run-%1-%2")
                            .arg(result.runId.toString(),
                                 QString::number(QRandomGenerator::system()->generate64(), 36));
                    for (PartitionResult &p : parts) {
                        p.snapshotBefore = *before;
                        p.commitTag = tag;
                    }
                    // Step 2.
                    if (auto s = recordIntent(ctl, result, parts); !s)
                        return s;
                    failpoint("before-publish");
                    report(QStringLiteral("publish"));
                    // Step 3, its query id recorded before Trino submits it.
                    const QString comment = iceberg::commentOf(tag);
                    const TrinoQueryWatch watch(comment, [&](const QString &id) -> QString {
                        // (Stopped here, the statement was registered and
                        // never submitted: it never runs.)
                        failpoint("query-queued");
                        for (PartitionResult &p : parts)
                            p.commitQuery = id;
                        if (auto s = recordIntent(ctl, result, parts); !s)
                            return s.error().message;
                        return {};
                    });
                    const auto [text, binds] = sql.icebergPublish(chunk);
                    if (auto r = db.exec(comment % text, binds); !r)
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
