#pragma once

#include "core/batch/partitions.h"

#include <QColor>
#include <QIcon>
#include <QList>
#include <QString>

namespace rw {

// How partition statuses look everywhere in the console: one colour per
// status, a light tint for cell backgrounds, and a dot icon. GUI thread only
// (icons are cached).
class StatusStyle {
public:
    // unloaded, loaded, provisional, final, stale, failed: the order an operator reads them in.
    static const QList<PartitionStatus> &statuses();

    static QColor color(PartitionStatus status);
    static QColor tint(PartitionStatus status);
    static QIcon icon(PartitionStatus status);
    static QString description(PartitionStatus status);
    // Sort rank: higher needs more attention (failed first when descending).
    static int severity(PartitionStatus status);
    // True for statuses an operator should act on.
    static bool needsAttention(PartitionStatus status);
};

} // namespace rw
