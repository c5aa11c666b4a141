#pragma once

// Internal to core/recovery: what the step files share.

#include "core/recovery/recovery.h"

#include <QSqlQuery>
#include <nlohmann/json.hpp>

namespace rw::recovery_detail {

using Json = nlohmann::ordered_json;

std::optional<QString> labelOf(const QSqlQuery &q, int at);
// Partition column (if any) then key columns, each once.
QStringList identityColumns(const DatasetSpec &dataset, const BatchSql &sql);
QString quotedList(const Database &db, const QStringList &columns,
                   const QString &qualifier = QString());
// One audit row in its own write transaction.
Status auditStep(const Database &db, const QString &dataset, const QString &action,
                 const QVariant &runId, const Json &detail);
Json duplicatesDetail(const DuplicateReport &d);
// The affected partitions' labels, for a step's detail.
QString affectedText(const RecoveryResult &r);
// The dataset as its re-run writes it: by overwrite.
DatasetSpec overwriteOf(const DatasetSpec &dataset);
// BadInput for an scd2 dataset or a dataset without a key.
Status checkRecoverable(const DatasetSpec &dataset);

// identify.cpp
Result<DuplicateReport> findDuplicates(const Database &db, const DatasetSpec &dataset,
                                       const BatchSql &sql, int samples);
// totals.cpp
Result<std::vector<TotalsRow>> compareTotals(const Database &db, const DatasetSpec &dataset,
                                             const BatchSql &sql,
                                             const std::vector<PartitionRef> &scope);
// uniqueindex.cpp
// Why step 5 adds no index on a Trino warehouse.
inline const QString kNoIcebergIndex =
    QStringLiteral("Iceberg tables have no unique indexes: checked instead that no key repeats "
                   "after the re-run (rewindctl duplicates checks it later)");
Result<bool> uniqueIndexExists(const Database &db, const DatasetSpec &dataset,
                               const QString &index);

} // namespace rw::recovery_detail
