#include "core/batch/batchprivileges.h"

#include "core/sql/privileges.h"

#include <QStringBuilder>

namespace rw {

using privileges::Need;

namespace {

// The schema a table named `name` is (or would be) in: its qualifier, else
// the session's current schema (empty).
QString schemaOf(const QString &name) {
    return name.contains(u'.') ? name.section(u'.', 0, 0) : QString();
}

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

Status requireRunPrivileges(const Database &db, const DatasetSpec &d, const QString &operation) {
    std::vector<Need> needs;
    if (auto s = readNeeds(db, d, needs); !s)
        return s;
    auto exists = privileges::tableExists(db, d.target);
    if (!exists)
        return fail(exists.error());
    if (*exists) {
        const QString writes = d.write == WriteMode::Merge ? QStringLiteral("INSERT, UPDATE")
                               : d.write == WriteMode::OverwritePartition
                                   ? QStringLiteral("INSERT, DELETE")
                                   : QStringLiteral("INSERT, UPDATE, DELETE");
        privileges::addTable(needs, d.target, writes, QStringLiteral("the target"));
    } else {
        needs.push_back({Need::On::Schema, schemaOf(d.target), QStringLiteral("CREATE"),
                         QStringLiteral("to create the target ") % d.target});
    }
    // Before-images, for rollback: in the session's current schema.
    const QString images = QStringLiteral("rewind_images_") % d.name;
    auto imagesExist = privileges::tableExists(db, images);
    if (!imagesExist)
        return fail(imagesExist.error());
    if (*imagesExist)
        privileges::addTable(needs, images, QStringLiteral("SELECT, INSERT"),
                             QStringLiteral("the before-images rollback reads"));
    else
        needs.push_back({Need::On::Schema, QString(), QStringLiteral("CREATE"),
                         QStringLiteral("to create the before-images table ") % images});
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
    return privileges::require(db, operation, needs);
}

} // namespace rw
