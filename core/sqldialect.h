#pragma once

#include <QString>
#include <QStringList>

#include <memory>

namespace rw {

// Everything that differs between SQL engines lives behind this interface:
// session set-up, transaction start, catalog queries, type names and the few
// expressions whose spelling differs. Portable SQL is written by the query
// builders; dialect-specific text comes only from here.
class SqlDialect {
public:
    enum class Kind { Sqlite, Postgres };

    virtual ~SqlDialect() = default;

    virtual Kind kind() const = 0;
    virtual QString name() const = 0;
    // The Qt SQL driver that speaks this dialect.
    virtual QString driverName() const = 0;

    // Statements run once on every new connection.
    virtual QStringList sessionSetup() const = 0;
    // Starts a write transaction that takes the write lock up front, so two
    // writers never deadlock upgrading a read lock.
    virtual QString beginWrite() const = 0;
    // Statements run right after beginWrite() (PostgreSQL: the writers' lock).
    virtual QStringList afterBeginWrite() const { return {}; }
    // Statements run at the start of a control-schema migration's
    // transaction, so that its tables land where the control schema lives.
    virtual QStringList controlSchemaSetup() const { return {}; }

    // Catalog: user tables and views, one column "name".
    virtual QString listRelations() const = 0;
    // Columns of one relation, bound parameter: relation name. Columns "name", "type".
    virtual QString listColumns() const = 0;

    // Indexes of a relation, bound parameter: relation name. Columns "index", "position", "column".
    virtual QString listIndexColumns() const = 0;

    // DDL pieces.
    virtual QString autoIdColumn() const = 0; // an auto-increment integer primary key
    virtual QString blobType() const = 0;
    virtual QString bigintType() const = 0;
    virtual QString doubleType() const = 0;

    // Expressions.
    // Double-quotes an identifier, doubling embedded quotes. Standard SQL;
    // both engines accept any character inside a quoted identifier but NUL.
    QString quote(const QString &identifier) const;
    QString quoteQualified(const QString &identifier) const { return quote(identifier); }
    virtual QString nullSafeEqual(const QString &a, const QString &b) const = 0;
    virtual QString castText(const QString &expr) const = 0;
    // The engine's physical row identity of `alias` (never NULL for a real
    // row, so it also marks which side of an outer join matched); with no
    // alias, of the statement's one table.
    virtual QString rowIdentity(const QString &alias) const = 0;
    // Current UTC time as ISO-8601 text with milliseconds and a Z.
    virtual QString nowUtcText() const = 0;
    // Per-connection temporary work tables.
    virtual QString dropTempTable(const QString &name) const = 0;
    virtual QString createTempIndex(const QString &index, const QString &table, const QStringList &columns) const = 0;
    // A deterministic 32-bit hash of a row's values, NULL-aware: summed over
    // rows it is an order-independent checksum.
    virtual QString rowHash(const QStringList &quotedExpressions) const = 0;

    // The value at `path` (an SQL expression holding a JSON path like
    // '$.a.b') of the JSON text `document`: a number or text, NULL when absent.
    virtual QString jsonExtract(const QString &document, const QString &path) const = 0;
    // A JSON object text from alternating name literals and expressions.
    virtual QString jsonObject(const QStringList &namesAndExpressions) const = 0;

    // Demo
    // Statements before and after the demo's bulk load into a new database
    // (SQLite: a bigger cache and an in-memory journal, WAL restored after;
    // PostgreSQL: the helper jsonOrNull() needs, fresh planner statistics).
    virtual QStringList demoLoadBegin() const = 0;
    virtual QStringList demoLoadEnd(const QStringList &quotedTables) const = 0;
    // Drops the control schema with everything in it (PostgreSQL: the schema
    // rewind; SQLite never needs it: its demo replaces the whole file).
    virtual QStringList demoDropControlSchema() const = 0;
    // One row, one column: 1 when the control schema exists (PostgreSQL: the
    // schema rewind, even empty or holding other tables), else 0.
    virtual QString demoControlSchemaExists() const = 0;
    // Whole seconds since the Unix epoch (an integer expression) as UTC text:
    // 'YYYY-MM-DD', and 'YYYY-MM-DDTHH:MM:SSZ'.
    virtual QString epochDateText(const QString &seconds) const = 0;
    virtual QString epochIsoText(const QString &seconds) const = 0;
    // The whole seconds since the epoch of UTC text in that ISO-8601 form.
    virtual QString isoTextEpoch(const QString &text) const = 0;
    // An integer in [0, 2^32) as 8 lower-case hex digits.
    virtual QString hex8(const QString &value) const = 0;
    // The JSON text `text` as a document jsonExtract() and jsonHasPath()
    // read, or NULL when it is not valid JSON.
    virtual QString jsonOrNull(const QString &text) const = 0;
    // Whether `path` (as in jsonExtract) names a member of the document,
    // even one holding JSON null.
    virtual QString jsonHasPath(const QString &document, const QString &path) const = 0;

    // Upsert tail for a table whose conflict target is `conflictColumns`:
    // ON CONFLICT (...) DO NOTHING / DO UPDATE SET c = excluded.c, the same
    // text on both engines.
    QString upsertSet(const QStringList &conflictColumns, const QStringList &updateColumns) const;
};

std::shared_ptr<const SqlDialect> makeDialect(SqlDialect::Kind kind);

} // namespace rw
