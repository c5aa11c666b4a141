#pragma once

#include "core/dlq/dlq.h"
#include "ui/common/tablemodel.h"

#include <vector>

namespace rw {

// The DLQ's error signatures with their record counts, largest first, after
// an "All signatures" row; from a snapshot (rw::listDlq) taken off the GUI
// thread. The signature role is empty for the "All" row. One column, shown
// as a list.
class DlqGroupsModel : public TableModel {
    Q_OBJECT
public:
    enum Role { SignatureRole = FirstCustomRole, CountRole, ErrorClassRole };

    explicit DlqGroupsModel(QObject *parent = nullptr);

    void resetData(std::vector<DlqGroup> groups, qint64 total);
    const std::vector<DlqGroup> &snapshot() const { return m_groups; }
    qint64 total() const { return m_total; }
    // The row of `signature` (0, the "All" row, for an empty one); -1 when absent.
    int rowOf(const QString &signature) const;

    int rowCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;

private:
    std::vector<DlqGroup> m_groups;
    qint64 m_total = 0;
};

} // namespace rw
