#include "ui/batch/rollbackmodel.h"

namespace rw {

RollbackModel::RollbackModel(QObject *parent)
    : SnapshotTableModel(
          {
              partitionColumn(tr("Partition"), &RollbackPartition::partition),
              numberColumn(tr("Rows removed"), &RollbackPartition::rowsRemoved),
              numberColumn(tr("Rows restored"), &RollbackPartition::rowsRestored),
              {tr("State"), kAlignText,
               [](const RollbackPartition &p) {
                   return p.restored ? tr("restored") : tr("would be restored");
               },
               [](const RollbackPartition &p) { return p.restored ? 1 : 0; }},
          },
          parent, HeaderAlignment::View) {}

} // namespace rw
