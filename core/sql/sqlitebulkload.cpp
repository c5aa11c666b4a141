#include "core/sql/bulkload.h"
#include "core/sql/sqliteapi.h"

#include <QStringBuilder>
#include <limits>

namespace rw::bulkload_detail {

namespace {

// One prepared INSERT, bound from the caller's bytes (SQLITE_STATIC: they
// outlive the step) and stepped once per row.
class SqliteLoad final : public BulkLoad {
public:
    SqliteLoad(sqlite::sqlite3 *db, sqlite::sqlite3_stmt *stmt, int columns)
        : m_db(db)
        , m_stmt(stmt)
        , m_columns(columns) {}
    ~SqliteLoad() override { sqlite::api().finalize(m_stmt); }

    Status add(std::span<const BulkValue> row) override {
        const sqlite::Api &a = sqlite::api();
        if (int(row.size()) != m_columns)
            return internalError(QStringLiteral("a bulk-loaded row of %1 values into %2 columns")
                                     .arg(row.size())
                                     .arg(m_columns));
        for (int i = 0; i < m_columns; ++i) {
            const BulkValue &v = row[std::size_t(i)];
            if (v.bytes.size() > std::size_t(std::numeric_limits<int>::max()))
                return internalError(QStringLiteral("a value of %1 bytes is over SQLite's limit")
                                         .arg(v.bytes.size()));
            int rc = sqlite::kOk;
            switch (v.type) {
            case BulkValue::Type::Null:
                rc = a.bindNull(m_stmt, i + 1);
                break;
            case BulkValue::Type::Integer:
                rc = a.bindInt64(m_stmt, i + 1, v.integer);
                break;
            case BulkValue::Type::Text:
                // An empty view may have no data pointer: SQLite binds a null pointer as NULL.
                rc = a.bindText(m_stmt, i + 1, v.bytes.data() ? v.bytes.data() : "",
                                int(v.bytes.size()), sqlite::borrowed());
                break;
            case BulkValue::Type::Bytes:
                rc = a.bindBlob(m_stmt, i + 1, v.bytes.data() ? v.bytes.data() : "",
                                int(v.bytes.size()), sqlite::borrowed());
                break;
            }
            if (rc != sqlite::kOk)
                return failed();
        }
        const int rc = a.step(m_stmt);
        a.reset(m_stmt);
        if (rc != sqlite::kDone)
            return failed();
        return {};
    }

    Status finish() override { return {}; }

private:
    Status failed() const { return internalError(QString::fromUtf8(sqlite::api().errmsg(m_db))); }

    sqlite::sqlite3 *m_db;
    sqlite::sqlite3_stmt *m_stmt;
    int m_columns;
};

} // namespace

std::unique_ptr<BulkLoad> openSqlite(QSqlDatabase &connection, const QString &table,
                                     const QStringList &columns, QString &error) {
    const sqlite::Api &a = sqlite::api();
    if (!a.statementsComplete())
        return nullptr;
    QString handleError;
    sqlite::sqlite3 *db = sqlite::handleOf(connection, handleError);
    if (!db)
        return nullptr;
    QStringList marks;
    for (qsizetype i = 0; i < columns.size(); ++i)
        marks << QStringLiteral("?");
    const QByteArray sql =
        QString(QStringLiteral("INSERT INTO ") % table % QStringLiteral(" (") %
                columns.join(QStringLiteral(", ")) % QStringLiteral(") VALUES (") %
                marks.join(QStringLiteral(", ")) % u')')
            .toUtf8();
    sqlite::sqlite3_stmt *stmt = nullptr;
    if (a.prepare(db, sql.constData(), int(sql.size()), &stmt, nullptr) != sqlite::kOk) {
        error = QString::fromUtf8(a.errmsg(db));
        a.finalize(stmt);
        return nullptr;
    }
    return std::make_unique<SqliteLoad>(db, stmt, int(columns.size()));
}

} // namespace rw::bulkload_detail
