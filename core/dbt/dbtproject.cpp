#include "core/dbt/dbtproject.h"

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>
#include <QProcess>
#include <QProcessEnvironment>
#include <QStandardPaths>
#include <QStringBuilder>
#include <atomic>
#include <nlohmann/json.hpp>

namespace rw::dbt {

namespace {

int timeoutMs() {
    bool ok = false;
    const int ms = qEnvironmentVariableIntValue("REWIND_DBT_TIMEOUT_MS", &ok);
    return ok && ms > 0 ? ms : 600000;
}

// What dbt said was wrong: the messages of its JSON log lines at level
// "error" (which name the model and file), else the end of its output.
QString dbtError(const QByteArray &out, const QByteArray &err) {
    QStringList errors;
    for (const QByteArray &line : out.split('\n')) {
        const auto j = nlohmann::json::parse(line.toStdString(), nullptr, false);
        if (j.is_discarded() || !j.is_object() || !j.contains("info"))
            continue;
        const auto &info = j["info"];
        if (info.value("level", std::string()) == "error")
            errors << QString::fromStdString(info.value("msg", std::string())).trimmed();
    }
    errors.removeAll(QString());
    errors.removeDuplicates();
    if (!errors.isEmpty())
        return errors.join(QStringLiteral("\n"));
    QStringList tail = QString::fromUtf8(out + '\n' + err).trimmed().split(u'\n');
    if (tail.size() > 20)
        tail = tail.mid(tail.size() - 20);
    return tail.join(u'\n').trimmed();
}

} // namespace

bool isProjectDir(const QString &path) {
    return QFileInfo(path).isDir() &&
           QFileInfo::exists(QDir(path).filePath(QStringLiteral("dbt_project.yml")));
}

QString outputDirFor(const QString &spec, const QString &projectDir) {
    return QDir(QFileInfo(spec).absolutePath())
        .filePath(QStringLiteral(".rewind-dbt/") %
                  QFileInfo(QDir(projectDir).absolutePath()).fileName());
}

Result<QString> compileProject(const ProjectOptions &o, bool parseOnly) {
    if (!isProjectDir(o.projectDir))
        return badInput(QStringLiteral("%1 is not a dbt project folder (no dbt_project.yml in it)")
                            .arg(o.projectDir));
    const QString program = !o.executable.isEmpty()
                                ? o.executable
                                : QStandardPaths::findExecutable(QStringLiteral("dbt"));
    if (program.isEmpty())
        return badInput(
            QStringLiteral(
                "no dbt program on PATH to compile %1: install dbt-core and the project's adapter "
                "(pip install dbt-core dbt-postgres), or name the program with a second --dbt "
                "PATH, "
                "or give the project's compiled target/manifest.json instead")
                .arg(o.projectDir));
    if (!QFileInfo(program).isExecutable())
        return badInput(QStringLiteral("--dbt %1: not an executable program").arg(program));
    if (o.outputDir.isEmpty())
        return internalError(QStringLiteral("no folder for dbt's output"));

    // dbt writes into a fresh folder beside the kept one, which it replaces
    // only once dbt succeeded: a failed compile leaves the last one as it was.
    // One per call: the console may compile again before an earlier compile ends.
    static std::atomic<int> calls{0};
    const QString staging = o.outputDir % QStringLiteral(".new-") %
                            QString::number(QCoreApplication::applicationPid()) % u'-' %
                            QString::number(++calls);
    QDir(staging).removeRecursively();
    if (!QDir().mkpath(staging))
        return badInput(QStringLiteral("cannot create %1 for dbt's output").arg(staging));
    const auto cleanup = [&] { QDir(staging).removeRecursively(); };

    const QString project = QDir(o.projectDir).absolutePath();
    QStringList args{parseOnly ? QStringLiteral("parse") : QStringLiteral("compile"),
                     QStringLiteral("--project-dir"),
                     project,
                     QStringLiteral("--target-path"),
                     QDir(staging).filePath(QStringLiteral("target")),
                     QStringLiteral("--log-path"),
                     QDir(staging).filePath(QStringLiteral("logs")),
                     QStringLiteral("--log-format"),
                     QStringLiteral("json")};
    if (!parseOnly)
        args << QStringLiteral("--full-refresh");
    if (!o.profilesDir.isEmpty())
        args << QStringLiteral("--profiles-dir") << QDir(o.profilesDir).absolutePath();
    if (!o.target.isEmpty())
        args << QStringLiteral("--target") << o.target;
    if (!o.vars.isEmpty())
        args << QStringLiteral("--vars") << o.vars;

    QProcess dbt;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("DBT_SEND_ANONYMOUS_USAGE_STATS"), QStringLiteral("false"));
    dbt.setProcessEnvironment(env);
    dbt.setWorkingDirectory(project);
    dbt.start(program, args);
    const QString command = QFileInfo(program).fileName() % u' ' % args.first();
    if (!dbt.waitForStarted(30000)) {
        cleanup();
        return badInput(QStringLiteral("cannot start %1: %2").arg(program, dbt.errorString()));
    }
    if (!dbt.waitForFinished(timeoutMs())) {
        dbt.kill();
        dbt.waitForFinished(5000);
        cleanup();
        return badInput(
            QStringLiteral("%1 of %2 did not finish within %3 s (REWIND_DBT_TIMEOUT_MS)")
                .arg(command, o.projectDir)
                .arg(timeoutMs() / 1000));
    }
    const QByteArray out = dbt.readAllStandardOutput(), err = dbt.readAllStandardError();
    if (dbt.exitStatus() != QProcess::NormalExit || dbt.exitCode() != 0) {
        cleanup();
        return badInput(QStringLiteral("%1 of %2 failed (exit %3): %4")
                            .arg(command, o.projectDir)
                            .arg(dbt.exitCode())
                            .arg(dbtError(out, err)));
    }
    const QString manifest = QDir(staging).filePath(QStringLiteral("target/manifest.json"));
    if (!QFileInfo::exists(manifest)) {
        cleanup();
        return badInput(
            QStringLiteral("%1 of %2 wrote no manifest.json").arg(command, o.projectDir));
    }
    QDir(o.outputDir).removeRecursively();
    if (!QDir().rename(staging, o.outputDir)) {
        cleanup();
        return badInput(QStringLiteral("cannot move dbt's output into %1").arg(o.outputDir));
    }
    return QDir(o.outputDir).filePath(QStringLiteral("target/manifest.json"));
}

} // namespace rw::dbt
