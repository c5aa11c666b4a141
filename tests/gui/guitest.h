#pragma once

#include "ui/common/settings.h"

#include <QCoreApplication>
#include <QStandardPaths>
#include <QString>
#include <QThreadPool>

// What the console's tests share.
namespace guitest {

// For initTestCase(): settings go to a test location under the test's name;
// with `clearRecent`, the recent workspaces start empty.
inline void useTestSettings(const QString &testName, bool clearRecent)
{
    QStandardPaths::setTestModeEnabled(true);
    QCoreApplication::setOrganizationName(QStringLiteral("RewindTests"));
    QCoreApplication::setApplicationName(testName);
    if (clearRecent)
        rw::Settings().clearRecentWorkspaces();
}

// For cleanup(), as the console does before it exits: a page's background
// work may outlive the test that started it (slower on PostgreSQL), and must
// not run into the next test or the process's teardown of its connection.
// Pages never wait for it themselves.
inline void waitForBackgroundWork() { QThreadPool::globalInstance()->waitForDone(); }

} // namespace guitest
