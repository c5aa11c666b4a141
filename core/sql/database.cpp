#include "core/sql/database.h"

#include "core/sql/credentials.h"
#include "core/sql/sqlitefunctions.h"
#include "core/sql/trinodriver.h"

#include <QAtomicInteger>
#include <QCoreApplication>
#include <QElapsedTimer>
#include <QFileInfo>
#include <QHash>
#include <QLoggingCategory>
#include <QMutex>
#include <QRandomGenerator>
#include <QRegularExpression>
#include <QScopeGuard>
#include <QSet>
#include <QSqlDriver>
#include <QSqlError>
#include <QSqlField>
#include <QSqlRecord>
#include <QStringBuilder>
#include <QThread>
#include <algorithm>

Q_LOGGING_CATEGORY(lcDb, "rewind.db")
// Every statement with its duration: QT_LOGGING_RULES="rewind.sql.debug=true".
Q_LOGGING_CATEGORY(lcSql, "rewind.sql", QtWarningMsg)

namespace rw {

namespace {

QAtomicInteger<quint64> g_nextDatabaseId{1};

// The connections a worker thread opened, closed and removed when the thread
// ends. A pool thread that expires then leaves no session open on the
// server, and a later thread given the same id (the connection's name
// carries it) opens its own instead of finding one that Qt says belongs to
// another thread. The main thread's connections live as long as the process.
thread_local bool t_ending = false;

struct ThreadConnections {
    QStringList names;
    ~ThreadConnections() {
        t_ending = true;
        // Removing the last handle deletes the driver, which closes it.
        for (const QString &name : std::as_const(names))
            QSqlDatabase::removeDatabase(name);
    }
};
thread_local ThreadConnections t_connections;

bool onWorkerThread() {
    const QCoreApplication *app = QCoreApplication::instance();
    return app && QThread::currentThread() != app->thread();
}

QString describe(const QSqlError &error) {
    QString text = error.databaseText();
    if (text.isEmpty())
        text = error.text();
    text = text.trimmed();
    // libpq prefixes the severity ("ERROR:  column ... does not exist"):
    // the message reads as SQLite's do without it.
    static const QRegularExpression severity(QStringLiteral("^(ERROR|FATAL|PANIC):\\s+"));
    text.remove(severity);
    return text;
}

QString abbreviate(const QString &sql);

// SQLITE_BUSY (5) and SQLITE_LOCKED (6); PostgreSQL serialization failure,
// deadlock and lock_timeout (lock_not_available).
bool isTransient(const QSqlError &error) {
    const QString code = error.nativeErrorCode();
    return code == QLatin1String("5") || code == QLatin1String("6") ||
           code == QLatin1String("40001") || code == QLatin1String("40P01") ||
           code == QLatin1String("55P03") ||
           error.databaseText().contains(QLatin1String("database is locked"));
}

// The PostgreSQL server ended the session: connection exceptions (class
// 08), administrator or crash shutdown (57P01-57P03), or libpq's own
// message when the socket closed. (SQLite has no session to lose; its
// errors, a full disk among them, are never this.)
bool isConnectionLost(const QSqlError &error) {
    const QString code = error.nativeErrorCode();
    const QString text = error.databaseText() + error.driverText();
    return error.type() == QSqlError::ConnectionError || code.startsWith(QLatin1String("08")) ||
           code == QLatin1String("57P01") || code == QLatin1String("57P02") ||
           code == QLatin1String("57P03") ||
           text.contains(QLatin1String("server closed the connection")) ||
           text.contains(QLatin1String("no connection to the server")) ||
           text.contains(QLatin1String("terminating connection"));
}

// SQLITE_FULL (13), or a size limit reached (PRAGMA max_page_count);
// PostgreSQL disk_full (53100).
bool isDiskFull(const QSqlError &error) {
    const QString code = error.nativeErrorCode();
    return code == QLatin1String("13") || code == QLatin1String("53100") ||
           error.databaseText().contains(QLatin1String("database or disk is full"));
}

Error sqlError(const QSqlError &error, const QString &sql) {
    if (isDiskFull(error))
        return Error::internal(
            QStringLiteral(
                "the disk is full (or the database reached its size limit): %1; the transaction "
                "was "
                "rolled back, nothing of it was written; free space and run again\n  in: %2")
                .arg(describe(error), abbreviate(sql)));
    Error e = Error::internal(
        QStringLiteral("SQL error: %1\n  in: %2").arg(describe(error), abbreviate(sql)));
    e.transient = isTransient(error);
    e.sqlState = error.nativeErrorCode();
    return e;
}

QString abbreviate(const QString &sql) {
    QString oneLine = sql.simplified();
    if (oneLine.size() > 160)
        oneLine = oneLine.left(157) + QStringLiteral("...");
    return oneLine;
}

// `sql` with each `?` outside string literals, quoted identifiers and
// comments replaced by the next value of `binds` as an SQL literal.
Result<QString> withLiterals(const QString &sql, const QVariantList &binds,
                             const QSqlDriver &driver) {
    if (binds.isEmpty())
        return sql;
    QString out;
    out.reserve(sql.size() + 16 * binds.size());
    qsizetype next = 0;
    for (qsizetype i = 0; i < sql.size(); ++i) {
        const QChar c = sql[i];
        if (c == u'\'' || c == u'"') {
            const qsizetype end = sql.indexOf(c, i + 1);
            const qsizetype stop = end < 0 ? sql.size() : end + 1;
            out += QStringView(sql).mid(i, stop - i);
            i = stop - 1;
        } else if (c == u'-' && i + 1 < sql.size() && sql[i + 1] == u'-') {
            const qsizetype end = sql.indexOf(u'\n', i);
            const qsizetype stop = end < 0 ? sql.size() : end;
            out += QStringView(sql).mid(i, stop - i);
            i = stop - 1;
        } else if (c == u'/' && i + 1 < sql.size() && sql[i + 1] == u'*') {
            const qsizetype end = sql.indexOf(QLatin1String("*/"), i + 2);
            const qsizetype stop = end < 0 ? sql.size() : end + 2;
            out += QStringView(sql).mid(i, stop - i);
            i = stop - 1;
        } else if (c == u'?') {
            if (next >= binds.size())
                return internalError(
                    QStringLiteral("more placeholders than the %1 bound values in: %2")
                        .arg(binds.size())
                        .arg(abbreviate(sql)));
            const QVariant &value = binds[next++];
            QSqlField field(QString(), value.metaType());
            field.setValue(value);
            out += driver.formatValue(field);
        } else {
            out += c;
        }
    }
    if (next != binds.size())
        return internalError(QStringLiteral("%1 bound values for %2 placeholders in: %3")
                                 .arg(binds.size())
                                 .arg(next)
                                 .arg(abbreviate(sql)));
    return out;
}

} // namespace

bool threadEnding() {
    return t_ending;
}

struct Database::Shared {
    quint64 id = 0;
    DatabaseUrl url;
    std::shared_ptr<const SqlDialect> dialect;
    QMutex mutex;
    QSet<QString> connectionNames;
    QSet<QString> inTransaction; // connections inside writeTransaction()
    bool writerTable = false; // SQLite: rewind_writer exists (a frozen target's triggers read it)
    QHash<QString, QString> quotedTables; // quoteTable() answers that needed the catalog
    std::shared_ptr<Shared> control;      // attachControl(): the control tables' store

    ~Shared() {
        // Only the current thread's connection can be closed safely here; the
        // others belong to threads that may still be running.
        const QString mine = connectionName();
        if (connectionNames.contains(mine)) {
            QSqlDatabase::database(mine, false).close();
            QSqlDatabase::removeDatabase(mine);
        }
    }

    QString connectionName() const {
        return QStringLiteral("rewind-%1-%2")
            .arg(id)
            .arg(reinterpret_cast<quintptr>(QThread::currentThreadId()));
    }
};

const SqlDialect &Database::dialect() const {
    return *m_shared->dialect;
}
const DatabaseUrl &Database::url() const {
    return m_shared->url;
}

Database Database::control() const {
    QMutexLocker lock(&m_shared->mutex);
    return m_shared->control ? Database(m_shared->control) : *this;
}

void Database::attachControl(const Database &store) {
    QMutexLocker lock(&m_shared->mutex);
    m_shared->control = store.m_shared;
}

bool Database::hasSeparateControl() const {
    QMutexLocker lock(&m_shared->mutex);
    return m_shared->control != nullptr;
}

Result<Database> Database::open(const QString &text, OpenMode mode) {
    auto url = DatabaseUrl::parse(text);
    if (!url)
        return fail(url.error());
    auto dialect = makeDialect(url->kind);
    if (!dialect)
        return badInput(QStringLiteral("--db %1: the %2 backend is not available in this build")
                            .arg(url->display(), QStringLiteral("PostgreSQL")));
    if (url->kind == SqlDialect::Kind::Sqlite && mode == OpenMode::MustExist &&
        !QFileInfo::exists(url->path))
        return badInput(QStringLiteral("--db %1: no such database file").arg(url->path));
    if (!QSqlDatabase::isDriverAvailable(dialect->driverName()))
        return internalError(
            QStringLiteral("the Qt SQL driver %1 is not installed (Debian: %2)")
                .arg(dialect->driverName(), url->kind == SqlDialect::Kind::Sqlite
                                                ? QStringLiteral("libqt6sql6-sqlite")
                                                : QStringLiteral("libqt6sql6-psql")));

    auto shared = std::make_shared<Shared>();
    shared->id = g_nextDatabaseId.fetchAndAddRelaxed(1);
    shared->url = *url;
    shared->dialect = std::move(dialect);
    Database db(std::move(shared));
    if (auto conn = db.connection(); !conn)
        return fail(conn.error());
    return db;
}

Result<QSqlDatabase> Database::connection() const {
    const QString name = m_shared->connectionName();
    bool known = false;
    {
        QMutexLocker lock(&m_shared->mutex);
        known = m_shared->connectionNames.contains(name);
    }
    if (known) {
        QSqlDatabase existing = QSqlDatabase::database(name, false);
        if (existing.isOpen())
            return existing;
        // Closed after the server dropped it (see exec()): opened again below,
        // with the session set-up, under the same name; but never inside the
        // write transaction it was running, whose statements must not go on
        // in autocommit on a new session.
        QMutexLocker lock(&m_shared->mutex);
        if (m_shared->inTransaction.contains(name)) {
            Error e = Error::internal(QStringLiteral("the connection to %1 was lost inside a "
                                                     "transaction, which the server rolled back")
                                          .arg(m_shared->url.display()));
            e.transient = true;
            return fail(e);
        }
        m_shared->connectionNames.remove(name);
    }
    const bool added = !QSqlDatabase::contains(name);
    QSqlDatabase conn = added ? QSqlDatabase::addDatabase(m_shared->dialect->driverName(), name)
                              : QSqlDatabase::database(name, false);
    if (added && onWorkerThread())
        t_connections.names << name;
    const DatabaseUrl &url = m_shared->url;
    // How long a statement waits for another writer's lock before reporting
    // "busy" (then the batch core retries with backoff).
    const int busyMs = busyTimeoutMs();
    if (url.kind == SqlDialect::Kind::Sqlite) {
        sqlite::configureLibrary(); // the driver, just added, has loaded the library
        conn.setDatabaseName(url.path);
        conn.setConnectOptions(QStringLiteral("QSQLITE_BUSY_TIMEOUT=%1").arg(busyMs));
    } else {
        conn.setHostName(url.host);
        conn.setPort(url.port);
        conn.setUserName(url.user);
        // The URL's, else the console's prompt's (core/sql/credentials.h);
        // Trino's, else TRINO_PASSWORD as Trino's own CLI reads it.
        QString password = url.password.isEmpty() ? credentials::lookup(url) : url.password;
        if (password.isEmpty() && url.kind == SqlDialect::Kind::Trino)
            password = qEnvironmentVariable("TRINO_PASSWORD");
        conn.setPassword(password);
        conn.setDatabaseName(url.databaseName);
        if (!url.connectOptions.isEmpty())
            conn.setConnectOptions(url.connectOptions);
    }
    if (!conn.open()) {
        const QString why = describe(conn.lastError());
        conn = QSqlDatabase();
        QSqlDatabase::removeDatabase(name);
        // A database the server does not have is bad input, as a missing
        // SQLite file is (exit 2); an unreachable server is not.
        if (url.kind == SqlDialect::Kind::Postgres &&
            why.contains(QStringLiteral("database \"%1\" does not exist").arg(url.databaseName)))
            return badInput(
                QStringLiteral("--db %1: no such database on the server").arg(url.display()));
        if (url.kind == SqlDialect::Kind::Postgres &&
            (why.contains(QLatin1String("no password supplied")) ||
             why.contains(QLatin1String("password authentication failed")))) {
            const QString role = url.user.isEmpty() ? QStringLiteral("(your login)") : url.user;
            Error e = Error::badInput(
                QStringLiteral("--db %1: the server wants the password of role %2 and %3 (give "
                               "it in ~/.pgpass or PGPASSFILE, PGPASSWORD, a service file, or "
                               "the console's prompt; docs/security.md)")
                    .arg(url.display(), role,
                         why.contains(QLatin1String("no password supplied"))
                             ? QStringLiteral("none was found")
                             : QStringLiteral("refused the one given")));
            e.needsPassword = true;
            return fail(e);
        }
        return internalError(QStringLiteral("cannot open database %1: %2").arg(url.display(), why));
    }
    for (const QString &statement : m_shared->dialect->sessionSetup()) {
        QSqlQuery q(conn);
        if (!q.exec(statement))
            return internalError(QStringLiteral("cannot set up database %1 (%2): %3")
                                     .arg(url.display(), statement, describe(q.lastError())));
    }
    if (url.kind == SqlDialect::Kind::Postgres) {
        QSqlQuery q(conn);
        if (!q.exec(QStringLiteral("SET lock_timeout = %1").arg(busyMs)))
            return internalError(QStringLiteral("cannot set lock_timeout on %1: %2")
                                     .arg(url.display(), describe(q.lastError())));
    }
    if (url.kind == SqlDialect::Kind::Sqlite) {
        // Durability across power loss: NORMAL (the default) may lose the
        // last commits, never consistency; FULL or EXTRA syncs every commit.
        const QByteArray sync = qgetenv("REWIND_SQLITE_SYNCHRONOUS").toUpper();
        if (!sync.isEmpty()) {
            if (sync != "NORMAL" && sync != "FULL" && sync != "EXTRA")
                return badInput(
                    QStringLiteral("REWIND_SQLITE_SYNCHRONOUS=%1: expected NORMAL, FULL or EXTRA")
                        .arg(QString::fromLatin1(sync)));
            QSqlQuery q(conn);
            if (!q.exec(QStringLiteral("PRAGMA synchronous=") % QString::fromLatin1(sync)))
                return internalError(
                    QStringLiteral("cannot set synchronous=%1 on %2: %3")
                        .arg(QString::fromLatin1(sync), url.display(), describe(q.lastError())));
        }
        if (auto registered = registerSqliteFunctions(conn); !registered)
            return fail(registered.error());
    }
    QMutexLocker lock(&m_shared->mutex);
    m_shared->connectionNames.insert(name);
    return conn;
}

void Database::closeThreadConnection() const {
    const QString name = m_shared->connectionName();
    {
        QMutexLocker lock(&m_shared->mutex);
        if (!m_shared->connectionNames.remove(name))
            return;
    }
    QSqlDatabase::database(name, false).close();
    QSqlDatabase::removeDatabase(name);
}

bool Database::sharedAcrossConnections() const {
    const DatabaseUrl &url = m_shared->url;
    if (url.kind != SqlDialect::Kind::Sqlite)
        return true;
    return !url.path.isEmpty() && !url.path.startsWith(u':') &&
           !url.path.startsWith(QLatin1String("file:")) && QFileInfo(url.path).isFile();
}

Result<QSqlQuery> Database::exec(const QString &sql, const QVariantList &binds) const {
    auto conn = connection();
    if (!conn)
        return fail(conn.error());
    QSqlError failure;
    {
        QSqlQuery query(*conn);
        query.setForwardOnly(true);
        QElapsedTimer timer;
        timer.start();
        // PostgreSQL: the bound values are written into the statement as
        // literals by the driver's own escaping (what Qt's PREPARE/EXECUTE path
        // sends anyway), because PostgreSQL prepares only DML (the core binds
        // values into CREATE TABLE ... AS too) and infers a literal's type from
        // its context where a bare parameter ("SELECT ?") has none.
        // Trino prepares nothing either: its statements carry literals too.
        if (dialect().kind() != SqlDialect::Kind::Sqlite) {
            auto text = withLiterals(sql, binds, *conn->driver());
            if (!text)
                return fail(text.error());
            if (query.exec(*text)) {
                qCDebug(lcSql).noquote() << timer.elapsed() << "ms" << abbreviate(sql);
                return query;
            }
            failure = query.lastError();
        } else if (!query.prepare(sql)) {
            failure = query.lastError();
        } else {
            for (const QVariant &value : binds)
                query.addBindValue(value);
            if (query.exec()) {
                qCDebug(lcSql).noquote() << timer.elapsed() << "ms" << abbreviate(sql);
                return query;
            }
            failure = query.lastError();
        }
    }
    if (dialect().kind() == SqlDialect::Kind::Postgres && isConnectionLost(failure)) {
        // The open transaction died with the session: the caller's retry
        // (retryTransient) starts it again on a new connection, which the
        // next statement opens.
        conn->close();
        Error e = Error::internal(
            QStringLiteral(
                "lost the connection to %1: %2; the transaction was rolled back by the server, "
                "a new connection is opened for the next statement\n  in: %3")
                .arg(url().display(), describe(failure), abbreviate(sql)));
        e.transient = true;
        return fail(e);
    }
    return fail(sqlError(failure, sql));
}

Result<QVariant> Database::scalar(const QString &sql, const QVariantList &binds) const {
    auto query = exec(sql, binds);
    if (!query)
        return fail(query.error());
    if (!query->next())
        return QVariant();
    return query->value(0);
}

Status Database::execAll(const QStringList &statements) const {
    for (const QString &statement : statements) {
        if (auto r = exec(statement); !r)
            return fail(r.error());
    }
    return {};
}

Status Database::execRows(const QString &head, const QString &row, int columns,
                          const QVariantList &binds, const QString &tail) const {
    Q_ASSERT(columns > 0 && binds.size() % columns == 0);
    // At most about 500 bound values a statement: Qt's SQLite driver names
    // each placeholder, and SQLite looks every name up in a list, so one
    // statement's cost grows with the square of its values (perf: 1,000 rows
    // of 7 values took 200-300 ms, sqlite3VListNumToName and strncmp; the
    // same statement from Python's sqlite3, 14 ms). Far below SQLite's
    // limit of 32,766 values and PostgreSQL's 65,535.
    const qsizetype perStatement = std::max<qsizetype>(1, 500 / columns);
    const qsizetype rows = binds.size() / columns;
    for (qsizetype first = 0; first < rows; first += perStatement) {
        const qsizetype n = std::min(perStatement, rows - first);
        QString text = head;
        text.reserve(head.size() + n * (row.size() + 2) + tail.size());
        for (qsizetype i = 0; i < n; ++i) {
            if (i > 0)
                text += QStringLiteral(", ");
            text += row;
        }
        text += tail;
        if (auto r = exec(text, binds.mid(first * columns, n * columns)); !r)
            return fail(r.error());
    }
    return {};
}

Status Database::writeTransaction(const std::function<Status()> &body) const {
    // A Trino warehouse commits one statement at a time: its writes (a run's
    // publish, a rollback) go one statement per Iceberg snapshot, never
    // through here. Any other write of its data is not built yet, and is
    // refused here before it starts, whatever asks for it (the console's
    // actions included).
    if (dialect().keepsControlApart())
        return badInput(QStringLiteral("%1: this write to a Trino warehouse is not built yet (runs "
                                       "of merge and overwrite_partition datasets, their resumes "
                                       "and rollbacks are: docs/trino.md); nothing was written")
                            .arg(url().display()));
    const QString name = m_shared->connectionName();
    {
        QMutexLocker lock(&m_shared->mutex);
        if (m_shared->inTransaction.contains(name))
            return internalError(
                QStringLiteral("nested write transaction on %1").arg(url().display()));
    }
    if (auto begin = exec(dialect().beginWrite()); !begin)
        return fail(begin.error());
    {
        QMutexLocker lock(&m_shared->mutex);
        m_shared->inTransaction.insert(name);
    }
    const auto leave = qScopeGuard([&] {
        QMutexLocker lock(&m_shared->mutex);
        m_shared->inTransaction.remove(name);
    });
    Status result = execAll(dialect().afterBeginWrite());
    // SQLite: Rewind's mark, which a frozen target's triggers let through;
    // removed before COMMIT, so no other connection ever sees it.
    const bool mark = result && dialect().kind() == SqlDialect::Kind::Sqlite && hasWriterTable();
    if (mark)
        if (auto r = exec(QStringLiteral("INSERT INTO rewind_writer (marker) VALUES (1)")); !r)
            result = fail(r.error());
    if (result)
        result = body();
    if (result && mark)
        if (auto r = exec(QStringLiteral("DELETE FROM rewind_writer")); !r)
            result = fail(r.error());
    if (result) {
        if (auto commit = exec(QStringLiteral("COMMIT")); commit)
            return {};
        else
            result = fail(commit.error());
    }
    // A session the server ended has rolled back already: nothing to send.
    if (!QSqlDatabase::database(name, false).isOpen())
        return result;
    if (auto rollback = exec(QStringLiteral("ROLLBACK")); !rollback)
        qCWarning(lcDb) << "rollback failed:" << rollback.error().message;
    return result;
}

bool Database::inWriteTransaction() const {
    QMutexLocker lock(&m_shared->mutex);
    return m_shared->inTransaction.contains(m_shared->connectionName());
}

bool Database::hasWriterTable() const {
    {
        QMutexLocker lock(&m_shared->mutex);
        if (m_shared->writerTable)
            return true;
    }
    auto found = scalar(QStringLiteral(
        "SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = 'rewind_writer'"));
    if (!found || found->isNull())
        return false;
    QMutexLocker lock(&m_shared->mutex);
    m_shared->writerTable = true;
    return true;
}

int Database::busyTimeoutMs() {
    bool ok = false;
    const int ms = qEnvironmentVariableIntValue("REWIND_BUSY_TIMEOUT_MS", &ok);
    return ok && ms >= 0 ? ms : 5000;
}

int Database::backoffMs(int attempt) {
    const int base = std::min(5000, 100 << std::clamp(attempt - 1, 0, 6)); // attempt 0 as 1
    return base / 2 + int(QRandomGenerator::global()->bounded(base / 2 + 1));
}

Status Database::retryTransient(int maxAttempts, const std::function<Status()> &attempt) {
    for (int n = 1;; ++n) {
        Status result = attempt();
        if (result || !result.error().transient || n >= maxAttempts) {
            if (!result && result.error().transient && n > 1)
                result.error().message =
                    QStringLiteral("the database stayed busy after %1 attempts: %2")
                        .arg(n)
                        .arg(result.error().message);
            return result;
        }
        const int wait = backoffMs(n);
        qCInfo(lcDb) << "database busy or connection lost, retrying in" << wait << "ms (attempt"
                     << n << "of" << maxAttempts << ")";
        QThread::msleep(wait);
    }
}

Result<QStringList> Database::relations() const {
    auto query = exec(dialect().listRelations());
    if (!query)
        return fail(query.error());
    QStringList names;
    while (query->next())
        names << query->value(0).toString();
    return names;
}

Result<bool> Database::hasRelation(const QString &name) const {
    auto query = exec(dialect().findRelation(), {name});
    if (!query)
        return fail(query.error());
    return query->next();
}

QString Database::quoteTable(const QString &name) const {
    const qsizetype dot = name.indexOf(u'.');
    const QString visible = dialect().visibleRelationNamed();
    if (dot <= 0 || dot == name.size() - 1 || visible.isNull())
        return quote(name);
    {
        QMutexLocker lock(&m_shared->mutex);
        if (auto it = m_shared->quotedTables.constFind(name); it != m_shared->quotedTables.cend())
            return *it;
    }
    // A relation whose own name holds the dot wins; a name that cannot be
    // looked up is taken as qualified (and not remembered).
    auto whole = exec(visible, {name});
    const bool literal = whole && whole->next();
    const QString quoted =
        literal ? quote(name) : QString(quote(name.left(dot)) % u'.' % quote(name.mid(dot + 1)));
    if (whole) {
        QMutexLocker lock(&m_shared->mutex);
        m_shared->quotedTables.insert(name, quoted);
    }
    return quoted;
}

Result<std::optional<Database::NewTableHome>> Database::newTableHome(const QString &name) const {
    const QString sql = dialect().schemaForNewTable();
    if (sql.isNull())
        return std::optional<NewTableHome>();
    // Qualified exactly when quoteTable() splits the name.
    const qsizetype dot = name.indexOf(u'.');
    const bool qualified = dot > 0 && quoteTable(name) != quote(name);
    auto q = exec(sql, {qualified ? QVariant(name.left(dot)) : QVariant()});
    if (!q)
        return fail(q.error());
    NewTableHome home;
    if (q->next()) {
        home.schema = q->value(0).toString();
        home.schemaExists = q->value(1).toInt() == 1;
        home.mayCreate = q->value(2).toInt() == 1;
    }
    return std::optional<NewTableHome>(home);
}

Result<std::vector<ColumnInfo>> Database::columns(const QString &relation) const {
    auto query = exec(dialect().listColumns(), {relation});
    if (!query)
        return fail(query.error());
    std::vector<ColumnInfo> result;
    while (query->next())
        result.push_back({query->value(0).toString(), query->value(1).toString(),
                          query->value(2).toInt() == 1, query->value(3).toInt() == 1});
    return result;
}

Result<QString> Database::quotedRelation(const QString &name) const {
    auto exists = hasRelation(name);
    if (!exists)
        return fail(exists.error());
    if (!*exists)
        return badInput(
            QStringLiteral("no table or view named \"%1\" in %2").arg(name, url().display()));
    return quoteTable(name);
}

Result<QStringList> Database::selectColumns(const QString &select, QList<int> *nativeTypes) const {
    auto query = exec(QStringLiteral("SELECT * FROM (") % select %
                      QStringLiteral(") AS rewind_probe LIMIT 0"));
    if (!query)
        return fail(Error::badInput(query.error().message));
    QStringList names;
    const QSqlRecord record = query->record();
    for (int i = 0; i < record.count(); ++i) {
        names << record.fieldName(i);
        if (nativeTypes)
            *nativeTypes << record.field(i).typeID();
    }
    return names;
}

} // namespace rw
