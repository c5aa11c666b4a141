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

// Runs the real rewindctl binary as a child process (for crash tests). With
// `failpoint` set, REWIND_FAILPOINT makes the child SIGKILL itself there.
struct ChildResult {
    int exitCode = -1;
    bool crashed = false;
    QByteArray out;
    QByteArray err;
};
ChildResult runRewindctl(const QStringList &arguments, const QString &failpoint = QString());

} // namespace testsupport
