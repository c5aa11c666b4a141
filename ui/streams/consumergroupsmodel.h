#pragma once

#include "core/streams/offsets.h"
#include "ui/common/tablemodel.h"

#include <vector>

namespace rw {

// A stream's consumer groups with their total lag, Burrow status, the
// cluster's group state and live members (its coordinator's), from a snapshot
// (rw::listConsumerGroups) taken off the GUI thread.
class ConsumerGroupsModel : public SnapshotTableModel<ConsumerGroupInfo> {
    Q_OBJECT
public:
    enum Column {
        GroupColumn,
        LagColumn,
        StatusColumn,
        StateColumn,
        MembersColumn,
        PartitionsColumn,
        LastCommitColumn,
        ColumnCount
    };

    explicit ConsumerGroupsModel(QObject *parent = nullptr);

    // Row of `group`, -1 when absent.
    int rowOf(const QString &group) const;

protected:
    QVariant cellData(const ConsumerGroupInfo &group, int column, int role) const override;
};

} // namespace rw
