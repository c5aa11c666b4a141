#pragma once

#include <QString>
#include <functional>

namespace rw {

// A Qt SQL driver for Trino (registered as kTrinoDriver), speaking Trino's
// client protocol over HTTP with Qt Network: POST /v1/statement, then each
// nextUri in turn until the statement finishes, 502, 503 and 504 retried
// with backoff, a statement left unread cancelled (DELETE of its nextUri).
// The connection's host, port, user and password as QSqlDatabase sets them;
// its database name is "catalog/schema"; connect options "tls=1" for HTTPS.
// Values are written into the statement as literals (formatValue), as
// Database::exec does for PostgreSQL: Trino prepares nothing Rewind needs.
// Rows are read a page at a time, as the server sends them.
inline constexpr char kTrinoDriver[] = "QREWIND_TRINO";

// Trino has no temporary tables. A statement that names this schema (as a
// quoted identifier: "rewind_session_work"."rewind_stage") means the
// connection's own scratch schema in the session's catalog,
// rewind_work_<random>: the driver creates it before the first such
// statement, writes its name in, and drops it (CASCADE) when the connection
// closes, or sooner: a statement dropping kTrinoSessionSchema itself
// (BatchDialect::dropWorkSpace, once a job's work tables are dropped) drops
// the connection's scratch schema, made again on its next use. A worker
// thread's connection closing as the thread ends (threadEnding()) leaves
// it, as does a process killed: a session making its own drops those made
// more than a day before (rewind_work_<yyyyMMddHHmm>_...).
inline constexpr char kTrinoSessionSchema[] = "rewind_session_work";

// True while this thread's connections close because the thread is ending
// (database.cpp): no network round trip can run then.
bool threadEnding();

// The query id Trino gave the last statement this thread sent (empty before
// any): what an Iceberg snapshot's summary records as trino_query_id, so a
// write's own snapshot can be found in the table's $snapshots.
QString lastTrinoQueryId();

// While alive, tells `started` (on this thread) the query id Trino gives
// each statement whose text begins with `prefix`, as soon as the POST that
// registers it returns: Trino submits a statement for execution only when
// its client first follows nextUri, so the id is known before the statement
// can run, let alone commit. A non-empty return from `started` (why the id
// could not be kept) cancels the statement unrun, and the statement fails
// with that message. What a write records first, so that its snapshot can
// be found by that id were the process killed.
class TrinoQueryWatch {
public:
    TrinoQueryWatch(QString prefix, std::function<QString(const QString &)> started);
    ~TrinoQueryWatch();
    TrinoQueryWatch(const TrinoQueryWatch &) = delete;
    TrinoQueryWatch &operator=(const TrinoQueryWatch &) = delete;

    const QString &prefix() const { return m_prefix; }
    QString started(const QString &queryId) const;

private:
    QString m_prefix;
    std::function<QString(const QString &)> m_started;
    const TrinoQueryWatch *m_outer;
};

// Makes kTrinoDriver available to QSqlDatabase::addDatabase (once).
void registerTrinoDriver();

} // namespace rw
