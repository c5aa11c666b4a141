#include "core/batch/batchprivileges.h"

#include "core/sql/privileges.h"

#include <QStringBuilder>

namespace rw {

using privileges::Need;

namespace {

Status readNeeds(const Database &db, const DatasetSpec &d, std::vector<Need> &needs) {
    if (!d.source.isEmpty())
        privileges::addTable(needs, d.source, QStringLiteral("SELECT"),
                             QStringLiteral("the source"));
    for (const CheckSpec &c : d.checks)
        if (!c.refTable.isEmpty())
            privileges::addTable(needs, c.refTable, QStringLiteral("SELECT"),
                                 QStringLiteral("read by the gate ") % c.name);
    auto exists = privileges::tableExists(db, d.target);
    if (!exists)
        return fail(exists.error());
    if (*exists)
        privileges::addTable(needs, d.target, QStringLiteral("SELECT"),
                             QStringLiteral("the target"));
    needs.push_back({Need::On::Database, QString(), QStringLiteral("TEMPORARY"),
                     QStringLiteral("the stage and work tables")});
    return {};
}

} // namespace

Status requirePreviewPrivileges(const Database &db, const DatasetSpec &dataset) {
    std::vector<Need> needs;
    if (auto s = readNeeds(db, dataset, needs); !s)
        return s;
    privileges::addControl(needs, {QStringLiteral("rewind_plans"), QStringLiteral("rewind_audit")},
                           QStringLiteral("SELECT, INSERT"));
    return privileges::require(db, QStringLiteral("preview of ") % dataset.name, needs);
}

Status requireRunPrivileges(const Database &db, const DatasetSpec &d, const QString &operation,
                            const QString &alters) {
    std::vector<Need> needs;
    if (auto s = addRunNeeds(db, d, needs, alters); !s)
        return s;
    return privileges::require(db, operation, needs);
}

Status addRunNeeds(const Database &db, const DatasetSpec &d, std::vector<Need> &needs,
                   const QString &alters) {
    if (!alters.isEmpty()) // first: its reason is the one said for the target
        privileges::addTable(needs, d.target, QStringLiteral("OWNER"),
                             QStringLiteral("the target: the run ") % alters);
    if (auto s = readNeeds(db, d, needs); !s)
        return s;
    const QString writes =
        d.write == WriteMode::Merge    ? QStringLiteral("INSERT, UPDATE")
        : d.write == WriteMode::Append ? QStringLiteral("INSERT")
        : d.write == WriteMode::OverwritePartition || d.write == WriteMode::DeleteInsert
            ? QStringLiteral("INSERT, DELETE")
            : QStringLiteral("INSERT, UPDATE, DELETE");
    if (auto s =
            privileges::addTableOrCreate(db, needs, d.target, writes, QStringLiteral("the target"));
        !s)
        return s;
    // Before-images, for rollback: in the session's current schema.
    if (auto s = privileges::addTableOrCreate(db, needs, QStringLiteral("rewind_images_") % d.name,
                                              QStringLiteral("SELECT, INSERT"),
                                              QStringLiteral("the before-images"));
        !s)
        return s;
    privileges::addControl(needs,
                           {QStringLiteral("rewind_runs"), QStringLiteral("rewind_checkpoints"),
                            QStringLiteral("rewind_partition_state")},
                           QStringLiteral("SELECT, INSERT, UPDATE"));
    privileges::addControl(needs,
                           {QStringLiteral("rewind_plans"), QStringLiteral("rewind_audit"),
                            QStringLiteral("rewind_check_results"),
                            QStringLiteral("rewind_schema_changes")},
                           QStringLiteral("SELECT, INSERT"));
    privileges::addControl(needs, {QStringLiteral("rewind_frozen")}, QStringLiteral("SELECT"));
    return {};
}

} // namespace rw
