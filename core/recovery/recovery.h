#pragma once

#include "core/batch/batch.h"
#include "core/batch/batchsql.h"
#include "core/batch/catalog.h"
#include "core/sql/database.h"
#include "core/workspace/spec.h"

#include <QJsonObject>
#include <atomic>
#include <functional>
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
Result<DuplicateReport> findDuplicates(const Database &db, const DatasetSpec &dataset,
                                       int samples = 5);

struct FreezeInfo {
    QString frozenAt;
    QString osUser;
    QString reason;
};
Result<std::optional<FreezeInfo>> freezeInfo(const Database &db, const QString &dataset);
// Freezes (or lifts the freeze of) a dataset with its audit row. Freezing a
// frozen dataset, or unfreezing one that is not, changes nothing.
// `action` names the audit row.
//
// The freeze holds in the database: triggers on the target refuse every other
// writer's INSERT, UPDATE and DELETE (PostgreSQL: TRUNCATE too) with a message
// naming the freeze and how to lift it, while Rewind's own write transactions
// pass (controlschema step 13). Created in the freeze's transaction, dropped
// in the unfreeze's; a crash leaves them standing with the freeze. What they
// cannot stop: DDL (ALTER, DROP), a role that may drop triggers, and (SQLite)
// a writer that deletes rewind_writer's guard by writing to it directly.
Result<bool> freeze(const Database &db, const DatasetSpec &dataset, const QString &reason,
                    const QString &action = QStringLiteral("freeze")); // true: newly frozen
Result<bool> unfreeze(const Database &db, const DatasetSpec &dataset, const QString &reason,
                      const QString &action = QStringLiteral("unfreeze")); // true: was frozen

struct TotalsRow {
    std::optional<QString> partition;
    qint64 sourceRows = 0; // deduped source, as a re-run stages it
    qint64 targetRows = 0;
    std::vector<std::tuple<QString, QVariant, QVariant>> sums; // column, source sum, target sum
    bool match = true;
};

// A column's sums agree: equal within floating-point rounding (NULL: 0).
bool sameSum(const QVariant &a, const QVariant &b);

// Business totals of `scope` (row counts and sums of numeric columns): the
// deduped source against the target. Reads only (temporary work tables).
Result<std::vector<TotalsRow>> compareTotals(const Database &db, const DatasetSpec &dataset,
                                             const std::vector<PartitionRef> &scope);

// Where one step of a recovery stands.
enum class RecoveryStepStatus {
    Planned, // a dry run's plan, or not run yet
    Done,
    Skipped, // nothing to do
    Failed,
};
template <> struct EnumNames<RecoveryStepStatus> {
    static constexpr std::pair<RecoveryStepStatus, std::string_view> names[] = {
        {RecoveryStepStatus::Planned, "planned"},
        {RecoveryStepStatus::Done, "done"},
        {RecoveryStepStatus::Skipped, "skipped"},
        {RecoveryStepStatus::Failed, "failed"}};
};

// The steps of a recovery, in order (recovery.cpp runs them; the CLI and the
// console name them by this table). report is only ever a failed step: the
// report could not be written.
enum class RecoveryStep {
    Freeze,
    Identify,
    Rerun,
    Totals,
    UniqueIndex,
    Unfreeze,
    Report,
};
template <> struct EnumNames<RecoveryStep> {
    static constexpr std::pair<RecoveryStep, std::string_view> names[] = {
        {RecoveryStep::Freeze, "freeze"},
        {RecoveryStep::Identify, "identify"},
        {RecoveryStep::Rerun, "rerun"},
        {RecoveryStep::Totals, "totals"},
        {RecoveryStep::UniqueIndex, "unique_index"},
        {RecoveryStep::Unfreeze, "unfreeze"},
        {RecoveryStep::Report, "report"}};
};

struct RecoveryStepResult {
    RecoveryStep step = RecoveryStep::Freeze;
    RecoveryStepStatus status = RecoveryStepStatus::Planned;
    QString detail;
};

// Where a recovery stands: planned (a dry run, or steps still to run),
// recovered (every step done), failed (a step failed; the dataset stays frozen).
enum class RecoveryStatus {
    Planned,
    Recovered,
    Failed,
};
template <> struct EnumNames<RecoveryStatus> {
    static constexpr std::pair<RecoveryStatus, std::string_view> names[] = {
        {RecoveryStatus::Planned, "planned"},
        {RecoveryStatus::Recovered, "recovered"},
        {RecoveryStatus::Failed, "failed"}};
};

struct RecoverOptions {
    bool execute = false;
    QString
        reportPath; // empty: recovery-<dataset>-<time>.md next to the database (only with execute)
    int samples = 5;
};

struct RecoveryResult {
    QString dataset;
    QString target;
    bool executed = false;
    RecoveryStatus status = RecoveryStatus::Planned;
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
    std::vector<RecoveryStepResult> steps;
    QString reportPath;
    // The affected partitions as stored (what step 3 re-runs) and their labels.
    std::vector<PartitionRef> scope;
    QStringList scopeLabels;
    bool nullPartition = false; // duplicates in the NULL partition of a partitioned dataset

    bool failed() const { return status == RecoveryStatus::Failed; }
    // The step recorded with this name, or nullptr.
    const RecoveryStepResult *step(RecoveryStep name) const;
};

// The five steps of a duplicate incident, each audited: freeze the dataset;
// find duplicate keys; re-run the affected partitions by overwrite from the
// deduped source through the batch core; compare business totals with the
// source; add a unique index on (partition, key) and unfreeze. A failed step
// stops the recovery and leaves the dataset frozen (result status "failed").
// Without options.execute: reports the duplicates, the current totals and
// the plan; changes nothing.
// Errors: BadInput for an scd2 dataset or a dataset without a key.
Result<RecoveryResult> recover(const Database &db, const DatasetSpec &dataset,
                               const RecoverOptions &options);

// What a duplicate recovery of `dataset` needs of the session's role, all
// checked before its first step: the re-run's (an overwrite of the target,
// core/batch/batchprivileges.h), the freeze's (TRIGGER on the target and its
// partitions, rewind_frozen) and the target's ownership (the unique index,
// and the unfreeze that drops the freeze's triggers). `operation` names it in
// the refusal (exit 2).
Status requireRecoverPrivileges(const Database &db, const DatasetSpec &dataset,
                                const QString &operation);

struct RecoveryRerunOptions {
    QString planId; // a plan from previewRerun(): refused (StalePlan) if the source changed since
    std::function<void(const Progress &)> progress;
    const std::atomic<bool> *cancel = nullptr;
};

// Resumes an interrupted or failed run (batch resume()). A duplicate
// recovery's re-run (kind recover) is resumed under the recovery's freeze,
// and the recovery then finishes as recover() would have: totals, unique
// index, unfreeze, report; a crash mid-recovery leaves the freeze standing
// until this finishes or unfreeze lifts it.
struct ResumedRun {
    RunResult run;
    std::optional<RecoveryResult> recovery; // for a recovery's re-run
};
Result<ResumedRun> resumeRun(const Database &db, const Spec &spec, qint64 runId,
                             const BatchOptions &options,
                             const RecoverOptions &recoverOptions = {});

// One recovery of one dataset, as one object: the dataset, the catalog its
// BatchSql is made of (resolved when it opens, and again by identify(refresh)
// once the dataset is frozen; the re-run changes the target's rows, not its
// columns or indexes), and the result its steps build. recover() is
// open(), plan(), then the steps in this order; the console's wizard runs
// them one at a time. Each step appends its RecoveryStepResult (and its audit
// row) to result(). A step that fails on the data (totals differ, a NULL
// key, ...) is not an error: it marks the result failed, records "recover
// failed" and leaves the dataset frozen; the steps after it are refused
// (BadInput). An Error is returned only when the database could not be read
// or written. One file per step in core/recovery/.
//
// Threading: a value; every call runs on the calling thread with that
// thread's connection, so a GUI copies it into a worker and takes the
// updated copy back.
class Recovery {
public:
    // BadInput for an scd2 dataset or a dataset without a key.
    static Result<Recovery> open(const Database &db, const DatasetSpec &dataset);

    // Finds the duplicates, the affected partitions and their business
    // totals (result().before, scope, totalsBefore). Changes nothing.
    Status plan(int samples = 5);
    // What a dry run reports for each step of the plan (status planned/done/skipped).
    Result<std::vector<RecoveryStepResult>> plannedSteps() const;
    // 1. Freezes the dataset, or adopts a freeze already in place (freeze.cpp).
    Status freeze();
    // 2. Records the duplicates. With `refresh`, resolves the catalog and finds
    // them again first (the dataset is frozen by now, so they no longer move)
    // and recomputes the scope (identify.cpp).
    Status identify(bool refresh = false, int samples = 5);
    // What step 3 would write: a preview of the overwrite of the scope (a
    // stored plan, no data written). Empty partitions when the scope is.
    Result<RunResult> previewRerun(int samples = 0) const;
    // 3. Re-runs the scope by overwrite from the deduped source through the
    // batch core, under the recovery's freeze (rerun.cpp). Errors: StalePlan
    // with a planId.
    Status rerun(const RecoveryRerunOptions &options = {});
    // 4. Compares business totals of the scope with the source (totals.cpp).
    Status totals();
    // 5. Adds the unique index on (partition, key), unfreezes; status
    // "recovered" (uniqueindex.cpp). On Trino (Iceberg has no indexes) the
    // index is skipped and the absence of duplicates checked instead.
    Status uniqueIndex(int samples = 5);

    const RecoveryResult &result() const { return m_result; }
    const DatasetSpec &dataset() const { return m_dataset; }

private:
    friend Result<ResumedRun> resumeRun(const Database &, const Spec &, qint64,
                                        const BatchOptions &, const RecoverOptions &);
    Recovery(const Database &db, const DatasetSpec &dataset, DatasetCatalog catalog);
    BatchSql batchSql() const { return BatchSql(m_db, m_dataset, m_catalog); }
    // A failed step: recorded, audited, and the dataset left frozen.
    void stop(RecoveryStep step, const QString &message);
    // Steps run in order, and none after a failed one.
    Status require(RecoveryStep step, RecoveryStep previous) const;
    // The re-run's outcome as step 3: done (audited), or the recovery stopped.
    Status recordRerun(RunResult rerun);
    // Finds the duplicates, the affected partitions as stored and their totals.
    Status findAffected(int samples);
    // Lifts the freeze: the recovery's last step (uniqueindex.cpp).
    Status unfreezeAfter();
    // Step 5's check that no key repeats (uniqueindex.cpp).
    Result<bool> noKeyRepeats(const BatchSql &sql, int samples, const QString &then);

    Database m_db;
    DatasetSpec m_dataset;
    DatasetCatalog m_catalog;
    RecoveryResult m_result;
};

// Writes the executed recovery's Markdown report to `path`, else to
// recovery-<dataset>-<time>.md next to the database (never over another
// report); sets result.reportPath.
Status writeRecoveryReport(const Database &db, const DatasetSpec &dataset, RecoveryResult &result,
                           const QString &path);
// BadInput naming --report PATH when it cannot be written: checked before a
// recovery changes anything.
Status checkReportPath(const QString &path);

// The Markdown recovery report.
// The recovery's report. `partitionsShown` caps each per-partition table
// (the console's view: Markdown tables of thousands of rows take minutes to
// lay out); a saved report lists them all.
QString recoveryReportMarkdown(const RecoveryResult &result,
                               std::size_t partitionsShown = std::size_t(-1));

} // namespace rw
