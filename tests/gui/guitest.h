#pragma once

#include "tests/testsupport.h"
#include "ui/common/jobtracker.h"
#include "ui/common/settings.h"

#include <QCoreApplication>
#include <QStandardPaths>
#include <QString>
#include <QTemporaryDir>
#include <QThreadPool>
#include <utility>

// What the console's tests share.
namespace guitest {

// For initTestCase(): settings go to a test location under the test's name
// and engine (ctest runs tst_x and tst_x_pg side by side); with
// `clearRecent`, the recent workspaces start empty.
inline void useTestSettings(const QString &testName, bool clearRecent) {
    QStandardPaths::setTestModeEnabled(true);
    QCoreApplication::setOrganizationName(QStringLiteral("RewindTests"));
    QCoreApplication::setApplicationName(
        testsupport::onPostgres() ? testName + QStringLiteral("_pg") : testName);
    if (clearRecent)
        rw::Settings().clearRecentWorkspaces();
}

// For cleanup(), as the console does before it exits: a page's background
// work may outlive the test that started it (slower on PostgreSQL), and must
// not run into the next test or the process's teardown of its connection.
// Pages never wait for it themselves.
inline void waitForBackgroundWork() {
    rw::JobTracker::waitForAll();
}

// The demo warehouse, built once per test case in a temporary directory and
// never opened itself: each test that writes takes a copy, and the tests
// that only read share one.
class DemoFixture {
public:
    // For initTestCase(), after REWIND_REQUIRE_ENGINE(); false when the
    // temporary directory cannot be made.
    bool build() {
        if (!m_dir.isValid())
            return false;
        m_demo = testsupport::buildDemo(m_dir, QStringLiteral("demo"));
        std::tie(m_db, m_spec) = copy(QStringLiteral("shared"));
        return true;
    }
    // A fresh copy for a test that writes; named after `name`, or numbered.
    std::pair<QString, QString> copy(const QString &name = QString()) {
        const testsupport::Demo c = testsupport::copyDemo(
            m_demo, m_dir, name.isEmpty() ? QStringLiteral("copy%1").arg(++m_copies) : name);
        return {c.db, c.spec};
    }
    // The shared copy, for the tests that only read.
    const QString &db() const { return m_db; }
    const QString &spec() const { return m_spec; }
    const QTemporaryDir &dir() const { return m_dir; }

private:
    QTemporaryDir m_dir;
    testsupport::Demo m_demo;
    QString m_db;
    QString m_spec;
    int m_copies = 0;
};

} // namespace guitest
