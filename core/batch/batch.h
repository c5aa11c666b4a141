#pragma once

#include "core/batch/columnchange.h"
#include "core/batch/schemachange.h"
#include "core/sql/database.h"
#include "core/workspace/spec.h"

#include <QJsonObject>
#include <QVariant>
#include <atomic>
#include <functional>
#include <optional>
#include <vector>

namespace rw {

// Which partitions an operation covers. Empty means every partition of the source.
struct ScopeRequest {
    QStringList partitions;      // --partition, repeatable
    std::optional<QString> from; // --from (inclusive)
    std::optional<QString> to;   // --to (inclusive)
    bool stale = false;          // --stale: every stale partition
    bool schemaBehind = false;   // --schema-behind: every partition behind a schema change
    // A preview or run: a schema change that drops a column needs every
    // partition (resolveScope refuses fewer).
    bool publishes = false;
};

// One partition: its value as stored (bound as is, so indexes apply) and its label.
struct PartitionRef {
    QVariant value;               // null for the NULL partition / an unpartitioned dataset
    std::optional<QString> label; // text as stored; nullopt for NULL
};

struct CheckResult {
    QString name;
    std::optional<QString> partition;
    bool passed = true;
    QString detail;
    qint64 quarantined = 0; // rows moved to the DLQ by an on_fail: quarantine check
};

// Up to N example rows per category (JSON objects of column -> value).
struct Samples {
    std::vector<QJsonObject> inserted;
    std::vector<std::pair<QJsonObject, QJsonObject>> updated; // before, after
    std::vector<QJsonObject> deleted;
    std::vector<QJsonObject> unchanged;
};

struct PartitionResult {
    std::optional<QString> partition;
    qint64 sourceRows = 0;
    qint64 stagedRows = 0;
    qint64 duplicatesDropped = 0;
    qint64 inserted = 0;
    qint64 updated = 0;
    qint64 deleted = 0;
    qint64 unchanged = 0;
    bool published = false;
    // scd2 only: versions opened (= inserted) and versions closed at this
    // partition's effective date (closed <= updated, which also counts
    // versions whose end moved when an earlier month is re-applied).
    std::optional<qint64> versionsOpened;
    std::optional<qint64> versionsClosed;
    // scd2 with hard_deletes invalidate: of those closed, the versions of
    // keys gone from the source (closed with no successor).
    std::optional<qint64> versionsInvalidated;
    // delete_insert only: the distinct keys of the staged rows (each one's
    // target rows in the partition deleted, its staged rows inserted).
    std::optional<qint64> keysTouched;
    QString fingerprint; // of the scoped source rows: count and order-independent checksum
    std::optional<Samples> samples;
    // A preview's per-column change summary (merge and overwrite into an
    // existing target): one entry per column the target shares with the
    // staged rows.
    std::vector<ColumnChange> columns;
    // How it publishes ("swap" or "rows", PartitionLayout::choose), and why
    // rows where a swap could be expected.
    std::optional<QString> publish;
    QString publishReason;
    // Trino over Iceberg: the target's snapshot before the publish (what a
    // rollback restores the partition from) and the snapshot the publish
    // committed (empty: nothing to write); `recognised`: a resume found that
    // commit landed before the run was stopped, and recorded it.
    QString snapshotBefore;
    QString snapshotAfter;
    bool recognised = false;
    // Trino: the tag its chunk's statement began with and the query id
    // Trino gave that statement (iceberg::findCommit looks for both).
    QString commitTag;
    QString commitQuery;
};

// How a run stands: a preview's result, a run's result, and the status
// rewind_runs records (interrupted is read, never stored: a running run whose
// process is gone).
enum class RunStatus {
    Previewed,
    Running,
    Interrupted,
    Succeeded,
    Failed,
    CheckFailed,
    Cancelled,
    StalePlan,
    RolledBack,
};
template <> struct EnumNames<RunStatus> {
    static constexpr std::pair<RunStatus, std::string_view> names[] = {
        {RunStatus::Previewed, "previewed"},     {RunStatus::Running, "running"},
        {RunStatus::Interrupted, "interrupted"}, {RunStatus::Succeeded, "succeeded"},
        {RunStatus::Failed, "failed"},           {RunStatus::CheckFailed, "check_failed"},
        {RunStatus::Cancelled, "cancelled"},     {RunStatus::StalePlan, "stale_plan"},
        {RunStatus::RolledBack, "rolled_back"}};
};

// What a rewind_runs row is: a batch run (run, resume, backfill, finalize's
// publishes) or a duplicate recovery's re-run, which resume finishes as a
// recovery. Both can be rolled back.
enum class RunKind {
    Run,
    Recover,
};
template <> struct EnumNames<RunKind> {
    static constexpr std::pair<RunKind, std::string_view> names[] = {{RunKind::Run, "run"},
                                                                     {RunKind::Recover, "recover"}};
};

struct RunResult {
    QString dataset;
    WriteMode mode = WriteMode::Merge;
    QString planId;
    QVariant runId; // null for a preview
    bool executed = false;
    RunStatus status =
        RunStatus::Previewed; // previewed, succeeded, failed, check_failed, cancelled, stale_plan
    QString error;
    std::vector<PartitionResult> partitions;
    std::vector<CheckResult> checks;
    // The target's schema change the plan makes (a preview), or made (a run:
    // in its first publish; empty on a resume after it).
    SchemaChangePolicy onSchemaChange = SchemaChangePolicy::Fail;
    SchemaChange schemaChange;
    QString startedAt;
    QString finishedAt;
    // A run that published by partition swap: the milliseconds the parent
    // table was locked (ACCESS EXCLUSIVE), over all its swaps.
    std::optional<qint64> lockMs;
    // A preview of several partitions: the column summary's details of them
    // all together (ColumnDetail; totals() gives them).
    std::vector<ColumnDetail> columnDetails;
    // A run of a stored plan: its preview's column summary (totals), what
    // the run was locked to.
    std::vector<ColumnChange> planColumns;

    PartitionResult totals() const;
    bool checksPassed() const;
};

struct Progress {
    int partitionsDone = 0;
    int partitionsTotal = 0;
    qint64 rowsDone = 0; // staged rows of finished partitions
    QString partition;   // the one being worked on
    QString phase;       // stage, diff, checks, publish
};

// Options common to preview, run and resume.
//
// Threading: every call below runs on the calling thread, using that
// thread's connection. `progress` is called on the same thread; `cancel` may
// be set from any thread: it is checked between statements, and a cancelled
// chunk rolls back whole.
struct BatchOptions {
    ScopeRequest scope;
    QString planId; // run: execute this stored plan (refused if its source changed)
    int samples =
        0; // example rows per category, for at most 100 partitions (those with changes first)
    bool execute = false; // run: publish; otherwise a preview
    std::function<void(const Progress &)> progress;
    const std::atomic<bool> *cancel = nullptr;
    int maxAttempts = 5; // per chunk, for transient lock errors
    // Internal: publish although the dataset is frozen. Only for a caller
    // that holds the freeze itself (recover re-running under its own freeze).
    bool ignoreFreeze = false;
    // Internal: the run's kind as recorded in rewind_runs (Recover for a
    // duplicate recovery's re-run, which resumeRun() finishes as a recovery).
    RunKind kind = RunKind::Run;
    // Internal: resume() calls this once the run is known to go ahead (it
    // may resume, its plan is not stale) and before anything is written; an
    // error stops the resume there (a recovery takes its freeze here).
    std::function<Status()> beforeResume;
};

// Stages, dedupes, diffs and checks the scoped partitions and stores a plan.
// Writes only the plan and an audit row.
Result<RunResult> preview(const Database &db, const DatasetSpec &dataset,
                          const BatchOptions &options);

// Plans (or loads --plan), then publishes chunk by chunk (publishChunks in
// publish.h), each chunk of partitions in one transaction with their
// before-images and each partition's checkpoint, partition state and audit row.
// Without options.execute it is preview().
// Errors: BadInput (scope), StalePlan (exit 4). A failed check is not an
// error: the result has status "check_failed" (exit 3) and that partition unpublished.
Result<RunResult> run(const Database &db, const DatasetSpec &dataset, const BatchOptions &options);

// preview() and run() with the catalog the caller's operation resolved
// already (a recovery's re-run): `dataset` may differ from the one it was
// resolved for in its write mode only.
struct DatasetCatalog;
Result<RunResult> preview(const Database &db, const DatasetSpec &dataset,
                          const DatasetCatalog &catalog, const BatchOptions &options);
Result<RunResult> run(const Database &db, const DatasetSpec &dataset, const DatasetCatalog &catalog,
                      const BatchOptions &options);

// Continues a run that was interrupted, cancelled or failed from its first
// unfinished partition, with the same plan.
Result<RunResult> resume(const Database &db, const Spec &spec, qint64 runId,
                         const BatchOptions &options);

// The exit code a finished result maps to (0, 3 or 4).
int exitCodeOf(const RunResult &result);

} // namespace rw
