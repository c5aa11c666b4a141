#pragma once

#include "batch.h"
#include "database.h"
#include "spec.h"

#include <QJsonObject>

#include <optional>
#include <vector>

namespace rw {

// Duplicate incidents: finding duplicate keys in a dataset's target,
// freezing writers, and the guided recovery.
//
// Threading: every call runs on the calling thread with that thread's connection.

struct DuplicatePartition {
    std::optional<QString> partition;
    qint64 duplicateKeys = 0; // keys with more than one row (current rows for scd2)
    qint64 extraRows = 0;     // rows beyond the first of each such key
};

struct DuplicateReport {
    QString dataset;
    QString target;
    qint64 duplicateKeys = 0;
    qint64 extraRows = 0;
    std::vector<DuplicatePartition> partitions;
    std::vector<QJsonObject> samples; // partition and key columns, plus "rows"
};

// Duplicates per (partition, key), NULL keys matching NULL keys, in one
// grouped query. Reads only.
Result<DuplicateReport> findDuplicates(const Database &db, const DatasetSpec &dataset, int samples = 5);

struct FreezeInfo {
    QString frozenAt;
    QString osUser;
    QString reason;
};
Result<std::optional<FreezeInfo>> freezeInfo(const Database &db, const QString &dataset);
// Freezes (or lifts the freeze of) a dataset with its audit row. Freezing a
// frozen dataset, or unfreezing one that is not, changes nothing.
// `action` names the audit row.
Result<bool> freeze(const Database &db, const QString &dataset, const QString &reason,
                    const QString &action = QStringLiteral("freeze")); // true: newly frozen
Result<bool> unfreeze(const Database &db, const QString &dataset, const QString &reason,
                      const QString &action = QStringLiteral("unfreeze")); // true: was frozen

struct TotalsRow {
    std::optional<QString> partition;
    qint64 sourceRows = 0; // deduped source, as a re-run stages it
    qint64 targetRows = 0;
    std::vector<std::tuple<QString, QVariant, QVariant>> sums; // column, source sum, target sum
    bool match = true;
};

// Business totals of `scope` (row counts and sums of numeric columns): the
// deduped source against the target. Reads only (temporary work tables).
Result<std::vector<TotalsRow>> compareTotals(const Database &db, const DatasetSpec &dataset, const std::vector<PartitionRef> &scope);

struct RecoveryStep {
    QString step;   // freeze, identify, rerun, totals, unique_index, unfreeze
    QString status; // done, skipped, failed, planned
    QString detail;
};

struct RecoverOptions {
    bool execute = false;
    QString reportPath; // empty: recovery-<dataset>-<time>.md next to the database (only with execute)
    int samples = 5;
};

struct RecoveryResult {
    QString dataset;
    QString target;
    bool executed = false;
    QString status; // planned, recovered, failed
    QString error;
    DuplicateReport before;
    std::optional<DuplicateReport> after;
    QVariant rerunId;
    std::optional<RunResult> rerun;
    std::vector<TotalsRow> totalsBefore; // the affected partitions before the re-run
    std::vector<TotalsRow> totals;       // after it (the dry run: as they are)
    bool totalsMatch = false;
    bool uniqueIndexAdded = false;
    QString uniqueIndex;
    QStringList uniqueIndexColumns;
    bool leftFrozen = false;
    std::vector<RecoveryStep> steps;
    QString reportPath;
};

// The five steps of a duplicate incident, each audited: freeze the dataset;
// find duplicate keys; re-run the affected partitions by overwrite from the
// deduped source through the batch core; compare business totals with the
// source; add a unique index on (partition, key) and unfreeze. A failed step
// stops the recovery and leaves the dataset frozen (result status "failed").
// Without options.execute: reports the duplicates, the current totals and
// the plan; changes nothing.
// Errors: BadInput for an scd2 dataset or a dataset without a key.
Result<RecoveryResult> recover(const Database &db, const DatasetSpec &dataset, const RecoverOptions &options);

// The Markdown recovery report.
QString recoveryReportMarkdown(const RecoveryResult &result);

} // namespace rw
