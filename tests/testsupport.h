#pragma once

#include "database.h"

#include <QString>
#include <QTemporaryDir>

// Helpers shared by the tests: scratch databases and specs in a temp dir.
namespace testsupport {

// The engine a suite runs on: SQLite, or PostgreSQL when REWIND_TEST_ENGINE is
// "postgres" (CTest's <suite>_pg variants), on the server REWIND_TEST_PG_URL
// names (scripts/test starts a throwaway one).
bool onPostgres();
// Why this run's engine cannot be used (PostgreSQL asked for, no server), or
// empty. Suites skip in initTestCase through REWIND_REQUIRE_ENGINE().
QString engineUnavailable();
#define REWIND_REQUIRE_ENGINE()                                                  \
    do {                                                                         \
        if (const QString why = testsupport::engineUnavailable(); !why.isEmpty()) \
            QSKIP(qPrintable(why));                                              \
    } while (false)

// A fresh database with `statements` run on it: on SQLite a new file in `dir`
// (truncated if present); on PostgreSQL a new, empty database on the test
// server (named after `fileName` and made unique).
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
