#pragma once

#include <QStringList>
#include <QTextStream>

namespace rw::cli {

// Runs one rewindctl command line (arguments[0] is the program name) and
// returns its exit code. Output goes to `out`, messages to `err`.
int run(const QStringList &arguments, QTextStream &out, QTextStream &err);
// The same, on stdout and stderr.
int run(const QStringList &arguments);

} // namespace rw::cli
