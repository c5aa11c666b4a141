#pragma once

// The diff shared by preview and by each chunk of a run: stage the scope,
// run the gates, count what the write would change. Internal to core
// (batch.cpp); the statements themselves are BatchSql's.

#include "core/batch/batch.h"
#include "core/batch/fingerprint.h"

#include <QJsonObject>
#include <QSqlRecord>
#include <functional>

namespace rw {

class BatchSql;

inline bool cancelled(const BatchOptions &o) {
    return o.cancel && o.cancel->load();
}

// Columns [offset, offset + count) of a result row as a JSON object, by
// column name (sample rows of previews, runs and SCD2 diffs).
QJsonObject recordToJson(const SqlDialect &dialect, const QSqlRecord &record, int offset,
                         int count);
// The first `width` columns of each row of `sql`, its LIMIT bound last (after `binds`).
Result<std::vector<QJsonObject>> sampleRows(const Database &db, const QString &sql,
                                            QVariantList binds, int limit, int width);

// Stages the scope, runs the gates, and diffs against the target: the work
// shared by preview and by each chunk of a run. Leaves rewind_stage and
// rewind_tgt in place for the publish (`publish`: index the stage for it).
// Gate results are appended to `checks`; `phase` names each step as it starts.
// Decides how the scope is staged and matched (BatchStrategy) and leaves it
// on `sql`, where the publish statements read it. A preview's column
// summary's details of all its partitions together go to `columnTotals`.
Result<std::vector<PartitionResult>>
stageAndDiff(const Database &db, const DatasetSpec &dataset, BatchSql &sql,
             const std::vector<PartitionRef> &scope,
             const std::function<Result<SourceStatsMap>()> &sourceStats, const QVariant &runId,
             const BatchOptions &options, bool simulate, bool publish,
             std::vector<CheckResult> &checks, const std::function<void(const QString &)> &phase,
             std::vector<ColumnDetail> *columnTotals = nullptr);

} // namespace rw
