// Rollback of a run on a Trino warehouse. Iceberg keeps what the run
// replaced: the target's snapshot before each of the run's commits
// (PartitionResult::snapshotBefore, in its checkpoints). So no rows were
// copied aside, and the rollback is one commit:
//
// - when every snapshot committed since the run's first one is the run's
//   own, the table is put back to the snapshot before the run
//   (rollback_to_snapshot: metadata only, nothing rewritten);
// - else (someone wrote since, in these partitions or others) one MERGE
//   replaces each of the run's partitions by its rows as of the snapshot
//   before the run's commit of it (FOR VERSION AS OF), leaving every other
//   partition, and later writes to them, as they are.
//
// Either statement applied twice leaves the same table, so a rollback
// stopped after its commit and before the control store recorded it is
// simply run again. A snapshot expired since (expire_snapshots) cannot be
// read: the rollback says it is gone, before it changes anything.
#include "core/batch/batchsql.h"
#include "core/batch/iceberg.h"
#include "core/batch/partitions.h"
#include "core/batch/rollbackdetail.h"
#include "core/batch/scope.h"
#include "core/sql/audit.h"
#include "core/util/failpoint.h"

#include <QSet>
#include <QStringBuilder>
#include <nlohmann/json.hpp>
#include <tuple>

namespace rw {

Result<RollbackResult> rollbackIceberg(const Database &db, const DatasetSpec &dataset,
                                       const RunInfo &run, const std::vector<PartitionRef> &todo,
                                       RollbackResult result) {
    const Database ctl = db.control();
    const qint64 runId = run.runId;
    auto sql = BatchSql::make(db, dataset);
    if (!sql)
        return fail(sql.error());
    auto held = db.columns(dataset.target);
    if (!held)
        return fail(held.error());
    QStringList names;
    for (const ColumnInfo &c : *held)
        names << c.name;
    const QString target = db.quoteTable(dataset.target);

    // Each partition with the snapshot before the run's commit of it (none:
    // its publish wrote nothing), and every snapshot the run committed.
    std::vector<std::pair<PartitionRef, QString>> restore;
    QSet<QString> own;
    for (const PartitionRef &p : todo) {
        const PartitionResult done = run.done.value(partitionKey(p.label));
        if (done.snapshotBefore.isEmpty() || done.snapshotAfter.isEmpty())
            continue;
        own.insert(done.snapshotAfter);
        restore.push_back({p, done.snapshotBefore});
    }
    // The snapshot before the run's first commit: the one before-snapshot
    // that is not one of its own commits. Two or more: someone else wrote
    // between the run's commits.
    QSet<QString> firsts;
    for (const auto &[p, before] : restore)
        if (!own.contains(before))
            firsts.insert(before);
    for (const auto &[p, before] : restore) {
        auto kept = iceberg::snapshotKept(db, dataset.target, before);
        if (!kept)
            return fail(kept.error());
        if (!*kept)
            return badInput(QStringLiteral("run %1 cannot be rolled back: the snapshot of %2 from "
                                           "before it (%3, partition %4) has been expired since, "
                                           "so its rows are gone; re-run the partition from the "
                                           "source instead")
                                .arg(runId)
                                .arg(dataset.target, before, partitionLabel(p.label)));
    }

    // What else committed since the run's first snapshot (not the run).
    const QString first = firsts.size() == 1 ? *firsts.cbegin() : QString();
    QStringList others;
    if (!restore.empty()) {
        if (first.isEmpty()) {
            others << QStringLiteral("(between the run's commits)");
        } else {
            auto since = iceberg::commitsSince(db, dataset.target, first);
            if (!since)
                return fail(since.error());
            for (const iceberg::Commit &c : *since)
                if (!own.contains(c.snapshot))
                    others << c.snapshot;
        }
    }
    // An scd2 month also closes versions opened in earlier months: restoring
    // the run's months alone would leave those closed. Only the whole table
    // put back (nothing else written since) undoes it.
    if (dataset.write == WriteMode::Scd2 && !others.isEmpty())
        return badInput(QStringLiteral("run %1 of %2 (scd2) cannot be rolled back here: its months "
                                       "closed versions of earlier months too, and %3 has other "
                                       "commits since (%4), so the table cannot simply go back "
                                       "to its snapshot before the run; nothing was changed")
                            .arg(runId)
                            .arg(dataset.name, dataset.target, others.join(QStringLiteral(", "))));

    // Rows each partition loses and gets back: two grouped queries per
    // snapshot the run's partitions go back to (usually one).
    QHash<QString, std::vector<PartitionRef>> bySnapshot;
    for (const auto &[p, before] : restore)
        bySnapshot[before].push_back(p);
    QHash<QString, qint64> removed, restored; // by partitionKey
    for (auto it = bySnapshot.cbegin(); it != bySnapshot.cend(); ++it) {
        const QString before = iceberg::asOf(target, it.key());
        for (const auto &[counts, from, other] :
             {std::tuple{&removed, target, before}, std::tuple{&restored, before, target}}) {
            const auto [text, binds] = sql->icebergRowsOnlyIn(from, other, it.value(), names);
            auto q = db.exec(text, binds);
            if (!q)
                return fail(q.error());
            while (q->next())
                counts->insert(partitionKey(q->value(1).toInt()
                                                ? std::nullopt
                                                : std::optional<QString>(q->value(0).toString())),
                               q->value(2).toLongLong());
        }
    }
    std::vector<RollbackPartition> parts;
    for (const PartitionRef &p : todo) {
        RollbackPartition rp;
        rp.partition = p.label;
        rp.rowsRemoved = removed.value(partitionKey(p.label));
        rp.rowsRestored = restored.value(partitionKey(p.label));
        parts.push_back(rp);
    }
    if (!result.executed) {
        result.partitions = parts;
        sortByPartition(result.partitions, [](const RollbackPartition &p) { return p.partition; });
        result.status =
            todo.empty() ? RollbackStatus::NothingToRestore : RollbackStatus::WouldRestore;
        return result;
    }

    // The commit.
    QString how = QStringLiteral("nothing to write");
    if (!restore.empty()) {
        if (others.isEmpty()) {
            how = QStringLiteral("rollback_to_snapshot");
            if (auto r = db.exec(QStringLiteral("ALTER TABLE ") % target %
                                 QStringLiteral(" EXECUTE rollback_to_snapshot(") % first % u')');
                !r)
                return fail(r.error());
        } else {
            how = QStringLiteral("merge");
            const auto [text, binds] = sql->icebergRestore(restore, names);
            if (auto r = db.exec(text, binds); !r)
                return fail(r.error());
        }
    }
    failpoint("after-rollback-partition");
    auto now = iceberg::currentSnapshot(db, dataset.target);
    if (!now)
        return fail(now.error());
    const Status recorded = Database::retryTransient(5, [&] {
        return ctl.writeTransaction([&]() -> Status {
            for (RollbackPartition &rp : parts) {
                const PartitionRef p{QVariant(), rp.partition};
                rp.restored = true;
                if (auto s = runstore::markCheckpointRolledBack(ctl, runId, rp.partition); !s)
                    return s;
                if (auto s = restorePartitionState(ctl, dataset.name, p, runId); !s)
                    return s;
                if (auto s = auditRestored(ctl, dataset.name, runId, rp, false); !s)
                    return s;
            }
            if (auto s = runstore::markRolledBack(ctl, runId); !s)
                return s;
            return writeAudit(ctl, QStringLiteral("rollback"), dataset.name, QString(), runId,
                              QString::fromStdString(nlohmann::ordered_json{
                                  {"partitions", parts.size()},
                                  {"by", how.toStdString()},
                                  {"snapshot",
                                   now->toStdString()}}.dump()));
        });
    });
    if (!recorded)
        return fail(recorded.error());
    result.partitions = parts;
    sortByPartition(result.partitions, [](const RollbackPartition &p) { return p.partition; });
    result.status = todo.empty() ? RollbackStatus::NothingToRestore : RollbackStatus::RolledBack;
    return result;
}

} // namespace rw
