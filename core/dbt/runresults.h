#pragma once

#include "core/dbt/manifest.h"
#include "core/util/error.h"
#include "core/workspace/spec.h"

#include <QDateTime>
#include <QHash>
#include <optional>
#include <vector>

namespace rw::dbt {

// What dbt's last run (its run_results.json) left to redo for one model or
// snapshot: the batches of a microbatch model that failed, or the whole
// model (its run errored or was skipped, or a test on it failed).
struct NodeFailure {
    QString uniqueId;
    QString
        status; // dbt's: "error", "partial success", "skipped"; "success" when only a test failed
    QString message;
    std::vector<std::pair<QDateTime, QDateTime>> failedBatches; // [start, end), UTC
    bool whole = false;
    QStringList failedTests; // "<test unique_id>: <dbt's message>"
};

struct RunResults {
    QString path;
    QString dbtVersion;
    QString generatedAt;
    QHash<QString, NodeFailure> byNode; // only nodes with something to redo
    // Failed tests whose model the manifest beside the file (or the
    // spec's) does not name.
    QStringList unattributedTests;
};

// Reads run_results.json. Tests are attributed to their model through
// `manifest` (the test nodes' attached model); without one, a failed
// test is unattributed. BadInput naming the file: not JSON, not a
// run_results file (metadata.dbt_schema_version), a result without a
// unique_id, or a batch that is not [start, end] timestamps.
Result<RunResults> parseRunResults(const QByteArray &json, const QString &path,
                                   const Manifest *manifest);
// The manifest.json beside it (dbt writes both into its target path), else
// `fallback`; then parseRunResults.
Result<RunResults> loadRunResults(const QString &path, const QString &fallbackManifest);

// Why dbt's run left `partition` of `dataset` to redo, or nullopt. A failed
// batch marks the partitions whose time span ([label's start, + its grain),
// or the one instant of a timestamp value) meets it; a partition whose label
// is no time is marked by a failed batch only when the model failed whole.
std::optional<QString> failureOf(const RunResults &results, const DatasetSpec &dataset,
                                 const std::optional<QString> &partition);

} // namespace rw::dbt
