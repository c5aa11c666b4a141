#include "ui/common/settings.h"

#include "core/sql/database.h"

#include <QDir>
#include <QSettings>

namespace rw {

namespace {

template <typename T> struct Key {
    QLatin1StringView name;
    T defaultValue;
};

// Every key with its default, in one place.
const Key<QByteArray> kWindowGeometry{QLatin1StringView("window/geometry"), {}};
const Key<QByteArray> kWindowState{QLatin1StringView("window/state"), {}};
const Key<QString> kLastPage{QLatin1StringView("window/lastPage"), QStringLiteral("partitions")};
const Key<QString> kLastBrowseDir{QLatin1StringView("open/lastDir"), QDir::homePath()};
const QLatin1StringView kRecentArray("recent/workspaces"); // array of {db, spec}; default empty
const QLatin1StringView kRecentDb("db");
const QLatin1StringView kRecentSpec("spec");

// A database as it may be stored: never with its password.
QString storable(const QString &db) {
    auto url = DatabaseUrl::parse(db);
    return url ? url->withoutPassword() : db;
}

template <typename T> T read(const QSettings &s, const Key<T> &key) {
    return s.value(key.name, QVariant::fromValue(key.defaultValue)).template value<T>();
}

template <typename T> void write(QSettings &s, const Key<T> &key, const T &value) {
    s.setValue(key.name, QVariant::fromValue(value));
}

} // namespace

Settings::Settings()
    : m_settings(new QSettings) {}

Settings::~Settings() {
    delete m_settings;
}

std::vector<WorkspaceLocation> Settings::recentWorkspaces() const {
    std::vector<WorkspaceLocation> out;
    bool scrubbed = false;
    const int n = m_settings->beginReadArray(kRecentArray);
    for (int i = 0; i < n && int(out.size()) < kMaxRecentWorkspaces; ++i) {
        m_settings->setArrayIndex(i);
        const QString db = m_settings->value(kRecentDb).toString();
        WorkspaceLocation loc{storable(db), m_settings->value(kRecentSpec).toString()};
        scrubbed = scrubbed || loc.db != db;
        if (!loc.db.isEmpty() && !loc.spec.isEmpty() &&
            std::find(out.begin(), out.end(), loc) == out.end())
            out.push_back(std::move(loc));
    }
    m_settings->endArray();
    // A list an older Rewind stored with a password in it: written again without.
    if (scrubbed)
        writeRecent(out);
    return out;
}

void Settings::addRecentWorkspace(const WorkspaceLocation &given) {
    const WorkspaceLocation location{storable(given.db), given.spec};
    std::vector<WorkspaceLocation> list = recentWorkspaces();
    std::erase(list, location);
    list.insert(list.begin(), location);
    if (int(list.size()) > kMaxRecentWorkspaces)
        list.resize(kMaxRecentWorkspaces);
    writeRecent(list);
}

void Settings::writeRecent(const std::vector<WorkspaceLocation> &list) const {
    m_settings->remove(kRecentArray);
    m_settings->beginWriteArray(kRecentArray, int(list.size()));
    for (int i = 0; i < int(list.size()); ++i) {
        m_settings->setArrayIndex(i);
        m_settings->setValue(kRecentDb, list[i].db);
        m_settings->setValue(kRecentSpec, list[i].spec);
    }
    m_settings->endArray();
}

void Settings::clearRecentWorkspaces() {
    m_settings->remove(kRecentArray);
}

QByteArray Settings::windowGeometry() const {
    return read(*m_settings, kWindowGeometry);
}
void Settings::setWindowGeometry(const QByteArray &geometry) {
    write(*m_settings, kWindowGeometry, geometry);
}
QByteArray Settings::windowState() const {
    return read(*m_settings, kWindowState);
}
void Settings::setWindowState(const QByteArray &state) {
    write(*m_settings, kWindowState, state);
}
QString Settings::lastPage() const {
    return read(*m_settings, kLastPage);
}
void Settings::setLastPage(const QString &page) {
    write(*m_settings, kLastPage, page);
}
QString Settings::lastBrowseDir() const {
    return read(*m_settings, kLastBrowseDir);
}
void Settings::setLastBrowseDir(const QString &dir) {
    write(*m_settings, kLastBrowseDir, dir);
}

} // namespace rw
