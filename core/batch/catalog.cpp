#include "core/batch/catalog.h"

#include "core/batch/batchdialect.h"

#include <QStringBuilder>
#include <algorithm>

namespace rw {

namespace {

struct IndexColumns {
    QString name;
    QStringList columns; // the plain columns, in order (expressions are not listed)
    QString leading;     // the column at position 0; empty when it is an expression
};

// A table's indexes, in the catalog's order.
Result<std::vector<IndexColumns>> indexColumns(const Database &db, const QString &table) {
    std::vector<IndexColumns> out;
    auto q = db.exec(db.dialect().listIndexColumns(), {table});
    if (!q)
        return fail(q.error());
    while (q->next()) {
        const QString name = q->value(0).toString();
        if (out.empty() || out.back().name != name)
            out.push_back({name, {}, {}});
        out.back().columns << q->value(2).toString();
        if (q->value(1).toInt() == 0)
            out.back().leading = q->value(2).toString();
    }
    return out;
}

// The column types a table made by CREATE TABLE ... AS `select` gets, by
// name: made empty as a temporary table, listed, dropped.
Result<QHash<QString, QString>> newTableTypes(const Database &db, const QString &select) {
    const QString shape = QStringLiteral("rewind_shape");
    const SqlDialect &d = db.dialect();
    if (auto s = db.execAll(
            {d.dropTempTable(shape), QStringLiteral("CREATE TEMP TABLE ") % db.quote(shape) %
                                         QStringLiteral(" AS SELECT * FROM (") % select %
                                         QStringLiteral(") AS s LIMIT 0")});
        !s)
        return fail(s.error());
    auto columns = db.columns(shape);
    (void)db.exec(d.dropTempTable(shape));
    if (!columns)
        return fail(columns.error());
    QHash<QString, QString> types;
    for (const ColumnInfo &col : *columns)
        types.insert(col.name, col.type);
    return types;
}

// An index leads with `column` (at position 0): a loose index scan walks its values.
bool leadsWith(const std::vector<IndexColumns> &indexes, const QString &column) {
    return std::any_of(indexes.begin(), indexes.end(),
                       [&](const IndexColumns &i) { return i.leading == column; });
}

} // namespace

QString DatasetCatalog::sourceRelation(const QString &alias) const {
    return u'(' % source % QStringLiteral(") AS ") % alias;
}

Result<DatasetCatalog> DatasetCatalog::resolve(const Database &db, const DatasetSpec &dataset) {
    DatasetCatalog c;
    c.source = sourceSelect(dataset, db);
    c.schemaChange.target = dataset.target;
    auto columns = db.selectColumns(c.source, &c.columnTypes);
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
    // Only a hint for the scan of partition values: a source whose indexes
    // cannot be listed is scanned without one.
    if (dataset.partitioned() && !dataset.source.isEmpty())
        if (auto sourceIndexes = indexColumns(db, dataset.source))
            c.sourcePartitionIndexed = leadsWith(*sourceIndexes, dataset.partitionColumn);
    if (!c.targetExists)
        return c;
    // Key column types, so the dialect can spell key joins the engine hashes.
    auto types = db.columns(dataset.target);
    if (!types)
        return fail(types.error());
    for (const ColumnInfo &col : *types)
        c.targetTypes.insert(col.name, col.type);
    // Source columns the target lacks: their types are those a new table
    // made of the source gets (a first run makes the target that way).
    QStringList missing;
    for (const QString &col : *columns)
        if (!c.targetTypes.contains(col))
            missing << col;
    if (!missing.isEmpty()) {
        auto shape = newTableTypes(db, c.source);
        if (!shape)
            return fail(shape.error());
        // A SQLite STRICT table takes only its five types: another one the
        // engine inferred (NUM, none) becomes ANY.
        const bool strict = std::any_of(types->begin(), types->end(),
                                        [](const ColumnInfo &col) { return col.strict; });
        static const QStringList strictTypes{QStringLiteral("INT"),  QStringLiteral("INTEGER"),
                                             QStringLiteral("REAL"), QStringLiteral("TEXT"),
                                             QStringLiteral("BLOB"), QStringLiteral("ANY")};
        for (const QString &col : missing) {
            QString type = shape->value(col);
            if (strict && !strictTypes.contains(type.toUpper()))
                type = QStringLiteral("ANY");
            c.schemaChange.added.push_back({col, type});
        }
    }
    // A source column of another type than the target's: cast in the stage.
    QStringList quoted;
    for (const QString &col : *columns)
        quoted << db.quote(col);
    if (const QString typesSql = db.dialect().selectColumnTypes(c.source, quoted);
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
    auto indexes = indexColumns(db, dataset.target);
    if (!indexes)
        return fail(indexes.error());
    for (const IndexColumns &i : *indexes)
        c.targetIndexes.emplace_back(i.name, i.columns);
    c.targetPartitionIndexed =
        dataset.partitioned() && leadsWith(*indexes, dataset.partitionColumn);
    for (const auto &[name, cols] : c.targetIndexes) {
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
        !db.exec(QStringLiteral("SELECT ") %
                 BatchDialect::of(db.dialect()).rowIdentity(QStringLiteral("t")) %
                 QStringLiteral(" FROM ") % db.quoteTable(dataset.target) %
                 QStringLiteral(" AS t WHERE 1 = 0")))
        c.targetIndexed = false;
    return c;
}

} // namespace rw
