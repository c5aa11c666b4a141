#include "core/batch/iceberg.h"

#include "core/batch/batchdialect.h"
#include "core/batch/scope.h"

#include <QSqlRecord>
#include <QStringBuilder>
#include <QThread>

namespace rw::iceberg {

namespace {

// A snapshot id as text: digits only (it is written into statements).
bool isSnapshotId(const QString &s) {
    if (s.isEmpty() || s.size() > 20)
        return false;
    for (qsizetype i = 0; i < s.size(); ++i)
        if (!s.at(i).isDigit() && !(i == 0 && s.at(i) == u'-'))
            return false;
    return true;
}

} // namespace

QString metadataTable(const Database &db, const QString &table, const QString &suffix) {
    QString quoted = db.quoteTable(table);
    if (quoted.endsWith(u'"'))
        return quoted.insert(quoted.size() - 1, suffix);
    return db.quote(table % suffix);
}

Result<QString> currentSnapshot(const Database &db, const QString &table) {
    auto v = db.scalar(QStringLiteral("SELECT CAST(snapshot_id AS VARCHAR) FROM ") %
                       metadataTable(db, table, QStringLiteral("$refs")) %
                       QStringLiteral(" WHERE name = 'main' AND type = 'BRANCH'"));
    if (!v)
        return fail(v.error());
    return v->isNull() ? QString() : v->toString();
}

Result<QString> snapshotOfQuery(const Database &db, const QString &table, const QString &queryId) {
    if (queryId.isEmpty())
        return QString();
    auto v = db.scalar(QStringLiteral("SELECT CAST(max(snapshot_id) AS VARCHAR) FROM ") %
                           metadataTable(db, table, QStringLiteral("$snapshots")) %
                           QStringLiteral(" WHERE summary['trino_query_id'] = ?"),
                       {queryId});
    if (!v)
        return fail(v.error());
    return v->isNull() ? QString() : v->toString();
}

Result<bool> snapshotKept(const Database &db, const QString &table, const QString &snapshot) {
    if (!isSnapshotId(snapshot))
        return false;
    auto v = db.scalar(QStringLiteral("SELECT count(*) FROM ") %
                       metadataTable(db, table, QStringLiteral("$snapshots")) %
                       QStringLiteral(" WHERE snapshot_id = ") % snapshot);
    if (!v)
        return fail(v.error());
    return v->toLongLong() > 0;
}

Result<std::vector<Commit>> commitsSince(const Database &db, const QString &table,
                                         const QString &snapshot) {
    if (!isSnapshotId(snapshot))
        return badInput(QStringLiteral("\"%1\" is not an Iceberg snapshot id").arg(snapshot));
    // $history lists the main branch's log: each snapshot made current, and
    // whether it is an ancestor of the current one. Those made current
    // after `snapshot` was, and still ancestors, are what was written since.
    auto q = db.exec(
        QStringLiteral("SELECT CAST(h.snapshot_id AS VARCHAR), "
                       "format_datetime(s.committed_at AT TIME ZONE 'UTC', "
                       "'yyyy-MM-dd''T''HH:mm:ss.SSS''Z'''), s.operation, "
                       "s.summary['trino_user'], s.summary['trino_query_id'] FROM ") %
        metadataTable(db, table, QStringLiteral("$history")) % QStringLiteral(" AS h JOIN ") %
        metadataTable(db, table, QStringLiteral("$snapshots")) %
        QStringLiteral(" AS s ON s.snapshot_id = h.snapshot_id WHERE h.is_current_ancestor AND "
                       "h.made_current_at > (SELECT max(made_current_at) FROM ") %
        metadataTable(db, table, QStringLiteral("$history")) %
        QStringLiteral(" WHERE snapshot_id = ") % snapshot %
        QStringLiteral(") ORDER BY h.made_current_at"));
    if (!q)
        return fail(q.error());
    std::vector<Commit> out;
    while (q->next())
        out.push_back({q->value(0).toString(), q->value(1).toString(), q->value(2).toString(),
                       q->value(3).toString(), q->value(4).toString()});
    return out;
}

QString commentOf(const QString &tag) {
    return QStringLiteral("/* rewind commit ") % tag % QStringLiteral(" */ ");
}

namespace {

bool running(const QString &state) {
    return state != QLatin1String("FINISHED") && state != QLatin1String("FAILED");
}

// The state of the statement tagged `tag` (its id set when found), or of
// `queryId`, from the coordinator's memory of its queries; empty when it
// holds neither (never sent, or forgotten: finished long ago, or the
// coordinator restarted).
Result<QString> statementState(const Database &db, const QString &tag, QString &queryId) {
    auto q = db.exec(
        QStringLiteral("SELECT query_id, state FROM system.runtime.queries WHERE query_id = ? OR "
                       "starts_with(query, ?) ORDER BY created DESC LIMIT 1"),
        {queryId, commentOf(tag)});
    if (!q)
        return fail(q.error());
    if (!q->next())
        return QString();
    queryId = q->value(0).toString();
    return q->value(1).toString();
}

// The snapshots of `table`'s main branch made current after `before` (all
// of them when `before` is empty).
Result<std::vector<Commit>> ancestorsSince(const Database &db, const QString &table,
                                           const QString &before) {
    if (!before.isEmpty())
        return commitsSince(db, table, before);
    auto q = db.exec(QStringLiteral("SELECT CAST(h.snapshot_id AS VARCHAR), s.summary["
                                    "'trino_query_id'] FROM ") %
                     metadataTable(db, table, QStringLiteral("$history")) %
                     QStringLiteral(" AS h JOIN ") %
                     metadataTable(db, table, QStringLiteral("$snapshots")) %
                     QStringLiteral(" AS s ON s.snapshot_id = h.snapshot_id WHERE "
                                    "h.is_current_ancestor ORDER BY h.made_current_at"));
    if (!q)
        return fail(q.error());
    std::vector<Commit> out;
    while (q->next()) {
        Commit c;
        c.snapshot = q->value(0).toString();
        c.queryId = q->value(1).toString();
        out.push_back(c);
    }
    return out;
}

} // namespace

Result<CommitFound> findCommit(const Database &db, const QString &table, const QString &before,
                               const QString &tag, QString queryId) {
    using Outcome = CommitFound::Outcome;
    CommitFound found;
    auto state = statementState(db, tag, queryId);
    if (!state)
        return fail(state.error());
    if (running(*state) && !state->isEmpty()) {
        // Still queued or running: stopped, and waited for, before anything
        // is decided (a commit in flight may yet land).
        (void)db.exec(QStringLiteral("CALL system.runtime.kill_query(query_id => ?, message => "
                                     "'Rewind: the run that sent it is being resumed')"),
                      {queryId});
        for (int i = 0; i < 120 && running(*state) && !state->isEmpty(); ++i) {
            QThread::msleep(250);
            state = statementState(db, tag, queryId);
            if (!state)
                return fail(state.error());
        }
        if (running(*state) && !state->isEmpty()) {
            found.queryId = queryId;
            found.detail = QStringLiteral("its statement (Trino query %1) is still %2 after 30 s")
                               .arg(queryId, *state);
            return found;
        }
    }
    found.queryId = queryId;
    if (queryId.isEmpty()) {
        // No id recorded and none found by the tag: the statement was never
        // submitted (an id is recorded before it is), so it never ran.
        found.outcome = Outcome::NotLanded;
        return found;
    }
    auto since = ancestorsSince(db, table, before);
    if (!since)
        return fail(since.error());
    for (const Commit &c : *since)
        if (c.queryId == queryId) {
            found.outcome = Outcome::Landed;
            found.snapshot = c.snapshot;
            return found;
        }
    auto elsewhere = snapshotOfQuery(db, table, queryId);
    if (!elsewhere)
        return fail(elsewhere.error());
    if (!elsewhere->isEmpty()) {
        found.detail = QStringLiteral("its statement (Trino query %1) committed snapshot %2, "
                                      "which is no longer in the table's current history")
                           .arg(queryId, *elsewhere);
        return found;
    }
    // Not running, and no snapshot of it: it failed, was cancelled, or was
    // never submitted.
    found.outcome = Outcome::NotLanded;
    return found;
}

QString asOf(const QString &quotedTable, const QString &snapshot) {
    return quotedTable % QStringLiteral(" FOR VERSION AS OF ") %
           (isSnapshotId(snapshot) ? snapshot : QStringLiteral("NULL"));
}

Result<Locks> readLocks(const Database &db, const DatasetSpec &dataset, bool targetExists) {
    Locks locks;
    if (dataset.transform.isEmpty() && !dataset.source.isEmpty()) {
        // A source that is not an Iceberg table (a view, another
        // connector's table) has no snapshots: its fingerprints lock it, as
        // a transform's do. A lost server fails the statements that follow.
        if (auto source = currentSnapshot(db, dataset.source))
            locks.source = *source;
    }
    if (targetExists) {
        auto target = currentSnapshot(db, dataset.target);
        if (!target)
            return fail(target.error());
        locks.target = *target;
    }
    return locks;
}

void lockSource(DatasetCatalog &catalog, const Database &db, const DatasetSpec &dataset,
                const QString &snapshot) {
    if (!dataset.transform.isEmpty() || dataset.source.isEmpty() || !isSnapshotId(snapshot))
        return;
    catalog.source =
        QStringLiteral("SELECT * FROM ") % asOf(db.quoteTable(dataset.source), snapshot);
}

namespace {

// The names of a row type's fields: "row(dt date, \"x y\" bigint)".
QStringList rowFields(const QString &type) {
    QStringList out;
    const qsizetype open = type.indexOf(u'(');
    if (!type.startsWith(QLatin1String("row(")) || open < 0)
        return out;
    int depth = 0;
    QString field;
    for (qsizetype i = open + 1; i < type.size(); ++i) {
        const QChar c = type.at(i);
        if (c == u'(')
            ++depth;
        if (c == u')' && depth-- == 0) {
            out << field.trimmed();
            break;
        }
        if (c == u',' && depth == 0) {
            out << field.trimmed();
            field.clear();
            continue;
        }
        field += c;
    }
    for (QString &f : out) {
        f = f.startsWith(u'"') ? f.mid(1, f.indexOf(u'"', 1) - 1) : f.section(u' ', 0, 0);
    }
    return out;
}

} // namespace

Result<QHash<QString, PartitionSnapshot>> lastSnapshots(const Database &db,
                                                        const DatasetSpec &dataset) {
    QHash<QString, PartitionSnapshot> out;
    if (!dataset.partitioned())
        return out;
    // An unpartitioned Iceberg table (a dimension, say) has no partition
    // struct: its $partitions table then has no "partition" column.
    auto layout = db.exec(QStringLiteral("SELECT * FROM ") %
                          metadataTable(db, dataset.target, QStringLiteral("$partitions")) %
                          QStringLiteral(" LIMIT 0"));
    if (!layout)
        return fail(layout.error());
    if (layout->record().indexOf(QStringLiteral("partition")) < 0)
        return out;
    const QString entries = metadataTable(db, dataset.target, QStringLiteral("$entries"));
    auto type = db.scalar(QStringLiteral("SELECT typeof(data_file.partition) FROM ") % entries %
                          QStringLiteral(" LIMIT 1"));
    if (!type)
        return fail(type.error());
    const QStringList fields = rowFields(type->toString());
    const QString column = dataset.partitionColumn;
    const QString grain = dataset.partitionGranularity;
    // The partition's label as Rewind writes it (partitionText, timeGrain).
    const auto field = [&](const QString &name) -> QString {
        return QStringLiteral("e.data_file.partition.") % db.quote(name);
    };
    const QString epoch = QStringLiteral("TIMESTAMP '1970-01-01 00:00:00 UTC'");
    QString label;
    if (grain.isEmpty() && fields.contains(column))
        label = BatchDialect::of(db.dialect()).partitionText(field(column));
    else if (grain == QLatin1String("day") && fields.contains(column % QStringLiteral("_day")))
        label = QStringLiteral("CAST(") % field(column % QStringLiteral("_day")) %
                QStringLiteral(" AS VARCHAR)");
    else if (grain == QLatin1String("month") && fields.contains(column % QStringLiteral("_month")))
        label = QStringLiteral("format_datetime(date_add('month', ") %
                field(column % QStringLiteral("_month")) % QStringLiteral(", ") % epoch %
                QStringLiteral("), 'yyyy-MM-01')");
    else if (grain == QLatin1String("hour") && fields.contains(column % QStringLiteral("_hour")))
        label = QStringLiteral("format_datetime(date_add('hour', ") %
                field(column % QStringLiteral("_hour")) % QStringLiteral(", ") % epoch %
                QStringLiteral("), 'yyyy-MM-dd''T''HH'':00:00Z''')");
    if (label.isEmpty())
        return out; // partitioned otherwise than the dataset's partitions
    auto q = db.exec(
        QStringLiteral("WITH last AS (SELECT ") % label %
        QStringLiteral(" AS part, max_by(e.snapshot_id, e.sequence_number) AS snapshot_id FROM ") %
        entries %
        QStringLiteral(" AS e GROUP BY 1) SELECT last.part, CAST(last.snapshot_id AS VARCHAR), "
                       "format_datetime(s.committed_at AT TIME ZONE 'UTC', "
                       "'yyyy-MM-dd''T''HH:mm:ss.SSS''Z'''), s.operation, s.summary['trino_user'] "
                       "FROM last JOIN ") %
        metadataTable(db, dataset.target, QStringLiteral("$snapshots")) %
        QStringLiteral(" AS s ON s.snapshot_id = last.snapshot_id"));
    if (!q)
        return fail(q.error());
    while (q->next()) {
        const std::optional<QString> part =
            q->value(0).isNull() ? std::nullopt : std::optional<QString>(q->value(0).toString());
        out.insert(partitionKey(part), {q->value(1).toString(), q->value(2).toString(),
                                        q->value(3).toString(), q->value(4).toString()});
    }
    return out;
}

} // namespace rw::iceberg
