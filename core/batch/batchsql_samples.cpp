// BatchSql: the preview's sample rows per change kind (inserted, updated,
// unchanged, deleted), from the staged batch and its matches.
#include "core/batch/batchsql.h"
#include "core/batch/scope.h"

#include <QHash>
#include <QStringBuilder>

namespace rw {

namespace {
const QString kAfter = QStringLiteral("after");
} // namespace

QString BatchSql::sampleFilter(const QString &qualifier, const std::vector<PartitionRef> &parts,
                               QVariantList &binds) const {
    return parts.size() == 1 ? partitionFilter(qualifier, parts.front(), binds)
                             : scopeOn(partExpr(qualifier), parts, binds);
}

QString BatchSql::sampleSelect(const std::vector<PartitionRef> &parts,
                               const QStringList &qualifiers, const QString &fromWhere,
                               const QString &orderQualifier) const {
    const QString orderBy =
        columnList(orderQualifier, m_cat.key.isEmpty() ? m_cat.columns : m_cat.key);
    // kAfter: a merge's row after its update, each column from the stage
    // where the merge sets it, from the target where the merge keeps it
    // (merge_update_columns / merge_exclude_columns).
    const auto qualified = [&](const QString &qualifier, const QString &c) -> QString {
        if (qualifier != kAfter)
            return qualifier % u'.' % q(c);
        const bool set = m_cat.updated.size() == m_cat.values.size() || m_cat.updated.contains(c) ||
                         !m_cat.values.contains(c);
        return (set ? QStringLiteral("s.") : QStringLiteral("t.")) % q(c);
    };
    QStringList columns;
    for (const QString &qualifier : qualifiers) {
        QStringList one;
        for (const QString &c : m_cat.columns)
            one << qualified(qualifier, c);
        columns << one.join(QStringLiteral(", "));
    }
    if (parts.size() == 1)
        return QStringLiteral("SELECT ") % columns.join(u", ") % QStringLiteral(" FROM ") %
               fromWhere % QStringLiteral(" ORDER BY ") % orderBy % QStringLiteral(" LIMIT ?");
    // Many partitions: each one's first rows in key order, in one statement
    // (a query per partition read the stage once each), labelled. The
    // columns keep their names through the subquery by aliases (a subquery
    // renames a repeated name: an update's before and after).
    QStringList inner, outer;
    for (const QString &qualifier : qualifiers)
        for (const QString &c : m_cat.columns) {
            const QString alias = QStringLiteral("rewind_c") % QString::number(inner.size());
            inner << qualified(qualifier, c) % QStringLiteral(" AS ") % alias;
            outer << alias % QStringLiteral(" AS ") % q(c);
        }
    const QString p = partExpr(orderQualifier);
    return QStringLiteral("SELECT rewind_pl, rewind_pn, ") % outer.join(u", ") %
           QStringLiteral(" FROM (SELECT ") % engine().partitionText(p) %
           QStringLiteral(" AS rewind_pl, CASE WHEN ") % p %
           QStringLiteral(" IS NULL THEN 1 ELSE 0 END AS rewind_pn, ") % inner.join(u", ") %
           QStringLiteral(", ROW_NUMBER() OVER (PARTITION BY ") % p % QStringLiteral(" ORDER BY ") %
           orderBy % QStringLiteral(") AS rewind_rn FROM ") % fromWhere %
           QStringLiteral(
               ") AS x WHERE rewind_rn <= ? ORDER BY rewind_pn, rewind_pl, rewind_rn"); // each
                                                                                        // partition's
                                                                                        // rows in
                                                                                        // key order
}

QString BatchSql::sampleInserted(const std::vector<PartitionRef> &parts,
                                 QVariantList &binds) const {
    const QString where = sampleFilter(QStringLiteral("s"), parts, binds);
    if (keepsEveryRow()) // every staged row is inserted
        return sampleSelect(parts, {QStringLiteral("s")},
                            w(kStage) % QStringLiteral(" AS s WHERE ") % where,
                            QStringLiteral("s"));
    return sampleSelect(parts, {QStringLiteral("s")},
                        w(kStage) % QStringLiteral(" AS s WHERE ") % where %
                            QStringLiteral(" AND NOT EXISTS (SELECT 1 FROM ") % tgt() %
                            QStringLiteral(" AS t WHERE ") % stageKeyMatch(QStringLiteral("t")) %
                            QStringLiteral(" AND ") %
                            sampleFilter(QStringLiteral("t"), parts, binds) % u')',
                        QStringLiteral("s"));
}

QString BatchSql::sampleUpdated(const std::vector<PartitionRef> &parts, QVariantList &binds) const {
    const QString where = sampleFilter(QStringLiteral("s"), parts, binds);
    const QString inPart = sampleFilter(QStringLiteral("t"), parts, binds);
    return sampleSelect(parts, {kAfter, QStringLiteral("t")},
                        w(kStage) % QStringLiteral(" AS s JOIN ") % tgt() %
                            QStringLiteral(" AS t ON ") % stageKeyMatch(QStringLiteral("t")) %
                            QStringLiteral(" WHERE ") % where % QStringLiteral(" AND ") % inPart %
                            QStringLiteral(" AND ") %
                            rowsDiffer(QStringLiteral("t"), QStringLiteral("s")),
                        QStringLiteral("s"));
}

QString BatchSql::sampleUnchanged(const std::vector<PartitionRef> &parts,
                                  QVariantList &binds) const {
    const QString where = sampleFilter(QStringLiteral("s"), parts, binds);
    const QString inPart1 = sampleFilter(QStringLiteral("t"), parts, binds);
    const QString inPart2 = sampleFilter(QStringLiteral("t"), parts, binds);
    return sampleSelect(parts, {QStringLiteral("s")},
                        w(kStage) % QStringLiteral(" AS s WHERE ") % where %
                            QStringLiteral(" AND EXISTS (SELECT 1 FROM ") % tgt() %
                            QStringLiteral(" AS t WHERE ") % stageKeyMatch(QStringLiteral("t")) %
                            QStringLiteral(" AND ") % inPart1 %
                            QStringLiteral(") AND NOT EXISTS (SELECT 1 FROM ") % tgt() %
                            QStringLiteral(" AS t WHERE ") % stageKeyMatch(QStringLiteral("t")) %
                            QStringLiteral(" AND ") % inPart2 % QStringLiteral(" AND ") %
                            rowsDiffer(QStringLiteral("t"), QStringLiteral("s")) % u')',
                        QStringLiteral("s"));
}

QString BatchSql::sampleDeleted(const std::vector<PartitionRef> &parts, QVariantList &binds) const {
    if (keepsEveryRow()) // delete_insert: the target rows of a staged key
        return sampleSelect(parts, {QStringLiteral("t")},
                            tgt() % QStringLiteral(" AS t WHERE ") %
                                sampleFilter(QStringLiteral("t"), parts, binds) %
                                QStringLiteral(" AND EXISTS (SELECT 1 FROM ") % w(kStage) %
                                QStringLiteral(" AS s WHERE ") %
                                stageKeyMatch(QStringLiteral("t")) % u')',
                            QStringLiteral("t"));
    return sampleSelect(
        parts, {QStringLiteral("t")},
        tgt() % QStringLiteral(" AS t WHERE ") % sampleFilter(QStringLiteral("t"), parts, binds) %
            QStringLiteral(" AND NOT EXISTS (SELECT 1 FROM ") % w(kStage) %
            QStringLiteral(" AS s WHERE ") % stageKeyMatch(QStringLiteral("t")) % u')',
        QStringLiteral("t"));
}

} // namespace rw
