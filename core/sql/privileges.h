#pragma once

#include "core/sql/database.h"

#include <vector>

namespace rw::privileges {

// What an operation needs of the session's role, checked before it changes
// anything (PostgreSQL: has_table_privilege and friends, one query), so that
// a role that may not do it is told which privilege on which object it
// lacks, and the operation never fails halfway on "permission denied".
struct Need {
    enum class On { Table, Schema, Database };
    On on = On::Table;
    // Table: a name as a spec writes it (a table that does not exist is
    // skipped: the caller needs CREATE on its schema instead). Schema: a
    // name, empty for the session's current schema. Database: empty.
    QString object;
    // Table: SELECT, INSERT, UPDATE, DELETE, TRIGGER, or OWNER (owning
    // the table, or being a member of its owner: ALTER, CREATE INDEX, DROP
    // TRIGGER). Schema: USAGE, CREATE. Database: TEMPORARY, CREATE.
    QString privilege;
    QString role = {}; // what the object is to the operation: "the target", "Rewind's run log"
    // Table: the privilege on each of its partitions too (PostgreSQL makes a
    // row trigger on a partitioned table on every partition, as its maker).
    bool partitions = false;
};

// The schema a table named as a spec writes it is (or would be) in: its
// qualifier, else empty (the session's current schema).
inline QString schemaOf(const QString &table) {
    return table.contains(u'.') ? table.section(u'.', 0, 0) : QString();
}

// USAGE on Rewind's schema and `privilege` on each of its control tables
// (PostgreSQL names them rewind.rewind_*).
void addControl(std::vector<Need> &needs, const QStringList &tables, const QString &privileges);
// `privileges` (comma-separated) on `table`.
void addTable(std::vector<Need> &needs, const QString &table, const QString &privileges,
              const QString &role, bool partitions = false);

// `privileges` on `table` when it exists, else CREATE on the schema it
// would be made in (its qualifier, else the session's current schema).
Status addTableOrCreate(const Database &db, std::vector<Need> &needs, const QString &table,
                        const QString &privileges, const QString &role);

// Checks every need as the session's role. PostgreSQL: a BadInput error
// (exit 2) for `operation` naming each privilege lacking, its object, the
// role and the GRANT that gives it. SQLite has no roles: a write needs the
// database file and its folder writable. Reads only.
Status require(const Database &db, const QString &operation, const std::vector<Need> &needs);

// The refusal `status` holds when require() refused (the role may not),
// else empty: for the console, which disables an action only for a refusal
// (another error, such as a lost connection, is said when it is tried).
QString refusalOf(const Status &status);

// Whether `table` exists (a relation the session can see). A table in a
// schema the role has no USAGE on counts as existing: its needs are then
// checked, and require() names the schema's USAGE.
Result<bool> tableExists(const Database &db, const QString &table);

} // namespace rw::privileges
