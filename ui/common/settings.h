#pragma once

#include <QByteArray>
#include <QString>
#include <vector>

class QSettings;

namespace rw {

// A database + spec pair as the operator opened it.
struct WorkspaceLocation {
    QString db;
    QString spec;
    bool operator==(const WorkspaceLocation &) const = default;
};

// Typed facade over QSettings: every key and its default live in
// settings.cpp, nowhere else. Use on the GUI thread.
class Settings {
public:
    static constexpr int kMaxRecentWorkspaces = 8;

    Settings();
    ~Settings();
    Settings(const Settings &) = delete;
    Settings &operator=(const Settings &) = delete;

    // Most recent first, at most kMaxRecentWorkspaces, no duplicates. A
    // database is stored without its password (a list stored with one is
    // written again without it when read).
    std::vector<WorkspaceLocation> recentWorkspaces() const;
    void addRecentWorkspace(const WorkspaceLocation &location);
    void clearRecentWorkspaces();

    QByteArray windowGeometry() const;
    void setWindowGeometry(const QByteArray &geometry);
    QByteArray windowState() const;
    void setWindowState(const QByteArray &state);

    // The page shown when the console last closed (a --page name).
    QString lastPage() const;
    void setLastPage(const QString &page);

    // Directory the Open dialog starts browsing in.
    QString lastBrowseDir() const;
    void setLastBrowseDir(const QString &dir);

private:
    void writeRecent(const std::vector<WorkspaceLocation> &list) const;
    QSettings *m_settings;
};

} // namespace rw
