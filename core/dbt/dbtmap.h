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

// What `init --update` did to an existing spec's datasets.
struct SpecUpdate {
    QStringList kept;     // written by hand (no "dbt" origin): as they were
    QStringList replaced; // from dbt, imported again from the manifest
    QStringList added;    // nodes the spec did not have
    std::vector<std::pair<QString, QString>> removed; // dbt datasets, why they went
    std::vector<std::pair<QString, QString>> skipped; // nodes not added (a name taken by hand)
};

// `existing` with its dbt datasets (those with a "dbt" origin) imported
// again from `nodes`, by unique_id: replaced where the node still maps,
// removed where it is gone or no longer maps; nodes it lacked added;
// datasets written by hand, streams and every other field kept as they are.
nlohmann::ordered_json updateSpec(const nlohmann::ordered_json &existing,
                                  const std::vector<MappedNode> &nodes, SpecUpdate &report);

} // namespace rw::dbt
