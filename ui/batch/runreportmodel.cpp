#include "ui/batch/runreportmodel.h"

#include "ui/common/style.h"

#include <QBrush>

namespace rw {

namespace {

template <typename N>
ModelColumn<RunReportRow> countColumn(QString title, N PartitionResult::*member,
                                      QString toolTip = {}) {
    return {std::move(title), kAlignNumber,
            [member](const RunReportRow &r) { return fmt::number(qint64(r.counts.*member)); },
            [member](const RunReportRow &r) { return qint64(r.counts.*member); },
            std::move(toolTip)};
}

} // namespace

RunReportModel::RunReportModel(QObject *parent)
    : SnapshotTableModel(
          {
              {tr("Outcome"), kAlignText, [](const RunReportRow &r) { return enumName(r.outcome); },
               [](const RunReportRow &r) { return int(r.outcome); }},
              {tr("Partition"), kAlignText,
               [](const RunReportRow &r) { return partitionText(r.counts.partition); },
               [](const RunReportRow &r) {
                   return r.counts.partition ? QVariant(*r.counts.partition) : QVariant();
               }},
              {tr("Published"), kAlignText,
               [](const RunReportRow &r) { return r.counts.published ? tr("yes") : tr("no"); },
               [](const RunReportRow &r) { return r.counts.published; }},
              countColumn(tr("Source"), &PartitionResult::sourceRows),
              countColumn(tr("Staged"), &PartitionResult::stagedRows),
              countColumn(tr("Dupes"), &PartitionResult::duplicatesDropped,
                          tr("Duplicates dropped: source rows that a later row with the same key "
                             "replaced")),
              countColumn(tr("Inserted"), &PartitionResult::inserted),
              countColumn(tr("Updated"), &PartitionResult::updated),
              countColumn(tr("Deleted"), &PartitionResult::deleted),
              countColumn(tr("Unchanged"), &PartitionResult::unchanged),
              {tr("Gates"), kAlignNumber,
               [](const RunReportRow &r) {
                   return r.failedGates ? tr("%1 failed").arg(r.failedGates) : tr("pass");
               },
               [](const RunReportRow &r) { return r.failedGates; }},
          },
          parent) {}

QVariant RunReportModel::cellData(const RunReportRow &r, int column, int role) const {
    const bool failed = r.outcome == PartitionOutcome::Failed;
    switch (role) {
    case OutcomeRole:
        return int(r.outcome);
    case Qt::ForegroundRole:
        if (column == OutcomeColumn || column == GatesColumn) {
            switch (r.outcome) {
            case PartitionOutcome::Failed:
                return QBrush(style::qcolor(style::Colour::Error));
            case PartitionOutcome::Changed:
                return QBrush(style::qcolor(style::Colour::Accent));
            case PartitionOutcome::NotPublished:
                return QBrush(style::qcolor(style::Colour::Warning));
            case PartitionOutcome::Unchanged:
                return QBrush(style::qcolor(style::Colour::Faint));
            }
        }
        if (column == DeletedColumn && r.counts.deleted > 0)
            return QBrush(style::qcolor(style::Colour::Error));
        if (column >= SourceColumn && column <= UnchangedColumn &&
            value(r, column).toLongLong() == 0)
            return QBrush(style::qcolor(style::Colour::Faint));
        return {};
    case Qt::BackgroundRole:
        return failed ? QBrush(style::qcolor(style::Colour::ErrorTint)) : QVariant();
    case Qt::FontRole:
        return boldIf(column == OutcomeColumn && r.outcome != PartitionOutcome::Unchanged);
    default:
        return {};
    }
}

} // namespace rw
