#include "ui/batch/runsmodel.h"

#include "ui/common/style.h"
#include "ui/common/format.h"

#include <QBrush>

#include <algorithm>
#include <QColor>
#include <QFont>

namespace rw {

namespace {

QColor statusColor(RunStatus status)
{
    switch (status) {
    case RunStatus::Succeeded: return style::qcolor(style::Colour::Ok);
    case RunStatus::Running: return style::qcolor(style::Colour::Accent);
    case RunStatus::Cancelled:
    case RunStatus::Interrupted:
    case RunStatus::StalePlan: return style::qcolor(style::Colour::Warning);
    default: return style::qcolor(style::Colour::Error); // failed, check_failed
    }
}

} // namespace

RunsModel::RunsModel(QObject *parent)
    : SnapshotTableModel({
        {tr("Run"), kAlignNumber},
        {tr("Dataset"), kAlignText},
        {tr("Status"), kAlignText},
        {tr("Started (UTC)"), kAlignText},
        {tr("Duration"), kAlignText},
        {tr("By"), kAlignText},
        {tr("Published"), kAlignNumber},
        {tr("Inserted"), kAlignNumber},
        {tr("Updated"), kAlignNumber},
        {tr("Deleted"), kAlignNumber},
        {tr("Unchanged"), kAlignNumber},
        {tr("Gates failed"), kAlignNumber},
    }, parent)
{
}

int RunsModel::rowOf(qint64 runId) const
{
    for (std::size_t i = 0; i < m_rows.size(); ++i)
        if (m_rows[i].info.runId == runId)
            return int(i);
    return -1;
}

bool RunsModel::resumable(RunStatus status)
{
    return status == RunStatus::Interrupted || status == RunStatus::Cancelled || status == RunStatus::Failed;
}

QVariant RunsModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const RunSummary &r = m_rows[std::size_t(index.row())];
    const int column = index.column();
    const PartitionResult t = r.result.totals();
    const int published = int(std::count_if(r.result.partitions.begin(), r.result.partitions.end(),
                                            [](const PartitionResult &p) { return p.published; }));
    const int failedGates = int(std::count_if(r.result.checks.begin(), r.result.checks.end(),
                                              [](const CheckResult &c) { return !c.passed; }));
    const double seconds = fmt::secondsBetween(r.info.startedAt, r.info.finishedAt);
    switch (role) {
    case Qt::DisplayRole:
        switch (column) {
        case RunColumn: return QStringLiteral("#%1").arg(r.info.runId);
        case DatasetColumn: return r.info.dataset;
        case StatusColumn: return enumName(r.info.status);
        case StartedColumn: return fmt::timestamp(r.info.startedAt);
        case DurationColumn: return r.info.finishedAt.isEmpty() ? QStringLiteral("\u2014") : fmt::duration(seconds);
        case UserColumn: return r.info.osUser;
        case PartitionsColumn: return QStringLiteral("%1 / %2").arg(published).arg(r.result.partitions.size());
        case InsertedColumn: return fmt::number(t.inserted);
        case UpdatedColumn: return fmt::number(t.updated);
        case DeletedColumn: return fmt::number(t.deleted);
        case UnchangedColumn: return fmt::number(t.unchanged);
        case GatesColumn: return failedGates;
        default: return {};
        }
    case SortRole:
        switch (column) {
        case RunColumn: return r.info.runId;
        case DurationColumn: return seconds;
        case PartitionsColumn: return published;
        case InsertedColumn: return t.inserted;
        case UpdatedColumn: return t.updated;
        case DeletedColumn: return t.deleted;
        case UnchangedColumn: return t.unchanged;
        case GatesColumn: return failedGates;
        default: return data(index, Qt::DisplayRole);
        }
    case RunIdRole: return r.info.runId;
    case StatusRole: return QVariant::fromValue(r.info.status);
    case Qt::ToolTipRole:
        if (column == StatusColumn && !r.info.error.isEmpty())
            return r.info.error;
        return {};
    case Qt::TextAlignmentRole:
        return alignment(column);
    case Qt::ForegroundRole:
        if (column == StatusColumn)
            return QBrush(statusColor(r.info.status));
        if (column == GatesColumn && failedGates > 0)
            return QBrush(style::qcolor(style::Colour::Error));
        return {};
    case Qt::FontRole:
        return boldIf(column == StatusColumn);
    default: return {};
    }
}

} // namespace rw
