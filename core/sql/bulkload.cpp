#include "core/sql/bulkload.h"

#include <QSqlError>
#include <QSqlQuery>
#include <QStringBuilder>
#include <QVariant>

namespace rw {

namespace {

// Multi-row INSERTs through Qt SQL: where neither engine's own loader can run.
class InsertLoad final : public BulkLoad {
public:
    InsertLoad(QSqlDatabase connection, const QString &table, const QStringList &columns)
        : m_connection(std::move(connection))
        , m_columns(int(columns.size()))
        , m_head(QStringLiteral("INSERT INTO ") % table % QStringLiteral(" (") %
                 columns.join(QStringLiteral(", ")) % QStringLiteral(") VALUES ")) {
        QStringList marks;
        for (int i = 0; i < m_columns; ++i)
            marks << QStringLiteral("?");
        m_row = u'(' % marks.join(QStringLiteral(", ")) % u')';
    }

    Status add(std::span<const BulkValue> row) override {
        if (int(row.size()) != m_columns)
            return internalError(QStringLiteral("a bulk-loaded row of %1 values into %2 columns")
                                     .arg(row.size())
                                     .arg(m_columns));
        for (const BulkValue &v : row) {
            switch (v.type) {
            case BulkValue::Type::Null:
                m_binds << QVariant();
                break;
            case BulkValue::Type::Integer:
                m_binds << v.integer;
                break;
            case BulkValue::Type::Text:
                m_binds << QString::fromUtf8(v.bytes.data(), qsizetype(v.bytes.size()));
                break;
            case BulkValue::Type::Bytes:
                m_binds << QByteArray(v.bytes.data(), qsizetype(v.bytes.size()));
                break;
            }
        }
        return m_binds.size() >= kRows * m_columns ? flush() : Status{};
    }

    Status finish() override { return flush(); }

private:
    static constexpr int kRows = 100;

    Status flush() {
        if (m_binds.isEmpty())
            return {};
        QStringList rows;
        for (qsizetype i = 0; i < m_binds.size() / m_columns; ++i)
            rows << m_row;
        QSqlQuery q(m_connection);
        if (!q.prepare(m_head % rows.join(QStringLiteral(", "))))
            return internalError(q.lastError().text());
        for (qsizetype i = 0; i < m_binds.size(); ++i)
            q.bindValue(int(i), m_binds[i]);
        const bool ok = q.exec();
        m_binds.clear();
        if (!ok)
            return internalError(q.lastError().text());
        return {};
    }

    QSqlDatabase m_connection;
    int m_columns;
    QString m_head, m_row;
    QVariantList m_binds;
};

} // namespace

Result<std::unique_ptr<BulkLoad>> BulkLoad::open(QSqlDatabase connection, const QString &table,
                                                 const QStringList &columns) {
    QString error;
    std::unique_ptr<BulkLoad> load;
    if (connection.driverName() == QLatin1String("QSQLITE"))
        load = bulkload_detail::openSqlite(connection, table, columns, error);
    else if (connection.driverName() == QLatin1String("QPSQL"))
        load = bulkload_detail::openPostgres(connection, table, columns, error);
    if (!error.isEmpty()) {
        Error e = Error::internal(QStringLiteral("cannot load rows into %1: %2").arg(table, error));
        // The server ended the session (the loader closed the connection):
        // a retry runs on a new one.
        e.transient = !connection.isOpen();
        return fail(e);
    }
    if (!load)
        load = std::make_unique<InsertLoad>(std::move(connection), table, columns);
    return load;
}

} // namespace rw
