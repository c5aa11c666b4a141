#include "tests/testsupport.h"

#include "app/rewindctl/cli.h"
#include "core/demo/demo.h"
#include "core/workspace/spec.h"

#include <QCoreApplication>
#include <QCryptographicHash>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QProcess>
#include <QSqlRecord>
#include <QStringBuilder>
#include <QTest>
#include <QUrl>
#include <QUuid>
#include <algorithm>

namespace testsupport {

bool onPostgres() {
    return qEnvironmentVariable("REWIND_TEST_ENGINE") == QLatin1String("postgres");
}

QString engineUnavailable() {
    if (!onPostgres() || !qEnvironmentVariableIsEmpty("REWIND_TEST_PG_URL"))
        return {};
    const QString why = qEnvironmentVariable("REWIND_TEST_PG_SKIP");
    return QStringLiteral("PostgreSQL unavailable: ") %
           (why.isEmpty() ? QStringLiteral("REWIND_TEST_PG_URL is not set (scripts/test starts a "
                                           "throwaway server and sets it)")
                          : why);
}

namespace {

// The databases this process created on the test server, dropped when it
// ends (WITH (FORCE): a connection a test left open does not keep one), so a
// run against a long-lived server (REWIND_TEST_PG_URL pointed at one's own)
// leaves nothing behind. Runs as QCoreApplication goes, after the test object.
QStringList &createdDatabases() {
    static QStringList names;
    return names;
}

void dropCreatedDatabases() {
    if (createdDatabases().isEmpty())
        return;
    auto server = rw::Database::open(qEnvironmentVariable("REWIND_TEST_PG_URL"));
    if (!server) {
        qWarning("cannot reach the test server to drop this run's databases: %s",
                 qPrintable(server.error().message));
        return;
    }
    for (const QString &name : std::as_const(createdDatabases()))
        if (auto r = server->exec(QStringLiteral("DROP DATABASE IF EXISTS ") % server->quote(name) %
                                  QStringLiteral(" WITH (FORCE)"));
            !r)
            qWarning("cannot drop test database %s: %s", qPrintable(name),
                     qPrintable(r.error().message));
    createdDatabases().clear();
}

// A new database on the test server (a copy of `templateName` when given);
// returns its URL.
QString createPostgresDatabase(const QString &fileName, const QString &templateName = QString()) {
    const QString serverUrl = qEnvironmentVariable("REWIND_TEST_PG_URL");
    if (serverUrl.isEmpty())
        qFatal("%s", qPrintable(engineUnavailable()));
    auto server = rw::Database::open(serverUrl);
    if (!server)
        qFatal("cannot reach the test server: %s", qPrintable(server.error().message));
    static int serial = 0;
    QString stem = fileName.section(u'.', 0, 0).toLower();
    stem.removeIf([](QChar c) { return !(c.isLetterOrNumber() && c.unicode() < 128); });
    const QString name =
        QStringLiteral("rw_%1_%2_%3_%4")
            .arg(QCoreApplication::applicationName().toLower().remove(u'_').left(20), stem.left(16))
            .arg(QCoreApplication::applicationPid())
            .arg(++serial);
    if (auto r = server->exec(QStringLiteral("DROP DATABASE IF EXISTS ") % server->quote(name)); !r)
        qFatal("%s", qPrintable(r.error().message));
    if (auto r = server->exec(QStringLiteral("CREATE DATABASE ") % server->quote(name) %
                              (templateName.isEmpty() ? QString()
                                                      : QString(QStringLiteral(" TEMPLATE ") %
                                                                server->quote(templateName))));
        !r)
        qFatal("%s", qPrintable(r.error().message));
    if (createdDatabases().isEmpty())
        qAddPostRoutine(dropCreatedDatabases);
    createdDatabases() << name;
    QUrl url(serverUrl);
    url.setPath(u'/' % name);
    return url.toString();
}

} // namespace

QString copyDatabase(const QString &url, const QTemporaryDir &dir, const QString &fileName) {
    if (!onPostgres()) {
        const QString path = dir.filePath(fileName);
        QFile::remove(path);
        if (!QFile::copy(url, path))
            qFatal("cannot copy %s to %s", qPrintable(url), qPrintable(path));
        return path;
    }
    const QString copy = createPostgresDatabase(fileName, QUrl(url).path().mid(1));
    return copy;
}

rw::Database makeDatabase(const QTemporaryDir &dir, const QString &fileName,
                          const QStringList &statements) {
    QString path = dir.filePath(fileName);
    if (onPostgres())
        path = createPostgresDatabase(fileName);
    else
        QFile::remove(path);
    auto db = rw::Database::open(path, rw::Database::OpenMode::CreateIfMissing);
    if (!db)
        qFatal("cannot create %s: %s", qPrintable(path), qPrintable(db.error().message));
    if (auto s = db->execAll(statements); !s)
        qFatal("setup failed: %s", qPrintable(s.error().message));
    return *db;
}

Demo buildDemo(const QTemporaryDir &dir, const QString &name, double scale) {
    const QString file = name + QStringLiteral(".db");
    const Demo demo{onPostgres() ? makeDatabase(dir, file, {}).url().text : dir.filePath(file),
                    dir.filePath(name + QStringLiteral(".json"))};
    if (auto summary = rw::demo::generate({demo.db, demo.spec, 1, scale, true}); !summary)
        qFatal("cannot build the demo: %s", qPrintable(summary.error().message));
    return demo;
}

Demo copyDemo(const Demo &demo, const QTemporaryDir &dir, const QString &name) {
    const QString spec = dir.filePath(name + QStringLiteral(".json"));
    QFile::remove(spec);
    if (!QFile::copy(demo.spec, spec))
        qFatal("cannot copy %s to %s", qPrintable(demo.spec), qPrintable(spec));
    return {copyDatabase(demo.db, dir, name + QStringLiteral(".db")), spec};
}

QJsonValue jsonAt(const QJsonObject &object, const char *path) {
    QJsonValue at(object);
    for (const QString &step : QString::fromUtf8(path).split(u'/')) {
        bool isIndex = false;
        const int index = step.toInt(&isIndex);
        at = at.isArray() && isIndex ? at.toArray().at(index) : at.toObject().value(step);
    }
    return at;
}

QString writeFile(const QTemporaryDir &dir, const QString &fileName, const QByteArray &content) {
    const QString path = dir.filePath(fileName);
    QFile f(path);
    if (!f.open(QIODevice::WriteOnly | QIODevice::Truncate))
        qFatal("cannot write %s", qPrintable(path));
    f.write(content);
    return path;
}

WorkspaceFixture::WorkspaceFixture(const QStringList &statements, const QByteArray &specJson,
                                   const QString &dbName, const QString &specName) {
    dbPath = makeDatabase(dir, dbName, statements).url().text;
    specPath = writeFile(dir, specName, specJson);
    auto opened = rw::openWorkspace(dbPath, specPath);
    if (!opened)
        qFatal("%s", qPrintable(opened.error().message));
    ws = std::move(*opened);
}

QStringList browseGrants(const QString &role, const QString &database, const QString &tables) {
    return {
        QStringLiteral("GRANT USAGE ON SCHEMA rewind TO %1").arg(role),
        QStringLiteral("GRANT SELECT ON ALL TABLES IN SCHEMA rewind TO %1").arg(role),
        QStringLiteral("GRANT INSERT ON rewind.rewind_plans, rewind.rewind_audit TO %1").arg(role),
        QStringLiteral("GRANT TEMPORARY ON DATABASE %2 TO %1").arg(role, database),
        QStringLiteral("GRANT SELECT ON %2 TO %1").arg(role, tables),
    };
}

QStringList operateGrants(const QString &role, const QString &targets) {
    return {
        QStringLiteral("GRANT INSERT, UPDATE ON rewind.rewind_runs, rewind.rewind_checkpoints, "
                       "rewind.rewind_partition_state TO %1")
            .arg(role),
        QStringLiteral("GRANT INSERT ON rewind.rewind_check_results, rewind.rewind_schema_changes "
                       "TO %1")
            .arg(role),
        QStringLiteral("GRANT DELETE ON rewind.rewind_partition_state, "
                       "rewind.rewind_schema_changes TO %1")
            .arg(role),
        QStringLiteral("GRANT INSERT, UPDATE, DELETE ON %2 TO %1").arg(role, targets),
        QStringLiteral("GRANT CREATE ON SCHEMA public TO %1").arg(role),
    };
}

PasswordRole newPasswordRole(const QString &suffix) {
    auto admin = rw::Database::open(qEnvironmentVariable("REWIND_TEST_PG_URL"));
    PasswordRole made{QStringLiteral("rewind_pw_") + suffix,
                      QStringLiteral("pw-") + QUuid::createUuid().toString(QUuid::Id128)};
    // The group first (another suite may be making it at the same moment).
    const QString sql = QStringLiteral(
        "DO $$ BEGIN BEGIN CREATE ROLE rewind_pw NOLOGIN; EXCEPTION WHEN duplicate_object OR "
        "unique_violation THEN NULL; END; IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = "
        "'%1') THEN CREATE ROLE %1 LOGIN SUPERUSER IN ROLE rewind_pw; END IF; "
        "ALTER ROLE %1 PASSWORD '%2'; END $$");
    if (!admin || !admin->exec(sql.arg(made.role, made.password))) {
        qWarning("cannot make the role %s on the test server", qPrintable(made.role));
        return {};
    }
    return made;
}

QString PasswordRole::url(const QString &serverUrl, const QString &pw) const {
    QUrl u(serverUrl);
    u.setUserName(role);
    u.setPassword(pw);
    return u.toString();
}

CliResult runCli(const QStringList &arguments) {
    CliResult r;
    QTextStream out(&r.out), err(&r.err);
    r.exitCode = rw::cli::run(QStringList{QStringLiteral("rewindctl")} + arguments, out, err);
    out.flush();
    err.flush();
    return r;
}

QString CopiedWorkspace::freshCopy() {
    return copyDatabase(initial, dir, QStringLiteral("copy%1.db").arg(++m_copies));
}

ChildResult CopiedWorkspace::rewindctl(const QStringList &command, const QString &db) const {
    return runRewindctl(command + args(db));
}

bool hasColumn(const QString &db, const QString &table, const QString &column) {
    auto handle = rw::Database::open(db);
    if (!handle)
        return false;
    auto columns = handle->columns(table);
    return columns && std::any_of(columns->begin(), columns->end(),
                                  [&](const rw::ColumnInfo &c) { return c.name == column; });
}

ChildResult runRewindctl(const QStringList &arguments, const QString &failpoint) {
    QProcess p;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    if (failpoint.isEmpty())
        env.remove(QStringLiteral("REWIND_FAILPOINT"));
    else
        env.insert(QStringLiteral("REWIND_FAILPOINT"), failpoint);
    p.setProcessEnvironment(env);
    p.start(QStringLiteral(REWINDCTL_PATH), arguments);
    p.waitForFinished(300000);
    return {p.exitCode(), p.exitStatus() == QProcess::CrashExit, p.readAllStandardOutput(),
            p.readAllStandardError()};
}

const QList<BatchFailpoint> &batchRunFailpoints() {
    static const QList<BatchFailpoint> points = {
        {"before the first chunk", "chunk-start:1", 0},
        {"starting chunk 3", "chunk-start:3", 2},
        {"chunk 2 staged", "after-stage:2", 1},
        {"chunk 3 gated", "after-checks:3", 2},
        {"staged, before publish of chunk 2", "before-publish:2", 1},
        {"data written, chunk 4 uncommitted", "after-write:4", 3},
        {"checkpoint written, chunk 1 uncommitted", "before-commit:1", 0},
        {"chunk 5 committed", "after-commit:5", 5},
        {"last chunk uncommitted", "before-commit:6", 5},
        {"last chunk committed, run not closed", "after-commit:6", 6},
    };
    return points;
}

void addBatchFailpointRows(const QList<BatchFailpoint> &extra) {
    QTest::addColumn<QString>("failpoint");
    QTest::addColumn<int>("committed");
    for (const auto &[label, point, committed] : extra + batchRunFailpoints())
        QTest::newRow(label) << QString::fromUtf8(point) << committed;
}

qint64 scalarAt(const QString &dbPath, const QString &sql) {
    auto db = rw::Database::open(dbPath);
    if (!db)
        return -1;
    auto v = db->scalar(sql);
    return v ? v->toLongLong() : -1;
}

QString integrityCheck(const QString &dbPath) {
    auto db = rw::Database::open(dbPath);
    if (!db)
        return db.error().message;
    if (db->dialect().kind() == rw::SqlDialect::Kind::Postgres) {
        // amcheck: every heap page of the user's and Rewind's tables, and
        // every B-tree index against its invariants (an error if broken).
        const QString relations = QStringLiteral(
            "SELECT c.oid FROM pg_class AS c JOIN pg_namespace AS n ON n.oid = c.relnamespace "
            "WHERE n.nspname IN ('public', 'rewind') AND c.relkind = ");
        if (auto r = db->exec(QStringLiteral("CREATE EXTENSION IF NOT EXISTS amcheck")); !r)
            return r.error().message;
        auto heap =
            db->scalar(QStringLiteral("SELECT COUNT(*) FROM (") % relations %
                       QStringLiteral("'r') AS t CROSS JOIN LATERAL verify_heapam(t.oid) AS v"));
        if (!heap)
            return heap.error().message;
        if (heap->toLongLong() != 0)
            return QStringLiteral("%1 corrupt heap tuples").arg(heap->toLongLong());
        auto indexes = db->scalar(
            QStringLiteral("SELECT COUNT(bt_index_check(t.oid, true)) FROM (") % relations %
            QStringLiteral(
                "'i' AND c.relam = (SELECT oid FROM pg_am WHERE amname = 'btree')) AS t"));
        return indexes ? QStringLiteral("ok") : indexes.error().message;
    }
    auto v = db->scalar(QStringLiteral("PRAGMA integrity_check"));
    return v ? v->toString() : v.error().message;
}

QStringList rowsAt(const QString &dbPath, const QString &select) {
    auto db = rw::Database::open(dbPath);
    if (!db)
        return {db.error().message};
    auto q = db->exec(select);
    if (!q)
        return {q.error().message};
    QStringList out;
    while (q->next()) {
        QStringList cells;
        for (int i = 0; i < q->record().count(); ++i)
            cells << (q->value(i).isNull() ? QStringLiteral("-") : q->value(i).toString());
        out << cells.join(u'|');
    }
    return out;
}

QString digest(const QString &dbPath, const QString &select) {
    auto db = rw::Database::open(dbPath);
    if (!db)
        return db.error().message;
    auto q = db->exec(select);
    if (!q)
        return q.error().message;
    QStringList rows;
    while (q->next()) {
        const QSqlRecord r = q->record();
        QString line;
        for (int i = 0; i < r.count(); ++i) {
            const QVariant v = r.value(i);
            // Bytes as hex: a BLOB need not be UTF-8.
            line += (r.isNull(i) ? QStringLiteral("\\N")
                     : v.typeId() == QMetaType::QByteArray
                         ? QString::fromLatin1(v.toByteArray().toHex())
                         : v.toString()) +
                    u'|';
        }
        rows << line;
    }
    std::sort(rows.begin(), rows.end());
    QCryptographicHash h(QCryptographicHash::Sha256);
    for (const QString &row : std::as_const(rows))
        h.addData(QString(row + u'\n').toUtf8());
    return QStringLiteral("%1 rows, sha256 %2")
        .arg(rows.size())
        .arg(QString::fromLatin1(h.result().toHex()));
}

QString controlStore(const QStringList &workspaceArgs) {
    const QString db = workspaceArgs.value(workspaceArgs.indexOf(QStringLiteral("--db")) + 1);
    if (!db.startsWith(QLatin1String("trino://")))
        return db;
    const QString specPath =
        workspaceArgs.value(workspaceArgs.indexOf(QStringLiteral("--spec")) + 1);
    auto spec = rw::loadSpec(specPath);
    if (!spec)
        qFatal("%s", qPrintable(spec.error().message));
    return spec->controlDb;
}

Resumed killThenResume(const QStringList &runArgs, const QStringList &workspaceArgs,
                       const QString &failpoint, int committed,
                       const std::function<QString()> &atKill) {
    Resumed out;
    const ChildResult killed = runRewindctl(runArgs + workspaceArgs, failpoint);
    const QString where = failpoint.contains(u':') ? failpoint : failpoint + QStringLiteral(":1");
    const QByteArray mark = QStringLiteral("rewind: failpoint %1 reached").arg(where).toUtf8();
    if (!killed.crashed || !killed.err.contains(mark)) {
        out.problem = QStringLiteral("the run was not killed at %1 (exit code %2, %3): %4")
                          .arg(failpoint)
                          .arg(killed.exitCode)
                          .arg(killed.crashed ? QStringLiteral("crashed elsewhere")
                                              : QStringLiteral("not crashed"),
                               QString::fromUtf8(killed.err.trimmed()));
        return out;
    }
    // The dead run shows as interrupted, not running.
    const ChildResult runs =
        runRewindctl(QStringList{QStringLiteral("runs"), QStringLiteral("--json")} + workspaceArgs);
    const QJsonArray list =
        QJsonDocument::fromJson(runs.out).object()[QStringLiteral("runs")].toArray();
    // The killed run is the newest; runs the workspace held before it are
    // finished ones.
    QJsonObject run;
    int unfinished = 0;
    for (const auto &v : list) {
        const QJsonObject r = v.toObject();
        if (run.isEmpty() ||
            r[QStringLiteral("run_id")].toInteger() > run[QStringLiteral("run_id")].toInteger())
            run = r;
        const QString status = r[QStringLiteral("status")].toString();
        unfinished += status == QLatin1String("interrupted") || status == QLatin1String("running");
    }
    if (runs.exitCode != 0 || list.isEmpty() || unfinished > 1) {
        out.problem = QStringLiteral("runs --json: exit %1, %2 runs (%3 unfinished): %4")
                          .arg(runs.exitCode)
                          .arg(list.size())
                          .arg(unfinished)
                          .arg(QString::fromUtf8(runs.err));
        return out;
    }
    out.runId = run[QStringLiteral("run_id")].toInteger();
    if (run[QStringLiteral("status")].toString() != QLatin1String("interrupted")) {
        out.problem = QStringLiteral("the killed run shows as %1, not interrupted")
                          .arg(run[QStringLiteral("status")].toString());
        return out;
    }
    // Nothing half-published: the chunks committed before the kill, no more.
    const qint64 done =
        scalarAt(controlStore(workspaceArgs),
                 QStringLiteral("SELECT COUNT(*) FROM rewind_checkpoints WHERE status = 'done' "
                                "AND run_id = %1")
                     .arg(out.runId));
    if (done != committed) {
        out.problem = QStringLiteral("killed at %1: %2 checkpoints, expected %3")
                          .arg(failpoint)
                          .arg(done)
                          .arg(committed);
        return out;
    }
    if (atKill)
        if (out.problem = atKill(); !out.problem.isEmpty()) {
            out.problem = QStringLiteral("killed at %1: %2").arg(failpoint, out.problem);
            return out;
        }
    const ChildResult resumed = runRewindctl(
        QStringList{QStringLiteral("resume"), QStringLiteral("--run"), QString::number(out.runId),
                    QStringLiteral("--execute"), QStringLiteral("--json")} +
        workspaceArgs);
    out.result = QJsonDocument::fromJson(resumed.out).object();
    if (resumed.exitCode != 0 || resumed.crashed ||
        out.result[QStringLiteral("status")].toString() != QLatin1String("succeeded"))
        out.problem = QStringLiteral("resume --run %1: exit %2, status %3: %4")
                          .arg(out.runId)
                          .arg(resumed.exitCode)
                          .arg(out.result[QStringLiteral("status")].toString(),
                               QString::fromUtf8(resumed.err.trimmed()));
    return out;
}

QString ledgerProblems(const QString &dbPath, const QString &dataset, qint64 runId,
                       int partitions) {
    const QString id = QString::number(runId);
    const struct {
        const char *what;
        QString sql;
        qint64 expected;
    } checks[] = {
        {"runs", QStringLiteral("SELECT COUNT(*) FROM rewind_runs WHERE kind = 'run'"), 1},
        {"the run succeeded",
         QStringLiteral("SELECT COUNT(*) FROM rewind_runs WHERE run_id = ") + id +
             QStringLiteral(" AND status = 'succeeded' AND finished_at IS NOT NULL"),
         1},
        {"runs not succeeded",
         QStringLiteral("SELECT COUNT(*) FROM rewind_runs WHERE status <> 'succeeded'"), 0},
        {"checkpoints", QStringLiteral("SELECT COUNT(*) FROM rewind_checkpoints"), partitions},
        {"done checkpoints of the run",
         QStringLiteral("SELECT COUNT(DISTINCT part || '/' || part_is_null) FROM "
                        "rewind_checkpoints WHERE status = 'done' AND run_id = ") +
             id,
         partitions},
        {"publish audit rows",
         QStringLiteral("SELECT COUNT(*) FROM rewind_audit WHERE action = 'publish'"), partitions},
        {"publish audit rows of the run",
         QStringLiteral(
             "SELECT COUNT(*) FROM rewind_audit WHERE action = 'publish' AND run_id = ") +
             id,
         partitions},
        {"partition states",
         QStringLiteral("SELECT COUNT(*) FROM rewind_partition_state WHERE dataset = '") + dataset +
             u'\'',
         partitions},
        {"published by the run",
         QStringLiteral("SELECT COUNT(*) FROM rewind_partition_state WHERE dataset = '") + dataset +
             QStringLiteral(
                 "' AND status = 'published' AND published_at IS NOT NULL AND last_run_id = ") +
             id,
         partitions},
    };
    QStringList problems;
    for (const auto &c : checks)
        if (const qint64 n = scalarAt(dbPath, c.sql); n != c.expected)
            problems << QStringLiteral("%1: %2, expected %3")
                            .arg(QLatin1String(c.what))
                            .arg(n)
                            .arg(c.expected);
    return problems.join(QStringLiteral("; "));
}

} // namespace testsupport
