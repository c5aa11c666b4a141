#include "ui/batch/checksmodel.h"

#include <QColor>
#include <QFont>
#include <algorithm>

namespace rw {

ChecksModel::ChecksModel(QObject *parent)
    : SnapshotTableModel(
          {
              {tr("Result"),
               {},
               [](const CheckResult &c) {
                   return c.passed ? tr("\u2714 pass") : tr("\u2718 FAIL");
               },
               [](const CheckResult &c) { return c.passed ? 1 : 0; }},
              {tr("Gate"), {}, [](const CheckResult &c) { return c.name; }},
              {tr("Partition"),
               {},
               [](const CheckResult &c) { return partitionText(c.partition); }},
              {tr("Detail"),
               {},
               [](const CheckResult &c) {
                   return c.quarantined > 0
                              ? tr("%1 (%2 rows quarantined)").arg(c.detail).arg(c.quarantined)
                              : c.detail;
               }},
          },
          parent) {}

void ChecksModel::resetData(std::vector<CheckResult> checks) {
    beginResetModel();
    m_rows = std::move(checks);
    // Failures first, then in the order core ran them.
    std::stable_sort(m_rows.begin(), m_rows.end(), [](const CheckResult &a, const CheckResult &b) {
        return !a.passed && b.passed;
    });
    endResetModel();
}

int ChecksModel::failedCount() const {
    return int(std::count_if(m_rows.begin(), m_rows.end(),
                             [](const CheckResult &c) { return !c.passed; }));
}

QVariant ChecksModel::cellData(const CheckResult &c, int column, int role) const {
    switch (role) {
    case PassedRole:
        return c.passed;
    case Qt::ToolTipRole:
        return c.detail;
    case Qt::ForegroundRole:
    case Qt::BackgroundRole:
        return verdictColours(role, column == ResultColumn, c.passed);
    case Qt::FontRole:
        if (column == ResultColumn || !c.passed) {
            QFont f;
            f.setBold(column == ResultColumn);
            return f;
        }
        return {};
    default:
        return {};
    }
}

} // namespace rw
