#include "testsupport.h"

#include "cli.h"

#include <QCoreApplication>
#include <QFile>
#include <QStringBuilder>
#include <QUrl>
#include <QProcess>
#include <QTest>

namespace testsupport {

bool onPostgres() { return qEnvironmentVariable("REWIND_TEST_ENGINE") == QLatin1String("postgres"); }

QString engineUnavailable()
{
    if (!onPostgres() || !qEnvironmentVariableIsEmpty("REWIND_TEST_PG_URL"))
        return {};
    const QString why = qEnvironmentVariable("REWIND_TEST_PG_SKIP");
    return QStringLiteral("PostgreSQL unavailable: ")
           % (why.isEmpty() ? QStringLiteral("REWIND_TEST_PG_URL is not set (scripts/test starts a throwaway server and sets it)") : why);
}

namespace {

// A new database on the test server; returns its URL.
QString createPostgresDatabase(const QString &fileName)
{
    const QString serverUrl = qEnvironmentVariable("REWIND_TEST_PG_URL");
    if (serverUrl.isEmpty())
        qFatal("%s", qPrintable(engineUnavailable()));
    auto server = rw::Database::open(serverUrl);
    if (!server)
        qFatal("cannot reach the test server: %s", qPrintable(server.error().message));
    static int serial = 0;
    QString stem = fileName.section(u'.', 0, 0).toLower();
    stem.removeIf([](QChar c) { return !(c.isLetterOrNumber() && c.unicode() < 128); });
    const QString name = QStringLiteral("rw_%1_%2_%3_%4")
                             .arg(QCoreApplication::applicationName().toLower().remove(u'_').left(20), stem.left(16))
                             .arg(QCoreApplication::applicationPid())
                             .arg(++serial);
    if (auto r = server->exec(QStringLiteral("DROP DATABASE IF EXISTS ") % server->quote(name)); !r)
        qFatal("%s", qPrintable(r.error().message));
    if (auto r = server->exec(QStringLiteral("CREATE DATABASE ") % server->quote(name)); !r)
        qFatal("%s", qPrintable(r.error().message));
    QUrl url(serverUrl);
    url.setPath(u'/' % name);
    return url.toString();
}

} // namespace

rw::Database makeDatabase(const QTemporaryDir &dir, const QString &fileName, const QStringList &statements)
{
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

QString writeFile(const QTemporaryDir &dir, const QString &fileName, const QByteArray &content)
{
    const QString path = dir.filePath(fileName);
    QFile f(path);
    if (!f.open(QIODevice::WriteOnly | QIODevice::Truncate))
        qFatal("cannot write %s", qPrintable(path));
    f.write(content);
    return path;
}

CliResult runCli(const QStringList &arguments)
{
    CliResult r;
    QTextStream out(&r.out), err(&r.err);
    r.exitCode = rw::cli::run(QStringList{QStringLiteral("rewindctl")} + arguments, out, err);
    out.flush();
    err.flush();
    return r;
}

ChildResult runRewindctl(const QStringList &arguments, const QString &failpoint)
{
    QProcess p;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    if (failpoint.isEmpty())
        env.remove(QStringLiteral("REWIND_FAILPOINT"));
    else
        env.insert(QStringLiteral("REWIND_FAILPOINT"), failpoint);
    p.setProcessEnvironment(env);
    p.start(QStringLiteral(REWINDCTL_PATH), arguments);
    p.waitForFinished(300000);
    return {p.exitCode(), p.exitStatus() == QProcess::CrashExit, p.readAllStandardOutput(), p.readAllStandardError()};
}

} // namespace testsupport
