#include "testsupport.h"

#include "cli.h"

#include <QFile>
#include <QProcess>
#include <QTest>

namespace testsupport {

rw::Database makeDatabase(const QTemporaryDir &dir, const QString &fileName, const QStringList &statements)
{
    const QString path = dir.filePath(fileName);
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
