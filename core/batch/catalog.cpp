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

Result<DatasetCatalog> DatasetCatalog::resolve(const Database &db, const DatasetSpec &dataset,
                                               bool compareTypes) {
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
            // The partition column is the partition, unless the partition is
            // its hour, day or month: then a changed timestamp within it is
            // a changed value.
            if (!dataset.key.contains(col) &&
                (col != dataset.partitionColumn || !dataset.partitionGranularity.isEmpty()))
                c.values << col;
    for (const QString &col : c.values)
        if ((dataset.mergeUpdateColumns.isEmpty() || dataset.mergeUpdateColumns.contains(col)) &&
            !dataset.mergeExcludeColumns.contains(col))
            c.updated << col;
    auto exists = db.hasRelation(dataset.target);
    if (!exists)
        return fail(exists.error());
    c.targetExists = *exists;
    // Only a hint for the scan of partition values: a source whose indexes
    // cannot be listed is scanned without one.
    if (dataset.partitioned() && dataset.partitionGranularity.isEmpty() &&
        !dataset.source.isEmpty())
        if (auto sourceIndexes = indexColumns(db, dataset.source))
            c.sourcePartitionIndexed = leadsWith(*sourceIndexes, dataset.partitionColumn);
    auto layout = PartitionLayout::resolve(db, dataset, c.targetExists, compareTypes);
    if (!layout)
        return fail(layout.error());
    c.layout = std::move(*layout);
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
    // Target columns the source no longer yields (those an scd2 dimension
    // writes itself and those the database fills aside): sync_all_columns
    // drops them, unless an index or a constraint holds one (PostgreSQL
    // would drop it silently; the rollback could not make it again).
    for (const ColumnInfo &col : *types)
        if (!columns->contains(col.name) && !col.databaseFilled &&
            !(dataset.scd2 && dataset.scd2->versionColumns().contains(col.name)))
            c.schemaChange.dropped.push_back({col.name, col.type});
    // The transform's types as a new table would declare them, with their
    // modifiers (numeric(12,2)): for the columns to add, and, where types
    // have widths (PostgreSQL), to compare with the target's.
    const SqlDialect &d = db.dialect();
    // Only a preview, a run or a resume compares them (the others read the
    // target as it is, and may be on a role that cannot make a temporary table).
    const bool typesHaveWidths = compareTypes && BatchDialect::of(d).typesHaveWidths();
    QHash<QString, QString> shape;
    if (!missing.isEmpty() || typesHaveWidths) {
        auto made = newTableTypes(db, c.source);
        if (!made)
            return fail(made.error());
        shape = std::move(*made);
    }
    if (!missing.isEmpty()) {
        // A SQLite STRICT table takes only its five types: another one the
        // engine inferred (NUM, none) becomes ANY.
        const bool strict = std::any_of(types->begin(), types->end(),
                                        [](const ColumnInfo &col) { return col.strict; });
        static const QStringList strictTypes{QStringLiteral("INT"),  QStringLiteral("INTEGER"),
                                             QStringLiteral("REAL"), QStringLiteral("TEXT"),
                                             QStringLiteral("BLOB"), QStringLiteral("ANY")};
        for (const QString &col : missing) {
            QString type = shape.value(col);
            if (strict && !strictTypes.contains(type.toUpper()))
                type = QStringLiteral("ANY");
            c.schemaChange.added.push_back({col, type});
        }
    }
    if (typesHaveWidths)
        for (const QString &col : *columns) {
            const QString from = c.targetTypes.value(col), to = shape.value(col);
            if (from.isEmpty() || to.isEmpty())
                continue;
            const QString both = QStringLiteral("column \"%1\" of table \"%2\" is %3 and the "
                                                "transform yields %4")
                                     .arg(col, dataset.target, from, to);
            switch (BatchDialect::of(d).typeChange(from, to)) {
            case BatchDialect::TypeChange::Same:
                break;
            case BatchDialect::TypeChange::Widens:
                c.schemaChange.widened.push_back({col, from, to});
                break;
            // Under fail and append_new_columns the target keeps its type and
            // the stage casts to it, as always; sync_all_columns asks the
            // target to follow the transform, which Rewind does only by widening.
            case BatchDialect::TypeChange::Narrows:
                if (dataset.onSchemaChange == SchemaChangePolicy::SyncAllColumns &&
                    c.refusal.isEmpty())
                    c.refusal = QStringLiteral("dataset \"%1\": %2, which is narrower: "
                                               "\"sync_all_columns\" never narrows a column (its "
                                               "values may not fit); cast it in the transform "
                                               "(CAST(%3 AS %4)) to keep the column as it is")
                                    .arg(dataset.name, both, col, from);
                break;
            case BatchDialect::TypeChange::Incompatible:
                if (dataset.onSchemaChange == SchemaChangePolicy::SyncAllColumns &&
                    c.refusal.isEmpty())
                    c.refusal = QStringLiteral("dataset \"%1\": %2, and neither holds every value "
                                               "of the other: Rewind cannot widen it; cast it in "
                                               "the transform to %3 (or to a type that holds both)")
                                    .arg(dataset.name, both, from);
                break;
            }
        }
    // A source column of another type than the target's: cast in the stage
    // (to the type a widening gives it, there is none to make).
    QStringList quoted;
    for (const QString &col : *columns)
        quoted << db.quote(col);
    if (const QString typesSql = BatchDialect::of(d).selectColumnTypes(c.source, quoted);
        !typesSql.isEmpty()) {
        auto sourceTypes = db.exec(typesSql);
        if (!sourceTypes)
            return fail(sourceTypes.error());
        if (sourceTypes->next())
            for (qsizetype i = 0; i < columns->size(); ++i) {
                const QString want = c.targetTypes.value(columns->at(i));
                if (BatchDialect::of(d).needsCast(sourceTypes->value(int(i)).toString(), want) &&
                    !c.schemaChange.widening(columns->at(i)))
                    c.casts.insert(columns->at(i), want);
            }
    }
    // Key lookups into the target are cheap when an index leads with a key
    // column, or with the partition column then a key column.
    auto indexes = indexColumns(db, dataset.target);
    if (!indexes)
        return fail(indexes.error());
    for (const IndexColumns &i : *indexes) {
        c.targetIndexes.emplace_back(i.name, i.columns);
        for (const SchemaColumn &gone : c.schemaChange.dropped)
            if (i.columns.contains(gone.column) && c.refusal.isEmpty())
                c.refusal = QStringLiteral("dataset \"%1\": the run would drop column \"%2\" "
                                           "from \"%3\", which index \"%4\" holds: drop the "
                                           "index (or the constraint) first, or keep the column "
                                           "in the transform")
                                .arg(dataset.name, gone.column, dataset.target, i.name);
    }
    // An index on the column serves no lookup of its hour, day or month.
    const bool byColumn = dataset.partitioned() && dataset.partitionGranularity.isEmpty();
    c.targetPartitionIndexed = byColumn && leadsWith(*indexes, dataset.partitionColumn);
    for (const auto &[name, cols] : c.targetIndexes) {
        const bool leadsWithKey = c.key.contains(cols.value(0));
        const bool partitionThenKey =
            byColumn && cols.value(0) == dataset.partitionColumn && c.key.contains(cols.value(1));
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
