// The statements of an SCD2 (type 2 slowly changing dimension) batch: the
// simulation of a month's versions, the work table, its counts, apply,
// before-images and samples. The rest of BatchSql is in batchsql.cpp.
#include "core/batch/batchsql.h"

#include <QStringBuilder>

namespace rw {

namespace {
const QString kScd2 = QStringLiteral("rewind_scd2");
const QString kSim = QStringLiteral("rewind_sim");
} // namespace

QStringList BatchSql::trackedAll() const {
    QStringList out;
    for (const QString &c : m_cat.columns)
        if (!m_cat.key.contains(c) && c != m_dataset->partitionColumn &&
            !m_dataset->scd2->notTracked.contains(c))
            out << c;
    return out;
}

QString BatchSql::scd2SimTable() const {
    return w(kSim);
}

QStringList BatchSql::createScd2Sim(bool fromTarget) const {
    const SqlDialect &d = m_db.dialect();
    const Scd2Spec &v = *m_dataset->scd2;
    QString select;
    if (fromTarget) {
        // As the target is once a pending schema change is made.
        select =
            QStringLiteral("SELECT ") %
            readTarget(QStringLiteral("t"), targetColumns()).join(QStringLiteral(", ")) %
            QStringLiteral(" FROM ") % qt(m_dataset->target) %
            QStringLiteral(" AS t WHERE EXISTS (SELECT 1 FROM ") % w(kStage) %
            QStringLiteral(" AS s WHERE ") % keyEqual(QStringLiteral("t"), QStringLiteral("s")) %
            u')' %
            // The open versions of keys the stage lacks: what an invalidation closes.
            (v.invalidateHardDeletes
                 ? QString(QStringLiteral(" OR t.") % q(v.validTo) % QStringLiteral(" IS NULL"))
                 : QString());
    } else {
        const QString part = q(m_dataset->partitionColumn);
        select = QStringLiteral("SELECT ") % columnList(QString(), m_cat.columns) %
                 QStringLiteral(", ") % part % QStringLiteral(" AS ") % q(v.validFrom) %
                 QStringLiteral(", ") % part % QStringLiteral(" AS ") % q(v.validTo) %
                 (v.current.isEmpty() ? QString()
                                      : QStringLiteral(", CAST(1 AS INTEGER) AS ") % q(v.current)) %
                 QStringLiteral(" FROM ") % w(kStage) % QStringLiteral(" WHERE 1 = 0");
    }
    QStringList indexCols = m_cat.key.mid(0, 8);
    indexCols << v.validFrom;
    return {d.dropTempTable(kSim), createWork(kSim) % select,
            d.createTempIndex(QStringLiteral("rewind_sim_key"), kSim, indexCols)};
}

QStringList BatchSql::createScd2Work(const QString &dim, const PartitionRef &month,
                                     QVariantList &binds) const {
    const SqlDialect &d = m_db.dialect();
    const Scd2Spec &v = *m_dataset->scd2;
    const QString vf = q(v.validFrom), vt = q(v.validTo);
    const QString part = QStringLiteral("s.") % q(m_dataset->partitionColumn);
    auto trackedEqual = [&](const QString &a) {
        QStringList terms;
        for (const QString &t : v.trackAll ? trackedAll() : v.tracked)
            terms << d.nullSafeEqual(a % u'.' % q(t), QStringLiteral("s.") % q(t));
        return terms.isEmpty() ? QStringLiteral("1 = 1") : terms.join(QStringLiteral(" AND "));
    };
    const QString inner =
        QStringLiteral("SELECT ") % columnList(QStringLiteral("s"), m_cat.key) %
        QStringLiteral(", ") % part % QStringLiteral(" AS m, p.") % vf %
        QStringLiteral(" AS p_vf, p.") % vt % QStringLiteral(" AS p_vt, (SELECT MIN(x.") % vf %
        QStringLiteral(") FROM ") % dim % QStringLiteral(" AS x WHERE ") %
        keyEqual(QStringLiteral("x"), QStringLiteral("s")) % QStringLiteral(" AND x.") % vf %
        QStringLiteral(" > ") % part % QStringLiteral(") AS e, CASE WHEN p.") % vf %
        QStringLiteral(" IS NULL OR NOT (") % trackedEqual(QStringLiteral("p")) %
        QStringLiteral(") THEN 1 ELSE 0 END AS chg, CASE WHEN c.") % vf %
        QStringLiteral(" IS NULL THEN 0 ELSE 1 END AS c_exists, CASE WHEN ") %
        trackedEqual(QStringLiteral("c")) % QStringLiteral(" THEN 1 ELSE 0 END AS c_same FROM ") %
        w(kStage) % QStringLiteral(" AS s LEFT JOIN ") % dim % QStringLiteral(" AS p ON ") %
        keyEqual(QStringLiteral("p"), QStringLiteral("s")) % QStringLiteral(" AND p.") % vf %
        QStringLiteral(" < ") % part % QStringLiteral(" AND (p.") % vt %
        QStringLiteral(" IS NULL OR p.") % vt % QStringLiteral(" >= ") % part %
        QStringLiteral(") LEFT JOIN ") % dim % QStringLiteral(" AS c ON ") %
        keyEqual(QStringLiteral("c"), QStringLiteral("s")) % QStringLiteral(" AND c.") % vf %
        QStringLiteral(" = ") % part % QStringLiteral(" WHERE ") %
        partitionFilter(QStringLiteral("s"), month, binds);
    const QString select =
        QStringLiteral("SELECT ") % columnList(QStringLiteral("d"), m_cat.key) %
        QStringLiteral(
            ", d.m, d.p_vf, d.p_vt, d.e, d.chg,"
            " CASE WHEN d.c_exists = 1 AND (d.chg = 0 OR d.c_same = 0) THEN 1 ELSE 0 END AS del_c,"
            " CASE WHEN d.chg = 1 AND (d.c_exists = 0 OR d.c_same = 0) THEN 1 ELSE 0 END AS ins_d,"
            " CASE WHEN d.chg = 1 AND d.p_vf IS NOT NULL AND NOT (") %
        d.nullSafeEqual(QStringLiteral("d.p_vt"), QStringLiteral("d.m")) %
        QStringLiteral(") THEN 1 ELSE 0 END AS close_p, CASE WHEN d.chg = 0 AND d.p_vf IS NOT NULL "
                       "AND NOT (") %
        d.nullSafeEqual(QStringLiteral("d.p_vt"), QStringLiteral("d.e")) %
        QStringLiteral(") THEN 1 ELSE 0 END AS extend_p, 0 AS gone FROM (") % inner %
        QStringLiteral(") AS d");
    // hard_deletes invalidate: the open version of a key the month does not
    // hold is closed at the month, with no successor (dbt's invalidation).
    QString gone;
    if (v.invalidateHardDeletes) {
        const QString stagedMonth =
            QStringLiteral("(SELECT MIN(s.") % q(m_dataset->partitionColumn) %
            QStringLiteral(") AS m FROM ") % w(kStage) % QStringLiteral(" AS s WHERE ") %
            partitionFilter(QStringLiteral("s"), month, binds) % QStringLiteral(")");
        gone = QStringLiteral(" UNION ALL SELECT ") % columnList(QStringLiteral("t"), m_cat.key) %
               QStringLiteral(", mm.m, t.") % vf % QStringLiteral(", t.") % vt %
               QStringLiteral(", NULL, 1, 0, 0, 1, 0, 1 FROM ") % dim % QStringLiteral(" AS t, ") %
               stagedMonth % QStringLiteral(" AS mm WHERE t.") % vt %
               QStringLiteral(" IS NULL AND t.") % vf %
               QStringLiteral(" < mm.m AND NOT EXISTS (SELECT 1 FROM ") % w(kStage) %
               QStringLiteral(" AS s WHERE ") % keyEqual(QStringLiteral("s"), QStringLiteral("t")) %
               QStringLiteral(" AND s.") % q(m_dataset->partitionColumn) %
               QStringLiteral(" = mm.m)");
    }
    return {d.dropTempTable(kScd2), createWork(kScd2) % select % gone,
            d.createTempIndex(QStringLiteral("rewind_scd2_key"), kScd2, m_cat.key.mid(0, 8))};
}

QString BatchSql::scd2Counts() const {
    return QStringLiteral("SELECT COALESCE(SUM(ins_d), 0), COALESCE(SUM(close_p), 0), "
                          "COALESCE(SUM(extend_p), 0), COALESCE(SUM(del_c), 0), "
                          "COALESCE(SUM(CASE WHEN ins_d + close_p + extend_p + del_c > 0 THEN 1 "
                          "ELSE 0 END), 0), COUNT(*) - COALESCE(SUM(gone), 0), "
                          "COALESCE(SUM(gone), 0) FROM ") %
           w(kScd2);
}

QStringList BatchSql::scd2Apply(const QString &dim) const {
    const Scd2Spec &v = *m_dataset->scd2;
    const QString vf = q(v.validFrom), vt = q(v.validTo);
    const QString work = w(kScd2);
    return {
        QStringLiteral("DELETE FROM ") % dim % QStringLiteral(" WHERE EXISTS (SELECT 1 FROM ") %
            work % QStringLiteral(" AS w WHERE w.del_c = 1 AND ") %
            keyEqual(dim, QStringLiteral("w")) % QStringLiteral(" AND ") % dim % u'.' % vf %
            QStringLiteral(" = w.m)"),
        QStringLiteral("UPDATE ") % dim % QStringLiteral(" AS t SET ") % vt %
            QStringLiteral(" = w.m") % currentItem(QStringLiteral("0"), CurrentAs::Assigned) %
            QStringLiteral(" FROM ") % work % QStringLiteral(" AS w WHERE w.close_p = 1 AND ") %
            keyEqual(QStringLiteral("t"), QStringLiteral("w")) % QStringLiteral(" AND t.") % vf %
            QStringLiteral(" = w.p_vf"),
        QStringLiteral("UPDATE ") % dim % QStringLiteral(" AS t SET ") % vt %
            QStringLiteral(" = w.e") %
            currentItem(QStringLiteral("CASE WHEN w.e IS NULL THEN 1 ELSE 0 END"),
                        CurrentAs::Assigned) %
            QStringLiteral(" FROM ") % work % QStringLiteral(" AS w WHERE w.extend_p = 1 AND ") %
            keyEqual(QStringLiteral("t"), QStringLiteral("w")) % QStringLiteral(" AND t.") % vf %
            QStringLiteral(" = w.p_vf"),
        QStringLiteral("INSERT INTO ") % dim % QStringLiteral(" (") %
            columnList(QString(), targetColumns()) % QStringLiteral(") SELECT ") %
            columnList(QStringLiteral("s"), m_cat.columns) % QStringLiteral(", s.") %
            q(m_dataset->partitionColumn) % QStringLiteral(", w.e") %
            currentItem(QStringLiteral("CASE WHEN w.e IS NULL THEN 1 ELSE 0 END"),
                        CurrentAs::Value) %
            QStringLiteral(" FROM ") % work % QStringLiteral(" AS w JOIN ") % w(kStage) %
            QStringLiteral(" AS s ON ") % keyEqual(QStringLiteral("s"), QStringLiteral("w")) %
            QStringLiteral(" AND s.") % q(m_dataset->partitionColumn) %
            QStringLiteral(" = w.m WHERE w.ins_d = 1"),
    };
}

QString BatchSql::scd2Merge(const QString &dim) const {
    const Scd2Spec &v = *m_dataset->scd2;
    const QString vf = q(v.validFrom), vt = q(v.validTo);
    const QString work = w(kScd2);
    const qsizetype n = m_cat.columns.size();
    // The staged columns of a row that only matches: its key, NULL elsewhere.
    QStringList keyed;
    for (const QString &c : m_cat.columns)
        keyed << (m_cat.key.contains(c) ? QStringLiteral("w.") % q(c) : QStringLiteral("NULL"));
    const QString cols = keyed.join(QStringLiteral(", "));
    const QString current = QStringLiteral("CASE WHEN w.e IS NULL THEN 1 ELSE 0 END");
    // Branch by branch: insert (first: its values type the union), delete,
    // close, extend; rewind_op says which.
    const QString using_ =
        QStringLiteral("SELECT ") % columnList(QStringLiteral("s"), m_cat.columns) %
        QStringLiteral(", w.m AS rewind_match, 4 AS rewind_op, w.e AS rewind_vt, ") % current %
        QStringLiteral(" AS rewind_cur FROM ") % work % QStringLiteral(" AS w JOIN ") % w(kStage) %
        QStringLiteral(" AS s ON ") % keyEqual(QStringLiteral("s"), QStringLiteral("w")) %
        QStringLiteral(" AND s.") % q(m_dataset->partitionColumn) %
        QStringLiteral(" = w.m WHERE w.ins_d = 1 UNION ALL SELECT ") % cols %
        QStringLiteral(", w.m, 1, w.m, 0 FROM ") % work %
        QStringLiteral(" AS w WHERE w.del_c = 1 UNION ALL SELECT ") % cols %
        QStringLiteral(", w.p_vf, 2, w.m, 0 FROM ") % work %
        QStringLiteral(" AS w WHERE w.close_p = 1 UNION ALL SELECT ") % cols %
        QStringLiteral(", w.p_vf, 3, w.e, ") % current % QStringLiteral(" FROM ") % work %
        QStringLiteral(" AS w WHERE w.extend_p = 1");
    QStringList values;
    for (qsizetype i = 0; i < n; ++i)
        values << QStringLiteral("s.") % q(m_cat.columns[i]);
    values << QStringLiteral("s.") % q(m_dataset->partitionColumn) << QStringLiteral("s.rewind_vt");
    if (!v.current.isEmpty())
        values << currentFlag(QStringLiteral("s.rewind_cur"));
    return QStringLiteral("MERGE INTO ") % dim % QStringLiteral(" AS t USING (") % using_ %
           QStringLiteral(") AS s ON s.rewind_op < 4 AND ") %
           keyEqual(QStringLiteral("t"), QStringLiteral("s")) % QStringLiteral(" AND t.") % vf %
           QStringLiteral(" = s.rewind_match WHEN MATCHED AND s.rewind_op = 1 THEN DELETE WHEN "
                          "MATCHED THEN UPDATE SET ") %
           vt % QStringLiteral(" = s.rewind_vt") %
           (v.current.isEmpty() ? QString()
                                : QStringLiteral(", ") % q(v.current) % QStringLiteral(" = ") %
                                      currentFlag(QStringLiteral("s.rewind_cur"))) %
           QStringLiteral(" WHEN NOT MATCHED AND s.rewind_op = 4 THEN INSERT (") %
           columnList(QString(), targetColumns()) % QStringLiteral(") VALUES (") %
           values.join(QStringLiteral(", ")) % u')';
}

QStringList BatchSql::scd2SaveImages() const {
    const Scd2Spec &v = *m_dataset->scd2;
    const QString vf = q(v.validFrom);
    const QString work = w(kScd2);
    const QString into = QStringLiteral("INSERT INTO ") % q(imagesTable()) % QStringLiteral(" (") %
                         columnList(QString(), targetColumns()) %
                         QStringLiteral(", rewind_run_id, rewind_op, rewind_part) SELECT ");
    const QString target = qt(m_dataset->target);
    return {
        into % columnList(QStringLiteral("t"), targetColumns()) %
            QStringLiteral(", ?, 'deleted', w.m FROM ") % work % QStringLiteral(" AS w JOIN ") %
            target % QStringLiteral(" AS t ON ") %
            keyEqual(QStringLiteral("t"), QStringLiteral("w")) % QStringLiteral(" AND t.") % vf %
            QStringLiteral(" = w.m WHERE w.del_c = 1"),
        into % columnList(QStringLiteral("t"), targetColumns()) %
            QStringLiteral(", ?, 'updated', w.m FROM ") % work % QStringLiteral(" AS w JOIN ") %
            target % QStringLiteral(" AS t ON ") %
            keyEqual(QStringLiteral("t"), QStringLiteral("w")) % QStringLiteral(" AND t.") % vf %
            QStringLiteral(" = w.p_vf WHERE w.close_p = 1 OR w.extend_p = 1"),
        into % columnList(QStringLiteral("s"), m_cat.columns) % QStringLiteral(", s.") %
            q(m_dataset->partitionColumn) % QStringLiteral(", w.e") %
            currentItem(QStringLiteral("CASE WHEN w.e IS NULL THEN 1 ELSE 0 END"),
                        CurrentAs::Value) %
            QStringLiteral(", ?, 'inserted', w.m FROM ") % work % QStringLiteral(" AS w JOIN ") %
            w(kStage) % QStringLiteral(" AS s ON ") %
            keyEqual(QStringLiteral("s"), QStringLiteral("w")) % QStringLiteral(" AND s.") %
            q(m_dataset->partitionColumn) % QStringLiteral(" = w.m WHERE w.ins_d = 1"),
    };
}

QString BatchSql::scd2SampleOpened() const {
    return QStringLiteral("SELECT ") % columnList(QStringLiteral("s"), m_cat.columns) %
           QStringLiteral(" FROM ") % w(kScd2) % QStringLiteral(" AS w JOIN ") % w(kStage) %
           QStringLiteral(" AS s ON ") % keyEqual(QStringLiteral("s"), QStringLiteral("w")) %
           QStringLiteral(" AND s.") % q(m_dataset->partitionColumn) %
           QStringLiteral(" = w.m WHERE w.ins_d = 1 ORDER BY ") %
           columnList(QStringLiteral("s"), m_cat.key) % QStringLiteral(" LIMIT ?");
}

QString BatchSql::scd2SampleUnchanged() const {
    return QStringLiteral("SELECT ") % columnList(QStringLiteral("s"), m_cat.columns) %
           QStringLiteral(" FROM ") % w(kScd2) % QStringLiteral(" AS w JOIN ") % w(kStage) %
           QStringLiteral(" AS s ON ") % keyEqual(QStringLiteral("s"), QStringLiteral("w")) %
           QStringLiteral(" AND s.") % q(m_dataset->partitionColumn) %
           QStringLiteral(" = w.m WHERE w.ins_d + w.close_p + w.extend_p + w.del_c = 0 ORDER BY ") %
           columnList(QStringLiteral("s"), m_cat.key) % QStringLiteral(" LIMIT ?");
}

QString BatchSql::scd2SampleClosed(const QString &dim) const {
    // The version before, then as it is after: valid_to = the month, not current.
    const Scd2Spec &v = *m_dataset->scd2;
    QStringList after;
    for (const QString &c : m_cat.columns)
        after << QStringLiteral("t.") % q(c);
    after << QStringLiteral("t.") % q(v.validFrom) << QStringLiteral("w.m AS ") % q(v.validTo);
    if (!v.current.isEmpty())
        after << QStringLiteral("0 AS ") % q(v.current);
    return QStringLiteral("SELECT ") % columnList(QStringLiteral("t"), targetColumns()) %
           QStringLiteral(", ") % after.join(u", ") % QStringLiteral(" FROM ") % w(kScd2) %
           QStringLiteral(" AS w JOIN ") % dim % QStringLiteral(" AS t ON ") %
           keyEqual(QStringLiteral("t"), QStringLiteral("w")) % QStringLiteral(" AND t.") %
           q(v.validFrom) % QStringLiteral(" = w.p_vf WHERE w.close_p = 1 ORDER BY ") %
           columnList(QStringLiteral("w"), m_cat.key) % QStringLiteral(" LIMIT ?");
}

} // namespace rw
