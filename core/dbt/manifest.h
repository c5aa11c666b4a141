#pragma once

#include "core/util/error.h"

#include <QString>
#include <QStringList>
#include <nlohmann/json.hpp>
#include <optional>
#include <vector>

namespace rw::dbt {

// What Rewind reads of a dbt project's target/manifest.json (schemas v10,
// v11 and v12, https://schemas.getdbt.com/dbt/manifest/vN.json): its models,
// snapshots and seeds with the configuration a dataset is made of, and the
// generic tests attached to them. Everything else in the manifest (macros,
// docs, exposures, metrics, semantic models) is not read.

// A generic test (resource_type "test" with test_metadata) attached to a
// model or snapshot: `unique`, `not_null`, `relationships`,
// `accepted_values`, or another (a package's macro) kept by name.
struct Test {
    QString uniqueId;
    QString name;      // test_metadata.name
    QString nameSpace; // test_metadata.namespace ("dbt_utils"), empty for dbt's own
    QString column;    // column_name, empty for a model-level test
    nlohmann::json kwargs = nlohmann::json::object();
    QString severity; // config.severity: "error" (default) or "warn"
    QString where;    // config.where: a filter on the rows tested
    QString errorIf;  // config.error_if ("!= 0" by default)
};

// A model's partition_by config (BigQuery's shape, which other adapters'
// packages reuse): the field, its data type and its granularity.
struct PartitionBy {
    QString field;
    QString dataType;    // "date", "timestamp", "datetime", "int64"; empty when not given
    QString granularity; // "hour", "day", "month", "year"; empty when not given
};

struct Node {
    QString uniqueId;     // model.project.name
    QString resourceType; // model, snapshot, seed
    QString name;
    QString alias;
    QString database; // may be empty (SQLite, Spark)
    QString schema;
    QString relationName; // "db"."schema"."name" as the adapter quotes it; empty for ephemeral
    QString materialized; // table, view, incremental, ephemeral, snapshot, seed, ...
    QString incrementalStrategy; // merge, delete+insert, insert_overwrite, microbatch, append
    QStringList uniqueKey;       // a string or a list in the manifest
    // merge_update_columns, merge_exclude_columns; incremental_predicates
    QStringList mergeUpdateColumns;
    QStringList mergeExcludeColumns;
    QStringList incrementalPredicates;
    QString checksum; // checksum.checksum
    QString rawCode;
    QString compiledCode; // empty unless the manifest came from dbt compile / run
    bool compiled = false;
    std::optional<PartitionBy> partitionBy;
    QString eventTime; // microbatch
    QString batchSize; // hour, day, month, year
    QString begin;
    QString onSchemaChange;
    // Snapshots.
    QString snapshotStrategy; // timestamp, check
    QString updatedAt;
    QStringList checkCols; // "all" is checkAll
    bool checkAll = false;
    QString validFromColumn = QStringLiteral("dbt_valid_from");
    QString validToColumn = QStringLiteral("dbt_valid_to");
    QString scdIdColumn = QStringLiteral("dbt_scd_id");
    QString updatedAtColumn = QStringLiteral("dbt_updated_at");
    QString hardDeletes;    // ignore (default), invalidate, new_record
    QString validToCurrent; // dbt_valid_to_current: what current versions' valid_to holds
    QString packageName;    // package_name
    QString version;        // a versioned model's version ("2"), empty otherwise
    QString latestVersion;  // the latest version of its name, empty when unversioned
    QStringList dependsOn;  // depends_on.nodes
    std::vector<Test> tests;
};

// A source a model reads: source('source_name', 'name') in its code.
struct Source {
    QString uniqueId; // source.project.source_name.name
    QString sourceName;
    QString name;
    QString relationName; // "db"."schema"."identifier"
    QString packageName;
};

struct Manifest {
    QString schemaVersion; // "v12"
    QString dbtVersion;
    QString adapter; // metadata.adapter_type, empty before it was recorded
    QString projectName;
    std::vector<Node> nodes;     // models, snapshots and seeds, by unique_id
    std::vector<Source> sources; // by unique_id
};

// The schema versions read.
inline const QStringList kSchemaVersions{QStringLiteral("v10"), QStringLiteral("v11"),
                                         QStringLiteral("v12")};

// Reads a manifest. BadInput naming the file and what is wrong: not JSON,
// no metadata.dbt_schema_version, a version other than v10-v12 (named), a
// node that is not an object or has no unique_id, a unique_key that is
// neither a string nor a list of strings (naming the node).
Result<Manifest> parseManifest(const QByteArray &json, const QString &path);
Result<Manifest> loadManifest(const QString &path);

} // namespace rw::dbt
