#pragma once

#include "core/batch/partitions.h"
#include "core/lateness/finalize.h"
#include "core/lateness/lateness.h"

#include <QString>
#include <optional>
#include <vector>

namespace rw {

// One partition as the lag page shows it: its lateness and its status.
struct LagPartitionRow {
    std::optional<QString> partition;
    PartitionStatus status = PartitionStatus::Unloaded;
    PartitionLateness lateness;
};

// Everything the lag page loads for a dataset in one background request.
// The slider works on `report.whatIf` (one entry per `grid` step) without
// asking the database again.
struct LatenessSnapshot {
    LatenessReport report;
    std::vector<qint64> grid;                // what-if allowed latenesses, seconds, ascending
    std::optional<FinalizeResult> finalize;  // the dry run; empty without allowed_lateness
    std::vector<LagPartitionRow> partitions; // in partition order
    qint64 staleCount = 0;
    QString runRefused; // why this role may not finalize or backfill (a run), else empty
};

// The slider's steps: round durations from 0 s up to the first one at or
// past `maxMs` (at least 1 h), with `extra` (the spec's allowed lateness) added.
std::vector<qint64> latenessGrid(std::optional<qint64> maxMs, std::optional<qint64> extra);

// Compact text for a lateness in milliseconds: "850 ms", "45 s", "12 min",
// "2.5 h", "3.2 d"; negative values keep their sign.
QString latenessText(qint64 ms);
// Seconds as the spec writes them: "2h", "90s", "0s".
QString durationLabel(qint64 seconds);
// 0.0123 -> "1.23 %".
QString percentText(double fraction);

// Loads a snapshot (runs on a worker thread: lateness, finalize dry run and
// partition statuses). BadInput when the dataset has no event or ingest time.
Result<LatenessSnapshot> loadLatenessSnapshot(const Database &db, const DatasetSpec &dataset);

} // namespace rw
