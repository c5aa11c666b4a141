#include "core/sql/bulkload.h"

#include <QSqlDriver>
#include <QStringBuilder>
#include <QVariant>
#include <charconv>
#include <dlfcn.h>
#include <string>

// COPY ... FROM STDIN through the libpq the Qt PostgreSQL driver has
// loaded: its symbols are resolved from it (dlsym), as core/sql/sqliteapi.h
// does for SQLite, so core links no libpq of its own. The declarations are
// the few of libpq-fe.h used here; its C ABI is stable.
namespace rw::bulkload_detail {

namespace {

struct PGconn;
struct PGresult;

constexpr int kCommandOk = 1;     // PGRES_COMMAND_OK
constexpr int kCopyIn = 4;        // PGRES_COPY_IN
constexpr int kConnectionBad = 1; // CONNECTION_BAD

struct Pq {
    PGresult *(*exec)(PGconn *, const char *) = nullptr;
    PGresult *(*getResult)(PGconn *) = nullptr;
    int (*resultStatus)(const PGresult *) = nullptr;
    char *(*resultErrorMessage)(const PGresult *) = nullptr;
    void (*clear)(PGresult *) = nullptr;
    int (*putCopyData)(PGconn *, const char *, int) = nullptr;
    int (*putCopyEnd)(PGconn *, const char *) = nullptr;
    char *(*errorMessage)(const PGconn *) = nullptr;
    int (*status)(const PGconn *) = nullptr;

    bool complete() const {
        return exec && getResult && resultStatus && resultErrorMessage && clear && putCopyData &&
               putCopyEnd && errorMessage && status;
    }
};

const Pq &pq() {
    static const Pq resolved = [] {
        void *lib = dlopen("libpq.so.5", RTLD_NOW | RTLD_NOLOAD);
        const auto resolve = [lib](auto &fn, const char *name) {
            void *p = lib ? dlsym(lib, name) : nullptr;
            fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(
                p ? p : dlsym(RTLD_DEFAULT, name));
        };
        Pq p;
        resolve(p.exec, "PQexec");
        resolve(p.getResult, "PQgetResult");
        resolve(p.resultStatus, "PQresultStatus");
        resolve(p.resultErrorMessage, "PQresultErrorMessage");
        resolve(p.clear, "PQclear");
        resolve(p.putCopyData, "PQputCopyData");
        resolve(p.putCopyEnd, "PQputCopyEnd");
        resolve(p.errorMessage, "PQerrorMessage");
        resolve(p.status, "PQstatus");
        return p;
    }();
    return resolved;
}

// libpq's messages start with the severity and may run over several lines
// ("ERROR:  ...\nCONTEXT:  COPY ..."): the first line, without it.
QString message(const char *text) {
    QString m = QString::fromUtf8(text).trimmed();
    m = m.section(u'\n', 0, 0);
    for (const QLatin1String prefix : {QLatin1String("ERROR:  "), QLatin1String("FATAL:  ")})
        if (m.startsWith(prefix))
            m = m.mid(prefix.size());
    return m;
}

// The rows as COPY's text format: tab-separated, \N for NULL, backslash
// escapes for the separators; bytea in hex (\\x...). Sent in chunks of
// about a megabyte.
// The server ended the session under a COPY (a restart, a failover,
// pg_terminate_backend): as Database::exec does, the connection is closed,
// so that the next statement opens a new one, and the error is transient,
// so that the caller's retry runs the transaction again.
Error lostConnection(QSqlDatabase &connection, const QString &why) {
    connection.close();
    Error e = Error::internal(
        QStringLiteral("lost the connection to the server during a COPY: %1; the transaction was "
                       "rolled back by the server, a new connection is opened for the next "
                       "statement")
            .arg(why));
    e.transient = true;
    return e;
}

class PostgresLoad final : public BulkLoad {
public:
    PostgresLoad(QSqlDatabase connection, PGconn *conn, int columns)
        : m_connection(std::move(connection))
        , m_conn(conn)
        , m_columns(columns) {
        m_buf.reserve(kChunk + 64 * 1024);
    }
    ~PostgresLoad() override {
        if (m_open) // given up: the COPY fails, and with it the transaction it is in
            end("the load was abandoned");
    }

    Status add(std::span<const BulkValue> row) override {
        if (int(row.size()) != m_columns)
            return internalError(QStringLiteral("a bulk-loaded row of %1 values into %2 columns")
                                     .arg(row.size())
                                     .arg(m_columns));
        static constexpr char kHex[] = "0123456789abcdef";
        for (int i = 0; i < m_columns; ++i) {
            if (i > 0)
                m_buf += '\t';
            const BulkValue &v = row[std::size_t(i)];
            switch (v.type) {
            case BulkValue::Type::Null:
                m_buf += "\\N";
                break;
            case BulkValue::Type::Integer: {
                char digits[24];
                const auto [end, ec] = std::to_chars(digits, digits + sizeof digits, v.integer);
                m_buf.append(digits, end);
            } break;
            case BulkValue::Type::Text:
                for (const char c : v.bytes) {
                    switch (c) {
                    case '\\':
                        m_buf += "\\\\";
                        break;
                    case '\t':
                        m_buf += "\\t";
                        break;
                    case '\n':
                        m_buf += "\\n";
                        break;
                    case '\r':
                        m_buf += "\\r";
                        break;
                    default:
                        m_buf += c;
                    }
                }
                break;
            case BulkValue::Type::Bytes:
                m_buf += "\\\\x";
                for (const char c : v.bytes) {
                    const auto b = static_cast<unsigned char>(c);
                    m_buf += kHex[b >> 4];
                    m_buf += kHex[b & 15];
                }
                break;
            }
        }
        m_buf += '\n';
        return m_buf.size() >= kChunk ? send() : Status{};
    }

    Status finish() override {
        if (!m_open)
            return internalError(QStringLiteral("the COPY has already ended"));
        if (auto s = send(); !s)
            return s;
        return end(nullptr);
    }

private:
    static constexpr std::size_t kChunk = 1 << 20;

    Status send() {
        if (m_buf.empty())
            return {};
        const int rc = pq().putCopyData(m_conn, m_buf.data(), int(m_buf.size()));
        m_buf.clear();
        if (rc != 1) {
            const QString why = message(pq().errorMessage(m_conn));
            if (pq().status(m_conn) == kConnectionBad) {
                m_open = false;
                return fail(lostConnection(m_connection, why));
            }
            end("sending failed");
            return internalError(why);
        }
        return {};
    }

    // Ends the COPY (aborted with `abortReason`) and reads its outcome.
    Status end(const char *abortReason) {
        m_open = false;
        QString error;
        if (pq().putCopyEnd(m_conn, abortReason) != 1)
            error = message(pq().errorMessage(m_conn));
        bool first = true;
        while (PGresult *r = pq().getResult(m_conn)) {
            if (first && error.isEmpty() && pq().resultStatus(r) != kCommandOk)
                error = message(pq().resultErrorMessage(r));
            first = false;
            pq().clear(r);
        }
        if (!error.isEmpty()) {
            if (pq().status(m_conn) == kConnectionBad)
                return fail(lostConnection(m_connection, error));
            return internalError(error);
        }
        return {};
    }

    QSqlDatabase m_connection; // closed when the server ends the session
    PGconn *m_conn;
    int m_columns;
    std::string m_buf;
    bool m_open = true;
};

} // namespace

std::unique_ptr<BulkLoad> openPostgres(QSqlDatabase &connection, const QString &table,
                                       const QStringList &columns, QString &error) {
    const Pq &p = pq();
    if (!p.complete())
        return nullptr;
    const QVariant handle = connection.driver()->handle();
    // Qt names libpq's struct: PGconn is a typedef of pg_conn.
    if (!handle.isValid() ||
        (qstrcmp(handle.typeName(), "pg_conn*") != 0 && qstrcmp(handle.typeName(), "PGconn*") != 0))
        return nullptr;
    PGconn *conn = *static_cast<PGconn *const *>(handle.data());
    if (!conn)
        return nullptr;
    const QByteArray sql =
        QString(QStringLiteral("COPY ") % table % QStringLiteral(" (") %
                columns.join(QStringLiteral(", ")) % QStringLiteral(") FROM STDIN"))
            .toUtf8();
    // PQexec first reads whatever result the driver left unread on the
    // connection (a forward-only query's last rows).
    PGresult *r = p.exec(conn, sql.constData());
    const int status = r ? p.resultStatus(r) : -1;
    if (status != kCopyIn)
        error = message(r ? p.resultErrorMessage(r) : p.errorMessage(conn));
    p.clear(r);
    if (status != kCopyIn) {
        if (p.status(conn) == kConnectionBad)
            connection.close(); // BulkLoad::open reports it transient
        return nullptr;
    }
    return std::make_unique<PostgresLoad>(connection, conn, int(columns.size()));
}

} // namespace rw::bulkload_detail
