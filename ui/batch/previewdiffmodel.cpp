#include "ui/batch/previewdiffmodel.h"

#include "core/batch/scope.h"
#include "ui/common/format.h"
#include "ui/common/style.h"

#include <QBrush>
#include <QColor>
#include <QFont>
#include <algorithm>

namespace rw {

PreviewDiffModel::PreviewDiffModel(QObject *parent)
    : SnapshotTableModel(
          {
              partitionColumn(tr("Partition"), &PartitionResult::partition),
              numberColumn(tr("Source"), &PartitionResult::sourceRows),
              numberColumn(tr("Staged"), &PartitionResult::stagedRows),
              numberColumn(tr("Dupes"), &PartitionResult::duplicatesDropped,
                           tr("Duplicates dropped: source rows that a later row with the same key "
                              "replaced")),
              numberColumn(tr("Inserted"), &PartitionResult::inserted),
              numberColumn(tr("Updated"), &PartitionResult::updated),
              numberColumn(tr("Deleted"), &PartitionResult::deleted),
              numberColumn(tr("Unchanged"), &PartitionResult::unchanged),
              {tr("Gates"), kAlignNumber,
               [this](const PartitionResult &p) {
                   const int failed = failedGatesOf(p);
                   return failed ? tr("%1 failed").arg(failed) : tr("pass");
               },
               [this](const PartitionResult &p) { return failedGatesOf(p); }},
              {tr("Publish"),
               {},
               [](const PartitionResult &p) { return p.publish.value_or(QString()); },
               nullptr,
               tr("How an overwrite publishes the partition: \"swap\" replaces its leaf of a "
                  "partitioned PostgreSQL table in one step; \"rows\" deletes and inserts "
                  "(hover a cell for why)")},
          },
          parent) {}

void PreviewDiffModel::resetData(std::vector<PartitionResult> partitions,
                                 std::vector<CheckResult> checks) {
    beginResetModel();
    m_rows = std::move(partitions);
    m_failedOf.clear();
    m_failedEverywhere = 0;
    for (const CheckResult &c : checks) {
        if (c.passed)
            continue;
        if (c.partition)
            ++m_failedOf[partitionKey(c.partition)];
        else
            ++m_failedEverywhere;
    }
    endResetModel();
}

int PreviewDiffModel::failedGates(int row) const {
    if (row < 0 || row >= int(m_rows.size()))
        return 0;
    return failedGatesOf(m_rows[std::size_t(row)]);
}

int PreviewDiffModel::failedGatesOf(const PartitionResult &p) const {
    return m_failedEverywhere + m_failedOf.value(partitionKey(p.partition));
}

QVariant PreviewDiffModel::cellData(const PartitionResult &p, int column, int role) const {
    const qint64 count =
        column == PartitionColumn || column == GatesColumn || column == PublishColumn
            ? 0
            : value(p, column).toLongLong();
    switch (role) {
    case Qt::ToolTipRole:
        if (column == PublishColumn && !p.publishReason.isEmpty())
            return tr("By rows: %1").arg(p.publishReason);
        return {};
    case Qt::ForegroundRole:
        if (column == PublishColumn)
            return p.publish == QLatin1String("swap") ? QBrush(style::qcolor(style::Colour::Ok))
                                                      : QBrush(style::qcolor(style::Colour::Faint));
        if (column == GatesColumn)
            return QBrush(failedGatesOf(p) ? style::qcolor(style::Colour::Error)
                                           : style::qcolor(style::Colour::Ok));
        if (column == DeletedColumn && p.deleted > 0)
            return QBrush(style::qcolor(style::Colour::Error));
        if (column != PartitionColumn && count == 0)
            return QBrush(style::qcolor(style::Colour::Faint));
        return {};
    case Qt::FontRole:
        return boldIf(
            column == GatesColumn ||
            ((column == InsertedColumn || column == UpdatedColumn || column == DeletedColumn) &&
             count > 0));
    default:
        return {};
    }
}

} // namespace rw
