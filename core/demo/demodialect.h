#pragma once

#include "core/sql/sqldialect.h"

#include <QStringList>

namespace rw {

// The demo warehouse's engine-specific SQL: its bulk load, the control
// schema's reset, and the date, hex and JSON helpers its generators use.
// One implementation per engine, chosen by of(); stateless and shared by
// every thread.
class DemoDialect {
public:
    virtual ~DemoDialect() = default;
    static const DemoDialect &of(const SqlDialect &dialect);

    // Statements before and after the demo's bulk load into a new database
    // (SQLite: a bigger cache and an in-memory journal, WAL restored after;
    // PostgreSQL: the helper jsonOrNull() needs, fresh planner statistics).
    virtual QStringList loadBegin() const = 0;
    virtual QStringList loadEnd(const QStringList &quotedTables) const = 0;
    // Drops the control schema with everything in it (PostgreSQL: the schema
    // rewind; SQLite never needs it: its demo replaces the whole file).
    virtual QStringList dropControlSchema() const = 0;
    // One row, one column: 1 when the control schema exists (PostgreSQL: the
    // schema rewind, even empty or holding other tables), else 0.
    virtual QString controlSchemaExists() const = 0;
    // An integer in [0, 2^32) as 8 lower-case hex digits.
    virtual QString hex8(const QString &value) const = 0;
    // The JSON text `text` as a document jsonExtract() and jsonHasPath()
    // read, or NULL when it is not valid JSON.
    virtual QString jsonOrNull(const QString &text) const = 0;
    // Whether `path` (as in jsonExtract) names a member of the document,
    // even one holding JSON null.
    virtual QString jsonHasPath(const QString &document, const QString &path) const = 0;
};

// One per engine, in sqlitedemodialect.cpp and postgresdemodialect.cpp.
const DemoDialect &sqliteDemoDialect();
const DemoDialect &postgresDemoDialect();

inline const DemoDialect &DemoDialect::of(const SqlDialect &dialect) {
    return dialect.kind() == SqlDialect::Kind::Postgres ? postgresDemoDialect()
                                                        : sqliteDemoDialect();
}

} // namespace rw
