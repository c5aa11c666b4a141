#include "ui/streams/streampartitionsmodel.h"

#include "ui/common/style.h"

#include <QBrush>

namespace rw {

namespace {

QString timestampText(const QString &stored) {
    QString t = stored;
    if (t.size() > 10 && t.at(10) == u'T')
        t[10] = u' ';
    if (t.endsWith(u'Z'))
        t.chop(1);
    return t;
}

} // namespace

StreamPartitionsModel::StreamPartitionsModel(QObject *parent)
    : SnapshotTableModel(
          {
              idColumn(tr("Partition"), &StreamPartitionInfo::partition),
              numberColumn(tr("Log start"), &StreamPartitionInfo::logStart),
              numberColumn(tr("Log end"), &StreamPartitionInfo::logEnd),
              numberColumn(tr("Events"), &StreamPartitionInfo::events),
              {tr("First record"), kAlignText,
               [](const StreamPartitionInfo &p) { return timestampText(p.firstRecordTs); },
               [](const StreamPartitionInfo &p) { return p.firstRecordTs; }},
              {tr("Last record"), kAlignText,
               [](const StreamPartitionInfo &p) { return timestampText(p.lastRecordTs); },
               [](const StreamPartitionInfo &p) { return p.lastRecordTs; }},
          },
          parent) {}

QVariant StreamPartitionsModel::cellData(const StreamPartitionInfo &p, int column, int role) const {
    // Retention or compaction removed offsets inside [log start, log end).
    const bool gaps = column == EventsColumn && p.events < p.logEnd - p.logStart;
    switch (role) {
    case Qt::ForegroundRole:
        if (gaps)
            return QBrush(style::qcolor(style::Colour::Warning));
        return {};
    case Qt::ToolTipRole:
        if (gaps)
            return tr("%1 offsets in [log start, log end) are missing (retention or compaction)")
                .arg(fmt::number(p.logEnd - p.logStart - p.events));
        return {};
    default:
        return {};
    }
}

} // namespace rw
