#include "ui/audit/auditproxymodel.h"

#include "ui/audit/auditmodel.h"

namespace rw {

AuditProxyModel::AuditProxyModel(QObject *parent)
    : QSortFilterProxyModel(parent) {
    setSortRole(AuditModel::SortRole);
    setDynamicSortFilter(true);
}

void AuditProxyModel::setSubjectFilter(const QString &subject) {
    if (subject == m_subject)
        return;
    m_subject = subject;
    invalidateRowsFilter();
}

void AuditProxyModel::setActionFilter(const QString &action) {
    if (action == m_action)
        return;
    m_action = action;
    invalidateRowsFilter();
}

bool AuditProxyModel::filterAcceptsRow(int sourceRow, const QModelIndex &sourceParent) const {
    const QModelIndex index = sourceModel()->index(sourceRow, 0, sourceParent);
    if (!m_subject.isEmpty() && index.data(AuditModel::DatasetRole).toString() != m_subject)
        return false;
    if (!m_action.isEmpty() && index.data(AuditModel::ActionRole).toString() != m_action)
        return false;
    return true;
}

} // namespace rw
