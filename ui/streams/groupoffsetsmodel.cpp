#include "ui/streams/groupoffsetsmodel.h"

#include "ui/common/format.h"
#include "ui/common/style.h"

#include <QBrush>

namespace rw {

GroupOffsetsModel::GroupOffsetsModel(QObject *parent)
    : SnapshotTableModel(
          {
              idColumn(tr("Partition"), &PartitionOffsets::partition),
              {tr("Committed"), kAlignNumber,
               [](const PartitionOffsets &p) {
                   return p.stored ? fmt::number(p.committed)
                                   : tr("%1 (none)").arg(fmt::number(p.committed));
               },
               [](const PartitionOffsets &p) { return p.committed; },
               tr("The next offset the group reads, as in Kafka")},
              numberColumn(tr("Log start"), &PartitionOffsets::logStart),
              numberColumn(tr("Log end"), &PartitionOffsets::logEnd),
              numberColumn(tr("Lag"), &PartitionOffsets::lag),
          },
          parent) {}

QVariant GroupOffsetsModel::cellData(const PartitionOffsets &p, int column, int role) const {
    switch (role) {
    case Qt::ForegroundRole:
        if (column == LagColumn && p.lag > 0)
            return QBrush(style::qcolor(style::Colour::Warning));
        if (column == CommittedColumn && !p.stored)
            return QBrush(style::qcolor(style::Colour::Faint));
        return {};
    case Qt::ToolTipRole:
        if (column == CommittedColumn && !p.stored)
            return tr("Nothing committed in this partition: the group starts at the log start");
        return {};
    default:
        return {};
    }
}

} // namespace rw
