#pragma once

#include "core/sql/sqldialect.h"
#include "core/util/error.h"

#include <QSqlDatabase>
#include <QSqlQuery>
#include <QString>
#include <QVariant>
#include <functional>
#include <memory>
#include <optional>
#include <vector>

namespace rw {

// A parsed --db argument: a SQLite path, `sqlite:PATH`, or
// `postgresql://user[:password]@host[:port]/dbname[?sslmode=...&options=...]`,
// or libpq's keyword/value form.
struct DatabaseUrl {
    SqlDialect::Kind kind = SqlDialect::Kind::Sqlite;
    QString text; // as given: what another process opens the same database with
    QString path; // SQLite file
    QString host;
    int port = 0;
    QString user;
    QString password;
    QString databaseName;
    QString connectOptions; // libpq parameters, "key='value';..."

    // Also libpq's keyword/value form ("service=prod", "host=h dbname=w
    // user=op"), and a URL with a service and no host
    // (postgresql:///?service=prod). `port` is -1 where libpq chooses it.
    static Result<DatabaseUrl> parse(const QString &text);
    // For messages: never includes a password.
    QString display() const;
    // The text as given, less its password: what may be stored (the
    // console's recent workspaces) and opened again, the password then
    // coming from elsewhere (core/sql/credentials.h).
    QString withoutPassword() const;
};

struct ColumnInfo {
    QString name;
    QString type;
    bool strict = false; // a SQLite STRICT table's: values its type does not take are refused
    // The database fills it when an INSERT does not: a DEFAULT, an identity
    // or a generated column.
    bool databaseFilled = false;
};

// A handle on one database. Cheap to copy; copies share one identity.
//
// Threading: a QSqlDatabase may only be used by the thread that opened it, so
// every thread that calls into a Database gets its own connection, opened on
// first use and closed when the last copy of the handle is destroyed (for the
// destroying thread) or at process exit. Never pass a QSqlQuery across threads.
class Database {
public:
    enum class OpenMode { MustExist, CreateIfMissing };

    static Result<Database> open(const QString &url, OpenMode mode = OpenMode::MustExist);

    const SqlDialect &dialect() const;
    const DatabaseUrl &url() const;
    QString quote(const QString &identifier) const { return dialect().quote(identifier); }
    // The quoted name of a user table or view as a spec names it. On
    // PostgreSQL, `sales.fact_sales` is table fact_sales in schema sales
    // ("sales"."fact_sales"), unless a visible relation is named by the whole
    // dotted name; SQLite names are always one identifier.
    QString quoteTable(const QString &name) const;

    // This thread's connection, opened (with the dialect's session set-up) on first use.
    Result<QSqlDatabase> connection() const;
    // Closes this thread's connection, if it has one: a worker thread about
    // to end (another thread that reuses its id then opens a new session).
    void closeThreadConnection() const;
    // Whether a connection opened on another thread reaches the same data: a
    // server, or an SQLite file (not an in-memory database).
    bool sharedAcrossConnections() const;

    // Where Rewind's control tables live (plans, runs, checkpoints, partition
    // states, audit): this database itself on SQLite and PostgreSQL, whose
    // transactions then cover a data write and its control rows together;
    // for a Trino warehouse, which commits one statement at a time, the
    // transactional store attached to it (attachControl).
    Database control() const;
    void attachControl(const Database &store);
    // Whether control() is another database than this one.
    bool hasSeparateControl() const;

    // Runs one statement with positional bound values. Errors name the statement.
    Result<QSqlQuery> exec(const QString &sql, const QVariantList &binds = {}) const;
    // First column of the first row, or a null QVariant when there is no row.
    Result<QVariant> scalar(const QString &sql, const QVariantList &binds = {}) const;
    // Runs a semicolon-free script of statements one by one.
    Status execAll(const QStringList &statements) const;
    // A multi-row statement: `head` (as "INSERT INTO t (a, b) VALUES "), then
    // `row` (as "(?, ?)") once per row of `binds` (`columns` values each,
    // row after row), comma-separated, then `tail` (an upsert clause). Runs
    // as few statements as the engine's limit on bound values allows: a
    // chunk's checkpoints, states and audit rows in one round trip, not one
    // per partition. No rows: nothing runs.
    Status execRows(const QString &head, const QString &row, int columns, const QVariantList &binds,
                    const QString &tail = QString()) const;

    // Runs `body` inside a write transaction (BEGIN IMMEDIATE on SQLite):
    // commits when it succeeds, rolls back when it fails.
    Status writeTransaction(const std::function<Status()> &body) const;

    // Catalog. Names are matched exactly (case-sensitively) so that a quoted
    // identifier always means what the spec says.
    Result<QStringList> relations() const;
    Result<bool> hasRelation(const QString &name) const;
    Result<std::vector<ColumnInfo>> columns(const QString &relation) const;
    // Where a table named `name` that does not exist yet would be created:
    // the schema (empty when there is none to create it in), whether that
    // exists and whether this session may create tables in it. nullopt where
    // names carry no schema (SQLite). PostgreSQL: `sales.x` goes to schema
    // sales, an unqualified name to the first existing schema of the search
    // path.
    struct NewTableHome {
        QString schema;
        bool schemaExists = false;
        bool mayCreate = false;
    };
    Result<std::optional<NewTableHome>> newTableHome(const QString &name) const;
    // The quoted name of an existing relation, or a BadInput error naming it.
    Result<QString> quotedRelation(const QString &name) const;
    // The columns a SELECT yields, by running it with LIMIT 0.
    // The column names a SELECT yields; `nativeTypes`, when given, gets each
    // column's engine type id as the driver reports it (PostgreSQL: the type
    // OID; -1 when unknown).
    Result<QStringList> selectColumns(const QString &select,
                                      QList<int> *nativeTypes = nullptr) const;

    // Runs `attempt` (typically a writeTransaction) again while it fails with a
    // transient lock error, with exponential backoff and jitter (100 ms
    // doubling, capped at 5 s), at most `maxAttempts` times.
    static Status retryTransient(int maxAttempts, const std::function<Status()> &attempt);
    // How long a statement waits for another session's lock
    // (REWIND_BUSY_TIMEOUT_MS, 5000 by default): SQLite's busy timeout,
    // PostgreSQL's lock_timeout.
    static int busyTimeoutMs();
    // The wait before attempt number `attempt + 1`.
    static int backoffMs(int attempt);

    // SQLite: whether the control table rewind_writer exists (cached once true).
    bool hasWriterTable() const;
    // Whether this thread's connection is inside writeTransaction().
    bool inWriteTransaction() const;

private:
    struct Shared;
    explicit Database(std::shared_ptr<Shared> shared)
        : m_shared(std::move(shared)) {}
    std::shared_ptr<Shared> m_shared;
};

} // namespace rw
