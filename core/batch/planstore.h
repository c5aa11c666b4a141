#pragma once

#include "core/batch/columnchange.h"
#include "core/batch/fingerprint.h"
#include "core/batch/schemachange.h"
#include "core/batch/scope.h"

// Plans: a preview locked for execution, stored in rewind_plans.
namespace rw {

// A preview locked for execution: the dataset, mode, scope and each
// partition's source fingerprint.
struct Plan {
    QString id;
    QString dataset;
    WriteMode mode = WriteMode::Merge;
    std::vector<PartitionRef> scope;
    SourceStatsMap stats;
    // The target's schema change the preview showed: a run of the plan
    // refuses a target whose change is another now (altered since).
    SchemaChange schemaChange;
    // The dbt model's checksum the dataset was imported at (spec "dbt"),
    // empty for a dataset written by hand: a run of the plan refuses a
    // dataset imported again from a changed model since.
    QString dbtChecksum;
    // A stored preview's column summary, over its whole scope (loadPlan:
    // empty for a plan made by a run, or of a write with no summary).
    std::vector<ColumnChange> columns;
    // On a Trino warehouse: the source table's Iceberg snapshot the plan
    // reads (a run reads the source as of it, whatever was written since)
    // and the target's when it was made (a run refuses a target that moved
    // since). Empty elsewhere, and for a transform's source.
    QString sourceSnapshot;
    QString targetSnapshot;
};

// The partitions of `plan` whose source fingerprint differs now (empty: fresh).
Result<QStringList> stalePartitions(const Database &db, const BatchSql &sql, const Plan &plan);

// Stores a plan, made now unless `createdAt` (ISO-8601) says when; call
// inside a write transaction.
Status storePlan(const Database &db, const Plan &plan, const QString &summaryJson,
                 const QString &createdAt = QString());
Result<Plan> loadPlan(const Database &db, const QString &planId);
QString newPlanId();

} // namespace rw
