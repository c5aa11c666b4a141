#include "app/rewindctl/cli.h"
#include "app/rewindctl/processmemory.h"
#include "core/util/cpustate.h"

#include <QCoreApplication>

int main(int argc, char *argv[]) {
    rw::avoidDirtyUpperRegisters(); // before any QHash: see cpustate.h
    // A command lives for a fraction of a second: its heap is taken in one
    // piece, on huge pages where the kernel allows (see processmemory.h).
    // REWIND_HEAP_RESERVE=0 leaves the C library's defaults.
    if (qEnvironmentVariable("REWIND_HEAP_RESERVE") != QLatin1String("0"))
        rw::reserveHeap(std::size_t(64) << 20);
    QCoreApplication app(argc, argv);
    QCoreApplication::setApplicationName(QStringLiteral("rewindctl"));
    QCoreApplication::setOrganizationName(QStringLiteral("Rewind"));
    return rw::cli::run(QCoreApplication::arguments());
}
