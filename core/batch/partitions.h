#pragma once

#include "core/sql/database.h"
#include "core/workspace/spec.h"

#include <QMetaType>

#include <optional>
#include <vector>

namespace rw {

class BatchSql;

// Where a partition stands, in the order an operator reads them: never
// published; published without a watermark; published, the watermark not yet
// past it; finalized; its source changed since its publish; its last run failed.
enum class PartitionStatus {
    Unloaded,
    Loaded,
    Provisional,
    Final,
    Stale,
    Failed,
};
template <> struct EnumNames<PartitionStatus> {
    static constexpr std::pair<PartitionStatus, std::string_view> names[] = {
        {PartitionStatus::Unloaded, "unloaded"}, {PartitionStatus::Loaded, "loaded"}, {PartitionStatus::Provisional, "provisional"},
        {PartitionStatus::Final, "final"},       {PartitionStatus::Stale, "stale"},   {PartitionStatus::Failed, "failed"}};
};

// One row of the partitions view: what the source holds, what is published,
// and what Rewind knows of it.
struct PartitionInfo {
    std::optional<QString> partition; // as stored, as text; nullopt for an unpartitioned dataset
    qint64 sourceRows = 0;
    qint64 targetRows = 0;
    qint64 duplicateKeys = 0; // keys with more than one row in the target (current rows for scd2)
    PartitionStatus status = PartitionStatus::Unloaded;
    QVariant lastRunId;       // null when no Rewind run touched it
    QString lastPublished;    // ISO-8601, empty when never published by Rewind
};

QString partitionLabel(const std::optional<QString> &partition); // "(all)" for null
// Partition order: NULL first, numbers as numbers (9 before 10), else text.
bool partitionLess(const std::optional<QString> &a, const std::optional<QString> &b);

// Counts per partition in three set-based queries (source, target, state),
// whatever the number of partitions. Reads only.
Result<std::vector<PartitionInfo>> listPartitions(const Database &db, const DatasetSpec &dataset);
// The same with the catalog its operation resolved already (`sql` of `dataset`).
Result<std::vector<PartitionInfo>> listPartitions(const Database &db, const DatasetSpec &dataset, const BatchSql *sql);

// The source fingerprint a publish records, as an aggregate over the
// source's rows: the row count and an order-independent checksum of every
// column. A partition whose fingerprint differs from the recorded one is stale.
QString sourceSignatureExpr(const Database &db, const DatasetSpec &dataset);

} // namespace rw

Q_DECLARE_METATYPE(rw::PartitionInfo)
