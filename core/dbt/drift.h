#pragma once

#include "core/util/error.h"
#include "core/workspace/spec.h"

#include <vector>

namespace rw::dbt {

// How a dataset imported from a dbt model stands against a manifest: its
// model unchanged, changed since the import (another checksum), or gone.
struct ModelDrift {
    enum class State { Current, Changed, Gone };
    QString dataset;
    QString uniqueId;
    QString imported; // the checksum the spec holds
    QString current;  // the manifest's; empty when gone
    State state = State::Current;
};

QString stateName(ModelDrift::State state); // "current", "changed", "gone"

// Each dbt dataset of `spec` against the manifest at `manifestPath`
// (BadInput naming the file when it cannot be read as a manifest).
Result<std::vector<ModelDrift>> modelDrift(const Spec &spec, const QString &manifestPath);

// The manifest a command compares with: `given` (--dbt), else the one the
// spec names (its "dbt_manifest"); empty when neither.
QString manifestFor(const Spec &spec, const QString &given);

} // namespace rw::dbt
