#pragma once

#include "core/sql/database.h"
#include "core/streams/replayscratch.h"

#include <QList>
#include <QPair>
#include <QStringList>

namespace rw {

// The engine-specific SQL of stream offsets and replay, one implementation
// per engine (sqlitestreamsdialect.cpp, postgresstreamsdialect.cpp). What
// other subsystems share (valueFitsType, dropTempTable, ...) stays in
// SqlDialect. Stateless: one shared instance per engine kind, usable from
// any thread.
class StreamsDialect {
public:
    virtual ~StreamsDialect() = default;

    // The dialect of `db`'s engine.
    static const StreamsDialect &of(const Database &db);

    // Statements a connection runs before the stream SQL below uses its
    // helpers (PostgreSQL: per-session functions in pg_temp; SQLite: none).
    // Run with SqlDialect::valueFitsSetup() and TimeJson::sessionSetup()
    // through prepareStreamSession().
    virtual QStringList sessionSetup() const { return {}; }
    // A join whose tables are read in the order written (SQLite: CROSS JOIN,
    // which its planner never reorders), with an ON condition.
    virtual QString fixedOrderJoin() const = 0;
    // A per-connection temporary table, qualified (temp.x, pg_temp.x).
    virtual QString tempTable(const QString &name) const = 0;
    // A column giving each row's place in its table's storage, whose range a
    // scan reads in storage order (SQLite: rowid); empty when the engine has
    // none a query can range over.
    virtual QString storageOrderColumn() const { return {}; }
    // `expr IS 1` / `expr IS NOT 1` for the staged "jv" flag (or a column of it).
    virtual QString isTrue(const QString &expr) const = 0;
    virtual QString isNotTrue(const QString &expr) const = 0;
    // SELECT of the elements of a bound JSON array of integer arrays ("[[1,2],[3,4]]"):
    // `leading` (select items before them, with a trailing ", " if any), then element
    // 0..columns-1 of each inner array as integers, then `trailing` (", x" items).
    virtual QString jsonIntegerRows(const QString &leading, int columns,
                                    const QString &trailing) const = 0;
    // A SELECT staging events: `passThrough` (expression, alias) pairs, then
    // "jv" (1 or true when `payload` is valid JSON; NULL on SQLite, false on
    // PostgreSQL for a NULL payload) and "c0".."c<n-1>" (the value at the
    // n bound paths, text or number, NULL when the payload is not JSON),
    // then `fromClause` (" FROM ..."). Each payload is parsed once per row.
    // `assumeValid` (where stagesOptimistically()): parsed unguarded, the
    // statement failing on the first payload that is not JSON.
    virtual QString jsonStageSelect(const QList<QPair<QString, QString>> &passThrough,
                                    const QString &payload, int paths, const QString &fromClause,
                                    bool assumeValid = false) const = 0;
    // Whether staging a batch first assumes every payload is JSON (and
    // stages it again, guarded, when one is not) because guarding each
    // parse costs much more than parsing: PostgreSQL (before 16, no IS JSON).
    virtual bool stagesOptimistically() const { return false; }
    // The value at `path` in `payload` as text; NULL when the payload is not
    // JSON or has nothing there.
    virtual QString jsonTextAt(const QString &payload, const QString &path) const = 0;
    // The JSON type of the value at bound path `path` in the valid JSON text `payload`.
    virtual QString jsonTypeAt(const QString &payload, const QString &path) const = 0;
    // The column type a sink gets for a field whose values had these JSON
    // types (jsonTypeAt, NULLs left out). Empty: no declared type (SQLite
    // keeps each value's own type).
    virtual QString sinkColumnType(const QStringList &jsonTypes) const = 0;
    // The staged value `expr` as written to a sink column declared `type`
    // (as listColumns reports it).
    virtual QString sinkValue(const QString &expr, const QString &type) const = 0;
    // A tail for a subquery in FROM that keeps the engine from merging it
    // into the outer query (which would compute its columns once per use).
    virtual QString subqueryFence() const = 0;
    // Unique indexes of a relation, bound parameter: relation name. Columns "index", "position",
    // "column".
    virtual QString listUniqueIndexColumns() const = 0;
    // Where a replay stages its next batch on a second connection while it
    // writes the current one (ReplayPipeline), or null where it stages each
    // batch in turn. `inOrder`: the batches are read in sequence (a Kafka
    // topic fetched into a work table). SQLite: always (one process writes;
    // the stage and the write would otherwise share one core). PostgreSQL:
    // a Kafka log only, whose fetch and COPY run through Rewind's process
    // in turn with the server's work; a log table's stage already runs in
    // the server's own process.
    virtual std::unique_ptr<ReplayScratch> replayScratch(const Database &db, bool inOrder) const {
        Q_UNUSED(db);
        Q_UNUSED(inOrder);
        return nullptr;
    }
    // Reading and setting this connection's page cache size (SQLite: PRAGMA
    // cache_size; empty where the engine has no such setting).
    virtual QString pageCacheSize() const { return {}; }
    virtual QString setPageCacheSize(qint64 size) const {
        Q_UNUSED(size);
        return {};
    }
};

// Runs StreamsDialect::sessionSetup() and SqlDialect::valueFitsSetup() on
// the calling thread's connection: the helpers stream SQL needs.
Status prepareStreamSession(const Database &db);

// One per engine; StreamsDialect::of picks.
const StreamsDialect &sqliteStreamsDialect();
const StreamsDialect &postgresStreamsDialect();

} // namespace rw
