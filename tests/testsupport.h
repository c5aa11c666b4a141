#pragma once

#include "database.h"

#include <QString>
#include <QTemporaryDir>

// Helpers shared by the tests: scratch databases and specs in a temp dir.
namespace testsupport {

// Creates (or truncates) a SQLite file in `dir` and runs `statements` on it.
rw::Database makeDatabase(const QTemporaryDir &dir, const QString &fileName, const QStringList &statements);

QString writeFile(const QTemporaryDir &dir, const QString &fileName, const QByteArray &content);

// Runs rewindctl in-process; returns exit code and captures stdout/stderr.
struct CliResult {
    int exitCode = -1;
    QString out;
    QString err;
};
CliResult runCli(const QStringList &arguments);

} // namespace testsupport
