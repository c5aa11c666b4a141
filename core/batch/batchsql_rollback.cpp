// The statements that roll a published partition back from its
// before-images (per write mode), and the counts a rollback's dry run shows.
// The rest of BatchSql is in batchsql.cpp.
#include "core/batch/batchsql.h"

#include <QStringBuilder>

namespace rw {

// --- rollback -----------------------------------------------------------------

std::vector<std::pair<QString, QVariantList>>
BatchSql::rollbackStatements(WriteMode mode, const PartitionRef &p, const QVariant &runId) const {
    const QString target = qt(m_dataset->target);
    const QString images = q(imagesTable());
    std::vector<std::pair<QString, QVariantList>> out;
    if (mode == WriteMode::Scd2) {
        const Scd2Spec &v = *m_dataset->scd2;
        const QStringList restored = targetHeldColumns() << v.versionColumns();
        out.push_back({QStringLiteral("DELETE FROM ") % target %
                           QStringLiteral(" WHERE EXISTS (SELECT 1 FROM ") % images %
                           QStringLiteral(" AS i WHERE i.rewind_run_id = ? AND i.rewind_part = ? "
                                          "AND i.rewind_op IN ('inserted', 'updated') AND ") %
                           keyEqual(target, QStringLiteral("i")) % QStringLiteral(" AND ") %
                           target % u'.' % q(v.validFrom) % QStringLiteral(" = i.") %
                           q(v.validFrom) % u')',
                       {runId, p.value}});
        out.push_back({QStringLiteral("INSERT INTO ") % target % QStringLiteral(" (") %
                           columnList(QString(), restored) % QStringLiteral(") SELECT ") %
                           columnList(QString(), restored) % QStringLiteral(" FROM ") % images %
                           QStringLiteral(" WHERE rewind_run_id = ? AND rewind_part = ? AND "
                                          "rewind_op IN ('updated', 'deleted')"),
                       {runId, p.value}});
        return out;
    }
    // Not a column a pending schema change would add: neither the target
    // nor the images have it yet.
    const QString cols = columnList(QString(), targetHeldColumns());
    if (mode == WriteMode::OverwritePartition) {
        QVariantList b1;
        const QString del = QStringLiteral("DELETE FROM ") % target % QStringLiteral(" WHERE ") %
                            partitionFilter(QString(), p, b1);
        out.push_back({del, b1});
        QVariantList b2{runId};
        const QString ins =
            QStringLiteral("INSERT INTO ") % target % QStringLiteral(" (") % cols %
            QStringLiteral(") SELECT ") % cols % QStringLiteral(" FROM ") % images %
            QStringLiteral(" AS i WHERE i.rewind_run_id = ? AND i.rewind_op = 'replaced' AND ") %
            partitionFilter(QStringLiteral("i"), p, b2);
        out.push_back({ins, b2});
        return out;
    }
    if (mode == WriteMode::DeleteInsert) {
        // Remove every row of the keys it inserted; put back the rows it deleted.
        QVariantList b1;
        const QString filter1 = partitionFilter(target, p, b1);
        b1 << runId;
        out.push_back({QStringLiteral("DELETE FROM ") % target % QStringLiteral(" WHERE ") %
                           filter1 % QStringLiteral(" AND EXISTS (SELECT 1 FROM ") % images %
                           QStringLiteral(" AS i WHERE i.rewind_run_id = ? AND i.rewind_op = "
                                          "'inserted' AND ") %
                           keyMatch(target, QStringLiteral("i")) % u')',
                       b1});
        QVariantList b2{runId};
        out.push_back({QStringLiteral("INSERT INTO ") % target % QStringLiteral(" (") % cols %
                           QStringLiteral(") SELECT ") % cols % QStringLiteral(" FROM ") % images %
                           QStringLiteral(" AS i WHERE i.rewind_run_id = ? AND i.rewind_op = "
                                          "'deleted' AND ") %
                           partitionFilter(QStringLiteral("i"), p, b2),
                       b2});
        return out;
    }
    if (mode == WriteMode::Append) {
        out.push_back(appendRollback(p, runId));
        return out;
    }
    // merge: remove the keys it inserted; put back the rows it updated (as
    // many rows of each key as it changed: untouched copies stay).
    QVariantList b1;
    const QString filter1 = partitionFilter(target, p, b1);
    b1 << runId;
    out.push_back(
        {QStringLiteral("DELETE FROM ") % target % QStringLiteral(" WHERE ") % filter1 %
             QStringLiteral(" AND EXISTS (SELECT 1 FROM ") % images %
             QStringLiteral(" AS i WHERE i.rewind_run_id = ? AND i.rewind_op = 'inserted' AND ") %
             keyMatch(target, QStringLiteral("i")) % u')',
         b1});
    const QStringList group = partitionAndKey();
    // The grouping of `alias`'s rows: by partition and key, the partition
    // being the partition column's hour, day or month where the dataset says
    // so (named as the column, for keyMatch), as the merge matched them.
    const auto grouping = [&](const QString &alias, bool named) {
        QStringList out;
        for (const QString &c : group)
            out << (m_dataset->partitioned() && c == m_dataset->partitionColumn &&
                            !m_dataset->partitionGranularity.isEmpty()
                        ? partExpr(alias) % (named ? QStringLiteral(" AS ") % q(c) : QString())
                        : QString(alias % u'.' % q(c)));
        return out.join(QStringLiteral(", "));
    };
    // Each target row of the partition numbered within its key, against
    // how many rows of that key the run updated. An engine that joins by
    // nested loops (SQLite) counts them per row, one seek into the images'
    // index each (a join there walked the partition for every image: 3 s a
    // partition of 10,000 rows); one that hashes joins (PostgreSQL) joins
    // them grouped, which its null-safe key match would keep from an index.
    QVariantList b2{runId};
    const QString tid = engine().rowIdentity(QStringLiteral("t"));
    const QString numbered = QStringLiteral("SELECT ") % tid %
                             QStringLiteral(" AS rid, ROW_NUMBER() OVER (PARTITION BY ") %
                             grouping(QStringLiteral("t"), false) % QStringLiteral(" ORDER BY ") %
                             tid % QStringLiteral(") AS rn, ");
    QString select;
    if (engine().indexesStageForJoins()) {
        const QString counted =
            QStringLiteral("(SELECT COUNT(*) FROM ") % images %
            QStringLiteral(" AS i WHERE i.rewind_run_id = ? AND i.rewind_op = 'updated' AND ") %
            keyMatch(QStringLiteral("t"), QStringLiteral("i")) % u')';
        const QString filter = partitionFilter(QStringLiteral("t"), p, b2);
        select = numbered % counted % QStringLiteral(" AS rewind_n FROM ") % target %
                 QStringLiteral(" AS t WHERE ") % filter;
    } else {
        const QString filter = partitionFilter(QStringLiteral("i"), p, b2);
        select =
            numbered % QStringLiteral("g.rewind_n FROM ") % target %
            QStringLiteral(" AS t JOIN (SELECT ") % grouping(QStringLiteral("i"), true) %
            QStringLiteral(", COUNT(*) AS rewind_n FROM ") % images %
            QStringLiteral(" AS i WHERE i.rewind_run_id = ? AND i.rewind_op = 'updated' AND ") %
            filter % QStringLiteral(" GROUP BY ") % grouping(QStringLiteral("i"), false) %
            QStringLiteral(") AS g ON ") % keyMatch(QStringLiteral("t"), QStringLiteral("g"));
    }
    out.push_back({QStringLiteral("DELETE FROM ") % target % QStringLiteral(" WHERE ") %
                       engine().rowIdentity(QString()) % QStringLiteral(" IN (SELECT rid FROM (") %
                       select % QStringLiteral(") AS x WHERE x.rn <= x.rewind_n)"),
                   b2});
    QVariantList b3{runId};
    const QString ins =
        QStringLiteral("INSERT INTO ") % target % QStringLiteral(" (") % cols %
        QStringLiteral(") SELECT ") % cols % QStringLiteral(" FROM ") % images %
        QStringLiteral(" AS i WHERE i.rewind_run_id = ? AND i.rewind_op = 'updated' AND ") %
        partitionFilter(QStringLiteral("i"), p, b3);
    out.push_back({ins, b3});
    return out;
}

// An append's rollback: of each row it inserted, as many equal rows of the
// partition as it inserted (rows equal to them that were there before, or
// came since, stay), matched on every column null-safe. The rows' hash
// leads the match, so that an engine joins on one integer (SQLite builds an
// automatic index on it; PostgreSQL hashes it) rather than comparing every
// image with every row.
std::pair<QString, QVariantList> BatchSql::appendRollback(const PartitionRef &p,
                                                          const QVariant &runId) const {
    const QString target = qt(m_dataset->target);
    const QStringList cols = targetHeldColumns();
    const auto qualified = [&](const QString &alias) {
        QStringList out;
        for (const QString &c : cols)
            out << alias % u'.' % q(c);
        return out;
    };
    QStringList equal;
    for (const QString &c : cols)
        equal << engine().nullSafeKeyEqual(QStringLiteral("x.") % q(c), QStringLiteral("g.") % q(c),
                                           m_cat.targetTypes.value(c));
    const QString tid = engine().rowIdentity(QStringLiteral("t"));
    QVariantList binds;
    const QString numbered =
        QStringLiteral("SELECT ") % tid %
        QStringLiteral(" AS rewind_rid, ROW_NUMBER() OVER (PARTITION BY ") %
        qualified(QStringLiteral("t")).join(u", ") % QStringLiteral(" ORDER BY ") % tid %
        QStringLiteral(") AS rewind_rn, ") % engine().rowHash(qualified(QStringLiteral("t"))) %
        QStringLiteral(" AS rewind_h, ") % qualified(QStringLiteral("t")).join(u", ") %
        QStringLiteral(" FROM ") % target % QStringLiteral(" AS t WHERE ") %
        partitionFilter(QStringLiteral("t"), p, binds);
    binds << runId;
    const QString grouped =
        QStringLiteral("SELECT ") % qualified(QStringLiteral("i")).join(u", ") %
        QStringLiteral(", ") % engine().rowHash(qualified(QStringLiteral("i"))) %
        QStringLiteral(" AS rewind_h, COUNT(*) AS rewind_n FROM ") % q(imagesTable()) %
        QStringLiteral(" AS i WHERE i.rewind_run_id = ? AND i.rewind_op = 'inserted' AND ") %
        partitionFilter(QStringLiteral("i"), p, binds) % QStringLiteral(" GROUP BY ") %
        qualified(QStringLiteral("i")).join(u", ");
    return {QStringLiteral("DELETE FROM ") % target % QStringLiteral(" WHERE ") %
                engine().rowIdentity(QString()) %
                QStringLiteral(" IN (SELECT x.rewind_rid FROM (") % numbered %
                QStringLiteral(") AS x JOIN (") % grouped %
                QStringLiteral(") AS g ON x.rewind_h = g.rewind_h AND ") % equal.join(u" AND ") %
                QStringLiteral(" WHERE x.rewind_rn <= g.rewind_n)"),
            binds};
}

std::pair<QString, QVariantList>
BatchSql::rollbackRemovedCount(WriteMode mode, const PartitionRef &p, const QVariant &runId) const {
    const QString images = q(imagesTable());
    if (mode == WriteMode::Scd2)
        return {QStringLiteral("SELECT COUNT(*) FROM ") % images %
                    QStringLiteral(" WHERE rewind_run_id = ? AND rewind_part = ? AND rewind_op IN "
                                   "('inserted', 'updated')"),
                {runId, p.value}};
    if (mode == WriteMode::OverwritePartition) {
        QVariantList b;
        const QString filter = partitionFilter(QString(), p, b);
        return {QStringLiteral("SELECT COUNT(*) FROM ") % qt(m_dataset->target) %
                    QStringLiteral(" WHERE ") % filter,
                b};
    }
    // (delete_insert and append: their 'inserted' images are the rows they inserted)
    QVariantList b{runId};
    const QString filter = partitionFilter(QStringLiteral("i"), p, b);
    return {
        QStringLiteral("SELECT COUNT(*) FROM ") % images %
            QStringLiteral(
                " AS i WHERE i.rewind_run_id = ? AND i.rewind_op IN ('inserted', 'updated') AND ") %
            filter,
        b};
}

std::pair<QString, QVariantList> BatchSql::rollbackRestoredCount(WriteMode mode,
                                                                 const PartitionRef &p,
                                                                 const QVariant &runId) const {
    const QString images = q(imagesTable());
    if (mode == WriteMode::Scd2)
        return {QStringLiteral("SELECT COUNT(*) FROM ") % images %
                    QStringLiteral(" WHERE rewind_run_id = ? AND rewind_part = ? AND rewind_op IN "
                                   "('updated', 'deleted')"),
                {runId, p.value}};
    QVariantList b{runId};
    const QString filter = partitionFilter(QStringLiteral("i"), p, b);
    return {QStringLiteral("SELECT COUNT(*) FROM ") % images %
                QStringLiteral(" AS i WHERE i.rewind_run_id = ? AND i.rewind_op = ") %
                (mode == WriteMode::OverwritePartition ? QStringLiteral("'replaced'")
                 : mode == WriteMode::DeleteInsert     ? QStringLiteral("'deleted'")
                                                       : QStringLiteral("'updated'")) %
                QStringLiteral(" AND ") % filter,
            b};
}

} // namespace rw
