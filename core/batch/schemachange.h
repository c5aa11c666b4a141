#pragma once

#include "core/sql/database.h"
#include "core/workspace/spec.h"

#include <QDateTime>
#include <QJsonObject>
#include <QString>
#include <nlohmann/json.hpp>
#include <vector>

namespace rw {

// A column a schema change adds or drops, and its type: for an added one,
// the type the engine gives that column of the transform's output in a new
// table (as a first run creates the whole target); for a dropped one, its
// type in the target (what a rollback adds it back with).
struct SchemaColumn {
    QString column;
    QString type;
    bool operator==(const SchemaColumn &) const = default;
};

// A column whose type a schema change widens (PostgreSQL: integer to
// bigint, numeric(p,s) to a wider one, varchar(n) to text): every value of
// `from` is a value of `to`.
struct WidenedColumn {
    QString column;
    QString from; // the target's type
    QString to;   // the transform's
    bool operator==(const WidenedColumn &) const = default;
};

// What a run changes in the target's schema before its rows: resolved with
// the dataset's catalog (DatasetCatalog::schemaChange), shown by the preview,
// locked into its plan, applied in the first publish's transaction.
struct SchemaChange {
    QString target; // the table it changes
    std::vector<SchemaColumn> added;
    // Columns the target has and the transform no longer yields
    // (sync_all_columns): every row changes, so only a run over every
    // partition drops them; its before-images keep the whole table first.
    std::vector<SchemaColumn> dropped;
    std::vector<WidenedColumn> widened; // sync_all_columns

    bool empty() const { return added.empty() && dropped.empty() && widened.empty(); }
    // Equal when they change the same columns the same way (an empty change
    // of one table equals an empty change of another).
    bool operator==(const SchemaChange &other) const {
        return empty() ? other.empty()
                       : target == other.target && added == other.added &&
                             dropped == other.dropped && widened == other.widened;
    }
    bool isAdded(const QString &column) const;
    const WidenedColumn *widening(const QString &column) const;
    // For people: "adds column customer_region (TEXT) to fact_sales", "drops
    // column note from fact_sales", "widens column qty of fact_sales from
    // integer to bigint", joined by commas; empty when there is no change.
    QString describe() const;
    // {"policy", "target", "add": [{"column", "type"}], "drop": [{"column",
    // "type"}], "widen": [{"column", "from", "to"}]}: the preview's, the
    // plan's and the run's schema_change (CONTRACT.md).
    nlohmann::ordered_json toJson(SchemaChangePolicy policy) const;
    // The part of toJson() a plan stores, read back.
    static SchemaChange fromJson(const QJsonObject &object);
};

// The one owner of rewind_schema_changes: the schema changes runs applied to
// a dataset's target. Partitions published before one (or never by Rewind)
// hold NULL in its columns: `partitions` names them, `run --schema-behind`
// backfills them.
namespace schemachanges {

// Run `runId` applied `change` at `appliedAt` (ISO-8601): inside the
// publish's write transaction that applied it.
Status recordApplied(const Database &db, const QString &dataset, const QVariant &runId,
                     const SchemaChange &change, SchemaChangePolicy policy,
                     const QString &appliedAt);

struct Applied {
    qint64 runId = 0;
    QDateTime appliedAt;
    SchemaChange change;
};
// The changes applied to the table `target` (by any dataset that publishes
// to it), oldest first. Reads only.
Result<std::vector<Applied>> applied(const Database &db, const QString &target);
// Run `runId`'s change is undone (its rollback dropped the columns): inside
// that rollback's write transaction.
Status forgetApplied(const Database &db, qint64 runId);

} // namespace schemachanges

} // namespace rw
