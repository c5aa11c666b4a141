// BatchSql: the statements that write an Iceberg table through Trino. Each
// is one statement, so one snapshot, committed atomically: a reader sees a
// partition before the statement or after it, never between. Trino's MERGE
// has no WHEN NOT MATCHED BY SOURCE, so where rows must go (an overwrite's
// partition, a delete_insert's keys, a rollback's partition) the statement
// reads "marker" rows beside the new ones: one per partition (or per key),
// which each target row to remove matches exactly once (so it is deleted),
// and which insert nothing; the new rows match nothing (so they are
// inserted). The rest of BatchSql is in batchsql.cpp.
#include "core/batch/batchsql.h"
#include "core/batch/iceberg.h"

#include <QStringBuilder>
#include <algorithm>

namespace rw {

namespace {

QString nulls(qsizetype n) {
    QStringList out;
    for (qsizetype i = 0; i < n; ++i)
        out << QStringLiteral("NULL");
    return out.join(u", ");
}

} // namespace

QString BatchSql::icebergInsertMatched(const QStringList &columns) const {
    return QStringLiteral(" WHEN NOT MATCHED AND s.rewind_ins = 1 THEN INSERT (") %
           columnList(QString(), columns) % QStringLiteral(") VALUES (") %
           columnList(QStringLiteral("s"), columns) % u')';
}

QString BatchSql::icebergPartitionMarkers(const std::vector<PartitionRef> &parts, qsizetype columns,
                                          QVariantList &binds) const {
    // One row per partition: no column values, rewind_ins 0, its value.
    QStringList rows;
    const QString empty = nulls(columns);
    for (const PartitionRef &p : parts) {
        if (p.value.isNull()) {
            rows << QStringLiteral("SELECT ") % empty % QStringLiteral(", 0, NULL, 1");
        } else {
            rows << QStringLiteral("SELECT ") % empty % QStringLiteral(", 0, ?, 0");
            binds << bindOf(p);
        }
    }
    return rows.join(QStringLiteral(" UNION ALL "));
}

// `a` and `b` equal or both NULL, as a condition Trino can hash (a MERGE
// joins on it: IS NOT DISTINCT FROM, or an OR, made it a nested loop over
// the whole target, minutes at 200,000 rows).
QString BatchSql::icebergNullSafeEqual(const QString &a, const QString &b) const {
    return QStringLiteral("COALESCE(CAST(") % a %
           QStringLiteral(" AS VARCHAR), '') = COALESCE(CAST(") % b %
           QStringLiteral(" AS VARCHAR), '') AND (") % a % QStringLiteral(" IS NULL) = (") % b %
           QStringLiteral(" IS NULL)");
}

QString BatchSql::icebergPartitionMatch(const std::vector<PartitionRef> &parts) const {
    if (!m_dataset->partitioned())
        return QStringLiteral("s.rewind_ins = 0");
    const QString p = partExpr(QStringLiteral("t"));
    // Plain `=` where no partition is NULL: Trino then also prunes the
    // target's files by the markers' values (dynamic filtering).
    if (std::none_of(parts.begin(), parts.end(),
                     [](const PartitionRef &r) { return r.value.isNull(); }))
        return QStringLiteral("s.rewind_ins = 0 AND ") % p % QStringLiteral(" = s.rewind_p");
    return QStringLiteral("s.rewind_ins = 0 AND COALESCE(CAST(") % p %
           QStringLiteral(" AS VARCHAR), '') = COALESCE(CAST(s.rewind_p AS VARCHAR), '') AND (") %
           p % QStringLiteral(" IS NULL) = (s.rewind_pnull = 1)");
}

// The key (and the partition) of `t` and `s` equal: plain `=` where the
// stage holds no NULL key (the diff found out), else null-safe.
QString BatchSql::icebergKeyMatch() const {
    if (m_strategy.stageKeysNotNull)
        return stageKeyMatch(QStringLiteral("t"));
    QStringList terms;
    if (m_dataset->partitioned())
        terms << icebergNullSafeEqual(partExpr(QStringLiteral("t")), partExpr(QStringLiteral("s")));
    for (const QString &k : m_cat.key)
        terms << icebergNullSafeEqual(QStringLiteral("t.") % q(k), QStringLiteral("s.") % q(k));
    return terms.join(QStringLiteral(" AND "));
}

std::pair<QString, QVariantList>
BatchSql::icebergPublish(const std::vector<PartitionRef> &chunk) const {
    const QString target = qt(m_dataset->target);
    const QString cols = columnList(QString(), m_cat.columns);
    QVariantList binds;
    switch (m_dataset->write) {
    case WriteMode::Append:
        return {QStringLiteral("INSERT INTO ") % target % QStringLiteral(" (") % cols %
                    QStringLiteral(") SELECT ") % cols % QStringLiteral(" FROM ") % w(kStage),
                binds};
    case WriteMode::OverwritePartition: {
        // Every row of the chunk's partitions matches its partition's marker
        // and is deleted; every staged row is inserted.
        const QString using_ =
            QStringLiteral("SELECT ") % cols %
            QStringLiteral(", 1 AS rewind_ins, NULL AS rewind_p, 0 AS rewind_pnull FROM ") %
            w(kStage) % QStringLiteral(" UNION ALL ") %
            icebergPartitionMarkers(chunk, m_cat.columns.size(), binds);
        return {QStringLiteral("MERGE INTO ") % target % QStringLiteral(" AS t USING (") % using_ %
                    QStringLiteral(") AS s ON ") % icebergPartitionMatch(chunk) %
                    QStringLiteral(" WHEN MATCHED THEN DELETE") %
                    icebergInsertMatched(m_cat.columns),
                binds};
    }
    case WriteMode::DeleteInsert: {
        // One marker per (partition, key) of the staged rows: the target's
        // rows of that key in that partition match it and are deleted.
        QStringList keyed;
        for (const QString &c : m_cat.columns)
            keyed << (m_cat.key.contains(c) ? q(c) : QStringLiteral("NULL"));
        const QString part =
            m_dataset->partitioned() ? partExpr(QString()) : QStringLiteral("NULL");
        const QString using_ = QStringLiteral("SELECT ") % cols %
                               QStringLiteral(", 1 AS rewind_ins, NULL AS rewind_p FROM ") %
                               w(kStage) % QStringLiteral(" UNION ALL SELECT DISTINCT ") %
                               keyed.join(u", ") % QStringLiteral(", 0, ") % part %
                               QStringLiteral(" FROM ") % w(kStage);
        QStringList on{QStringLiteral("s.rewind_ins = 0")};
        if (m_dataset->partitioned())
            on << icebergNullSafeEqual(partExpr(QStringLiteral("t")), QStringLiteral("s.rewind_p"));
        for (const QString &k : m_cat.key)
            on << icebergNullSafeEqual(QStringLiteral("t.") % q(k), QStringLiteral("s.") % q(k));
        return {QStringLiteral("MERGE INTO ") % target % QStringLiteral(" AS t USING (") % using_ %
                    QStringLiteral(") AS s ON ") % on.join(QStringLiteral(" AND ")) %
                    QStringLiteral(" WHEN MATCHED THEN DELETE") %
                    icebergInsertMatched(m_cat.columns),
                binds};
    }
    case WriteMode::Scd2:
        return {scd2Merge(target), binds};
    case WriteMode::Merge:
        break;
    }
    // merge: a changed row updated, a new key inserted, by the key.
    QString update;
    if (!m_cat.updated.isEmpty()) {
        QStringList sets;
        for (const QString &c : m_cat.updated)
            sets << q(c) % QStringLiteral(" = s.") % q(c);
        update = QStringLiteral(" WHEN MATCHED AND ") %
                 rowsDiffer(QStringLiteral("t"), QStringLiteral("s")) %
                 QStringLiteral(" THEN UPDATE SET ") % sets.join(u", ");
    }
    return {QStringLiteral("MERGE INTO ") % target % QStringLiteral(" AS t USING ") % w(kStage) %
                QStringLiteral(" AS s ON ") % icebergKeyMatch() % update %
                QStringLiteral(" WHEN NOT MATCHED THEN INSERT (") % cols %
                QStringLiteral(") VALUES (") % columnList(QStringLiteral("s"), m_cat.columns) %
                u')',
            binds};
}

std::pair<QString, QVariantList>
BatchSql::icebergRestore(const std::vector<std::pair<PartitionRef, QString>> &parts,
                         const QStringList &columns) const {
    // Each partition's rows as the target held them at its snapshot before
    // the run, inserted; every row it holds now, deleted (its marker).
    const QString target = qt(m_dataset->target);
    QVariantList binds;
    QStringList before;
    for (const auto &[p, snapshot] : parts)
        before << QStringLiteral("SELECT ") % columnList(QStringLiteral("b"), columns) %
                      QStringLiteral(
                          ", 1 AS rewind_ins, NULL AS rewind_p, 0 AS rewind_pnull FROM ") %
                      iceberg::asOf(target, snapshot) % QStringLiteral(" AS b WHERE ") %
                      partitionFilter(QStringLiteral("b"), p, binds);
    std::vector<PartitionRef> refs;
    for (const auto &[p, snapshot] : parts)
        refs.push_back(p);
    return {QStringLiteral("MERGE INTO ") % target % QStringLiteral(" AS t USING (") %
                before.join(QStringLiteral(" UNION ALL ")) % QStringLiteral(" UNION ALL ") %
                icebergPartitionMarkers(refs, columns.size(), binds) %
                QStringLiteral(") AS s ON ") % icebergPartitionMatch(refs) %
                QStringLiteral(" WHEN MATCHED THEN DELETE") % icebergInsertMatched(columns),
            binds};
}

std::pair<QString, QVariantList> BatchSql::icebergRowsOnlyIn(const QString &from,
                                                             const QString &other,
                                                             const std::vector<PartitionRef> &parts,
                                                             const QStringList &columns) const {
    QVariantList binds;
    const QString cols = columnList(QString(), columns);
    const QString a = QStringLiteral("SELECT ") % cols % QStringLiteral(" FROM ") % from %
                      QStringLiteral(" AS x WHERE ") %
                      scopePredicate(QStringLiteral("x"), parts, binds);
    const QString b = QStringLiteral("SELECT ") % cols % QStringLiteral(" FROM ") % other %
                      QStringLiteral(" AS x WHERE ") %
                      scopePredicate(QStringLiteral("x"), parts, binds);
    return {QStringLiteral("SELECT ") % partLabelColumns(QStringLiteral("d")) %
                QStringLiteral(", count(*) FROM (") % a % QStringLiteral(" EXCEPT ALL ") % b %
                QStringLiteral(") AS d") % groupByPart(QStringLiteral("d")),
            binds};
}

} // namespace rw
