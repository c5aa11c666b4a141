// BatchSql: the statements of a publish (the before-images a rollback
// restores from, a merge's update and insert, an overwrite's delete and
// insert). The rest of BatchSql is in batchsql.cpp.
#include "core/batch/batchsql.h"

#include <QStringBuilder>

namespace rw {

// Named columns, not positions: a schema change adds its columns to the
// images table after rewind_run_id and rewind_op.
QString BatchSql::imagesInsert() const {
    return QStringLiteral("INSERT INTO ") % q(imagesTable()) % QStringLiteral(" (") %
           columnList(QString(), m_cat.columns) %
           QStringLiteral(", rewind_run_id, rewind_op) SELECT ");
}

QString BatchSql::saveImagesUpdated(QVariantList &binds) const {
    if (stagedInMatches()) {
        QStringList old;
        for (qsizetype i = 0; i < m_cat.columns.size(); ++i)
            old << QStringLiteral("m.rewind_o") % QString::number(i + 1);
        return imagesInsert() % old.join(u", ") % QStringLiteral(", ?, 'updated' FROM ") %
               w(kMatch) % QStringLiteral(" AS m WHERE m.rewind_d = 1");
    }
    if (byIdentity())
        return imagesInsert() % columnList(QStringLiteral("t"), m_cat.columns) %
               QStringLiteral(", ?, 'updated' FROM ") % qt(m_dataset->target) %
               QStringLiteral(" AS t WHERE ") % engine().rowIdentity(QStringLiteral("t")) %
               QStringLiteral(" IN (SELECT m.rewind_tid FROM ") % w(kMatch) %
               QStringLiteral(" AS m WHERE m.rewind_d = 1)");
    return imagesInsert() % columnList(QStringLiteral("t"), m_cat.columns) %
           QStringLiteral(", ?, 'updated' FROM ") % tgt() % QStringLiteral(" AS t WHERE ") %
           tgtScope(QStringLiteral("t"), binds) % QStringLiteral(" AND EXISTS (SELECT 1 FROM ") %
           w(kStage) % QStringLiteral(" AS s WHERE ") % stageKeyMatch(QStringLiteral("t")) %
           QStringLiteral(" AND ") % rowsDiffer(QStringLiteral("t"), QStringLiteral("s")) % u')';
}

QString BatchSql::saveImagesInserted(bool everyStagedRow) const {
    // A rollback removes the rows a merge inserted by their partition and
    // key (rollbackStatements: keyMatch), so only those columns are kept;
    // the others stay NULL. A backfill into empty partitions otherwise
    // wrote every row twice (10,000 days, 950,000 rows: 103 MB of images).
    const QStringList kept = m_cat.key.isEmpty() ? m_cat.columns : partitionAndKey();
    const QString into =
        QStringLiteral("INSERT INTO ") % q(imagesTable()) % QStringLiteral(" (") %
        columnList(QString(), kept) % QStringLiteral(", rewind_run_id, rewind_op) SELECT ") %
        columnList(QStringLiteral("s"), kept) % QStringLiteral(", ?, 'inserted' FROM ");
    if (byIdentity())
        return into % stageTable() % QStringLiteral(" AS s") %
               (everyStagedRow ? QString() : QStringLiteral(" WHERE ") % insertedByMatch());
    return into % w(kStage) % QStringLiteral(" AS s WHERE NOT EXISTS (SELECT 1 FROM ") % tgt() %
           QStringLiteral(" AS t WHERE ") % stageKeyMatch(QStringLiteral("t")) % u')';
}

QString BatchSql::saveImagesReplaced(QVariantList &binds,
                                     const std::vector<PartitionRef> *only) const {
    if (only)
        return imagesInsert() % columnList(QStringLiteral("t"), m_cat.columns) %
               QStringLiteral(", ?, 'replaced' FROM ") % qt(m_dataset->target) %
               QStringLiteral(" AS t WHERE ") % scopePredicate(QStringLiteral("t"), *only, binds);
    return imagesInsert() % columnList(QStringLiteral("t"), m_cat.columns) %
           QStringLiteral(", ?, 'replaced' FROM ") % tgt() % QStringLiteral(" AS t WHERE ") %
           tgtScope(QStringLiteral("t"), binds);
}

std::vector<std::pair<QString, QVariantList>> BatchSql::mergeUpdate() const {
    // Touches only rows whose values differ; the scope's filter lets the
    // target's partition index narrow the scan. Matched by row identity
    // (Match::ByIdentity), each changed row is one lookup (SQLite's rowid search,
    // PostgreSQL's parameterized TID scan; EXPLAIN: neither reads the rest
    // of the target), except from rewind_match of a one-statement stage,
    // where the day's identities are hashed (below).
    QStringList sets;
    for (const QString &c : m_cat.updated)
        sets << q(c) % QStringLiteral(" = s.") % q(c);
    QVariantList binds;
    if (stagedInMatches()) {
        // By row identity, hashed: the day's rows (the partition filter) are
        // scanned once and their identities hashed against the changed rows
        // (SqlDialect::aroundHashedIdentityJoin). Measured on PostgreSQL:
        // at 5M rows (95,000 changed), the key join took 560-890 ms where a
        // TID scan per row took 960-975; at 10M, see the dialect.
        const QString update =
            QStringLiteral("UPDATE ") % qt(m_dataset->target) % QStringLiteral(" AS t SET ") %
            sets.join(u", ") % QStringLiteral(" FROM ") % w(kMatch) %
            QStringLiteral(" AS s WHERE s.rewind_d = 1 AND ") %
            scopePredicate(QStringLiteral("t"), m_strategy.scope, binds) % QStringLiteral(" AND ") %
            engine().rowIdentity(QStringLiteral("t")) % QStringLiteral(" = s.rewind_tid");
        const auto [before, after] = engine().aroundHashedIdentityJoin();
        std::vector<std::pair<QString, QVariantList>> out;
        if (!before.isEmpty())
            out.push_back({before, {}});
        out.push_back({update, binds});
        if (!after.isEmpty())
            out.push_back({after, {}});
        return out;
    }
    if (byIdentity()) {
        const QString changed =
            QStringLiteral("SELECT m.rewind_tid, ") %
            columnList(QStringLiteral("x"), m_cat.updated) % QStringLiteral(" FROM ") % w(kMatch) %
            QStringLiteral(" AS m JOIN ") % w(kStage) % QStringLiteral(" AS x ON ") %
            engine().rowIdentity(QStringLiteral("x")) %
            QStringLiteral(" = m.rewind_sid WHERE m.rewind_d = 1");
        return {{QStringLiteral("UPDATE ") % qt(m_dataset->target) % QStringLiteral(" AS t SET ") %
                     sets.join(u", ") % QStringLiteral(" FROM (") % changed %
                     QStringLiteral(") AS s WHERE ") % engine().rowIdentity(QStringLiteral("t")) %
                     QStringLiteral(" = s.rewind_tid"),
                 {}}};
    }
    const QString update =
        QStringLiteral("UPDATE ") % qt(m_dataset->target) % QStringLiteral(" AS t SET ") %
        sets.join(u", ") % QStringLiteral(" FROM ") % w(kStage) % QStringLiteral(" AS s WHERE ") %
        scopePredicate(QStringLiteral("t"), m_strategy.scope, binds) % QStringLiteral(" AND ") %
        stageKeyMatch(QStringLiteral("t")) % QStringLiteral(" AND ") %
        rowsDiffer(QStringLiteral("t"), QStringLiteral("s"));
    return {{update, binds}};
}

QString BatchSql::insertedByMatch() const {
    if (stagedInMatches()) // an unmatched staged row is one row of rewind_match
        return QStringLiteral("s.rewind_tid IS NULL");
    return engine().rowIdentity(QStringLiteral("s")) %
           QStringLiteral(" IN (SELECT m.rewind_sid FROM ") % w(kMatch) %
           QStringLiteral(" AS m WHERE m.rewind_tid IS NULL)");
}

QString BatchSql::mergeInsert(bool everyStagedRow) const {
    if (byIdentity())
        return QStringLiteral("INSERT INTO ") % qt(m_dataset->target) % QStringLiteral(" (") %
               columnList(QString(), m_cat.columns) % QStringLiteral(") SELECT ") %
               columnList(QStringLiteral("s"), m_cat.columns) % QStringLiteral(" FROM ") %
               stageTable() % QStringLiteral(" AS s") %
               (everyStagedRow ? QString() : QStringLiteral(" WHERE ") % insertedByMatch());
    return QStringLiteral("INSERT INTO ") % qt(m_dataset->target) % QStringLiteral(" (") %
           columnList(QString(), m_cat.columns) % QStringLiteral(") SELECT ") %
           columnList(QStringLiteral("s"), m_cat.columns) % QStringLiteral(" FROM ") % w(kStage) %
           QStringLiteral(" AS s WHERE NOT EXISTS (SELECT 1 FROM ") % tgt() %
           QStringLiteral(" AS t WHERE ") % stageKeyMatch(QStringLiteral("t")) % u')';
}

QString BatchSql::overwriteDelete(QVariantList &binds,
                                  const std::vector<PartitionRef> *only) const {
    return QStringLiteral("DELETE FROM ") % qt(m_dataset->target) % QStringLiteral(" WHERE ") %
           scopePredicate(QString(), only ? *only : m_strategy.scope, binds);
}

QString BatchSql::overwriteInsert(QVariantList &binds,
                                  const std::vector<PartitionRef> *only) const {
    return insertStaged(qt(m_dataset->target), only, binds);
}

QString BatchSql::insertStaged(const QString &table, const std::vector<PartitionRef> *only,
                               QVariantList &binds) const {
    return QStringLiteral("INSERT INTO ") % table % QStringLiteral(" (") %
           columnList(QString(), m_cat.columns) % QStringLiteral(") SELECT ") %
           columnList(QString(), m_cat.columns) % QStringLiteral(" FROM ") % w(kStage) %
           (only ? QStringLiteral(" WHERE ") % scopePredicate(QString(), *only, binds) : QString());
}

} // namespace rw
