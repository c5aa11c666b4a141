#pragma once

// Internal to ui/recovery/recoverpage.cpp and recoverpageviews.cpp.

#include "core/recovery/recovery.h"

#include <QStringList>

namespace rw::recoverpage_detail {

// The core step each page of the step list shows, in the wizard's order
// (unfreeze goes with the index; the report page has none).
inline constexpr RecoveryStep kCoreSteps[] = {RecoveryStep::Freeze, RecoveryStep::Identify,
                                              RecoveryStep::Rerun, RecoveryStep::Totals,
                                              RecoveryStep::UniqueIndex};

// Partition labels for a sentence: all of a few, else the count and the ends.
QString partitionsText(const QStringList &labels);

} // namespace rw::recoverpage_detail
