#include "ui/batch/checksmodel.h"

#include "ui/common/style.h"
#include "core/batch/partitions.h"

#include <QBrush>

#include <algorithm>
#include <QColor>
#include <QFont>

namespace rw {

ChecksModel::ChecksModel(QObject *parent)
    : SnapshotTableModel({
        {tr("Result")},
        {tr("Gate")},
        {tr("Partition")},
        {tr("Detail")},
    }, parent)
{
}

void ChecksModel::resetData(std::vector<CheckResult> checks)
{
    beginResetModel();
    m_rows = std::move(checks);
    // Failures first, then in the order core ran them.
    std::stable_sort(m_rows.begin(), m_rows.end(), [](const CheckResult &a, const CheckResult &b) { return !a.passed && b.passed; });
    endResetModel();
}

int ChecksModel::failedCount() const
{
    return int(std::count_if(m_rows.begin(), m_rows.end(), [](const CheckResult &c) { return !c.passed; }));
}

QVariant ChecksModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const CheckResult &c = m_rows[std::size_t(index.row())];
    switch (role) {
    case Qt::DisplayRole:
        switch (index.column()) {
        case ResultColumn: return c.passed ? tr("\u2714 pass") : tr("\u2718 FAIL");
        case NameColumn: return c.name;
        case PartitionColumn: return partitionLabel(c.partition);
        case DetailColumn:
            return c.quarantined > 0 ? tr("%1 (%2 rows quarantined)").arg(c.detail).arg(c.quarantined) : c.detail;
        default: return {};
        }
    case SortRole:
        if (index.column() == ResultColumn)
            return c.passed ? 1 : 0;
        return data(index, Qt::DisplayRole);
    case PassedRole: return c.passed;
    case Qt::ToolTipRole: return c.detail;
    case Qt::ForegroundRole:
        if (index.column() == ResultColumn)
            return QBrush(c.passed ? style::qcolor(style::Colour::Ok) : style::qcolor(style::Colour::Error));
        return {};
    case Qt::BackgroundRole:
        if (!c.passed)
            return QBrush(style::qcolor(style::Colour::ErrorTint));
        return {};
    case Qt::FontRole:
        if (index.column() == ResultColumn || !c.passed) {
            QFont f;
            f.setBold(index.column() == ResultColumn);
            return f;
        }
        return {};
    default: return {};
    }
}

} // namespace rw
