#include "ui/recovery/duplicatesmodel.h"

namespace rw {

DuplicatesModel::DuplicatesModel(QObject *parent)
    : SnapshotTableModel(
          {
              partitionColumn(tr("Partition"), &DuplicatePartition::partition),
              numberColumn(tr("Duplicate keys"), &DuplicatePartition::duplicateKeys),
              numberColumn(tr("Extra rows"), &DuplicatePartition::extraRows),
          },
          parent, HeaderAlignment::View) {}

} // namespace rw
