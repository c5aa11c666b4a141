#pragma once

#include <QString>

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

// Makes kTrinoDriver available to QSqlDatabase::addDatabase (once).
void registerTrinoDriver();

} // namespace rw
