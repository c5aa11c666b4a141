#include "tests/fuzz/fuzzsupport.h"

#include <QCoreApplication>
#include <QDir>
#include <QTemporaryDir>
#include <cstdio>
#include <cstdlib>

namespace fuzzsupport {

void init(int *argc, char ***argv) {
    // libFuzzer owns argv; Qt only needs an application object to exist.
    static int qtArgc = 1;
    static char *qtArgv[] = {(*argv)[0], nullptr};
    (void)argc;
    // Never destroyed, like the connections the targets keep: at exit,
    // destructors would run in an order Qt SQL does not survive.
    new QCoreApplication(qtArgc, qtArgv);
    // Keep Qt's warnings (a refused query prints one) out of the fuzz log;
    // a qFatal still aborts, and libFuzzer keeps the input.
    qInstallMessageHandler([](QtMsgType type, const QMessageLogContext &, const QString &message) {
        if (type == QtFatalMsg)
            violated("qFatal", message);
    });
}

QString scratchDir() {
    // REWIND_FUZZ_SCRATCH (scripts/test sets it), else a RAM disk, else the temp dir.
    const QString base = qEnvironmentVariableIsSet("REWIND_FUZZ_SCRATCH")
                             ? qEnvironmentVariable("REWIND_FUZZ_SCRATCH")
                         : QDir(QStringLiteral("/dev/shm")).exists() ? QStringLiteral("/dev/shm")
                                                                     : QDir::tempPath();
    // Removed at a normal exit; a crash leaves it for a look.
    static QTemporaryDir *dir = [&] {
        auto *d = new QTemporaryDir(base + QStringLiteral("/rewind-fuzz-XXXXXX"));
        if (!d->isValid())
            violated("cannot create a scratch directory");
        std::atexit([] { dir->remove(); });
        return d;
    }();
    return dir->path();
}

void violated(const char *what, const QString &detail) {
    std::fprintf(stderr, "rewind fuzz: %s%s%s\n", what, detail.isEmpty() ? "" : ": ",
                 qPrintable(detail));
    std::fflush(stderr);
    std::abort();
}

} // namespace fuzzsupport
