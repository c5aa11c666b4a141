#pragma once

#include "core/sql/database.h"
#include "core/workspace/spec.h"

#include <optional>
#include <vector>

namespace rw {

// Dropping the before-images of finished runs: the rows a run replaced,
// kept in rewind_images_<dataset> so that rollback can put them back, and
// the leaves a partition swap detached (swapstore.h). They grow with every
// run; an operator drops those of runs old enough never to be rolled back.
//
// Only runs that cannot be resumed are pruned: succeeded and rolled back
// (a failed or interrupted run may still publish, and its rollback needs
// every image). A pruned run's rollback is refused, naming when its images
// went. Each run is pruned in one transaction with its mark in rewind_runs
// and its audit row; an interrupted prune leaves every run either whole or
// pruned.
//
// Threading: runs on the calling thread with that thread's connection.

struct PruneOptions {
    QString dataset;
    std::optional<QString>
        before; // runs finished before this time (ISO-8601; a date is its midnight UTC)
    std::optional<int> keep; // the newest `keep` runs that can be rolled back keep their images
    bool execute = false;
};

struct PrunedRun {
    qint64 runId = 0;
    QString status;
    QString finishedAt;
    qint64 imageRows = 0; // before-image rows dropped (or to drop)
    int savedLeaves = 0;  // detached leaves dropped (or to drop)
};

struct PruneResult {
    QString dataset;
    QString before; // as normalised (UTC), empty without --before
    std::optional<int> keep;
    bool executed = false;
    std::vector<PrunedRun> runs; // oldest first
};

// BadInput: an unknown dataset, neither `before` nor `keep`, a time that does
// not parse, a negative keep.
Result<PruneResult> pruneImages(const Database &db, const Spec &spec, const PruneOptions &options);

} // namespace rw
