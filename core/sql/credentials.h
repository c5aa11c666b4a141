#pragma once

#include "core/sql/database.h"

namespace rw::credentials {

// Passwords this process was given (in a --db URL, or typed into the
// console's prompt), held in memory only: never written to a setting, a log,
// an audit row, JSON or a report. A connection uses the one remembered for
// its login when its URL carries none, else libpq finds one itself
// (PGPASSWORD, ~/.pgpass or PGPASSFILE, a service file). Thread-safe.

// The login a password belongs to: the URL without its password.
QString loginOf(const DatabaseUrl &url);
void remember(const DatabaseUrl &url, const QString &password);
QString lookup(const DatabaseUrl &url);
void forget(const DatabaseUrl &url);

// A --db text with its password taken out and remembered: the text to keep,
// show and store. Anything that is not a PostgreSQL URL or conninfo with a
// password comes back unchanged.
QString takePassword(const QString &dbText);

} // namespace rw::credentials
