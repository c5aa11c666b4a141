#pragma once

#include "core/dbt/manifest.h"

#include <nlohmann/json.hpp>

namespace rw::dbt {

// What each model, snapshot and seed of a manifest becomes: a dataset of the
// spec (its JSON), or left out with the reason (docs/dbt.md has the rules).
struct MappedNode {
    QString uniqueId;
    QString resourceType;
    bool mapped = false;
    QString dataset; // the dataset's name (the model's name; the alias where names clash)
    QString write;   // merge, overwrite_partition, scd2
    QStringList key;
    QString partition;   // the partition column, empty for one whole-table partition
    QString granularity; // hour, day or month of the partition column; empty: its values
    int checks = 0;
    // Tests that became no gate: unique_id and why (a package's macro, a
    // warning, a filtered test, ...).
    std::vector<std::pair<QString, QString>> unmappedTests;
    QString reason;              // why it was left out; empty when mapped
    nlohmann::ordered_json spec; // the dataset's JSON, when mapped
};

struct MapOptions {
    // "sqlite" or "postgresql": how a relation name is read (PostgreSQL:
    // schema.name, a database other than `database` refused; SQLite: the
    // alias). Empty: PostgreSQL's form without the database check.
    QString engine;
    QString database; // the connection's database (PostgreSQL)
};

std::vector<MappedNode> mapManifest(const Manifest &manifest, const MapOptions &options);

// The spec of the mapped nodes: {"datasets": {name: dataset JSON}}.
nlohmann::ordered_json specOf(const std::vector<MappedNode> &nodes);

} // namespace rw::dbt
