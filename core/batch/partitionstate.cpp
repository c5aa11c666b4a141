#include "core/batch/partitionstate.h"

#include "core/batch/partitions.h"

#include <QStringBuilder>

namespace rw::partitionstate {

namespace {

Status run(const Database &db, const QString &sql, const QVariantList &binds) {
    if (auto r = db.exec(sql, binds); !r)
        return fail(r.error());
    return {};
}

Result<QStringList> parts(const Database &db, const QString &dataset, const QString &condition) {
    auto q = db.exec(
        QStringLiteral(
            "SELECT part FROM rewind_partition_state WHERE dataset = ? AND part_is_null = 0 AND ") %
            condition,
        {dataset});
    if (!q)
        return fail(q.error());
    QStringList out;
    while (q->next())
        out << q->value(0).toString();
    return out;
}

} // namespace

Result<std::vector<Row>> read(const Database &db, const QString &dataset) {
    auto q = db.control().exec(
        QStringLiteral("SELECT part, part_is_null, status, source_sig, published_at, "
                       "finalized_at, last_run_id "
                       "FROM rewind_partition_state WHERE dataset = ?"),
        {dataset});
    if (!q)
        return fail(q.error());
    std::vector<Row> out;
    while (q->next()) {
        const QString status = q->value(2).toString();
        const auto known = enumFromName<RecordedStatus>(status);
        if (!known)
            return internalError(
                QStringLiteral(
                    "partition \"%1\" of dataset \"%2\" recorded an unknown status \"%3\"")
                    .arg(partitionLabel(q->value(1).toInt()
                                            ? std::nullopt
                                            : std::optional<QString>(q->value(0).toString())),
                         dataset, status));
        out.push_back({q->value(0), q->value(1), *known, q->value(3).toString(),
                       q->value(4).toString(), q->value(5).toString(), q->value(6)});
    }
    return out;
}

Result<QStringList> finalizedParts(const Database &db, const QString &dataset) {
    return parts(db, dataset, QStringLiteral("finalized_at IS NOT NULL"));
}

Result<QStringList> publishedParts(const Database &db, const QString &dataset) {
    return parts(db, dataset, QStringLiteral("published_at IS NOT NULL"));
}

Status recordHistory(const Database &db, const QString &select, const QVariantList &binds) {
    auto r = db.exec(QStringLiteral("INSERT INTO rewind_partition_state (dataset, part, "
                                    "part_is_null, status, source_rows, source_sig, "
                                    "published_at, finalized_at, last_run_id) ") %
                         select,
                     binds);
    if (!r)
        return fail(r.error());
    return {};
}

Status markFailed(const Database &db, const QString &dataset, const QString &part, bool isNull,
                  const QVariant &runId) {
    return run(
        db,
        QStringLiteral("INSERT INTO rewind_partition_state (dataset, part, part_is_null, status, "
                       "last_run_id) VALUES (?, ?, ?, ?, ?)") %
            db.dialect().upsertSet(
                {QStringLiteral("dataset"), QStringLiteral("part"), QStringLiteral("part_is_null")},
                {QStringLiteral("status"), QStringLiteral("last_run_id")}),
        {dataset, part, isNull ? 1 : 0, enumName(RecordedStatus::Failed), runId});
}

Status markPublished(const Database &db, const QString &dataset, const QString &part, bool isNull,
                     qint64 sourceRows, const QString &sourceSig, const QString &publishedAt,
                     const QVariant &runId) {
    return markPublished(db, dataset, {Published{part, isNull, sourceRows, sourceSig}}, publishedAt,
                         runId);
}

Status markPublished(const Database &db, const QString &dataset,
                     const std::vector<Published> &parts, const QString &publishedAt,
                     const QVariant &runId) {
    QVariantList binds;
    binds.reserve(qsizetype(parts.size()) * 8);
    for (const Published &p : parts)
        binds << dataset << p.part << (p.isNull ? 1 : 0) << enumName(RecordedStatus::Published)
              << p.sourceRows << p.sourceSig << publishedAt << runId;
    return db.execRows(
        QStringLiteral("INSERT INTO rewind_partition_state (dataset, part, part_is_null, status, "
                       "source_rows, source_sig, published_at, "
                       "finalized_at, last_run_id) VALUES "),
        QStringLiteral("(?, ?, ?, ?, ?, ?, ?, NULL, ?)"), 8, binds,
        QStringLiteral(" ON CONFLICT (dataset, part, part_is_null) DO UPDATE SET "
                       "status = CASE WHEN rewind_partition_state.finalized_at IS NOT NULL THEN "
                       "'final' ELSE 'published' END, "
                       "source_rows = excluded.source_rows, source_sig = excluded.source_sig, "
                       "published_at = excluded.published_at, last_run_id = excluded.last_run_id"));
}

Status markFinal(const Database &db, const QString &dataset, const QStringList &parts,
                 const QString &finalizedAt) {
    if (parts.isEmpty())
        return {};
    QStringList marks;
    QVariantList binds{enumName(RecordedStatus::Final), finalizedAt, dataset};
    for (const QString &part : parts) {
        marks << QStringLiteral("?");
        binds << part;
    }
    return run(db,
               QStringLiteral("UPDATE rewind_partition_state SET status = ?, finalized_at = ? "
                              "WHERE dataset = ? AND part_is_null = 0 AND part IN (") %
                   marks.join(u',') % u')',
               binds);
}

Status revertToPublish(const Database &db, const QString &dataset, const QString &part, bool isNull,
                       const QVariant &runId, const QVariant &publishedAt) {
    return run(db,
               QStringLiteral("UPDATE rewind_partition_state SET status = CASE WHEN finalized_at "
                              "IS NOT NULL THEN 'final' ELSE 'published' END, "
                              "source_sig = NULL, published_at = ?, last_run_id = ? WHERE dataset "
                              "= ? AND part = ? AND part_is_null = ?"),
               {publishedAt, runId, dataset, part, isNull ? 1 : 0});
}

Status forgetPublish(const Database &db, const QString &dataset, const QString &part, bool isNull) {
    if (auto s = run(db,
                     QStringLiteral("DELETE FROM rewind_partition_state WHERE dataset = ? AND part "
                                    "= ? AND part_is_null = ? AND finalized_at IS NULL"),
                     {dataset, part, isNull ? 1 : 0});
        !s)
        return s;
    return run(db,
               QStringLiteral("UPDATE rewind_partition_state SET source_sig = NULL, published_at = "
                              "NULL, last_run_id = NULL "
                              "WHERE dataset = ? AND part = ? AND part_is_null = ?"),
               {dataset, part, isNull ? 1 : 0});
}

} // namespace rw::partitionstate
