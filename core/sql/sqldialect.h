#pragma once

#include <QJsonValue>
#include <QList>
#include <QPair>
#include <QSqlField>
#include <QString>
#include <QStringList>
#include <QVariant>
#include <memory>
#include <utility>
#include <vector>

namespace rw {

// What differs between SQL engines at the bottom of every subsystem: the
// session and its transactions, the catalog, types, quoting and the control
// schema's own functions. Portable SQL is written by the query builders;
// engine-specific text comes only from a dialect: this one, the shared
// clock, epoch and JSON helpers (core/sql/timejson.h), and one per subsystem
// that has its own (BatchDialect, StreamsDialect, DlqDialect, RecoveryDialect,
// DemoDialect), each with one file per engine.
class SqlDialect {
public:
    enum class Kind { Sqlite, Postgres, Trino };

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

    // Whether Rewind's control tables live in a store of their own
    // (Database::control()): an engine without transactions spanning several
    // statements (Trino over Iceberg). Elsewhere they share the data's.
    virtual bool keepsControlApart() const { return false; }

    // Whether the engine runs in this process and calls C++ functions Rewind
    // registers on each connection (rewind_lateness, rewind_dlq_signature):
    // SQLite. Otherwise the same work is SQL the server runs
    // (TimeJson::epochMs, dlqSignature, DlqDialect::sessionFunctions).
    virtual bool inProcessFunctions() const = 0;

    // Catalog: user tables and views (not the partitions of a partitioned table), one column
    // "name".
    virtual QString listRelations() const = 0;
    // Columns of one relation, bound parameter: relation name. Columns
    // "name", "type", "strict" (1 for a SQLite STRICT table's columns, which
    // refuse a value their type does not take; else 0), "filled" (1 when the
    // database fills it itself: a DEFAULT, an identity, a generated column).
    virtual QString listColumns() const = 0;

    // One row when a user table or view is named by the bound name, none
    // otherwise (PostgreSQL: a visible relation, or one named schema.relation).
    virtual QString findRelation() const = 0;
    // Whether a relation name may be schema-qualified (sales.fact_sales).
    // Null when not; else a query, bound parameter: the name, that yields
    // one row when a visible relation is named by the whole dotted name.
    virtual QString visibleRelationNamed() const { return {}; }

    // Where a new table goes, for names that may carry a schema. Null when
    // they never do (SQLite); else a query, bound parameter: the schema a
    // qualified name names, or NULL for an unqualified name, that yields one
    // row: the schema the table would be created in (NULL when there is
    // none), 1 when that schema exists, 1 when this session may create
    // tables in it.
    virtual QString schemaForNewTable() const { return {}; }

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
    virtual QString nullSafeEqual(const QString &a, const QString &b) const = 0;
    virtual QString castText(const QString &expr) const = 0;
    // Per-connection temporary work tables (a preview's staged rows).
    // `name` as statements write it: on SQLite and PostgreSQL the temporary
    // table's quoted name; on Trino, which has none, a table of the
    // session's own scratch schema (core/sql/trinodriver.h).
    virtual QString workTable(const QString &name) const { return quote(name); }
    // The head of the statement that makes work table `name` from the
    // SELECT that follows ("CREATE TEMP TABLE name AS ").
    virtual QString createWorkTableAs(const QString &name) const {
        return QStringLiteral("CREATE TEMP TABLE ") + quote(name) + QStringLiteral(" AS ");
    }
    virtual QString dropTempTable(const QString &name) const = 0;
    virtual QString createTempIndex(const QString &index, const QString &table,
                                    const QStringList &columns) const = 0;
    // Upsert tail for a table whose conflict target is `conflictColumns`:
    // ON CONFLICT (...) DO NOTHING / DO UPDATE SET c = excluded.c, the same
    // text on both engines.
    QString upsertSet(const QStringList &conflictColumns, const QStringList &updateColumns) const;

    // Control schema
    // rewind_dlq_signature(class, error): errorSignature() in SQL. Here, not
    // in DlqDialect, because the control schema indexes by it.
    virtual QString dlqSignature(const QString &errorClass, const QString &error) const = 0;
    // Functions the engine keeps in the database (created with the control
    // schema; SQLite registers its own on each connection instead).
    virtual QStringList controlFunctions() const { return {}; }

    // Types
    // Statements that make valueFitsType()'s helpers available on this
    // connection (PostgreSQL: a function in pg_temp; SQLite: none).
    virtual QStringList valueFitsSetup() const { return {}; }
    // A predicate, never NULL: the value `expr` (as jsonStageSelect or
    // jsonExtract gives it) can be written to a sink column declared `type`
    // (as listColumns reports it, with its "strict") without failing the
    // statement. PostgreSQL: sinkValue()'s cast succeeds, or the text fits a
    // character(n) column (needs valueFitsSetup() or
    // dlqSessionFunctions()). SQLite stores anything in any column of an
    // ordinary table: only columns of a numeric type name (INTEGER, REAL,
    // NUMERIC, ...) are checked, a number or numeric text fits. A STRICT
    // table's INTEGER takes what converts to an integer without loss, REAL a
    // number or numeric text, BLOB only a blob. NULL fits. Empty when every
    // value fits. `expr` may be evaluated more than once: pass a column.
    virtual QString valueFitsType(const QString &expr, const QString &type, bool strict) const = 0;

    // Typed values
    // A value the driver read from `field` as JSON (samples): a date, time or
    // timestamp as ISO-8601 text (an instant in UTC with a Z), NULL as null.
    virtual QJsonValue jsonValue(const QSqlField &field) const;
};

std::shared_ptr<const SqlDialect> makeDialect(SqlDialect::Kind kind);

// A column's declared type (as the catalog lists it on either engine:
// "NUMERIC(12,2)", "double precision", "bigint") by its leading word: a
// number's, which sums and orders; raw bytes' (BLOB, bytea), which neither.
bool isNumberType(const QString &declaredType);
bool isBinaryType(const QString &declaredType);
// A date or a timestamp, with or without a zone (not a time of day).
bool isTimeType(const QString &declaredType);

// One per engine, in sqlitedialect.cpp, postgresdialect.cpp and trinodialect.cpp;
// makeDialect picks.
std::shared_ptr<const SqlDialect> makeSqliteDialect();
std::shared_ptr<const SqlDialect> makePostgresDialect();
std::shared_ptr<const SqlDialect> makeTrinoDialect();

} // namespace rw
