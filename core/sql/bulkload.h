#pragma once

#include "core/util/error.h"

#include <QSqlDatabase>
#include <QString>
#include <QStringList>
#include <memory>
#include <span>
#include <string_view>

namespace rw {

// One value of a bulk-loaded row. Borrowed: the bytes must stay valid until
// the add() they are passed to returns.
struct BulkValue {
    enum class Type { Null, Integer, Text, Bytes };
    Type type = Type::Null;
    qint64 integer = 0;
    std::string_view bytes; // Text: UTF-8; Bytes: as they are

    static BulkValue null() { return {}; }
    static BulkValue of(qint64 v) { return {Type::Integer, v, {}}; }
    static BulkValue text(std::string_view utf8) { return {Type::Text, 0, utf8}; }
    static BulkValue blob(std::string_view b) { return {Type::Bytes, 0, b}; }
};

// Rows appended to one table on the calling thread's connection, without a
// QVariant or a statement text per row: SQLite steps one prepared INSERT
// bound straight from the bytes; PostgreSQL streams COPY ... FROM STDIN.
// Either joins the transaction the connection is in. The rows are all in the
// table once finish() has returned; an error from add() or finish() names
// the engine's message, and a load given up unfinished (destroyed) leaves
// what it added to the caller's rollback (PostgreSQL: the COPY is aborted,
// which fails the transaction it is in).
// Where a driver does not expose its handle, or the engine's library cannot
// be reached, rows go in as multi-row INSERTs through Qt SQL instead.
class BulkLoad {
public:
    virtual ~BulkLoad() = default;
    virtual Status add(std::span<const BulkValue> row) = 0;
    virtual Status finish() = 0;

    // A load into `table` (a name as the SQL may write it, quoted if need
    // be) of `columns` (quoted), in that order, on `connection`.
    static Result<std::unique_ptr<BulkLoad>> open(QSqlDatabase connection, const QString &table,
                                                  const QStringList &columns);
};

namespace bulkload_detail {
// The engine's own loaders; null where the engine's handle or library is
// out of reach (BulkLoad::open then uses INSERTs).
std::unique_ptr<BulkLoad> openSqlite(QSqlDatabase &connection, const QString &table,
                                     const QStringList &columns, QString &error);
std::unique_ptr<BulkLoad> openPostgres(QSqlDatabase &connection, const QString &table,
                                       const QStringList &columns, QString &error);
} // namespace bulkload_detail

} // namespace rw
