#pragma once

#include <QSortFilterProxyModel>

namespace rw {

// Filters AuditModel by dataset (or stream) and action, sorts by raw values.
class AuditProxyModel : public QSortFilterProxyModel {
    Q_OBJECT
public:
    explicit AuditProxyModel(QObject *parent = nullptr);

    // Exact dataset or stream name; empty shows all.
    void setSubjectFilter(const QString &subject);
    // Exact action; empty shows all.
    void setActionFilter(const QString &action);
    QString subjectFilter() const { return m_subject; }
    QString actionFilter() const { return m_action; }

protected:
    bool filterAcceptsRow(int sourceRow, const QModelIndex &sourceParent) const override;

private:
    QString m_subject;
    QString m_action;
};

} // namespace rw
