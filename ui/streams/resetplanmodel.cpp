#include "ui/streams/resetplanmodel.h"

#include "core/util/timeutil.h"
#include "ui/common/format.h"
#include "ui/common/style.h"

#include <QBrush>
#include <QFont>
#include <QStringList>
#include <algorithm>
#include <climits>

namespace rw {

namespace {

QString note(const ResetPartition &p) {
    QStringList notes;
    if (p.clamped)
        notes << ResetPlanModel::tr("clamped to the log");
    else if (p.newOffset == p.current)
        notes << ResetPlanModel::tr("unchanged");
    if (!p.stored)
        notes << ResetPlanModel::tr("nothing committed yet");
    if (p.unreadableTimestamps)
        notes << ResetPlanModel::tr("%n event(s) without a readable timestamp skipped", nullptr,
                                    int(std::min<qint64>(p.unreadableTimestamps, INT_MAX)));
    if (!p.foundBy.isEmpty()) { // by time on Kafka: the boundary, and who found it
        const auto at = [](const std::optional<qint64> &ms) {
            return ms ? timeutil::isoUtcMs(*ms) : ResetPlanModel::tr("none");
        };
        notes << ResetPlanModel::tr("record at the new offset %1, the one before %2 (found by %3)")
                     .arg(at(p.newRecordMs), at(p.previousRecordMs),
                          p.foundBy == QLatin1String("broker")
                              ? ResetPlanModel::tr("the broker's time index")
                              : ResetPlanModel::tr("a search of the records"));
    }
    return notes.join(QStringLiteral("; "));
}

} // namespace

ResetPlanModel::ResetPlanModel(QObject *parent)
    : SnapshotTableModel(
          {
              idColumn(tr("Partition"), &ResetPartition::partition),
              numberColumn(tr("Current"), &ResetPartition::current),
              numberColumn(tr("New"), &ResetPartition::newOffset),
              {tr("Events to replay"), kAlignNumber,
               [](const ResetPartition &p) { return fmt::number(toReplay(p)); },
               [](const ResetPartition &p) { return toReplay(p); },
               tr("Offsets from the new position to the log end: what the group reads next")},
              numberColumn(tr("Log start"), &ResetPartition::logStart),
              numberColumn(tr("Log end"), &ResetPartition::logEnd),
              {tr("Note"), kAlignText, note},
          },
          parent) {}

qint64 ResetPlanModel::toReplay(const ResetPartition &p) {
    return std::max<qint64>(0, p.logEnd - std::max(p.newOffset, p.logStart));
}

qint64 ResetPlanModel::totalToReplay() const {
    qint64 total = 0;
    for (const ResetPartition &p : m_rows)
        total += toReplay(p);
    return total;
}

QVariant ResetPlanModel::cellData(const ResetPartition &p, int column, int role) const {
    switch (role) {
    case Qt::FontRole:
        return boldIf(column == NewColumn && p.newOffset != p.current);
    case Qt::ForegroundRole:
        if (column == NewColumn && p.newOffset < p.current)
            return QBrush(style::qcolor(style::Colour::Accent)); // rewound: events read again
        if (column == NewColumn && p.newOffset > p.current)
            return QBrush(
                style::qcolor(style::Colour::Warning)); // skipped ahead: events never read
        if (column == NoteColumn && p.clamped)
            return QBrush(style::qcolor(style::Colour::Warning));
        return {};
    default:
        return {};
    }
}

} // namespace rw
