#pragma once

#include "core/sql/database.h"
#include "core/workspace/workspace.h"

#include <QJsonObject>
#include <QList>
#include <QString>
#include <QTemporaryDir>
#include <functional>
#include <optional>

// Helpers shared by the tests: scratch databases and specs in a temp dir.
namespace testsupport {

// The engine a suite runs on: SQLite, or PostgreSQL when REWIND_TEST_ENGINE is
// "postgres" (CTest's <suite>_pg variants), on the server REWIND_TEST_PG_URL
// names (scripts/test starts a throwaway one).
bool onPostgres();
// Why this run's engine cannot be used (PostgreSQL asked for, no server), or
// empty. Suites skip in initTestCase through REWIND_REQUIRE_ENGINE().
QString engineUnavailable();
#define REWIND_REQUIRE_ENGINE()                                                                    \
    do {                                                                                           \
        if (const QString why = testsupport::engineUnavailable(); !why.isEmpty())                  \
            QSKIP(qPrintable(why));                                                                \
    } while (false)

// A fresh database with `statements` run on it: on SQLite a new file in `dir`
// (truncated if present); on PostgreSQL a new, empty database on the test
// server (named after `fileName` and made unique).
rw::Database makeDatabase(const QTemporaryDir &dir, const QString &fileName,
                          const QStringList &statements);

// A copy of the database at `url` (no connection to it may be open), made
// whole: on SQLite a file copy named `fileName` in `dir`; on PostgreSQL a new
// database created from it as a template. Returns the copy's URL.
QString copyDatabase(const QString &url, const QTemporaryDir &dir, const QString &fileName);

// The demo warehouse (rw::demo::generate, seed 1) built once by a suite, and
// fresh copies of it for its tests. The built one is never opened by a test:
// on PostgreSQL a copy is CREATE DATABASE ... TEMPLATE, which needs the
// template to have no session open (a console page's worker threads keep
// theirs until the process exits).
struct Demo {
    QString db;   // SQLite file or postgresql:// URL: what a workspace opens
    QString spec; // the demo's spec file
};
// Builds the demo into `dir`: a file `name`.db on SQLite, a new database on
// the PostgreSQL test server. Fails the test (qFatal) when it cannot.
Demo buildDemo(const QTemporaryDir &dir, const QString &name, double scale = 0.02);
// A whole copy of `demo` named after `name` (database and spec).
Demo copyDemo(const Demo &demo, const QTemporaryDir &dir, const QString &name);

QString writeFile(const QTemporaryDir &dir, const QString &fileName, const QByteArray &content);

// The value at `path` in `object`: object keys and array indexes separated by
// '/' ("partitions/0/source_rows"); undefined where the path leads nowhere.
QJsonValue jsonAt(const QJsonObject &object, const char *path);

// A role of the PostgreSQL test server that must give a password: the
// members of rewind_pw (scripts/pg.sh). rewind_pw_<suffix> (one per suite:
// suites run side by side) is made a superuser member if missing and given a
// new random password. Empty fields, with a warning, when it cannot be made.
struct PasswordRole {
    QString role;
    QString password;
    // `url` logging in as this role, with `password` in it (none when empty).
    QString url(const QString &serverUrl, const QString &password = QString()) const;
};
PasswordRole newPasswordRole(const QString &suffix);

// The grants docs/security.md gives rewind_browse (browse and preview) on
// Rewind's schema and `database`, with SELECT on `tables` (every source,
// target and gate table), and rewind_operator (run, resume, finalize, roll
// back) with INSERT, UPDATE, DELETE on `targets`: to `role` (an SQL name,
// quoted where it must be).
QStringList browseGrants(const QString &role, const QString &database, const QString &tables);
QStringList operateGrants(const QString &role, const QString &targets);

// Runs rewindctl in-process; returns exit code and captures stdout/stderr.
struct CliResult {
    int exitCode = -1;
    QString out;
    QString err;
};
CliResult runCli(const QStringList &arguments);

// A test's own workspace: a fresh database (makeDatabase, `statements` run on
// it) and `specJson` written beside it, opened with rw::openWorkspace. Fails
// the test (qFatal) when it does not open.
struct WorkspaceFixture {
    QTemporaryDir dir;
    QString dbPath;   // what --db names: the SQLite file or the PostgreSQL URL
    QString specPath; // what --spec names
    std::optional<rw::Workspace> ws;

    WorkspaceFixture(const QStringList &statements, const QByteArray &specJson,
                     const QString &dbName = QStringLiteral("w.db"),
                     const QString &specName = QStringLiteral("w.json"));
    const rw::Database &db() const { return ws->db; }
    // The spec's first dataset.
    const rw::DatasetSpec &dataset() const { return ws->spec.datasets.front(); }
    // --db and --spec, for rewindctl.
    QStringList args() const {
        return {QStringLiteral("--db"), dbPath, QStringLiteral("--spec"), specPath};
    }
    // rewindctl `command` on this workspace (in-process).
    CliResult cli(const QStringList &command) const { return runCli(command + args()); }
};

// Runs the real rewindctl binary as a child process (for crash tests). With
// `failpoint` set, REWIND_FAILPOINT makes the child SIGKILL itself there.
struct ChildResult {
    int exitCode = -1;
    bool crashed = false;
    QByteArray out;
    QByteArray err;
};
ChildResult runRewindctl(const QStringList &arguments, const QString &failpoint = QString());

// A warehouse a suite builds once (`initial`, see makeDatabase) with its spec,
// and a fresh copy of it for each case that writes (the schema suites).
struct CopiedWorkspace {
    QTemporaryDir dir;
    QString initial; // the database every copy starts from (no session may be open on it)
    QString spec;    // the spec's path

    // A new copy of `initial` (copyDatabase), named in turn.
    QString freshCopy();
    // --db `db` --spec spec, for rewindctl.
    QStringList args(const QString &db) const {
        return {QStringLiteral("--db"), db, QStringLiteral("--spec"), spec};
    }
    // The rewindctl binary, `command` on `db`.
    ChildResult rewindctl(const QStringList &command, const QString &db) const;

private:
    int m_copies = 0;
};

// Whether `table` of the database at `db` has `column`, as the catalog lists
// it (false when the database does not open).
bool hasColumn(const QString &db, const QString &table, const QString &column);

// --- The batch crash matrix (tst_crash for merge and overwrite, tst_scd2) ---

// A REWIND_FAILPOINT value of a batch run over 6 partitions, and how many
// partitions are committed when it kills the run.
struct BatchFailpoint {
    const char *label;
    const char *point;
    int committed;
};
// Every failpoint a batch chunk passes (core/batch.cpp), at chunks spread over
// a 6-partition run: the first, a middle one, the last.
const QList<BatchFailpoint> &batchRunFailpoints();
// A crash matrix's data (columns failpoint, committed): `extra` first, then
// every row of batchRunFailpoints().
void addBatchFailpointRows(const QList<BatchFailpoint> &extra = {});
// A run that changes the target's schema: killed right after the change,
// nothing committed yet (`label` says what changed), then every batch failpoint.
inline void addSchemaChangeFailpointRows(const char *label) {
    addBatchFailpointRows({{label, "after-schema-change", 0}});
}

// What a test reads back from a database file, each on a connection of its own.
qint64 scalarAt(const QString &dbPath, const QString &sql); // -1 on an error
// "ok", or what is broken: SQLite's PRAGMA integrity_check; on PostgreSQL
// amcheck's verify_heapam over every table and bt_index_check over every
// B-tree index of the schemas public and rewind.
QString integrityCheck(const QString &dbPath);
// SHA-256 of the rows `select` returns, every column (NULL told apart from
// '', bytes as hex), in sorted order: equal digests mean equal multisets of rows.
QString digest(const QString &dbPath, const QString &select);
// Each row of `select` as "a|b|c" (NULL as "-"), in its order; the error
// message alone when it fails.
QStringList rowsAt(const QString &dbPath, const QString &select);

// Where the control tables (runs, checkpoints, audit) of the workspace
// `workspaceArgs` (--db D --spec S) are: D itself, or for a Trino warehouse
// the spec's control_db.
QString controlStore(const QStringList &workspaceArgs);

// Runs `runArgs` (rewindctl run ... --execute --json) with `failpoint` set
// and makes sure the child died there (its failpoint mark and a crash: a
// failpoint the run never reaches is a problem, never a pass), that `runs`
// (whatever finished runs the workspace held before)
// shows the dead run as interrupted, and that `committed` partitions have
// a checkpoint; `atKill` (if set) may then look at the dead run's database
// and return a problem; then resumes it with --execute and makes sure it
// succeeded.
struct Resumed {
    QString problem; // empty when all of the above held
    qint64 runId = -1;
    QJsonObject result; // resume's --json output
};
Resumed killThenResume(const QStringList &runArgs, const QStringList &workspaceArgs,
                       const QString &failpoint, int committed,
                       const std::function<QString()> &atKill = {});

// The run ledger after a batch run `runId` of `dataset` over `partitions`
// partitions finished: the run succeeded and is the only run, no run is left
// running; each partition has one 'done' checkpoint, one publish audit row
// and a published state naming the run. Empty when consistent, else what is
// not. `dbPath`: where the control tables are (controlStore).
QString ledgerProblems(const QString &dbPath, const QString &dataset, qint64 runId, int partitions);

} // namespace testsupport
