#pragma once

#include "core/batch/batch.h"
#include "core/batch/batchsql.h"
#include "core/sql/database.h"

#include <QHash>
#include <QVariantList>
#include <optional>

namespace rw {

using PartitionValues = QHash<QString, QVariantList>; // per partitionKey

// Per partition, the values of a query returning (label, is-null, value...),
// or, given the key of its one partition, of a query returning (value...).
Result<PartitionValues> valuesBy(const Database &db, const QString &sql, const QVariantList &binds,
                                 const std::optional<QString> &onePartition);

// What each column of `results` (a preview's partitions, their counts set)
// would change, after their diff (rewind_stage, rewind_changes and the
// target copy as it left them): `changes` is BatchSql::changeStats per
// partition, `before` columnStats of the target. The figures after are the
// before with the changes, read from the staged rows where an overwrite
// deletes rows; a merge's minimum and maximum read the rows it keeps only
// where a changed row held the target's extreme. With its details
// (ColumnDetail), and those of all the partitions together in `totals` when
// there are several (the totals' figures that do not add up). Same thread
// as the diff.
Status addColumnSummary(const Database &db, const DatasetSpec &dataset, const BatchSql &sql,
                        const PartitionValues &changes, const PartitionValues &before,
                        std::vector<PartitionResult> &results, bool keptInBefore,
                        const std::vector<std::size_t> &distinct,
                        std::vector<ColumnDetail> *totals = nullptr);

// The text and time columns whose distinct values before and after are read
// (BatchSql::columnStats `distinct`): those a change touches in a partition
// (a COUNT(DISTINCT) of 2,000,000 rows costs SQLite about 0.3 s a column).
std::vector<std::size_t> distinctColumns(const BatchSql &sql, const PartitionValues &changes);

// Whether the target's read of its figures before should also read the
// extremes of the rows a merge keeps (BatchSql::columnStats withKept): where
// a number column changed in at least 1% of a partition's `staged` rows, a
// changed row likely held its minimum or maximum, which a second read of the
// target would then find (measured on 2,000,000 rows, 5% changed: SQLite
// 1.3 s + 1.4 s apart); sparser changes seldom need it.
bool foldsKept(const BatchSql &sql, const PartitionValues &changes,
               const QHash<QString, QList<qint64>> &staged);

} // namespace rw
