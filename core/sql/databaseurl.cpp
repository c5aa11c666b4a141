#include "core/sql/database.h"

#include <QFileInfo>
#include <QRegularExpression>
#include <QStringBuilder>
#include <QStringList>
#include <QUrl>
#include <QUrlQuery>
#include <optional>

// DatabaseUrl: what --db says, in any of its forms (core/sql/database.h).
namespace rw {

namespace {

// libpq parameters a --db may carry besides host, port, user, password and
// database, passed through to the connection.
const QStringList &passedThrough() {
    static const QStringList known = {
        QStringLiteral("sslmode"),         QStringLiteral("options"),
        QStringLiteral("connect_timeout"), QStringLiteral("application_name"),
        QStringLiteral("sslrootcert"),     QStringLiteral("sslcert"),
        QStringLiteral("sslkey"),          QStringLiteral("service"),
        QStringLiteral("passfile"),        QStringLiteral("target_session_attrs"),
        QStringLiteral("hostaddr")};
    return known;
}

QString libpqQuoted(const QString &value) {
    QString quoted = value;
    quoted.replace(u'\\', QStringLiteral("\\\\")).replace(u'\'', QStringLiteral("\\'"));
    return u'\'' % quoted % u'\'';
}

// libpq's keyword/value form ("service=prod", "host=h dbname=w user=op"):
// pairs separated by spaces, a value in single quotes when it has spaces.
std::optional<QList<std::pair<QString, QString>>> conninfoPairs(const QString &text) {
    static const QStringList keys = QStringList(passedThrough())
                                    << QStringLiteral("host") << QStringLiteral("port")
                                    << QStringLiteral("dbname") << QStringLiteral("user")
                                    << QStringLiteral("password");
    QList<std::pair<QString, QString>> pairs;
    qsizetype i = 0;
    const qsizetype n = text.size();
    while (i < n) {
        while (i < n && text[i].isSpace())
            ++i;
        if (i == n)
            break;
        const qsizetype eq = text.indexOf(u'=', i);
        if (eq < 0)
            return std::nullopt;
        const QString key = text.mid(i, eq - i).trimmed();
        if (!keys.contains(key))
            return std::nullopt;
        i = eq + 1;
        while (i < n && text[i].isSpace())
            ++i;
        QString value;
        if (i < n && text[i] == u'\'') {
            ++i;
            while (i < n && text[i] != u'\'') {
                if (text[i] == u'\\' && i + 1 < n)
                    ++i;
                value += text[i++];
            }
            if (i == n)
                return std::nullopt; // an unclosed quote
            ++i;
        } else {
            while (i < n && !text[i].isSpace()) {
                if (text[i] == u'\\' && i + 1 < n)
                    ++i;
                value += text[i++];
            }
        }
        pairs.append({key, value});
    }
    if (pairs.isEmpty())
        return std::nullopt;
    return pairs;
}

} // namespace

Result<DatabaseUrl> DatabaseUrl::parse(const QString &text) {
    DatabaseUrl url;
    if (text.trimmed().isEmpty())
        return badInput(QStringLiteral("--db: no database given (a SQLite path, sqlite:PATH, "
                                       "postgresql://... or trino://...)"));
    QStringList options;
    const auto pass = [&](const QString &key, const QString &value) -> Status {
        if (!passedThrough().contains(key))
            return badInput(
                QStringLiteral("--db: unknown PostgreSQL URL parameter \"%1\" (known: %2)")
                    .arg(key, passedThrough().join(u", ")));
        options << key % u'=' % libpqQuoted(value);
        return {};
    };
    if (text.startsWith(QLatin1String("postgresql://")) ||
        text.startsWith(QLatin1String("postgres://"))) {
        const QUrl parsed(text, QUrl::TolerantMode);
        const QUrlQuery query(parsed);
        // No host: libpq's defaults or a service (postgresql:///?service=prod).
        const bool hasService = query.hasQueryItem(QStringLiteral("service"));
        if (!parsed.isValid() || (parsed.host().isEmpty() && !hasService) ||
            (parsed.path().size() < 2 && !hasService))
            return badInput(QStringLiteral("--db: malformed PostgreSQL URL (expected "
                                           "postgresql://user@host[:port]/dbname or "
                                           "postgresql:///?service=NAME)"));
        url.kind = SqlDialect::Kind::Postgres;
        url.text = text;
        url.host = parsed.host();
        url.port = url.host.isEmpty() ? parsed.port(-1) : parsed.port(5432);
        url.user = parsed.userName(QUrl::FullyDecoded);
        url.password = parsed.password(QUrl::FullyDecoded);
        url.databaseName = parsed.path(QUrl::FullyDecoded).mid(1);
        // The password, when not in the URL, comes from the console's prompt
        // (core/sql/credentials.h), PGPASSWORD, ~/.pgpass or the service.
        for (const auto &[key, value] : query.queryItems(QUrl::FullyDecoded))
            if (auto s = pass(key, value); !s)
                return fail(s.error());
        url.connectOptions = options.join(u';');
        return url;
    }
    if (text.startsWith(QLatin1String("trino://")) || text.startsWith(QLatin1String("trinos://"))) {
        const QUrl parsed(text, QUrl::TolerantMode);
        const QStringList path =
            parsed.path(QUrl::FullyDecoded).mid(1).split(u'/', Qt::KeepEmptyParts);
        if (!parsed.isValid() || parsed.host().isEmpty() || path.size() != 2 || path[0].isEmpty() ||
            path[1].isEmpty() || parsed.userName().isEmpty())
            return badInput(QStringLiteral("--db: malformed Trino URL (expected "
                                           "trino://user@host[:port]/catalog/schema, trinos:// "
                                           "for HTTPS)"));
        const bool tls = parsed.scheme() == QLatin1String("trinos");
        url.kind = SqlDialect::Kind::Trino;
        url.text = text;
        url.host = parsed.host();
        url.port = parsed.port(tls ? 443 : 8080);
        url.user = parsed.userName(QUrl::FullyDecoded);
        url.password = parsed.password(QUrl::FullyDecoded);
        url.databaseName = path.join(u'/');
        // Trino takes a password over HTTPS only; it never reaches a plain
        // HTTP server from Rewind either.
        if (!url.password.isEmpty() && !tls)
            return badInput(QStringLiteral("--db %1: a password is sent over HTTPS only: write "
                                           "trinos://")
                                .arg(url.display()));
        if (parsed.hasQuery())
            return badInput(QStringLiteral("--db %1: a Trino URL takes no parameters (\"%2\")")
                                .arg(url.display(), parsed.query()));
        url.connectOptions = tls ? QStringLiteral("tls=1") : QString();
        return url;
    }
    if (!text.startsWith(QLatin1String("sqlite:"))) {
        if (const auto pairs = conninfoPairs(text)) {
            url.kind = SqlDialect::Kind::Postgres;
            url.text = text;
            url.port = -1;
            for (const auto &[key, value] : *pairs) {
                if (key == QLatin1String("host"))
                    url.host = value;
                else if (key == QLatin1String("port"))
                    url.port = value.toInt();
                else if (key == QLatin1String("dbname"))
                    url.databaseName = value;
                else if (key == QLatin1String("user"))
                    url.user = value;
                else if (key == QLatin1String("password"))
                    url.password = value;
                else if (auto s = pass(key, value); !s)
                    return fail(s.error());
            }
            if (!url.host.isEmpty() && url.port < 0)
                url.port = 5432;
            url.connectOptions = options.join(u';');
            return url;
        }
    }
    // "word=..." that is not a file: libpq's keyword/value form Rewind could
    // not read. Refused without echoing it (it may hold a password).
    static const QRegularExpression keyword(QStringLiteral("^\\s*[A-Za-z_]+\\s*="));
    if (keyword.match(text).hasMatch() && !QFileInfo::exists(text))
        return badInput(QStringLiteral("--db: not a file, and not libpq's keyword/value form as "
                                       "Rewind reads it (parameters: host, port, dbname, user, "
                                       "password, %1; values quoted with ' when they hold "
                                       "spaces)")
                            .arg(passedThrough().join(u", ")));
    url.kind = SqlDialect::Kind::Sqlite;
    url.text = text;
    url.path = text.startsWith(QLatin1String("sqlite:")) ? text.mid(7) : text;
    if (url.path.startsWith(QLatin1String("//")))
        url.path = url.path.mid(2); // sqlite:///abs/path
    if (url.path.isEmpty())
        return badInput(QStringLiteral("--db: empty SQLite path"));
    return url;
}

QString DatabaseUrl::display() const {
    if (kind == SqlDialect::Kind::Sqlite)
        return path;
    if (kind == SqlDialect::Kind::Trino)
        return (connectOptions.isEmpty() ? QStringLiteral("trino://")
                                         : QStringLiteral("trinos://")) %
               user % u'@' % host % u':' % QString::number(port) % u'/' % databaseName;
    QString out = QStringLiteral("postgresql://") % (user.isEmpty() ? QString() : user % u'@') %
                  host % (port < 0 ? QString() : u':' % QString::number(port)) % u'/' %
                  databaseName;
    // A service names the server: shown, as it is no secret.
    for (const QString &option : connectOptions.split(u';', Qt::SkipEmptyParts))
        if (option.startsWith(QLatin1String("service=")))
            out += QStringLiteral("?service=") % option.mid(8).chopped(1).mid(1);
    return out;
}

QString DatabaseUrl::withoutPassword() const {
    if (kind == SqlDialect::Kind::Sqlite || password.isEmpty())
        return text;
    if (text.startsWith(QLatin1String("postgres")) || kind == SqlDialect::Kind::Trino) {
        QUrl parsed(text, QUrl::TolerantMode);
        parsed.setPassword(QString());
        return parsed.toString();
    }
    // The keyword/value form, written again without the password.
    QStringList out;
    if (!host.isEmpty())
        out << QStringLiteral("host=") % libpqQuoted(host);
    if (port >= 0)
        out << QStringLiteral("port=") % QString::number(port);
    if (!databaseName.isEmpty())
        out << QStringLiteral("dbname=") % libpqQuoted(databaseName);
    if (!user.isEmpty())
        out << QStringLiteral("user=") % libpqQuoted(user);
    for (const QString &option : connectOptions.split(u';', Qt::SkipEmptyParts))
        out << option;
    return out.join(u' ');
}

} // namespace rw
