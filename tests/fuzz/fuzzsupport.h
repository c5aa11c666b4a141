#pragma once

// Shared by the fuzz targets: a QCoreApplication (the Qt SQL driver plugins
// need one), a scratch directory on a RAM disk when there is one, and a hard
// stop that libFuzzer reports as a crash, with the input kept.
#include <QString>

namespace fuzzsupport {

void init(int *argc, char ***argv);
// A directory that lives as long as the process.
QString scratchDir();
// Prints the message and aborts: libFuzzer saves the input as crash-*.
[[noreturn]] void violated(const char *what, const QString &detail = {});

} // namespace fuzzsupport
