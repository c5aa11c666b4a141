#pragma once

#include "core/sql/audit.h"
#include "ui/common/tablemodel.h"

#include <vector>

namespace rw {

// The audit log, newest first, from a snapshot (rw::listAudit) taken off the
// GUI thread.
class AuditModel : public SnapshotTableModel<AuditRow> {
    Q_OBJECT
public:
    enum Column {
        IdColumn,
        AtColumn,
        UserColumn,
        ActionColumn,
        SubjectColumn,
        RunColumn,
        DetailColumn,
        ColumnCount
    };
    enum Role { ActionRole = FirstCustomRole, DatasetRole };

    explicit AuditModel(QObject *parent = nullptr);

    const AuditRow &row(int r) const { return m_rows[std::size_t(r)]; }

protected:
    QVariant cellData(const AuditRow &row, int column, int role) const override;
};

} // namespace rw
