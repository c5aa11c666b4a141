// A preview's per-column change summary (columnchange.h) from the figures
// BatchSql reads (batchsql_columns.cpp).
#include "core/batch/columnsummary.h"

#include "core/batch/scope.h"

#include <QSqlRecord>
#include <algorithm>

namespace rw {

// Per partition, the values of a query returning (label, is-null, value...),
// or, given the key of its one partition, of a query returning (value...).
Result<PartitionValues> valuesBy(const Database &db, const QString &sql, const QVariantList &binds,
                                 const std::optional<QString> &onePartition) {
    auto q = db.exec(sql, binds);
    if (!q)
        return fail(q.error());
    QHash<QString, QVariantList> out;
    const int first = onePartition ? 0 : 2;
    while (q->next()) {
        QVariantList v;
        const int width = q->record().count();
        for (int i = first; i < width; ++i)
            v << q->value(i);
        if (onePartition) {
            out.insert(*onePartition, v);
            continue;
        }
        const std::optional<QString> label =
            q->value(1).toInt() ? std::nullopt : std::optional<QString>(q->value(0).toString());
        out.insert(partitionKey(label), v);
    }
    return out;
}

namespace {

std::optional<double> numberOf(const QVariant &v) {
    if (!v.isValid() || v.isNull())
        return std::nullopt;
    return v.toDouble();
}

std::optional<double> plus(std::optional<double> a, const std::optional<double> &b) {
    if (!b)
        return a;
    return a.value_or(0) + *b;
}

std::optional<double> least(std::initializer_list<std::optional<double>> values) {
    std::optional<double> out;
    for (const auto &v : values)
        if (v && (!out || *v < *out))
            out = v;
    return out;
}

std::optional<double> greatest(std::initializer_list<std::optional<double>> values) {
    std::optional<double> out;
    for (const auto &v : values)
        if (v && (!out || *v > *out))
            out = v;
    return out;
}

} // namespace

namespace {

// The rows of a detail query (BatchSql::changePairs and the like): per
// partition, or of them all into `whole`, each row's values past its
// column's index handed to `take` with the column's detail.
Status readDetails(const Database &db, const QString &sql, bool perPartition,
                   const QHash<QString, std::size_t> &partitions,
                   std::vector<PartitionResult> &results, std::vector<ColumnDetail> &whole,
                   const std::function<void(const QSqlQuery &, int, ColumnDetail &)> &take) {
    if (sql.isEmpty())
        return {};
    auto q = db.exec(sql);
    if (!q)
        return fail(q.error());
    const int first = perPartition ? 2 : 0;
    while (q->next()) {
        const std::size_t column = std::size_t(q->value(first).toLongLong());
        if (!perPartition) {
            if (column < whole.size())
                take(*q, first + 1, whole[column]);
            continue;
        }
        const std::optional<QString> label =
            q->value(1).toInt() ? std::nullopt : std::optional<QString>(q->value(0).toString());
        const auto at = partitions.constFind(partitionKey(label));
        if (at == partitions.cend())
            continue;
        std::vector<ColumnChange> &columns = results[*at].columns;
        if (column < columns.size())
            take(*q, first + 1, columns[column].detail);
    }
    return {};
}

std::optional<QString> textOf(const QVariant &v) {
    if (v.isNull())
        return std::nullopt;
    return v.toString();
}

// The figures that do not add up (ColumnDetail): per partition where at
// most kDetailedPartitions changed (all of them when the preview has one),
// and of them all into `totals` when there are several.
Status addDetails(const Database &db, const BatchSql &sql, std::vector<PartitionResult> &results,
                  std::vector<ColumnDetail> *totals) {
    const std::vector<BatchSql::SummaryColumn> columns = sql.summaryColumns();
    QHash<QString, std::size_t> changed;
    for (std::size_t i = 0; i < results.size(); ++i)
        for (const ColumnChange &c : results[i].columns)
            if (c.changed > 0) {
                changed.insert(partitionKey(results[i].partition), i);
                break;
            }
    if (changed.isEmpty())
        return {};
    const bool one = sql.countedPartition().has_value();
    std::vector<ColumnDetail> whole(columns.size());
    const auto pairs = [](const QSqlQuery &q, int at, ColumnDetail &d) {
        d.pairs.push_back(
            {textOf(q.value(at)), textOf(q.value(at + 1)), q.value(at + 2).toLongLong()});
    };
    const auto shifts = [](const QSqlQuery &q, int at, ColumnDetail &d) {
        d.shift = q.value(at).toDouble() / 1000.0;
        d.shiftRows = q.value(at + 1).toLongLong();
    };
    const int keys = int(sql.catalog().key.size());
    const auto examples = [&](const QSqlQuery &q, int at, ColumnDetail &d) {
        const QSqlRecord record = q.record();
        std::vector<std::pair<QString, QJsonValue>> key;
        for (int i = at; i < at + keys; ++i)
            key.emplace_back(record.fieldName(i), db.dialect().jsonValue(record.field(i)));
        d.examples.push_back(std::move(key));
    };
    for (const bool perPartition : {true, false}) {
        if (perPartition && !one && std::size_t(changed.size()) > kDetailedPartitions)
            continue;
        if (!perPartition && (one || !totals))
            continue;
        // One partition: its figures are the whole's.
        const bool grouped = perPartition && !one;
        if (auto s =
                readDetails(db, sql.changePairs(!grouped), grouped, changed, results, whole, pairs);
            !s)
            return s;
        if (auto s = readDetails(db, sql.changeShifts(!grouped), grouped, changed, results, whole,
                                 shifts);
            !s)
            return s;
        if (auto s = readDetails(db, sql.changeExamples(!grouped), grouped, changed, results, whole,
                                 examples);
            !s)
            return s;
        if (one && perPartition)
            for (const auto &[key, i] : changed.asKeyValueRange())
                for (std::size_t c = 0; c < whole.size() && c < results[i].columns.size(); ++c) {
                    ColumnDetail &d = results[i].columns[c].detail;
                    d.pairs = whole[c].pairs;
                    d.shift = whole[c].shift;
                    d.shiftRows = whole[c].shiftRows;
                    d.examples = whole[c].examples;
                }
    }
    if (one || !totals)
        return {};
    *totals = std::move(whole);
    return {};
}

} // namespace

bool foldsKept(const BatchSql &sql, const PartitionValues &changes,
               const QHash<QString, QList<qint64>> &staged) {
    const std::vector<BatchSql::SummaryColumn> columns = sql.summaryColumns();
    for (auto it = changes.cbegin(); it != changes.cend(); ++it) {
        const qint64 rows = staged.value(it.key()).value(0);
        int ci = 3;
        for (const auto &column : columns) {
            const qint64 changed = it.value().value(ci).toLongLong();
            if (column.kind == ColumnKind::Number && changed > 0 && changed * 100 >= rows)
                return true;
            ci += BatchSql::changeValues(column.kind);
        }
    }
    return false;
}

std::vector<std::size_t> distinctColumns(const BatchSql &sql, const PartitionValues &changes) {
    const std::vector<BatchSql::SummaryColumn> columns = sql.summaryColumns();
    std::vector<std::size_t> out;
    for (std::size_t i = 0; i < columns.size(); ++i) {
        if (columns[i].kind != ColumnKind::Other && columns[i].kind != ColumnKind::Time)
            continue;
        int ci = 3;
        for (std::size_t j = 0; j < i; ++j)
            ci += BatchSql::changeValues(columns[j].kind);
        for (const QVariantList &c : changes)
            if (c.value(ci).toLongLong() > 0) {
                out.push_back(i);
                break;
            }
    }
    return out;
}

Status addColumnSummary(const Database &db, const DatasetSpec &dataset, const BatchSql &sql,
                        const PartitionValues &changes, const PartitionValues &before,
                        std::vector<PartitionResult> &results, bool keptInBefore,
                        const std::vector<std::size_t> &distinct,
                        std::vector<ColumnDetail> *totals) {
    const std::vector<BatchSql::SummaryColumn> columns = sql.summaryColumns();
    const bool overwrite = dataset.write == WriteMode::OverwritePartition;
    const std::optional<QString> one = sql.countedPartition();
    PartitionValues after, kept;
    // The figures after the write: where nothing is deleted (a merge, an
    // overwrite replacing every target row) the target's with the changes;
    // an overwrite deleting rows reads the staged rows (measured on SQLite,
    // 2,000,000 rows of 12 columns: 2.2 s a read).
    const auto readsStage = [&](const PartitionResult &p) { return overwrite && p.deleted > 0; };
    const bool stageRead = std::any_of(results.cbegin(), results.cend(), readsStage);
    if (stageRead) {
        QVariantList binds;
        const QString text = sql.columnStats(true, binds, false, distinct);
        auto read = valuesBy(db, text, binds, one);
        if (!read)
            return fail(read.error());
        after = std::move(*read);
    }
    // A merge whose changed rows held a number column's minimum or maximum
    // before: those of the rows it keeps, read once for every such column.
    // (Read with the target's figures before, where `keptInBefore`; then
    // the distinct values.)
    int keptAt = 1;
    for (const auto &column : columns)
        keptAt += BatchSql::statValues(column.kind);
    const int stageDistinctAt = keptAt;
    int distinctAt = keptAt;
    if (keptInBefore)
        for (const auto &column : columns)
            if (column.kind == ColumnKind::Number)
                distinctAt += 2;
    bool readKept = false;
    for (const PartitionResult &p : results) {
        if (keptInBefore)
            break;
        const QString key = partitionKey(p.partition);
        const QVariantList c = changes.value(key), b = before.value(key);
        int ci = 3, bi = 1; // after the diff's counts; after the row count
        for (const auto &column : columns) {
            if (column.kind == ColumnKind::Number && !readsStage(p)) {
                const auto oldMin = numberOf(c.value(ci + 19)), oldMax = numberOf(c.value(ci + 20));
                if ((oldMin && oldMin <= numberOf(b.value(bi + 2))) ||
                    (oldMax && oldMax >= numberOf(b.value(bi + 3))))
                    readKept = true;
            }
            ci += BatchSql::changeValues(column.kind);
            bi += BatchSql::statValues(column.kind);
        }
    }
    if (readKept) {
        QVariantList binds;
        const QStringList text = sql.keptExtremes(binds);
        for (qsizetype i = 0; i + 1 < text.size(); ++i)
            if (auto r = db.exec(text[i]); !r)
                return fail(r.error());
        auto read = valuesBy(db, text.back(), binds, one);
        if (!read)
            return fail(read.error());
        kept = std::move(*read);
    }
    for (PartitionResult &p : results) {
        const QString key = partitionKey(p.partition);
        const QVariantList c = changes.value(key), b = before.value(key), a = after.value(key),
                           k = keptInBefore ? b.mid(keptAt) : kept.value(key);
        int ci = 3, bi = 1, ki = 0;
        p.columns.clear();
        for (std::size_t i = 0; i < columns.size(); ++i) {
            const BatchSql::SummaryColumn &column = columns[i];
            ColumnChange x;
            x.column = column.name;
            x.type = column.type;
            x.kind = column.kind;
            if (column.kind == ColumnKind::Skipped) {
                p.columns.push_back(std::move(x));
                continue;
            }
            const auto C = [&](int i) { return c.value(ci + i); };
            const qint64 targetRows = b.value(0).toLongLong(), stagedRows = a.value(0).toLongLong();
            x.matched = p.stagedRows - p.inserted;
            x.changed = C(0).toLongLong();
            x.onlyThisChanged = C(1).toLongLong();
            x.fromNull = C(2).toLongLong();
            x.toNull = C(3).toLongLong();
            const qint64 insertedNulls = C(4).toLongLong();
            if (const auto at = std::find(distinct.cbegin(), distinct.cend(), i);
                at != distinct.cend()) {
                const int di = distinctAt + 3 * int(at - distinct.cbegin());
                x.detail.distinctBefore = b.value(di).toLongLong();
                x.detail.distinctAfter =
                    readsStage(p)
                        ? a.value(stageDistinctAt + int(at - distinct.cbegin())).toLongLong()
                        : b.value(di + 1).toLongLong() + C(5).toLongLong() -
                              b.value(di + 2).toLongLong();
            }
            x.nullsBefore = targetRows - b.value(bi).toLongLong();
            x.nullsAfter = readsStage(p) ? stagedRows - a.value(bi).toLongLong()
                                         : x.nullsBefore + insertedNulls + x.toNull - x.fromNull;
            if (column.kind == ColumnKind::Number) {
                const auto insertedSum = numberOf(C(5)), insertedMin = numberOf(C(6)),
                           insertedMax = numberOf(C(7)), delta = numberOf(C(8));
                x.increases = C(9).toLongLong();
                x.decreases = C(10).toLongLong();
                x.largestChange = numberOf(C(11));
                x.ratioMin = numberOf(C(12));
                x.ratioMax = numberOf(C(13));
                x.ratioUndefined = C(14).toLongLong();
                x.offsetMin = numberOf(C(15));
                x.offsetMax = numberOf(C(16));
                const auto newMin = numberOf(C(17)), newMax = numberOf(C(18)),
                           oldMin = numberOf(C(19)), oldMax = numberOf(C(20));
                x.sumBefore = numberOf(b.value(bi + 1));
                x.minBefore = numberOf(b.value(bi + 2));
                x.maxBefore = numberOf(b.value(bi + 3));
                x.sumInserted = insertedSum.value_or(0);
                x.sumUpdated = delta.value_or(0);
                if (readsStage(p)) {
                    x.sumAfter = numberOf(a.value(bi + 1));
                    x.minAfter = numberOf(a.value(bi + 2));
                    x.maxAfter = numberOf(a.value(bi + 3));
                    // What the target's rows no staged row replaces held.
                    x.sumDeleted = x.sumBefore.value_or(0) + x.sumInserted + x.sumUpdated -
                                   x.sumAfter.value_or(0);
                } else {
                    x.sumAfter = plus(plus(x.sumBefore, insertedSum), delta);
                    // The rows it keeps: all the target's where no changed
                    // row held its extreme, else as read.
                    const bool keptMin = !oldMin || (x.minBefore && *oldMin > *x.minBefore);
                    const bool keptMax = !oldMax || (x.maxBefore && *oldMax < *x.maxBefore);
                    x.minAfter =
                        least({keptMin ? x.minBefore : numberOf(k.value(ki)), newMin, insertedMin});
                    x.maxAfter = greatest(
                        {keptMax ? x.maxBefore : numberOf(k.value(ki + 1)), newMax, insertedMax});
                }
                ki += 2;
            }
            ci += BatchSql::changeValues(column.kind);
            bi += BatchSql::statValues(column.kind);
            p.columns.push_back(std::move(x));
        }
    }
    return addDetails(db, sql, results, totals);
}

} // namespace rw
