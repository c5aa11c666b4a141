#include "batchsql.h"

#include <QHash>
#include <QStringBuilder>

namespace rw {

namespace {
const QString kStage = QStringLiteral("rewind_stage");
const QString kTgt = QStringLiteral("rewind_tgt");
} // namespace

Result<BatchSql> BatchSql::make(const Database &db, const DatasetSpec &dataset)
{
    BatchSql sql(db, dataset);
    auto columns = db.selectColumns(sourceSelect(dataset, db));
    if (!columns)
        return fail(columns.error());
    sql.m_columns = *columns;
    sql.m_key = dataset.key.isEmpty() ? *columns : dataset.key;
    for (const QString &c : *columns)
        if (!dataset.key.contains(c) && c != dataset.partitionColumn)
            sql.m_values << c;
    if (dataset.key.isEmpty())
        sql.m_values.clear(); // every column is the key: rows match or they do not
    auto exists = db.hasRelation(dataset.target);
    if (!exists)
        return fail(exists.error());
    sql.m_targetExists = *exists;
    if (sql.m_targetExists) {
        // Key lookups into the target are cheap when an index leads with a
        // key column, or with the partition column then a key column.
        auto q = db.exec(db.dialect().listIndexColumns(), {dataset.target});
        if (!q)
            return fail(q.error());
        QHash<QString, QStringList> indexes;
        QStringList order;
        while (q->next()) {
            if (!indexes.contains(q->value(0).toString()))
                order << q->value(0).toString();
            indexes[q->value(0).toString()] << q->value(2).toString();
        }
        for (const QString &name : order) {
            const QStringList cols = indexes.value(name);
            const bool leadsWithKey = sql.m_key.contains(cols.value(0));
            const bool partitionThenKey = dataset.partitioned() && cols.value(0) == dataset.partitionColumn
                                          && sql.m_key.contains(cols.value(1));
            if (leadsWithKey || partitionThenKey)
                sql.m_targetIndexed = true;
        }
    }
    return sql;
}

QString BatchSql::columnList(const QString &qualifier, const QStringList &columns) const
{
    QStringList out;
    for (const QString &c : columns)
        out << (qualifier.isEmpty() ? q(c) : qualifier % u'.' % q(c));
    return out.join(QStringLiteral(", "));
}

QString BatchSql::partExpr(const QString &qualifier) const
{
    if (!m_dataset->partitioned())
        return QStringLiteral("NULL");
    return qualifier.isEmpty() ? q(m_dataset->partitionColumn) : qualifier % u'.' % q(m_dataset->partitionColumn);
}

QString BatchSql::partLabelColumns(const QString &qualifier) const
{
    const QString p = partExpr(qualifier);
    return m_db.dialect().castText(p) % QStringLiteral(", CASE WHEN ") % p % QStringLiteral(" IS NULL THEN 1 ELSE 0 END");
}

QString BatchSql::scopePredicate(const QString &qualifier, const std::vector<PartitionRef> &scope, QVariantList &binds) const
{
    if (!m_dataset->partitioned())
        return QStringLiteral("1 = 1");
    const QString p = partExpr(qualifier);
    QStringList marks;
    bool withNull = false;
    for (const auto &ref : scope) {
        if (ref.value.isNull()) {
            withNull = true;
            continue;
        }
        marks << QStringLiteral("?");
        binds << ref.value;
    }
    QStringList terms;
    if (!marks.isEmpty())
        terms << p % QStringLiteral(" IN (") % marks.join(u", ") % u')';
    if (withNull)
        terms << p % QStringLiteral(" IS NULL");
    if (terms.isEmpty())
        return QStringLiteral("1 = 0");
    return u'(' % terms.join(QStringLiteral(" OR ")) % u')';
}

QString BatchSql::partitionFilter(const QString &qualifier, const PartitionRef &p, QVariantList &binds) const
{
    if (!m_dataset->partitioned())
        return QStringLiteral("1 = 1");
    if (p.value.isNull())
        return partExpr(qualifier) % QStringLiteral(" IS NULL");
    binds << p.value;
    return partExpr(qualifier) % QStringLiteral(" = ?");
}

QString BatchSql::scopedSource(const std::vector<PartitionRef> &scope, QVariantList &binds) const
{
    return QStringLiteral("SELECT * FROM (") % sourceSelect(*m_dataset, m_db) % QStringLiteral(") AS src WHERE ")
           % scopePredicate(QStringLiteral("src"), scope, binds);
}

QString BatchSql::fingerprintExpr() const
{
    QStringList cols;
    for (const QString &c : m_columns)
        cols << q(c);
    const SqlDialect &d = m_db.dialect();
    return d.castText(QStringLiteral("COUNT(*)")) % QStringLiteral(" || ':' || ")
           % d.castText(QStringLiteral("COALESCE(SUM(") % d.rowHash(cols) % QStringLiteral("), 0)"));
}

QString BatchSql::sourceStats(const std::vector<PartitionRef> &scope, QVariantList &binds) const
{
    return QStringLiteral("SELECT ") % partLabelColumns(QStringLiteral("s")) % QStringLiteral(", COUNT(*), ") % fingerprintExpr()
           % QStringLiteral(" FROM (") % scopedSource(scope, binds) % QStringLiteral(") AS s GROUP BY ") % partExpr(QStringLiteral("s"));
}

QStringList BatchSql::createStage(const std::vector<PartitionRef> &scope, QVariantList &binds) const
{
    const SqlDialect &d = m_db.dialect();
    QString select;
    if (m_dataset->key.isEmpty()) {
        select = QStringLiteral("SELECT ") % columnList(QString(), m_columns) % QStringLiteral(" FROM (") % scopedSource(scope, binds)
                 % QStringLiteral(") AS s");
    } else {
        // One row per (partition, key): the latest by order_by, ties broken by
        // the row's own values so the choice never depends on physical order.
        QStringList partitionBy;
        if (m_dataset->partitioned())
            partitionBy << q(m_dataset->partitionColumn);
        for (const QString &k : m_key)
            partitionBy << q(k);
        QStringList orderBy;
        if (!m_dataset->orderBy.isEmpty())
            orderBy << q(m_dataset->orderBy) % QStringLiteral(" DESC NULLS LAST");
        for (const QString &c : m_values)
            if (c != m_dataset->orderBy)
                orderBy << q(c) % QStringLiteral(" DESC NULLS LAST");
        if (orderBy.isEmpty())
            orderBy << QStringLiteral("1");
        select = QStringLiteral("SELECT ") % columnList(QString(), m_columns) % QStringLiteral(" FROM (SELECT ")
                 % columnList(QString(), m_columns) % QStringLiteral(", ROW_NUMBER() OVER (PARTITION BY ") % partitionBy.join(u", ")
                 % QStringLiteral(" ORDER BY ") % orderBy.join(u", ") % QStringLiteral(") AS rewind_rn FROM (")
                 % scopedSource(scope, binds) % QStringLiteral(") AS s) AS ranked WHERE rewind_rn = 1");
    }
    QStringList indexCols;
    if (m_dataset->partitioned())
        indexCols << m_dataset->partitionColumn;
    indexCols << m_key.mid(0, 8);
    return {d.dropTempTable(kStage), QStringLiteral("CREATE TEMP TABLE ") % q(kStage) % QStringLiteral(" AS ") % select,
            d.createTempIndex(QStringLiteral("rewind_stage_key"), kStage, indexCols)};
}

QString BatchSql::tgt() const { return m_direct ? q(m_dataset->target) : q(kTgt); }

QString BatchSql::tgtScope(const QString &qualifier, QVariantList &binds) const
{
    return m_direct ? scopePredicate(qualifier, m_tgtScope, binds) : QStringLiteral("1 = 1");
}

QStringList BatchSql::createTargetCopy(const std::vector<PartitionRef> &scope, QVariantList &binds) const
{
    const SqlDialect &d = m_db.dialect();
    m_tgtScope = scope;
    m_direct = m_targetExists && m_targetIndexed;
    if (m_direct)
        return {d.dropTempTable(kTgt)};
    QStringList indexCols;
    if (m_dataset->partitioned())
        indexCols << m_dataset->partitionColumn;
    indexCols << m_key.mid(0, 8);
    QString select;
    if (m_targetExists)
        select = QStringLiteral("SELECT ") % columnList(QString(), m_columns) % QStringLiteral(" FROM ") % q(m_dataset->target)
                 % QStringLiteral(" AS t WHERE ") % scopePredicate(QStringLiteral("t"), scope, binds);
    else
        select = QStringLiteral("SELECT * FROM ") % q(kStage) % QStringLiteral(" WHERE 1 = 0");
    return {d.dropTempTable(kTgt), QStringLiteral("CREATE TEMP TABLE ") % q(kTgt) % QStringLiteral(" AS ") % select,
            d.createTempIndex(QStringLiteral("rewind_tgt_key"), kTgt, indexCols)};
}

QStringList BatchSql::dropWorkTables() const
{
    return {m_db.dialect().dropTempTable(kStage), m_db.dialect().dropTempTable(kTgt)};
}

QString BatchSql::keyMatch(const QString &a, const QString &b) const
{
    const SqlDialect &d = m_db.dialect();
    QStringList terms;
    if (m_dataset->partitioned())
        terms << d.nullSafeEqual(partExpr(a), partExpr(b));
    for (const QString &k : m_key)
        terms << d.nullSafeEqual(a % u'.' % q(k), b % u'.' % q(k));
    return terms.join(QStringLiteral(" AND "));
}

QString BatchSql::rowsDiffer(const QString &a, const QString &b) const
{
    if (m_values.isEmpty())
        return QStringLiteral("1 = 0");
    QStringList terms;
    for (const QString &c : m_values)
        terms << m_db.dialect().nullSafeEqual(a % u'.' % q(c), b % u'.' % q(c));
    return QStringLiteral("NOT (") % terms.join(QStringLiteral(" AND ")) % u')';
}

QString BatchSql::stagedCounts() const
{
    return QStringLiteral("SELECT ") % partLabelColumns(QStringLiteral("s")) % QStringLiteral(", COUNT(*) FROM ") % q(kStage)
           % QStringLiteral(" AS s GROUP BY ") % partExpr(QStringLiteral("s"));
}

QString BatchSql::targetCounts(QVariantList &binds) const
{
    return QStringLiteral("SELECT ") % partLabelColumns(QStringLiteral("t")) % QStringLiteral(", COUNT(*) FROM ") % tgt()
           % QStringLiteral(" AS t WHERE ") % tgtScope(QStringLiteral("t"), binds) % QStringLiteral(" GROUP BY ") % partExpr(QStringLiteral("t"));
}

QString BatchSql::diffCounts() const
{
    const QString target = tgt();
    return QStringLiteral("SELECT ") % partLabelColumns(QStringLiteral("s"))
           % QStringLiteral(", SUM(CASE WHEN NOT EXISTS (SELECT 1 FROM ") % target % QStringLiteral(" AS t WHERE ")
           % keyMatch(QStringLiteral("t"), QStringLiteral("s")) % QStringLiteral(") THEN 1 ELSE 0 END)")
           % QStringLiteral(", SUM(CASE WHEN EXISTS (SELECT 1 FROM ") % target % QStringLiteral(" AS t WHERE ")
           % keyMatch(QStringLiteral("t"), QStringLiteral("s")) % QStringLiteral(" AND ")
           % rowsDiffer(QStringLiteral("t"), QStringLiteral("s")) % QStringLiteral(") THEN 1 ELSE 0 END) FROM ") % q(kStage)
           % QStringLiteral(" AS s GROUP BY ") % partExpr(QStringLiteral("s"));
}

QString BatchSql::sampleInserted(const PartitionRef &p, QVariantList &binds) const
{
    return QStringLiteral("SELECT ") % columnList(QStringLiteral("s"), m_columns) % QStringLiteral(" FROM ") % q(kStage)
           % QStringLiteral(" AS s WHERE ") % partitionFilter(QStringLiteral("s"), p, binds) % QStringLiteral(" AND NOT EXISTS (SELECT 1 FROM ")
           % tgt() % QStringLiteral(" AS t WHERE ") % keyMatch(QStringLiteral("t"), QStringLiteral("s"))
           % QStringLiteral(") ORDER BY ") % columnList(QStringLiteral("s"), m_key) % QStringLiteral(" LIMIT ?");
}

QString BatchSql::sampleUpdated(const PartitionRef &p, QVariantList &binds) const
{
    return QStringLiteral("SELECT ") % columnList(QStringLiteral("s"), m_columns) % QStringLiteral(", ")
           % columnList(QStringLiteral("t"), m_columns) % QStringLiteral(" FROM ") % q(kStage) % QStringLiteral(" AS s JOIN ") % tgt()
           % QStringLiteral(" AS t ON ") % keyMatch(QStringLiteral("t"), QStringLiteral("s")) % QStringLiteral(" WHERE ")
           % partitionFilter(QStringLiteral("s"), p, binds) % QStringLiteral(" AND ") % rowsDiffer(QStringLiteral("t"), QStringLiteral("s"))
           % QStringLiteral(" ORDER BY ") % columnList(QStringLiteral("s"), m_key) % QStringLiteral(" LIMIT ?");
}

QString BatchSql::sampleUnchanged(const PartitionRef &p, QVariantList &binds) const
{
    return QStringLiteral("SELECT ") % columnList(QStringLiteral("s"), m_columns) % QStringLiteral(" FROM ") % q(kStage)
           % QStringLiteral(" AS s WHERE ") % partitionFilter(QStringLiteral("s"), p, binds) % QStringLiteral(" AND EXISTS (SELECT 1 FROM ")
           % tgt() % QStringLiteral(" AS t WHERE ") % keyMatch(QStringLiteral("t"), QStringLiteral("s")) % QStringLiteral(") AND NOT EXISTS (SELECT 1 FROM ")
           % tgt() % QStringLiteral(" AS t WHERE ") % keyMatch(QStringLiteral("t"), QStringLiteral("s")) % QStringLiteral(" AND ")
           % rowsDiffer(QStringLiteral("t"), QStringLiteral("s")) % QStringLiteral(") ORDER BY ") % columnList(QStringLiteral("s"), m_key)
           % QStringLiteral(" LIMIT ?");
}

QString BatchSql::sampleDeleted(const PartitionRef &p, QVariantList &binds) const
{
    return QStringLiteral("SELECT ") % columnList(QStringLiteral("t"), m_columns) % QStringLiteral(" FROM ") % tgt()
           % QStringLiteral(" AS t WHERE ") % partitionFilter(QStringLiteral("t"), p, binds) % QStringLiteral(" AND NOT EXISTS (SELECT 1 FROM ")
           % q(kStage) % QStringLiteral(" AS s WHERE ") % keyMatch(QStringLiteral("t"), QStringLiteral("s"))
           % QStringLiteral(") ORDER BY ") % columnList(QStringLiteral("t"), m_key) % QStringLiteral(" LIMIT ?");
}

QString BatchSql::imagesTable() const { return QStringLiteral("rewind_images_") % m_dataset->name; }

QStringList BatchSql::createTargetIfMissing() const
{
    if (m_targetExists)
        return {};
    QStringList indexCols;
    if (m_dataset->partitioned())
        indexCols << q(m_dataset->partitionColumn);
    for (const QString &k : m_key.mid(0, 8))
        indexCols << q(k);
    return {QStringLiteral("CREATE TABLE ") % q(m_dataset->target) % QStringLiteral(" AS SELECT * FROM ") % q(kStage)
                % QStringLiteral(" WHERE 1 = 0"),
            QStringLiteral("CREATE INDEX ") % q(QStringLiteral("rewind_key_") % m_dataset->target) % QStringLiteral(" ON ")
                % q(m_dataset->target) % QStringLiteral(" (") % indexCols.join(u", ") % u')'};
}

QStringList BatchSql::createImagesIfMissing() const
{
    // Before-images of what a publish replaced, typed like the staged rows.
    return {QStringLiteral("CREATE TABLE IF NOT EXISTS ") % q(imagesTable()) % QStringLiteral(" AS SELECT ")
            % columnList(QString(), m_columns) % QStringLiteral(", CAST(NULL AS ") % m_db.dialect().bigintType()
            % QStringLiteral(") AS rewind_run_id, CAST(NULL AS TEXT) AS rewind_op FROM ") % q(kStage) % QStringLiteral(" WHERE 1 = 0")};
}

QString BatchSql::saveImagesUpdated(QVariantList &binds) const
{
    return QStringLiteral("INSERT INTO ") % q(imagesTable()) % QStringLiteral(" SELECT ") % columnList(QStringLiteral("t"), m_columns)
           % QStringLiteral(", ?, 'updated' FROM ") % tgt() % QStringLiteral(" AS t WHERE ") % tgtScope(QStringLiteral("t"), binds)
           % QStringLiteral(" AND EXISTS (SELECT 1 FROM ") % q(kStage)
           % QStringLiteral(" AS s WHERE ") % keyMatch(QStringLiteral("t"), QStringLiteral("s")) % QStringLiteral(" AND ")
           % rowsDiffer(QStringLiteral("t"), QStringLiteral("s")) % u')';
}

QString BatchSql::saveImagesInserted() const
{
    return QStringLiteral("INSERT INTO ") % q(imagesTable()) % QStringLiteral(" SELECT ") % columnList(QStringLiteral("s"), m_columns)
           % QStringLiteral(", ?, 'inserted' FROM ") % q(kStage) % QStringLiteral(" AS s WHERE NOT EXISTS (SELECT 1 FROM ") % tgt()
           % QStringLiteral(" AS t WHERE ") % keyMatch(QStringLiteral("t"), QStringLiteral("s")) % u')';
}

QString BatchSql::saveImagesReplaced(QVariantList &binds) const
{
    return QStringLiteral("INSERT INTO ") % q(imagesTable()) % QStringLiteral(" SELECT ") % columnList(QStringLiteral("t"), m_columns)
           % QStringLiteral(", ?, 'replaced' FROM ") % tgt() % QStringLiteral(" AS t WHERE ") % tgtScope(QStringLiteral("t"), binds);
}

QString BatchSql::mergeUpdate(const PartitionRef &p, QVariantList &binds) const
{
    // Touches only rows whose values differ; the partition filter lets the
    // target's partition index narrow the scan.
    QStringList sets;
    for (const QString &c : m_values)
        sets << q(c) % QStringLiteral(" = s.") % q(c);
    return QStringLiteral("UPDATE ") % q(m_dataset->target) % QStringLiteral(" AS t SET ") % sets.join(u", ") % QStringLiteral(" FROM ")
           % q(kStage) % QStringLiteral(" AS s WHERE ") % partitionFilter(QStringLiteral("t"), p, binds) % QStringLiteral(" AND ")
           % keyMatch(QStringLiteral("t"), QStringLiteral("s")) % QStringLiteral(" AND ") % rowsDiffer(QStringLiteral("t"), QStringLiteral("s"));
}

QString BatchSql::mergeInsert() const
{
    return QStringLiteral("INSERT INTO ") % q(m_dataset->target) % QStringLiteral(" (") % columnList(QString(), m_columns)
           % QStringLiteral(") SELECT ") % columnList(QStringLiteral("s"), m_columns) % QStringLiteral(" FROM ") % q(kStage)
           % QStringLiteral(" AS s WHERE NOT EXISTS (SELECT 1 FROM ") % tgt() % QStringLiteral(" AS t WHERE ")
           % keyMatch(QStringLiteral("t"), QStringLiteral("s")) % u')';
}

QString BatchSql::overwriteDelete(const PartitionRef &p, QVariantList &binds) const
{
    return QStringLiteral("DELETE FROM ") % q(m_dataset->target) % QStringLiteral(" WHERE ") % partitionFilter(QString(), p, binds);
}

QString BatchSql::overwriteInsert() const
{
    return QStringLiteral("INSERT INTO ") % q(m_dataset->target) % QStringLiteral(" (") % columnList(QString(), m_columns)
           % QStringLiteral(") SELECT ") % columnList(QString(), m_columns) % QStringLiteral(" FROM ") % q(kStage);
}

} // namespace rw
