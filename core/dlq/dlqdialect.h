#pragma once

#include "core/sql/sqldialect.h"

#include <QByteArray>
#include <QStringList>
#include <QVariant>
#include <QVariantList>
#include <utility>
#include <vector>

namespace rw {

// The dead-letter queue's engine-specific SQL: its session helpers, the JSON
// functions triage and replay use, and how payloads are stored and bound.
// (rewind_dlq_signature's SQL stays in SqlDialect: the control schema indexes
// by it.) One implementation per engine, chosen by of(); stateless and shared
// by every thread.
class DlqDialect {
public:
    virtual ~DlqDialect() = default;
    static const DlqDialect &of(const SqlDialect &dialect);

    // Statements that make the DLQ's helper functions available on this
    // connection, run before the DLQ's queries (PostgreSQL: PL/pgSQL
    // functions in pg_temp; SQLite: none, its JSON functions are built in
    // and rewind_dlq_signature is registered as each connection opens). The
    // caller adds SqlDialect::valueFitsSetup() (typed sinks).
    virtual QStringList sessionFunctions() const = 0;
    // A query counting those of sessionFunctions() and valueFitsSetup()
    // already present on this connection; empty when there are none to make.
    virtual QString sessionFunctionsPresent() const = 0;
    // A subquery (no parentheses) of one column "value": the elements of the
    // JSON array text `array`, as text or as integers.
    virtual QString jsonArrayTexts(const QString &array) const = 0;
    virtual QString jsonArrayIntegers(const QString &array) const = 0;
    // A table function over the members of the JSON object `document`, with
    // a column "key" (no rows for anything but an object).
    virtual QString jsonEach(const QString &document) const = 0;
    // A predicate: `text` is well-formed JSON (false or NULL otherwise).
    virtual QString isValidJson(const QString &text) const = 0;
    // A predicate: the JSON `document` is an object (false or NULL otherwise).
    virtual QString jsonIsObject(const QString &document) const = 0;
    // The JSON text `document` with each (path, value) set, creating what is
    // missing (SQLite's json_set): paths are SQLite JSON paths ($.a, $."b",
    // [N], [#], [#-N]) and values JSON text, or a string when they do not
    // parse. Appends the binds, in order.
    virtual QString jsonSet(const QString &document,
                            const std::vector<std::pair<QString, QString>> &pathValues,
                            QVariantList &binds) const = 0;
    // group_concat / string_agg of text values with a separator literal.
    virtual QString stringAgg(const QString &expr, const QString &separatorLiteral) const = 0;
    // A payload column read as the bytes it holds, and its length in bytes.
    virtual QString payloadBytes(const QString &expr) const = 0;
    // A payload expression as a payload column (blobType()) stores it.
    virtual QString payloadStored(const QString &expr) const = 0;
    virtual QString payloadLength(const QString &expr) const = 0;
    // `a` differs from `b`, NULL-aware.
    virtual QString nullSafeDistinct(const QString &a, const QString &b) const = 0;
    // The JSON texts `a` and `b` (both valid) hold different values, by
    // jsonb's rules on both engines: spacing, key order and string escapes
    // aside, numbers by value (1.0 = 1). SQLite: rewind_json_differ.
    virtual QString jsonValuesDiffer(const QString &a, const QString &b) const = 0;
    // A payload as a bound value: bytes on SQLite, UTF-8 text on PostgreSQL.
    virtual QVariant payloadValue(const QByteArray &bytes) const = 0;
    // A column of a work table that holds values extracted from JSON for a
    // column of type `type`: SQLite leaves it untyped (values keep their JSON
    // types, as in the source), PostgreSQL gives it the type.
    virtual QString workColumn(const QString &quotedName, const QString &type) const = 0;
    // A value extracted by jsonExtract, as a value of `type` (PostgreSQL: a
    // cast, which fails the statement when the text is not of that type).
    virtual QString fromJsonText(const QString &expr, const QString &type) const = 0;
};

// One per engine, in sqlitedlqdialect.cpp and postgresdlqdialect.cpp.
const DlqDialect &sqliteDlqDialect();
const DlqDialect &postgresDlqDialect();

inline const DlqDialect &DlqDialect::of(const SqlDialect &dialect) {
    return dialect.kind() == SqlDialect::Kind::Postgres ? postgresDlqDialect() : sqliteDlqDialect();
}

} // namespace rw
