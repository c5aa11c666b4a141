#pragma once

#include "core/sql/database.h"
#include "core/workspace/spec.h"

#include <QMetaType>
#include <algorithm>
#include <optional>
#include <utility>
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
    SchemaBehind,
    Failed,
};
template <> struct EnumNames<PartitionStatus> {
    static constexpr std::pair<PartitionStatus, std::string_view> names[] = {
        {PartitionStatus::Unloaded, "unloaded"},
        {PartitionStatus::Loaded, "loaded"},
        {PartitionStatus::Provisional, "provisional"},
        {PartitionStatus::Final, "final"},
        {PartitionStatus::Stale, "stale"},
        {PartitionStatus::SchemaBehind, "schema_behind"},
        {PartitionStatus::Failed, "failed"}};
};

// One row of the partitions view: what the source holds, what is published,
// and what Rewind knows of it.
struct PartitionInfo {
    std::optional<QString> partition; // as stored, as text; nullopt for an unpartitioned dataset
    qint64 sourceRows = 0;
    qint64 targetRows = 0;
    qint64 duplicateKeys = 0; // keys with more than one row in the target (current rows for scd2)
    PartitionStatus status = PartitionStatus::Unloaded;
    QVariant lastRunId;    // null when no Rewind run touched it
    QString lastPublished; // ISO-8601, empty when never published by Rewind
    // Columns a schema change added to the target after this partition's
    // rows were last published (or that it has rows Rewind never published):
    // NULL in them until a run covers it (run --schema-behind).
    // (a loaded, stale or never-published partition shows it as its status,
    // schema_behind; a failed, provisional or final one keeps its own).
    QStringList schemaBehind;
    // The source changed since its last publish: status stale, or
    // schema_behind over stale (what run --stale picks).
    bool sourceChanged = false;
    // A partitioned PostgreSQL target: the leaf table holding the partition
    // and its bound ("FOR VALUES FROM (...) TO (...)", "DEFAULT"); empty otherwise.
    QString leaf;
    QString leafBounds;
    // An Iceberg target on Trino: the last snapshot that wrote the
    // partition's files, when, and what committed it ("run 12" or "rollback
    // of run 12" for Rewind's, else the operation and the Trino user). Empty
    // elsewhere.
    QString snapshot;
    QString snapshotAt;
    QString snapshotBy;
    // Set by a caller that read dbt's run results (dbt::failureOf): why
    // dbt's last run left the partition to redo. listPartitions leaves it unset.
    std::optional<QString> dbtFailure;
};

QString partitionLabel(const std::optional<QString> &partition); // "(all)" for null
// Partition order: NULL first, numbers as numbers (9 before 10), else text.
// Partitions are matched by (is-null, text value), so that a NULL partition
// never collides with an empty string.
struct PartitionOrder {
    bool isNull = false;
    QString text;
    // The text read as a number once, here: parsing it in every comparison
    // was most of the time `partitions` took at 10,000 partitions.
    bool isNumber = false;
    double number = 0;

    PartitionOrder(bool null, QString value);
    explicit PartitionOrder(const std::optional<QString> &partition)
        : PartitionOrder(!partition, partition.value_or(QString())) {}
    bool operator<(const PartitionOrder &other) const;
};
bool partitionLess(const std::optional<QString> &a, const std::optional<QString> &b);

// Sorts `items` in partition order of `label(item)` (an optional<QString>),
// each label read once rather than in every comparison; stable.
template <class T, class Label>
void sortByPartition(std::vector<T> &items, Label label, bool descending = false) {
    std::vector<std::pair<PartitionOrder, size_t>> keys;
    keys.reserve(items.size());
    for (size_t i = 0; i < items.size(); ++i)
        keys.emplace_back(PartitionOrder(label(items[i])), i);
    std::stable_sort(keys.begin(), keys.end(), [descending](const auto &a, const auto &b) {
        return descending ? b.first < a.first : a.first < b.first;
    });
    std::vector<T> sorted;
    sorted.reserve(items.size());
    for (const auto &key : keys)
        sorted.push_back(std::move(items[key.second]));
    items = std::move(sorted);
}

// Counts per partition in three set-based queries (source, target, state),
// whatever the number of partitions. Reads only.
Result<std::vector<PartitionInfo>> listPartitions(const Database &db, const DatasetSpec &dataset);
// The same with the catalog its operation resolved already (`sql` of `dataset`).
Result<std::vector<PartitionInfo>> listPartitions(const Database &db, const DatasetSpec &dataset,
                                                  const BatchSql *sql);

// A row's partition value: the partition column (of `qualifier` when one is
// given), its hour, day or month as a label with partition_granularity, or
// NULL for an unpartitioned dataset.
QString partitionValueSql(const Database &db, const DatasetSpec &dataset,
                          const QString &qualifier = QString());

// A predicate true for an SCD2 dimension's current versions: its current
// flag set (1 or true), or, where it has none, an open valid_to.
QString scd2IsCurrent(const Database &db, const Scd2Spec &scd2);

// The source fingerprint a publish records, as an aggregate over the
// source's rows: the row count and an order-independent checksum of every
// column. A partition whose fingerprint differs from the recorded one is stale.
QString sourceSignatureExpr(const Database &db, const DatasetSpec &dataset);

} // namespace rw

Q_DECLARE_METATYPE(rw::PartitionInfo)
