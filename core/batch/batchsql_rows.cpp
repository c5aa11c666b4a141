// BatchSql for the write modes that keep every staged row: delete_insert
// (dbt's delete+insert) and append. Their stage is the scope's source rows,
// not deduped; their diff counts the rows inserted (every staged row) and,
// for delete_insert, the target rows deleted and the keys touched.
#include "core/batch/batchsql.h"

#include <QStringBuilder>

namespace rw {

QString BatchSql::stagedKeyCounts() const {
    const QString p = partExpr(QStringLiteral("s"));
    return QStringLiteral("SELECT x.rewind_pl, x.rewind_pn, COUNT(*) FROM (SELECT DISTINCT ") %
           engine().partitionText(p) % QStringLiteral(" AS rewind_pl, CASE WHEN ") % p %
           QStringLiteral(" IS NULL THEN 1 ELSE 0 END AS rewind_pn, ") %
           columnList(QStringLiteral("s"), m_cat.key) % QStringLiteral(" FROM ") % w(kStage) %
           QStringLiteral(" AS s) AS x GROUP BY x.rewind_pl, x.rewind_pn");
}

QString BatchSql::keyedTargetCounts(QVariantList &binds) const {
    return QStringLiteral("SELECT ") % countLabels(QStringLiteral("t"), m_strategy.scope) %
           QStringLiteral("COUNT(*) FROM ") % tgt() % QStringLiteral(" AS t WHERE ") %
           tgtScope(QStringLiteral("t"), binds) % QStringLiteral(" AND EXISTS (SELECT 1 FROM ") %
           w(kStage) % QStringLiteral(" AS s WHERE ") % stageKeyMatch(QStringLiteral("t")) % u')' %
           countGrouping(QStringLiteral("t"), m_strategy.scope);
}

QString BatchSql::saveImagesDeletedByKey(QVariantList &binds) const {
    return imagesInsert() % columnList(QStringLiteral("t"), m_cat.columns) %
           QStringLiteral(", ?, 'deleted' FROM ") % tgt() % QStringLiteral(" AS t WHERE ") %
           tgtScope(QStringLiteral("t"), binds) % QStringLiteral(" AND EXISTS (SELECT 1 FROM ") %
           w(kStage) % QStringLiteral(" AS s WHERE ") % stageKeyMatch(QStringLiteral("t")) % u')';
}

QString BatchSql::saveImagesStaged() const {
    const QStringList kept =
        m_dataset->write == WriteMode::Append ? m_cat.columns : partitionAndKey();
    return QStringLiteral("INSERT INTO ") % q(imagesTable()) % QStringLiteral(" (") %
           columnList(QString(), kept) % QStringLiteral(", rewind_run_id, rewind_op) SELECT ") %
           columnList(QStringLiteral("s"), kept) % QStringLiteral(", ?, 'inserted' FROM ") %
           w(kStage) % QStringLiteral(" AS s");
}

QString BatchSql::deleteByStagedKeys(QVariantList &binds) const {
    const QString target = qt(m_dataset->target);
    return QStringLiteral("DELETE FROM ") % target % QStringLiteral(" WHERE ") %
           scopePredicate(target, m_strategy.scope, binds) %
           QStringLiteral(" AND EXISTS (SELECT 1 FROM ") % w(kStage) %
           QStringLiteral(" AS s WHERE ") % stageKeyMatch(target) % u')';
}

} // namespace rw
