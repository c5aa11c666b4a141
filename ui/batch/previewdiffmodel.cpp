#include "ui/batch/previewdiffmodel.h"

#include "ui/common/style.h"
#include "ui/common/format.h"
#include "core/batch/partitions.h"

#include <QBrush>

#include <algorithm>
#include <QColor>
#include <QFont>

namespace rw {

PreviewDiffModel::PreviewDiffModel(QObject *parent)
    : SnapshotTableModel({
        {tr("Partition"), kAlignText},
        {tr("Source"), kAlignNumber},
        {tr("Staged"), kAlignNumber},
        {tr("Dupes"), kAlignNumber, tr("Duplicates dropped: source rows that a later row with the same key replaced")},
        {tr("Inserted"), kAlignNumber},
        {tr("Updated"), kAlignNumber},
        {tr("Deleted"), kAlignNumber},
        {tr("Unchanged"), kAlignNumber},
        {tr("Gates"), kAlignNumber},
    }, parent)
{
}

void PreviewDiffModel::resetData(std::vector<PartitionResult> partitions, std::vector<CheckResult> checks)
{
    beginResetModel();
    m_rows = std::move(partitions);
    m_checks = std::move(checks);
    endResetModel();
}

int PreviewDiffModel::failedGates(int row) const
{
    if (row < 0 || row >= int(m_rows.size()))
        return 0;
    const auto &partition = m_rows[std::size_t(row)].partition;
    int failed = 0;
    for (const CheckResult &c : m_checks)
        if (!c.passed && (!c.partition || c.partition == partition))
            ++failed;
    return failed;
}

qint64 PreviewDiffModel::value(const PartitionResult &p, int column) const
{
    switch (column) {
    case SourceColumn: return p.sourceRows;
    case StagedColumn: return p.stagedRows;
    case DuplicatesColumn: return p.duplicatesDropped;
    case InsertedColumn: return p.inserted;
    case UpdatedColumn: return p.updated;
    case DeletedColumn: return p.deleted;
    case UnchangedColumn: return p.unchanged;
    default: return 0;
    }
}

QVariant PreviewDiffModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const PartitionResult &p = m_rows[std::size_t(index.row())];
    const int column = index.column();
    const int failed = failedGates(index.row());
    switch (role) {
    case Qt::DisplayRole:
        if (column == PartitionColumn)
            return partitionLabel(p.partition);
        if (column == GatesColumn)
            return failed ? tr("%1 failed").arg(failed) : tr("pass");
        return fmt::number(value(p, column));
    case SortRole:
        if (column == PartitionColumn)
            return p.partition ? QVariant(*p.partition) : QVariant();
        if (column == GatesColumn)
            return failed;
        return value(p, column);
    case Qt::TextAlignmentRole:
        return QVariant::fromValue(Qt::Alignment((column == PartitionColumn ? Qt::AlignLeft : Qt::AlignRight) | Qt::AlignVCenter));
    case Qt::ForegroundRole:
        if (column == GatesColumn)
            return QBrush(failed ? style::qcolor(style::Colour::Error) : style::qcolor(style::Colour::Ok));
        if (column == DeletedColumn && p.deleted > 0)
            return QBrush(style::qcolor(style::Colour::Error));
        if (column != PartitionColumn && value(p, column) == 0)
            return QBrush(style::qcolor(style::Colour::Faint));
        return {};
    case Qt::FontRole:
        return boldIf(column == GatesColumn || ((column == InsertedColumn || column == UpdatedColumn || column == DeletedColumn) && value(p, column) > 0));
    default: return {};
    }
}

} // namespace rw
