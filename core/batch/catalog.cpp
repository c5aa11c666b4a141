#include "core/batch/catalog.h"

#include <QStringBuilder>

namespace rw {

Result<DatasetCatalog> DatasetCatalog::resolve(const Database &db, const DatasetSpec &dataset) {
    DatasetCatalog c;
    auto columns = db.selectColumns(sourceSelect(dataset, db), &c.columnTypes);
    if (!columns)
        return fail(columns.error());
    c.columns = *columns;
    c.key = dataset.key.isEmpty() ? *columns : dataset.key;
    if (!dataset.key.isEmpty()) // with no key every column is the key: rows match or they do not
        for (const QString &col : *columns)
            if (!dataset.key.contains(col) && col != dataset.partitionColumn)
                c.values << col;
    auto exists = db.hasRelation(dataset.target);
    if (!exists)
        return fail(exists.error());
    c.targetExists = *exists;
    if (!c.targetExists)
        return c;
    // Key column types, so the dialect can spell key joins the engine hashes.
    auto types = db.columns(dataset.target);
    if (!types)
        return fail(types.error());
    for (const ColumnInfo &col : *types)
        c.targetTypes.insert(col.name, col.type);
    // A source column of another type than the target's: cast in the stage.
    QStringList quoted;
    for (const QString &col : *columns)
        quoted << db.quote(col);
    if (const QString typesSql = db.dialect().selectColumnTypes(sourceSelect(dataset, db), quoted);
        !typesSql.isEmpty()) {
        auto sourceTypes = db.exec(typesSql);
        if (!sourceTypes)
            return fail(sourceTypes.error());
        if (sourceTypes->next())
            for (qsizetype i = 0; i < columns->size(); ++i) {
                const QString want = c.targetTypes.value(columns->at(i));
                if (db.dialect().needsCast(sourceTypes->value(int(i)).toString(), want))
                    c.casts.insert(columns->at(i), want);
            }
    }
    // Key lookups into the target are cheap when an index leads with a key
    // column, or with the partition column then a key column.
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
        const bool leadsWithKey = c.key.contains(cols.value(0));
        const bool partitionThenKey = dataset.partitioned() &&
                                      cols.value(0) == dataset.partitionColumn &&
                                      c.key.contains(cols.value(1));
        if (leadsWithKey || partitionThenKey)
            c.targetIndexed = true;
    }
    // The diff joins on the target's row identity; a table without one
    // (SQLite WITHOUT ROWID) is read through an indexed temporary copy.
    if (c.targetIndexed &&
        !db.exec(QStringLiteral("SELECT ") % db.dialect().rowIdentity(QStringLiteral("t")) %
                 QStringLiteral(" FROM ") % db.quoteTable(dataset.target) %
                 QStringLiteral(" AS t WHERE 1 = 0")))
        c.targetIndexed = false;
    return c;
}

} // namespace rw
