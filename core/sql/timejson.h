#pragma once

#include "core/sql/sqldialect.h"

#include <QString>
#include <QStringList>

namespace rw {

// The expressions every subsystem shares whose spelling differs by engine:
// the clock, epoch time both ways, and JSON read and written. One stateless
// instance per engine, shared by every thread: TimeJson::of(db.dialect()).
class TimeJson {
public:
    virtual ~TimeJson() = default;
    static const TimeJson &of(const SqlDialect &dialect);

    // Statements that epochMs() of a column typed as text needs on this
    // connection (PostgreSQL: a cast attempt in pg_temp; SQLite: none).
    virtual QStringList sessionSetup() const { return {}; }

    // Clock
    // The current UTC time as ISO-8601 text with milliseconds and a Z.
    virtual QString nowUtcText() const = 0;

    // Epoch time
    // Milliseconds since the epoch of the timestamp `expr`, NULL when it
    // cannot be read: ISO-8601 text in any zone form (none means UTC), epoch
    // seconds as a number or text, or a timestamp column. Digits past the
    // millisecond are dropped; epoch numbers outside years 0000-9999 do not
    // read (epoch milliseconds among seconds land there). `columnType`, the
    // column's declared type as listColumns names it, lets the engine read a
    // typed column without a function call per row (PostgreSQL; a text type
    // needs sessionSetup()); empty when unknown.
    virtual QString epochMs(const QString &expr, const QString &columnType = {}) const = 0;
    // Whole epoch seconds `seconds` as UTC text: 2026-03-01T10:00:00Z, and
    // as a date, 2026-03-01.
    virtual QString isoTextOfEpoch(const QString &seconds) const = 0;
    virtual QString dateTextOfEpoch(const QString &seconds) const = 0;
    // The whole epoch seconds of ISO-8601 text (the inverse of isoTextOfEpoch).
    virtual QString epochOfIsoText(const QString &text) const = 0;

    // JSON
    // A JSON path ('$.a.b', an SQL expression) as this engine's JSON
    // functions take it, reading it as SQLite does (PostgreSQL: an SQL/JSON
    // path in strict mode; lax mode would step into arrays, '$.a' on
    // [{"a": 1}] being 1 there and NULL on SQLite).
    virtual QString jsonPath(const QString &path) const = 0;
    // The value at `path` of the JSON text `document`: a number or text,
    // NULL when absent.
    virtual QString jsonExtract(const QString &document, const QString &path) const = 0;
    // The column `expr` as compared with a value jsonExtract() yields.
    virtual QString comparedWithJsonValue(const QString &expr) const = 0;
    // A JSON object text from alternating name literals and expressions.
    virtual QString jsonObject(const QStringList &namesAndExpressions) const = 0;
};

// One per engine, in sqlitetimejson.cpp, postgrestimejson.cpp and trinotimejson.cpp.
const TimeJson &sqliteTimeJson();
const TimeJson &postgresTimeJson();
const TimeJson &trinoTimeJson();

inline const TimeJson &TimeJson::of(const SqlDialect &dialect) {
    switch (dialect.kind()) {
    case SqlDialect::Kind::Postgres:
        return postgresTimeJson();
    case SqlDialect::Kind::Trino:
        return trinoTimeJson();
    case SqlDialect::Kind::Sqlite:
        break;
    }
    return sqliteTimeJson();
}

} // namespace rw
