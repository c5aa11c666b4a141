#include "core/sql/credentials.h"

#include <QHash>
#include <QMutex>

namespace rw::credentials {

namespace {

QMutex &mutex() {
    static QMutex m;
    return m;
}

QHash<QString, QString> &store() {
    static QHash<QString, QString> passwords;
    return passwords;
}

} // namespace

QString loginOf(const DatabaseUrl &url) {
    return url.withoutPassword();
}

void remember(const DatabaseUrl &url, const QString &password) {
    QMutexLocker lock(&mutex());
    if (password.isEmpty())
        store().remove(loginOf(url));
    else
        store().insert(loginOf(url), password);
}

QString lookup(const DatabaseUrl &url) {
    QMutexLocker lock(&mutex());
    return store().value(loginOf(url));
}

void forget(const DatabaseUrl &url) {
    remember(url, QString());
}

QString takePassword(const QString &dbText) {
    auto url = DatabaseUrl::parse(dbText);
    if (!url || url->kind == SqlDialect::Kind::Sqlite || url->password.isEmpty())
        return dbText;
    remember(*url, url->password);
    return url->withoutPassword();
}

} // namespace rw::credentials
