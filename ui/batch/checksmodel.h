#pragma once

#include "core/batch/batch.h"
#include "ui/common/tablemodel.h"

#include <vector>

namespace rw {

// Quality gates of a preview or run: name, partition, pass/fail, detail.
// Failing gates sort first. Takes an immutable snapshot with resetData().
class ChecksModel : public SnapshotTableModel<CheckResult> {
    Q_OBJECT
public:
    enum Column { ResultColumn, NameColumn, PartitionColumn, DetailColumn, ColumnCount };
    enum Role { PassedRole = FirstCustomRole };

    explicit ChecksModel(QObject *parent = nullptr);

    void resetData(std::vector<CheckResult> checks);
    int failedCount() const;

protected:
    QVariant cellData(const CheckResult &check, int column, int role) const override;
};

} // namespace rw
