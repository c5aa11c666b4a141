#include "testsupport.h"

#include "cli.h"

#include <QFile>
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

} // namespace testsupport
