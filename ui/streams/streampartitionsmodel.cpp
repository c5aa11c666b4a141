#include "ui/streams/streampartitionsmodel.h"

#include <QBrush>

namespace rw {

namespace {

bool isNumeric(int column)
{
    return column == StreamPartitionsModel::PartitionColumn || column == StreamPartitionsModel::LogStartColumn
           || column == StreamPartitionsModel::LogEndColumn || column == StreamPartitionsModel::EventsColumn;
}

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

StreamPartitionsModel::StreamPartitionsModel(QObject *parent) : QAbstractTableModel(parent)
{
    m_locale.setNumberOptions(m_locale.numberOptions() & ~QLocale::OmitGroupSeparator);
}

void StreamPartitionsModel::resetData(std::vector<StreamPartitionInfo> snapshot)
{
    beginResetModel();
    m_rows = std::move(snapshot);
    endResetModel();
}

int StreamPartitionsModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_rows.size());
}

int StreamPartitionsModel::columnCount(const QModelIndex &parent) const { return parent.isValid() ? 0 : ColumnCount; }

QVariant StreamPartitionsModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal)
        return {};
    if (role == Qt::TextAlignmentRole)
        return QVariant::fromValue(Qt::Alignment((isNumeric(section) ? Qt::AlignRight : Qt::AlignLeft) | Qt::AlignVCenter));
    if (role != Qt::DisplayRole)
        return {};
    switch (section) {
    case PartitionColumn: return tr("Partition");
    case LogStartColumn: return tr("Log start");
    case LogEndColumn: return tr("Log end");
    case EventsColumn: return tr("Events");
    case FirstRecordColumn: return tr("First record");
    case LastRecordColumn: return tr("Last record");
    default: return {};
    }
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
        return QVariant::fromValue(Qt::Alignment((isNumeric(column) ? Qt::AlignRight : Qt::AlignLeft) | Qt::AlignVCenter));
    case Qt::ForegroundRole:
        if (column == EventsColumn && gaps)
            return QBrush(QColor(0xb3, 0x4a, 0x00));
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
