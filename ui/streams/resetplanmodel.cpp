#include "ui/streams/resetplanmodel.h"

#include "ui/common/style.h"
#include "ui/common/format.h"

#include <QBrush>
#include <QFont>
#include <QStringList>

#include <algorithm>
#include <climits>

namespace rw {

ResetPlanModel::ResetPlanModel(QObject *parent)
    : SnapshotTableModel({
        {tr("Partition"), kAlignNumber},
        {tr("Current"), kAlignNumber},
        {tr("New"), kAlignNumber},
        {tr("Events to replay"), kAlignNumber, tr("Offsets from the new position to the log end: what the group reads next")},
        {tr("Log start"), kAlignNumber},
        {tr("Log end"), kAlignNumber},
        {tr("Note"), kAlignText},
    }, parent)
{
}

qint64 ResetPlanModel::toReplay(const ResetPartition &p) { return std::max<qint64>(0, p.logEnd - std::max(p.newOffset, p.logStart)); }

qint64 ResetPlanModel::totalToReplay() const
{
    qint64 total = 0;
    for (const ResetPartition &p : m_rows)
        total += toReplay(p);
    return total;
}

QVariant ResetPlanModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const ResetPartition &p = m_rows[std::size_t(index.row())];
    const int column = index.column();
    const qint64 values[] = {p.partition, p.current, p.newOffset, toReplay(p), p.logStart, p.logEnd};
    QStringList notes;
    if (p.clamped)
        notes << tr("clamped to the log");
    else if (p.newOffset == p.current)
        notes << tr("unchanged");
    if (!p.stored)
        notes << tr("nothing committed yet");
    if (p.unreadableTimestamps)
        notes << tr("%n event(s) without a readable timestamp skipped", nullptr, int(std::min<qint64>(p.unreadableTimestamps, INT_MAX)));
    const QString note = notes.join(QStringLiteral("; "));
    switch (role) {
    case Qt::DisplayRole:
        if (column == NoteColumn)
            return note;
        if (column == PartitionColumn)
            return QString::number(p.partition);
        return fmt::number(values[column]);
    case SortRole:
        if (column == NoteColumn)
            return note;
        return values[column];
    case Qt::TextAlignmentRole:
        return QVariant::fromValue(Qt::Alignment((column == NoteColumn ? Qt::AlignLeft : Qt::AlignRight) | Qt::AlignVCenter));
    case Qt::FontRole:
        return boldIf(column == NewColumn && p.newOffset != p.current);
    case Qt::ForegroundRole:
        if (column == NewColumn && p.newOffset < p.current)
            return QBrush(style::qcolor(style::Colour::Accent)); // rewound: events read again
        if (column == NewColumn && p.newOffset > p.current)
            return QBrush(style::qcolor(style::Colour::Warning)); // skipped ahead: events never read
        if (column == NoteColumn && p.clamped)
            return QBrush(style::qcolor(style::Colour::Warning));
        return {};
    default: return {};
    }
}

} // namespace rw
