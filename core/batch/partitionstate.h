#pragma once

#include "core/sql/database.h"
#include "core/util/enumnames.h"

#include <QStringList>
#include <QVariant>
#include <vector>

// The one owner of rewind_partition_state: what Rewind recorded per partition
// of a dataset when it published, failed, finalized or rolled one back.
// Writes run inside the caller's write transaction, so they commit with the
// data write, its checkpoint and its audit row. A partition is keyed by
// (dataset, part, part_is_null); `part` is the label as the caller stores it.
namespace rw::partitionstate {

// What Rewind recorded last: a publish, a finalization (final stays final
// through later publishes), or a failed run.
enum class RecordedStatus {
    Published,
    Final,
    Failed,
};

} // namespace rw::partitionstate

namespace rw {
template <> struct EnumNames<partitionstate::RecordedStatus> {
    static constexpr std::pair<partitionstate::RecordedStatus, std::string_view> names[] = {
        {partitionstate::RecordedStatus::Published, "published"},
        {partitionstate::RecordedStatus::Final, "final"},
        {partitionstate::RecordedStatus::Failed, "failed"}};
};
} // namespace rw

namespace rw::partitionstate {

struct Row {
    QVariant part;   // as stored
    QVariant isNull; // as stored (0/1)
    RecordedStatus status = RecordedStatus::Published;
    QString sourceSig;
    QString publishedAt;
    QString finalizedAt;
    QVariant lastRunId;
};

// Every recorded partition of `dataset`. Reads only. Internal error for a
// status Rewind does not know.
Result<std::vector<Row>> read(const Database &db, const QString &dataset);
// The non-null partitions of `dataset` finalized, or published, at least once.
Result<QStringList> finalizedParts(const Database &db, const QString &dataset);
Result<QStringList> publishedParts(const Database &db, const QString &dataset);

// Rows of (dataset, part, part_is_null, status, source_rows, source_sig,
// published_at, finalized_at, last_run_id) that `select` yields: publishes
// recorded by a pipeline before Rewind (the demo's nightly loads).
Status recordHistory(const Database &db, const QString &select, const QVariantList &binds = {});

// Run `runId` failed on the partition (its data untouched).
Status markFailed(const Database &db, const QString &dataset, const QString &part, bool isNull,
                  const QVariant &runId);
// Run `runId` published the partition from a source of `sourceRows` rows with
// fingerprint `sourceSig`. A final partition stays final: the watermark
// passed it once and only moves forward.
Status markPublished(const Database &db, const QString &dataset, const QString &part, bool isNull,
                     qint64 sourceRows, const QString &sourceSig, const QString &publishedAt,
                     const QVariant &runId);
// The same for the partitions of a chunk, in one statement.
struct Published {
    QString part;
    bool isNull = false;
    qint64 sourceRows = 0;
    QString sourceSig;
};
Status markPublished(const Database &db, const QString &dataset,
                     const std::vector<Published> &parts, const QString &publishedAt,
                     const QVariant &runId);
// The watermark passed these non-null partitions.
Status markFinal(const Database &db, const QString &dataset, const QStringList &parts,
                 const QString &finalizedAt);
// A rollback: the partition holds what run `runId` published at `publishedAt`
// again. Its source fingerprint is not kept: unknown, so it shows stale.
Status revertToPublish(const Database &db, const QString &dataset, const QString &part, bool isNull,
                       const QVariant &runId, const QVariant &publishedAt);
// A rollback of the partition's first publish: as if never published (a
// finalized partition keeps its row, without a publish).
Status forgetPublish(const Database &db, const QString &dataset, const QString &part, bool isNull);

} // namespace rw::partitionstate
