#include "core/batch/rollback.h"

#include "core/batch/batchsql.h"
#include "core/batch/partitions.h"
#include "core/batch/partitionstate.h"
#include "core/batch/partitionswap.h"
#include "core/batch/rollbackdetail.h"
#include "core/batch/runs.h"
#include "core/batch/schemachange.h"
#include "core/batch/scope.h"
#include "core/batch/swapstore.h"
#include "core/sql/privileges.h"
#include "core/util/failpoint.h"
#include "core/workspace/workspace.h"

#include <QDateTime>
#include <QStringBuilder>
#include <nlohmann/json.hpp>

namespace rw {

Result<qint64> countOf(const Database &db, const std::pair<QString, QVariantList> &query) {
    auto v = db.scalar(query.first, query.second);
    if (!v)
        return fail(v.error());
    return v->toLongLong();
}

namespace {

// Later runs of `datasets` that published what `runId` published
// (`anyPartition`: anything at all).
Result<QStringList> laterRuns(const Database &db, const QStringList &datasets, qint64 runId,
                              bool anyPartition) {
    QStringList marks;
    for (qsizetype i = 0; i < datasets.size(); ++i)
        marks << QStringLiteral("?");
    const QString sql =
        QStringLiteral("SELECT c.run_id, MIN(CASE WHEN c.part_is_null = 1 THEN '(all)' ELSE c.part "
                       "END), COUNT(*) FROM rewind_checkpoints AS c "
                       "JOIN rewind_runs AS r ON r.run_id = c.run_id WHERE r.dataset IN (") %
        marks.join(QStringLiteral(", ")) % QStringLiteral(") AND c.run_id > ? AND c.status = ?") %
        (anyPartition
             ? QString()
             : QStringLiteral(" AND EXISTS (SELECT 1 FROM rewind_checkpoints AS m WHERE m.run_id = "
                              "? AND m.status = ?"
                              " AND m.part = c.part AND m.part_is_null = c.part_is_null)")) %
        QStringLiteral(" GROUP BY c.run_id ORDER BY c.run_id");
    const QString done = enumName(CheckpointStatus::Done);
    QVariantList binds;
    for (const QString &d : datasets)
        binds << d;
    binds << runId << done;
    if (!anyPartition)
        binds << runId << done;
    auto q = db.exec(sql, binds);
    if (!q)
        return fail(q.error());
    QStringList out;
    while (q->next()) {
        const qint64 n = q->value(2).toLongLong();
        out << QStringLiteral("run %1 (%2%3)")
                   .arg(q->value(0).toLongLong())
                   .arg(q->value(1).toString(),
                        n > 1 ? QStringLiteral(" and %1 more partition%2")
                                    .arg(n - 1)
                                    .arg(n > 2 ? QStringLiteral("s") : QString())
                              : QString());
    }
    return out;
}

} // namespace

Status restorePartitionState(const Database &db, const QString &dataset, const PartitionRef &p,
                             qint64 runId) {
    const QString part = p.label.value_or(QString());
    const int isNull = p.label ? 0 : 1;
    // The publish before this run, if any, is what the partition holds again.
    auto prev = db.exec(QStringLiteral("SELECT c.run_id, c.committed_at FROM rewind_checkpoints AS "
                                       "c JOIN rewind_runs AS r ON r.run_id = c.run_id "
                                       "WHERE r.dataset = ? AND c.part = ? AND c.part_is_null = ? "
                                       "AND c.status = ? AND c.run_id < ? "
                                       "ORDER BY c.run_id DESC LIMIT 1"),
                        {dataset, part, isNull, enumName(CheckpointStatus::Done), runId});
    if (!prev)
        return fail(prev.error());
    if (prev->next())
        return partitionstate::revertToPublish(db, dataset, part, isNull, prev->value(0),
                                               prev->value(1));
    return partitionstate::forgetPublish(db, dataset, part, isNull);
}

namespace {

// Inside each of a rollback's transactions: a prune that committed since the
// rollback began would leave the partitions still to restore with no images
// (an overwrite's would be emptied).
Status imagesStillKept(const Database &db, qint64 runId) {
    auto at = db.scalar(QStringLiteral("SELECT images_pruned_at FROM rewind_runs WHERE run_id = ?"),
                        {runId});
    if (!at)
        return fail(at.error());
    if (!at->isNull() && !at->toString().isEmpty())
        return badInput(
            QStringLiteral("run %1's before-images were pruned at %2 while it was being "
                           "rolled back; the partitions not yet restored keep the run's "
                           "rows")
                .arg(runId)
                .arg(at->toString()));
    return {};
}

} // namespace

Status auditRestored(const Database &db, const QString &dataset, qint64 runId,
                     const RollbackPartition &rp, bool swapped) {
    nlohmann::ordered_json detail{
        {"partition", rp.partition ? nlohmann::ordered_json(rp.partition->toStdString())
                                   : nlohmann::ordered_json(nullptr)},
        {"rows_removed", rp.rowsRemoved},
        {"rows_restored", rp.rowsRestored}};
    if (swapped)
        detail["publish"] = "swap";
    return writeAudit(db, QStringLiteral("rollback partition"), dataset, QString(), runId,
                      QString::fromStdString(detail.dump()));
}

Status requireRollbackPrivileges(const Database &db, const DatasetSpec &ds,
                                 const QString &operation, bool altersTarget) {
    std::vector<privileges::Need> needs;
    // Putting a swapped leaf back (DETACH, ATTACH) and undoing a schema
    // change (ALTER TABLE) are the target's owner's; rows need only DML.
    privileges::addTable(needs, ds.target,
                         altersTarget ? QStringLiteral("SELECT, INSERT, DELETE, OWNER")
                                      : QStringLiteral("SELECT, INSERT, DELETE"),
                         QStringLiteral("the target"));
    // Rollback indexes the before-images it reads (CREATE INDEX IF NOT
    // EXISTS asks for ownership even when the index is there).
    privileges::addTable(needs, QStringLiteral("rewind_images_") % ds.name,
                         QStringLiteral("SELECT, OWNER"), QStringLiteral("the before-images"));
    privileges::addControl(needs,
                           {QStringLiteral("rewind_runs"), QStringLiteral("rewind_checkpoints"),
                            QStringLiteral("rewind_partition_state")},
                           QStringLiteral("SELECT, UPDATE"));
    privileges::addControl(needs, {QStringLiteral("rewind_partition_state")},
                           QStringLiteral("DELETE"));
    if (altersTarget)
        privileges::addControl(needs, {QStringLiteral("rewind_schema_changes")},
                               QStringLiteral("DELETE"));
    privileges::addControl(needs, {QStringLiteral("rewind_audit")}, QStringLiteral("INSERT"));
    return privileges::require(db, operation, needs);
}

Result<RollbackResult> rollback(const Database &db, const Spec &spec, qint64 runId, bool execute) {
    // The run log: the database itself, but on a Trino warehouse.
    const Database ctl = db.control();
    auto info = loadRun(ctl, runId);
    if (!info)
        return fail(info.error());
    if (info->status == RunStatus::Running)
        return badInput(
            QStringLiteral("run %1 is still running (process %2 on %3): cancel it first")
                .arg(runId)
                .arg(info->pid)
                .arg(info->host));
    if (!info->imagesPrunedAt.isEmpty())
        return badInput(
            QStringLiteral("run %1 cannot be rolled back: its before-images were pruned at %2 "
                           "(rewindctl prune); re-run its partitions from the source instead")
                .arg(runId)
                .arg(info->imagesPrunedAt));
    auto dataset = spec.requireDataset(info->dataset);
    if (!dataset)
        return fail(dataset.error());
    const DatasetSpec &ds = **dataset;
    const auto recorded = writeMode(*info);
    if (!recorded)
        return fail(recorded.error());
    const WriteMode mode = *recorded;
    if (mode == WriteMode::Scd2 && !ds.scd2)
        return badInput(
            QStringLiteral(
                "run %1 wrote dataset \"%2\" as scd2, but the spec no longer configures \"scd2\"")
                .arg(runId)
                .arg(ds.name));

    RollbackResult result;
    result.runId = runId;
    result.dataset = ds.name;
    result.mode = mode;
    result.executed = execute;

    // The partitions it published, in its scope's order, with their stored values.
    auto scopeJson =
        ctl.scalar(QStringLiteral("SELECT scope_json FROM rewind_runs WHERE run_id = ?"), {runId});
    if (!scopeJson)
        return fail(scopeJson.error());
    std::vector<PartitionRef> todo;
    for (const PartitionRef &p : scopeFromJson(scopeJson->toString()))
        if (info->done.contains(partitionKey(p.label)))
            todo.push_back(p);
    sortByPartition(
        todo, [](const PartitionRef &p) { return p.label; }, /*descending=*/true);

    if (todo.empty()) {
        if (info->status == RunStatus::RolledBack)
            return badInput(QStringLiteral("run %1 was already rolled back").arg(runId));
    } else {
        auto later = laterRuns(ctl, {ds.name}, runId, mode == WriteMode::Scd2);
        if (!later)
            return fail(later.error());
        if (!later->isEmpty())
            return badInput(
                QStringLiteral("run %1 cannot be rolled back: later %2 also published %3 of "
                               "dataset \"%4\"; roll %5 back first")
                    .arg(runId)
                    .arg(later->join(QStringLiteral(", ")),
                         mode == WriteMode::Scd2 ? QStringLiteral("history")
                                                 : QStringLiteral("partitions"),
                         ds.name,
                         later->size() > 1 ? QStringLiteral("those") : QStringLiteral("it")));
    }

    // The columns the run added (on_schema_change) go with it, unless a
    // later run may have filled them in any partition.
    auto changes = schemachanges::applied(ctl, ds.target);
    if (!changes)
        return fail(changes.error());
    for (const schemachanges::Applied &a : *changes)
        if (a.runId == runId)
            result.schemaChange = a.change;
    if (!result.schemaChange.empty()) {
        QStringList sameTarget; // every dataset of the spec that publishes to the table
        for (const DatasetSpec &d : spec.datasets)
            if (d.target == ds.target)
                sameTarget << d.name;
        auto later = laterRuns(ctl, sameTarget, runId, true);
        if (!later)
            return fail(later.error());
        if (!later->isEmpty())
            return badInput(
                QStringLiteral("run %1 cannot be rolled back: it %2, which later %3 may have "
                               "filled; roll %4 back first")
                    .arg(runId)
                    .arg(result.schemaChange.describe(), later->join(QStringLiteral(", ")),
                         later->size() > 1 ? QStringLiteral("those") : QStringLiteral("it")));
    }

    // A duplicate recovery's re-run is followed by a unique index on the key:
    // undoing the re-run would bring back the duplicate keys that index
    // forbids, and the restore would fail halfway through its statements.
    if (!todo.empty()) {
        auto added =
            ctl.exec(QStringLiteral("SELECT detail_json FROM rewind_audit WHERE action = 'recover "
                                    "unique index' AND run_id = ? AND dataset = ?"),
                     {runId, ds.name});
        if (!added)
            return fail(added.error());
        QStringList indexes;
        while (added->next()) {
            const auto detail =
                nlohmann::json::parse(added->value(0).toString().toStdString(), nullptr, false);
            if (detail.is_object() && detail.value("index", nlohmann::json()).is_string() &&
                !detail.value("already_present", false))
                indexes << QString::fromStdString(detail["index"].get<std::string>());
        }
        if (!indexes.isEmpty()) {
            auto present = db.exec(db.dialect().listIndexColumns(), {ds.target});
            if (!present)
                return fail(present.error());
            while (present->next())
                if (indexes.contains(present->value(0).toString()))
                    return badInput(
                        QStringLiteral(
                            "run %1 is the re-run of a duplicate recovery of dataset \"%2\", which "
                            "then added the unique index "
                            "\"%3\" on \"%4\": rolling the run back would bring back the duplicate "
                            "keys that index forbids. "
                            "Drop the index first if the duplicates really must come back")
                            .arg(runId)
                            .arg(ds.name, present->value(0).toString(), ds.target));
        }
    }

    // A rollback is a writer: it honours a freeze.
    if (execute) {
        auto frozen = ctl.exec(
            QStringLiteral("SELECT frozen_at, os_user FROM rewind_frozen WHERE dataset = ?"),
            {ds.name});
        if (!frozen)
            return fail(frozen.error());
        if (frozen->next())
            return internalError(
                QStringLiteral("dataset \"%1\" is frozen since %2 by %3: writes are refused until "
                               "rewindctl unfreeze")
                    .arg(ds.name, frozen->value(0).toString(), frozen->value(1).toString()));
    }

    // On Trino, from the target's own snapshots (rollbackiceberg.cpp).
    if (db.dialect().keepsControlApart())
        return rollbackIceberg(db, ds, *info, todo, std::move(result));

    // Partitions published by swap: the leaf the run detached is put back.
    auto swapped = swapstore::ofRun(db, runId, ds.name);
    if (!swapped)
        return fail(swapped.error());

    {
        const Status may =
            requireRollbackPrivileges(db, ds, QStringLiteral("rollback of run %1").arg(runId),
                                      !swapped->empty() || !result.schemaChange.empty());
        if (!may && (execute || !may.error().refused))
            return fail(may.error());
        result.refused = privileges::refusalOf(may);
    }

    auto sql = BatchSql::make(db, ds);
    if (!sql)
        return fail(sql.error());
    auto images = db.hasRelation(sql->imagesTable());
    if (!images)
        return fail(images.error());
    // Restore only what the images hold (a column added to the target since
    // they were kept is not in them).
    if (*images) {
        auto kept = db.columns(sql->imagesTable());
        if (!kept)
            return fail(kept.error());
        QStringList names;
        for (const ColumnInfo &c : *kept)
            names << c.name;
        sql->setImagesColumns(names);
        // Each partition's restore looks the run's images up by key: without
        // an index that is a scan of every image per target row (a merge of
        // 300,000 rows over 30 partitions: minutes on SQLite, not seconds).
        // Kept, so the next rollback finds it.
        if (execute)
            if (auto s = db.execAll({sql->indexImages()}); !s)
                return fail(s.error());
    }

    QHash<QString, swapstore::Swap> swaps;
    for (swapstore::Swap &s : *swapped)
        swaps.insert(partitionKey(s.partition), std::move(s));

    for (const PartitionRef &p : todo) {
        RollbackPartition rp;
        rp.partition = p.label;
        const auto swap = swaps.constFind(partitionKey(p.label));
        if (swap != swaps.cend()) {
            const auto back = [&]() -> Status {
                if (execute)
                    if (auto s = imagesStillKept(db, runId); !s)
                        return s;
                if (auto s = swapBack(db, *swap, rp.rowsRemoved, rp.rowsRestored, execute); !s)
                    return s;
                if (!execute)
                    return {};
                if (auto s = runstore::markCheckpointRolledBack(db, runId, p.label); !s)
                    return s;
                if (auto s = restorePartitionState(db, ds.name, p, runId); !s)
                    return s;
                return auditRestored(db, ds.name, runId, rp, true);
            };
            const Status done =
                execute ? Database::retryTransient(5, [&] { return db.writeTransaction(back); })
                        : back();
            if (!done)
                return fail(Error{done.error().code,
                                  QStringLiteral("rollback of run %1, partition %2: %3")
                                      .arg(runId)
                                      .arg(partitionLabel(p.label), done.error().message)});
            rp.restored = execute;
            result.partitions.push_back(rp);
            if (execute)
                failpoint("after-rollback-partition");
            continue;
        }
        auto measure = [&]() -> Status {
            if (!*images)
                return {}; // the run changed nothing that needed an image
            auto removed = countOf(db, sql->rollbackRemovedCount(mode, p, runId));
            if (!removed)
                return fail(removed.error());
            auto restored = countOf(db, sql->rollbackRestoredCount(mode, p, runId));
            if (!restored)
                return fail(restored.error());
            rp.rowsRemoved = *removed;
            rp.rowsRestored = *restored;
            return {};
        };
        if (!execute) {
            if (auto s = measure(); !s)
                return fail(s.error());
            result.partitions.push_back(rp);
            continue;
        }
        const Status done = Database::retryTransient(5, [&] {
            return db.writeTransaction([&]() -> Status {
                if (auto s = imagesStillKept(db, runId); !s)
                    return s;
                if (auto s = measure(); !s)
                    return s;
                // Overwrite without images: the partition was empty before the run.
                if (*images || mode == WriteMode::OverwritePartition) {
                    for (const auto &[statement, binds] : sql->rollbackStatements(mode, p, runId)) {
                        if (!*images && statement.startsWith(QLatin1String("INSERT")))
                            continue;
                        if (auto r = db.exec(statement, binds); !r)
                            return fail(r.error());
                    }
                }
                if (auto s = runstore::markCheckpointRolledBack(db, runId, p.label); !s)
                    return s;
                if (auto s = restorePartitionState(db, ds.name, p, runId); !s)
                    return s;
                return auditRestored(db, ds.name, runId, rp, false);
            });
        });
        if (!done)
            return fail(
                Error{done.error().code, QStringLiteral("rollback of run %1, partition %2: %3")
                                             .arg(runId)
                                             .arg(partitionLabel(p.label), done.error().message)});
        rp.restored = true;
        result.partitions.push_back(rp);
        failpoint("after-rollback-partition");
    }
    sortByPartition(result.partitions, [](const RollbackPartition &p) { return p.partition; });

    if (!execute) {
        result.status = todo.empty() && result.schemaChange.empty()
                            ? RollbackStatus::NothingToRestore
                            : RollbackStatus::WouldRestore;
        return result;
    }
    const Status marked = Database::retryTransient(5, [&] {
        return db.writeTransaction([&]() -> Status {
            if (!result.schemaChange.empty()) {
                if (auto s = imagesStillKept(db, runId); !s) // a drop's columns come from them
                    return s;
                // The target's columns once the change is undone: the
                // whole-table restore of a drop names them.
                auto held = db.columns(ds.target);
                if (!held)
                    return fail(held.error());
                QStringList columns;
                for (const ColumnInfo &c : *held)
                    if (!result.schemaChange.isAdded(c.name))
                        columns << c.name;
                for (const SchemaColumn &c : result.schemaChange.dropped)
                    columns << c.column;
                for (const auto &[text, binds] :
                     sql->revertSchemaChange(result.schemaChange, runId, *images, columns))
                    if (auto r = db.exec(text, binds); !r)
                        return fail(r.error());
                if (auto s = schemachanges::forgetApplied(db, runId); !s)
                    return s;
                if (auto s = writeAudit(db, QStringLiteral("schema change rolled back"), ds.name,
                                        QString(), runId,
                                        QString::fromStdString(
                                            result.schemaChange.toJson(ds.onSchemaChange).dump()));
                    !s)
                    return s;
            }
            if (auto s = runstore::markRolledBack(db, runId); !s)
                return s;
            return writeAudit(
                db, QStringLiteral("rollback"), ds.name, QString(), runId,
                QString::fromStdString(
                    nlohmann::ordered_json{{"partitions", result.partitions.size()}}.dump()));
        });
    });
    if (!marked)
        return fail(marked.error());
    result.status = todo.empty() && result.schemaChange.empty() ? RollbackStatus::NothingToRestore
                                                                : RollbackStatus::RolledBack;
    return result;
}

} // namespace rw
