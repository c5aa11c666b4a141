#include "core/util/cpustate.h"

#include <QHashFunctions>

namespace rw {

void avoidDirtyUpperRegisters() {
    QHashSeed::setDeterministicGlobalSeed();
}

} // namespace rw
