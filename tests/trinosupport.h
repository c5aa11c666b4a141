#pragma once

// What the suites against a real Trino (tst_trino, tst_trino_writes) share:
// the server scripts/test starts (REWIND_TEST_TRINO_URL), a skip without
// one, a failure when the run says one must be there
// (REWIND_TEST_TRINO_REQUIRED=1).
#include <QCoreApplication>
#include <QFile>
#include <QString>
#include <QTemporaryDir>
#include <QTest>

namespace trinotest {

inline QString trinoUrl() {
    return qEnvironmentVariable("REWIND_TEST_TRINO_URL");
}

// A table name no other case or run uses.
inline QString uniqueTable(const char *stem) {
    static int n = 0;
    return QStringLiteral("%1_%2_%3")
        .arg(QLatin1String(stem))
        .arg(QCoreApplication::applicationPid())
        .arg(++n);
}

// Writes `json` into `dir` as `name`; its path.
inline QString writeFile(const QTemporaryDir &dir, const QString &name, const QString &json) {
    const QString path = dir.filePath(name);
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly))
        qFatal("cannot write %s", qPrintable(path));
    file.write(json.toUtf8());
    return path;
}

} // namespace trinotest

#define REQUIRE_TRINO()                                                                            \
    do {                                                                                           \
        if (trinotest::trinoUrl().isEmpty()) {                                                     \
            if (qEnvironmentVariable("REWIND_TEST_TRINO_REQUIRED") == QLatin1String("1"))          \
                QFAIL("REWIND_TEST_TRINO_REQUIRED=1 and no REWIND_TEST_TRINO_URL");                \
            QSKIP("Trino unavailable: no REWIND_TEST_TRINO_URL (scripts/test starts one)");        \
        }                                                                                          \
    } while (false)
