#include "ui/batch/runsmodel.h"

#include "ui/common/format.h"
#include "ui/common/style.h"

#include <QBrush>
#include <QColor>
#include <QFont>
#include <algorithm>

namespace rw {

namespace {

QColor statusColor(RunStatus status) {
    switch (status) {
    case RunStatus::Succeeded:
        return style::qcolor(style::Colour::Ok);
    case RunStatus::Running:
        return style::qcolor(style::Colour::Accent);
    case RunStatus::Cancelled:
    case RunStatus::Interrupted:
    case RunStatus::StalePlan:
        return style::qcolor(style::Colour::Warning);
    default:
        return style::qcolor(style::Colour::Error); // failed, check_failed
    }
}

int published(const RunSummary &r) {
    return r.published;
}

int failedGates(const RunSummary &r) {
    return r.failedGates;
}

double seconds(const RunSummary &r) {
    return fmt::secondsBetween(r.info.startedAt, r.info.finishedAt);
}

// A column of one of the run's total counts.
ModelColumn<RunSummary> totalColumn(const QString &title, qint64 PartitionResult::*count) {
    return {title, kAlignNumber,
            [count](const RunSummary &r) { return fmt::number(r.totals.*count); },
            [count](const RunSummary &r) { return r.totals.*count; }};
}

} // namespace

RunSummary RunSummary::of(RunInfo info, const RunResult &result) {
    RunSummary s;
    s.info = std::move(info);
    s.totals = result.totals();
    s.partitions = int(result.partitions.size());
    s.published = int(std::count_if(result.partitions.begin(), result.partitions.end(),
                                    [](const PartitionResult &p) { return p.published; }));
    s.failedGates = int(std::count_if(result.checks.begin(), result.checks.end(),
                                      [](const CheckResult &c) { return !c.passed; }));
    return s;
}

RunsModel::RunsModel(QObject *parent)
    : SnapshotTableModel(
          {
              {tr("Run"), kAlignNumber,
               [](const RunSummary &r) { return QStringLiteral("#%1").arg(r.info.runId); },
               [](const RunSummary &r) { return r.info.runId; }},
              {tr("Dataset"), kAlignText, [](const RunSummary &r) { return r.info.dataset; }},
              {tr("Status"), kAlignText,
               [](const RunSummary &r) { return enumName(r.info.status); }},
              {tr("Started (UTC)"), kAlignText,
               [](const RunSummary &r) { return fmt::timestamp(r.info.startedAt); }},
              {tr("Duration"), kAlignText,
               [](const RunSummary &r) {
                   return r.info.finishedAt.isEmpty() ? QStringLiteral("\u2014")
                                                      : fmt::duration(seconds(r));
               },
               seconds},
              {tr("By"), kAlignText, [](const RunSummary &r) { return r.info.osUser; }},
              {tr("Published"), kAlignNumber,
               [](const RunSummary &r) {
                   return QStringLiteral("%1 / %2").arg(r.published).arg(r.partitions);
               },
               published},
              totalColumn(tr("Inserted"), &PartitionResult::inserted),
              totalColumn(tr("Updated"), &PartitionResult::updated),
              totalColumn(tr("Deleted"), &PartitionResult::deleted),
              totalColumn(tr("Unchanged"), &PartitionResult::unchanged),
              {tr("Gates failed"), kAlignNumber, failedGates},
          },
          parent) {}

int RunsModel::rowOf(qint64 runId) const {
    for (std::size_t i = 0; i < m_rows.size(); ++i)
        if (m_rows[i].info.runId == runId)
            return int(i);
    return -1;
}

bool RunsModel::resumable(RunStatus status) {
    return status == RunStatus::Interrupted || status == RunStatus::Cancelled ||
           status == RunStatus::Failed;
}

QVariant RunsModel::cellData(const RunSummary &r, int column, int role) const {
    switch (role) {
    case RunIdRole:
        return r.info.runId;
    case StatusRole:
        return QVariant::fromValue(r.info.status);
    case Qt::ToolTipRole:
        if (column == StatusColumn && !r.info.error.isEmpty())
            return r.info.error;
        return {};
    case Qt::ForegroundRole:
        if (column == StatusColumn)
            return QBrush(statusColor(r.info.status));
        if (column == GatesColumn && failedGates(r) > 0)
            return QBrush(style::qcolor(style::Colour::Error));
        return {};
    case Qt::FontRole:
        return boldIf(column == StatusColumn);
    default:
        return {};
    }
}

} // namespace rw
