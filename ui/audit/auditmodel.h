#pragma once

#include "core/workspace/audit.h"

#include <QAbstractTableModel>

#include <vector>

namespace rw {

// The audit log, newest first, from a snapshot (rw::listAudit) taken off the
// GUI thread.
class AuditModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { IdColumn, AtColumn, UserColumn, ActionColumn, SubjectColumn, RunColumn, DetailColumn, ColumnCount };
    enum Role { SortRole = Qt::UserRole + 1, ActionRole, DatasetRole };

    explicit AuditModel(QObject *parent = nullptr);

    void resetData(std::vector<AuditRow> rows);
    const std::vector<AuditRow> &snapshot() const { return m_rows; }
    const AuditRow &row(int r) const { return m_rows[std::size_t(r)]; }

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    std::vector<AuditRow> m_rows;
};

} // namespace rw
