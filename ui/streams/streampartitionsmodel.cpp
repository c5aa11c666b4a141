#include "ui/streams/streampartitionsmodel.h"

#include "ui/common/style.h"
#include <QBrush>

namespace rw {

namespace {

QString timestampText(const QString &stored)
{
    QString t = stored;
    if (t.size() > 10 && t.at(10) == u'T')
        t[10] = u' ';
    if (t.endsWith(u'Z'))
        t.chop(1);
    return t;
}

} // namespace

StreamPartitionsModel::StreamPartitionsModel(QObject *parent)
    : SnapshotTableModel({
        {tr("Partition"), kAlignNumber},
        {tr("Log start"), kAlignNumber},
        {tr("Log end"), kAlignNumber},
        {tr("Events"), kAlignNumber},
        {tr("First record"), kAlignText},
        {tr("Last record"), kAlignText},
    }, parent)
{
    m_locale.setNumberOptions(m_locale.numberOptions() & ~QLocale::OmitGroupSeparator);
}

QVariant StreamPartitionsModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const StreamPartitionInfo &p = m_rows[std::size_t(index.row())];
    const int column = index.column();
    // Retention or compaction removed offsets inside [log start, log end).
    const bool gaps = p.events < p.logEnd - p.logStart;
    switch (role) {
    case Qt::DisplayRole:
        switch (column) {
        case PartitionColumn: return QString::number(p.partition);
        case LogStartColumn: return m_locale.toString(p.logStart);
        case LogEndColumn: return m_locale.toString(p.logEnd);
        case EventsColumn: return m_locale.toString(p.events);
        case FirstRecordColumn: return timestampText(p.firstRecordTs);
        case LastRecordColumn: return timestampText(p.lastRecordTs);
        default: return {};
        }
    case SortRole:
        switch (column) {
        case PartitionColumn: return p.partition;
        case LogStartColumn: return p.logStart;
        case LogEndColumn: return p.logEnd;
        case EventsColumn: return p.events;
        case FirstRecordColumn: return p.firstRecordTs;
        case LastRecordColumn: return p.lastRecordTs;
        default: return {};
        }
    case Qt::TextAlignmentRole:
        return alignment(column);
    case Qt::ForegroundRole:
        if (column == EventsColumn && gaps)
            return QBrush(style::qcolor(style::Colour::Warning));
        return {};
    case Qt::ToolTipRole:
        if (column == EventsColumn && gaps)
            return tr("%1 offsets in [log start, log end) are missing (retention or compaction)")
                .arg(m_locale.toString(p.logEnd - p.logStart - p.events));
        return {};
    default: return {};
    }
}

} // namespace rw
