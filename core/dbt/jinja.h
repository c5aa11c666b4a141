#pragma once

#include <QString>
#include <functional>
#include <optional>

namespace rw::dbt {

// What the rendered names resolve to: the SQL naming a model's or a
// source's table, or nullopt when the manifest has no such node.
struct JinjaNames {
    // ref('name'), ref('package', 'name'), ref('name', v=2): package and
    // version empty when not given.
    std::function<std::optional<QString>(const QString &package, const QString &name,
                                         const QString &version)>
        ref;
    // source('source_name', 'table')
    std::function<std::optional<QString>(const QString &source, const QString &table)> source;
    QString self; // {{ this }}
};

// A model's raw_code with the subset of Jinja most models use rendered, as
// a full-refresh `dbt compile` would: {{ ref(...) }}, {{ source(...) }},
// {{ this }}, {{ config(...) }} (nothing), {{ var('name', default) }} (the
// default), {% if is_incremental() %} (false: its else branch, if any),
// {% if not is_incremental() %}, comments, whitespace control, and a
// snapshot's {% snapshot %} tags. Anything else (another macro, a filter,
// {% set %}, {% for %}, a var with no default) gives nullopt with `why`
// naming the construct.
std::optional<QString> renderJinja(const QString &raw, const JinjaNames &names, QString &why);

} // namespace rw::dbt
