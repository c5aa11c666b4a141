#pragma once

// Small dbt manifests for tests/tst_dbtmanifest.cpp, out of the file moc
// reads for its class: moc misreads a raw string literal inside
// QStringLiteral, and a "//" inside one (the schema URLs are spelled apart).
#include <QByteArray>
#include <QString>
#include <QStringList>
#include <nlohmann/json.hpp>
#include <string_view>

namespace dbtdata {

// A manifest as dbt writes one: the fields dbt's schema requires that a
// test does not set, filled with plain values (each node's database,
// schema, package, paths, fqn, alias, checksum; each source's; the
// top-level maps). Left as it is where it is not JSON (bad-input tests).
inline QByteArray complete(const QByteArray &minimal) {
    using Json = nlohmann::ordered_json;
    Json j = Json::parse(minimal.toStdString(), nullptr, false);
    if (j.is_discarded() || !j.is_object())
        return minimal;
    const bool v10 =
        j.contains("metadata") && j["metadata"].is_object() &&
        j["metadata"].value("dbt_schema_version", std::string()).ends_with("/v10.json");
    for (const char *key : {"nodes", "sources", "macros", "docs", "exposures", "metrics", "groups",
                            "selectors", "disabled", "parent_map", "child_map", "group_map",
                            "saved_queries", "semantic_models", "unit_tests"})
        if (!j.contains(key) &&
            !(v10 && (std::string_view(key) == "saved_queries" ||
                      std::string_view(key) == "unit_tests"))) // dbt 1.7 had neither
            j[key] = Json::object();
    const auto fill = [](Json &n, const char *key, const Json &value) {
        if (!n.contains(key))
            n[key] = value;
    };
    for (auto &[id, n] : j["nodes"].items()) {
        if (!n.is_object())
            continue;
        const QStringList parts = QString::fromStdString(id).split(u'.');
        const std::string type = parts.value(0).toStdString();
        const std::string package = parts.value(1).toStdString();
        const std::string name = n.contains("name") && n["name"].is_string()
                                     ? n["name"].get<std::string>()
                                     : parts.value(2).toStdString();
        fill(n, "database", "w");
        fill(n, "schema", "analytics");
        fill(n, "name", name);
        fill(n, "resource_type", type);
        fill(n, "package_name", package);
        fill(n, "path", name + ".sql");
        fill(n, "original_file_path",
             (type == "snapshot" ? std::string("snapshots/") : std::string("models/")) + name +
                 ".sql");
        fill(n, "fqn", Json::array({package, name}));
        fill(n, "alias", name);
        fill(n, "checksum", {{"name", "sha256"}, {"checksum", "0"}});
        fill(n, "config", Json::object());
    }
    for (auto &[id, n] : j["sources"].items()) {
        if (!n.is_object())
            continue;
        const QStringList parts = QString::fromStdString(id).split(u'.');
        const std::string name = n.value("name", parts.value(3).toStdString());
        fill(n, "database", "w");
        fill(n, "schema", n.value("source_name", std::string("raw")));
        fill(n, "resource_type", "source");
        fill(n, "path", "models/sources.yml");
        fill(n, "original_file_path", "models/sources.yml");
        fill(n, "fqn", Json::array({parts.value(1).toStdString(), name}));
        fill(n, "source_description", "");
        fill(n, "loader", "");
        fill(n, "identifier", name);
    }
    return QByteArray::fromStdString(j.dump());
}

inline QByteArray manifest(const QString &version, const QString &nodes,
                           const QString &sources = QString()) {
    return complete(QStringLiteral("{\"metadata\": {\"dbt_schema_version\": \"https:/"
                                   "/schemas.getdbt.com/dbt/manifest/%1.json\", \"dbt_version\": "
                                   "\"1.8.7\", \"adapter_type\": \"postgres\", \"project_name\": "
                                   "\"shop\"}, \"nodes\": {%2}, \"sources\": {%3}}")
                        .arg(version, nodes, sources)
                        .toUtf8());
}

inline const QString kOrders = QString::fromUtf8(R"("model.shop.fct_orders": {
    "unique_id": "model.shop.fct_orders", "resource_type": "model", "name": "fct_orders",
    "alias": "fct_orders", "database": "w", "schema": "analytics",
    "relation_name": "\"w\".\"analytics\".\"fct_orders\"",
    "checksum": {"name": "sha256", "checksum": "abc123"},
    "raw_code": "select * from {{ ref('stg_orders') }}",
    "compiled": true, "compiled_code": "select * from \"w\".\"analytics\".\"stg_orders\"",
    "depends_on": {"nodes": ["model.shop.stg_orders"]},
    "config": {"materialized": "incremental", "incremental_strategy": "merge",
               "unique_key": ["order_id", "line"], "on_schema_change": "append_new_columns",
               "partition_by": {"field": "ordered_at", "data_type": "timestamp",
                                "granularity": "HOUR"}}})");

inline const QString kSnapshot = QString::fromUtf8(R"("snapshot.shop.customers_snap": {
    "unique_id": "snapshot.shop.customers_snap", "resource_type": "snapshot",
    "name": "customers_snap", "alias": "customers_snap", "database": "w", "schema": "snapshots",
    "relation_name": "\"w\".\"snapshots\".\"customers_snap\"",
    "checksum": {"name": "sha256", "checksum": "def"}, "raw_code": "select * from x",
    "config": {"materialized": "snapshot", "strategy": "check", "check_cols": "all",
               "unique_key": "customer_id",
               "snapshot_meta_column_names": {"dbt_valid_from": "valid_from",
                                              "dbt_valid_to": null}}})");

inline const QString kTests = QString::fromUtf8(R"("test.shop.not_null_fct_orders_order_id.1": {
    "unique_id": "test.shop.not_null_fct_orders_order_id.1", "resource_type": "test",
    "column_name": "order_id", "attached_node": "model.shop.fct_orders",
    "test_metadata": {"name": "not_null", "kwargs": {"column_name": "order_id"}}},
  "test.shop.accepted_values_fct_orders_status.2": {
    "unique_id": "test.shop.accepted_values_fct_orders_status.2", "resource_type": "test",
    "column_name": "status", "depends_on": {"nodes": ["model.shop.fct_orders"]},
    "test_metadata": {"name": "accepted_values",
                      "kwargs": {"column_name": "status", "values": ["placed", "shipped"]}}},
  "test.shop.assert_positive": {
    "unique_id": "test.shop.assert_positive", "resource_type": "test",
    "depends_on": {"nodes": ["model.shop.fct_orders"]}})");

inline const QByteArray kNoVersion = R"({"metadata": {}, "nodes": {}})";
inline const QByteArray kRunResults = "{\"metadata\": {\"dbt_schema_version\": \"https:/"
                                      "/schemas.getdbt.com/dbt/run-results/v6.json\"}, "
                                      "\"results\": []}";
inline const QString kKeyObject = QString::fromUtf8(R"("model.a.b": {"unique_id": "model.a.b",
    "resource_type": "model", "config": {"unique_key": {"x": 1}}})");
inline const QString kNoUniqueId = QString::fromUtf8(R"("model.a.b": {"resource_type": "model"})");

// A small project: an incremental merge partitioned by a date, a table, a
// view, a seed, an append model, a model keyed by an expression, and tests.
inline const QString kShop = QString::fromUtf8(R"json("model.shop.fct_sales": {
    "unique_id": "model.shop.fct_sales", "resource_type": "model", "name": "fct_sales",
    "alias": "fct_sales", "database": "w", "schema": "analytics",
    "relation_name": "\"w\".\"analytics\".\"fct_sales\"",
    "checksum": {"name": "sha256", "checksum": "s1"}, "raw_code": "select 1",
    "compiled": true, "compiled_code": "select * from raw.sales",
    "config": {"materialized": "incremental", "incremental_strategy": "delete+insert",
               "unique_key": "order_id", "partition_by": {"field": "dt", "data_type": "date"}}},
  "model.shop.dim_customers": {
    "unique_id": "model.shop.dim_customers", "resource_type": "model", "name": "dim_customers",
    "alias": "dim_customers", "database": "w", "schema": "analytics",
    "relation_name": "\"w\".\"analytics\".\"dim_customers\"",
    "checksum": {"name": "sha256", "checksum": "c1"},
    "raw_code": "select id, name from raw.customers",
    "config": {"materialized": "table"}},
  "model.shop.v_orders": {"unique_id": "model.shop.v_orders", "resource_type": "model",
    "name": "v_orders", "relation_name": "\"w\".\"analytics\".\"v_orders\"",
    "config": {"materialized": "view"}},
  "seed.shop.countries": {"unique_id": "seed.shop.countries", "resource_type": "seed",
    "name": "countries", "config": {"materialized": "seed"}},
  "model.shop.events": {"unique_id": "model.shop.events", "resource_type": "model",
    "name": "events", "relation_name": "\"w\".\"analytics\".\"events\"",
    "config": {"materialized": "incremental"}},
  "model.shop.fct_events": {"unique_id": "model.shop.fct_events", "resource_type": "model",
    "name": "fct_events", "relation_name": "\"w\".\"analytics\".\"fct_events\"",
    "compiled": true, "compiled_code": "select * from raw.events",
    "config": {"materialized": "incremental", "incremental_strategy": "microbatch",
               "event_time": "occurred_at", "batch_size": "hour", "begin": "2025-01-01"}},
  "model.shop.fct_daily": {"unique_id": "model.shop.fct_daily", "resource_type": "model",
    "name": "fct_daily", "relation_name": "\"w\".\"analytics\".\"fct_daily\"",
    "compiled": true, "compiled_code": "select * from raw.events",
    "config": {"materialized": "incremental", "incremental_strategy": "insert_overwrite",
               "partition_by": {"field": "created_at", "data_type": "timestamp"}}},
  "model.shop.fct_yearly": {"unique_id": "model.shop.fct_yearly", "resource_type": "model",
    "name": "fct_yearly", "relation_name": "\"w\".\"analytics\".\"fct_yearly\"",
    "compiled": true, "compiled_code": "select * from raw.events",
    "config": {"materialized": "incremental", "incremental_strategy": "insert_overwrite",
               "partition_by": {"field": "created_at", "data_type": "timestamp",
                                "granularity": "year"}}},
  "model.shop.by_expr": {"unique_id": "model.shop.by_expr", "resource_type": "model",
    "name": "by_expr", "relation_name": "\"w\".\"analytics\".\"by_expr\"",
    "config": {"materialized": "incremental", "unique_key": "id || '-' || dt"}},
  "test.shop.unique_fct_sales_order_id": {"unique_id": "test.shop.unique_fct_sales_order_id",
    "resource_type": "test", "column_name": "order_id", "attached_node": "model.shop.fct_sales",
    "test_metadata": {"name": "unique", "kwargs": {"column_name": "order_id"}}},
  "test.shop.accepted_values_fct_sales_status": {
    "unique_id": "test.shop.accepted_values_fct_sales_status", "resource_type": "test",
    "column_name": "status", "attached_node": "model.shop.fct_sales",
    "test_metadata": {"name": "accepted_values",
                      "kwargs": {"column_name": "status", "values": ["placed", "it's"]}}},
  "test.shop.relationships_fct_sales_customer_id": {
    "unique_id": "test.shop.relationships_fct_sales_customer_id", "resource_type": "test",
    "column_name": "customer_id", "attached_node": "model.shop.fct_sales",
    "test_metadata": {"name": "relationships",
                      "kwargs": {"to": "ref('dim_customers')", "field": "id"
}
}
},
  "test.shop.expression_is_true_fct_sales": {
    "unique_id": "test.shop.expression_is_true_fct_sales", "resource_type": "test",
    "column_name": "amount", "attached_node": "model.shop.fct_sales",
    "test_metadata": {"name": "expression_is_true", "namespace": "dbt_utils",
                      "kwargs": {"expression": "amount >= 0"}}})json");

// One incremental model over raw_sales, its relation %1, with a not_null,
// an accepted_values and a relationships test; the customers table model it
// refers to, relation %2; a microbatch model over raw_events by the day of
// occurred_at, relation %3; and a view.
inline const char *const kImport = R"json("model.shop.fct_sales": {
    "unique_id": "model.shop.fct_sales", "resource_type": "model", "name": "fct_sales",
    "alias": "fct_sales", "relation_name": "%1",
    "checksum": {"name": "sha256", "checksum": "s1"}, "raw_code": "select 1", "compiled": true,
    "compiled_code": "select order_id, dt, status, customer_id, amount, updated_at from raw_sales",
    "config": {"materialized": "incremental", "incremental_strategy": "delete+insert",
               "unique_key": ["dt", "order_id"],
               "partition_by": {"field": "dt", "data_type": "date"}}},
  "model.shop.dim_customers": {
    "unique_id": "model.shop.dim_customers", "resource_type": "model", "name": "dim_customers",
    "alias": "dim_customers", "relation_name": "%2", "compiled": true,
    "compiled_code": "select id, name from raw_customers", "config": {"materialized": "table"}},
  "model.shop.fct_events": {
    "unique_id": "model.shop.fct_events", "resource_type": "model", "name": "fct_events",
    "alias": "fct_events", "relation_name": "%3", "compiled": true,
    "compiled_code": "select event_id, occurred_at, kind from raw_events",
    "config": {"materialized": "incremental", "incremental_strategy": "microbatch",
               "event_time": "occurred_at", "batch_size": "day", "begin": "2025-01-01"}},
  "model.shop.v_orders": {"unique_id": "model.shop.v_orders", "resource_type": "model",
    "name": "v_orders", "relation_name": "v_orders", "config": {"materialized": "view"}},
  "test.shop.relationships_fct_sales_customer_id": {
    "unique_id": "test.shop.relationships_fct_sales_customer_id", "resource_type": "test",
    "column_name": "customer_id", "attached_node": "model.shop.fct_sales",
    "test_metadata": {"name": "relationships",
                      "kwargs": {"to": "ref('dim_customers')", "field": "id"}}},
  "test.shop.unique_combination_fct_sales": {
    "unique_id": "test.shop.unique_combination_fct_sales", "resource_type": "test",
    "attached_node": "model.shop.fct_sales",
    "test_metadata": {"name": "unique_combination_of_columns", "namespace": "dbt_utils",
                      "kwargs": {"combination_of_columns": ["order_id", "dt"]}}},
  "test.shop.not_null_fct_sales_order_id": {
    "unique_id": "test.shop.not_null_fct_sales_order_id", "resource_type": "test",
    "column_name": "order_id", "attached_node": "model.shop.fct_sales",
    "test_metadata": {"name": "not_null", "kwargs": {"column_name": "order_id"}}},
  "test.shop.accepted_values_fct_sales_status": {
    "unique_id": "test.shop.accepted_values_fct_sales_status", "resource_type": "test",
    "column_name": "status", "attached_node": "model.shop.fct_sales",
    "test_metadata": {"name": "accepted_values",
                      "kwargs": {"column_name": "status", "values": ["placed", "shipped"]}}})json";

// Snapshots: a timestamp one over raw_customers, its relation %1, with a
// not_null test on its key and one on dbt_valid_from (which Rewind writes);
// a check one with updated_at; a check one without (left out); one that
// invalidates hard deletes (left out).
inline const char *const kSnapshots = R"json("snapshot.shop.customers_snapshot": {
    "unique_id": "snapshot.shop.customers_snapshot", "resource_type": "snapshot",
    "name": "customers_snapshot", "alias": "customers_snapshot", "relation_name": "%1",
    "checksum": {"name": "sha256", "checksum": "cs1"},
    "raw_code": "select * from {{ source('raw', 'customers') }}", "compiled": true,
    "compiled_code": "select id, name, tier, updated_at from raw_customers",
    "config": {"materialized": "snapshot", "strategy": "timestamp", "unique_key": "id",
               "updated_at": "updated_at"}},
  "snapshot.shop.tiers_check": {
    "unique_id": "snapshot.shop.tiers_check", "resource_type": "snapshot",
    "name": "tiers_check", "alias": "tiers_check", "relation_name": "tiers_check",
    "checksum": {"name": "sha256", "checksum": "tc1"}, "raw_code": "select 1", "compiled": true,
    "compiled_code": "select id, tier, updated_at from raw_customers",
    "config": {"materialized": "snapshot", "strategy": "check", "check_cols": ["tier"],
               "unique_key": "id", "updated_at": "updated_at",
               "snapshot_meta_column_names": {"dbt_valid_from": "valid_from",
                                              "dbt_valid_to": "valid_to"}}},
  "snapshot.shop.no_date": {
    "unique_id": "snapshot.shop.no_date", "resource_type": "snapshot", "name": "no_date",
    "relation_name": "no_date", "compiled": true, "compiled_code": "select 1",
    "config": {"materialized": "snapshot", "strategy": "check", "check_cols": "all",
               "unique_key": "id"}},
  "snapshot.shop.deletes": {
    "unique_id": "snapshot.shop.deletes", "resource_type": "snapshot", "name": "deletes",
    "relation_name": "deletes", "compiled": true, "compiled_code": "select 1",
    "config": {"materialized": "snapshot", "strategy": "timestamp", "unique_key": "id",
               "updated_at": "updated_at", "invalidate_hard_deletes": true}},
  "snapshot.shop.records": {
    "unique_id": "snapshot.shop.records", "resource_type": "snapshot", "name": "records",
    "relation_name": "records", "compiled": true, "compiled_code": "select 1",
    "config": {"materialized": "snapshot", "strategy": "check", "check_cols": "all",
               "unique_key": "id", "hard_deletes": "new_record"}},
  "test.shop.not_null_customers_snapshot_id": {
    "unique_id": "test.shop.not_null_customers_snapshot_id", "resource_type": "test",
    "column_name": "id", "attached_node": "snapshot.shop.customers_snapshot",
    "test_metadata": {"name": "not_null", "kwargs": {"column_name": "id"}}},
  "test.shop.not_null_customers_snapshot_dbt_valid_from": {
    "unique_id": "test.shop.not_null_customers_snapshot_dbt_valid_from", "resource_type": "test",
    "column_name": "dbt_valid_from", "attached_node": "snapshot.shop.customers_snapshot",
    "test_metadata": {"name": "not_null", "kwargs": {"column_name": "dbt_valid_from"}}})json";

// Models with raw_code only (no compiled_code): one in the common Jinja
// subset (config, ref, source, is_incremental), one using a package's macro;
// and the source they read, in "sources" (kRawSources).
inline const char *const kRawCode = R"json("model.shop.stg_orders": {
    "unique_id": "model.shop.stg_orders", "resource_type": "model", "name": "stg_orders",
    "relation_name": "\"w\".\"staging\".\"stg_orders\"", "config": {"materialized": "view"}},
  "model.shop.daily": {"unique_id": "model.shop.daily", "resource_type": "model",
    "name": "daily", "relation_name": "\"w\".\"analytics\".\"daily\"", "compiled": false,
    "raw_code": "{{ config(materialized='incremental', unique_key='id') }}\nselect o.id, o.dt, c.tier from {{ ref('stg_orders') }} o join {{ source('raw', 'customers') }} c on c.id = o.customer_id\n{% if is_incremental() %}where o.dt > (select max(dt) from {{ this }}){% endif %}",
    "config": {"materialized": "incremental", "incremental_strategy": "merge",
               "unique_key": "id"}},
  "model.shop.incr": {"unique_id": "model.shop.incr", "resource_type": "model",
    "name": "incr", "relation_name": "\"w\".\"analytics\".\"incr\"", "compiled": true,
    "compiled_code": "select id from \"w\".\"staging\".\"stg_orders\" where id > (select max(id) from \"w\".\"analytics\".\"incr\")",
    "raw_code": "select id from {{ ref('stg_orders') }}{% if is_incremental() %} where id > (select max(id) from {{ this }}){% endif %}",
    "config": {"materialized": "incremental", "incremental_strategy": "merge", "unique_key": "id"}},
  "model.shop.starred": {"unique_id": "model.shop.starred", "resource_type": "model",
    "name": "starred", "relation_name": "\"w\".\"analytics\".\"starred\"",
    "raw_code": "select {{ dbt_utils.star(ref('stg_orders')) }} from {{ ref('stg_orders') }}",
    "config": {"materialized": "table"}})json";
inline const char *const kRawSources = R"json("source.shop.raw.customers": {
    "unique_id": "source.shop.raw.customers", "source_name": "raw", "name": "customers",
    "relation_name": "\"w\".\"raw\".\"customers\"", "package_name": "shop"})json";

// The drift test's project at checksum %1 with compiled code %2: an
// incremental model over raw_sales and, with %3 = 1, a second one.
inline QByteArray driftManifest(const QString &checksum, const QString &code, bool second) {
    QString nodes = QString::fromUtf8(R"json("model.shop.fct_sales": {
    "unique_id": "model.shop.fct_sales", "resource_type": "model", "name": "fct_sales",
    "alias": "fct_sales", "relation_name": "fct_sales",
    "checksum": {"name": "sha256", "checksum": "%1"}, "compiled": true, "compiled_code": "%2",
    "config": {"materialized": "incremental", "incremental_strategy": "merge",
               "unique_key": "order_id"}})json")
                        .arg(checksum, code);
    if (second)
        nodes += QString::fromUtf8(R"json(, "model.shop.fct_big": {
    "unique_id": "model.shop.fct_big", "resource_type": "model", "name": "fct_big",
    "alias": "fct_big", "relation_name": "fct_big",
    "checksum": {"name": "sha256", "checksum": "b1"}, "compiled": true,
    "compiled_code": "select order_id, amount from raw_sales where amount > 5",
    "config": {"materialized": "table"}})json");
    return manifest(QStringLiteral("v12"), nodes);
}

} // namespace dbtdata
