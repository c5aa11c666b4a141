#pragma once

#include "core/sql/database.h"

#include <functional>
#include <memory>

namespace rw {

// Where a replay's batches are staged ahead of the writer (ReplayPipeline),
// one implementation per engine (StreamsDialect::replayScratch picks): batch
// k's staged table (and a Kafka log's work table) lives apart from batch
// k+1's, so the stager fills one while the writer reads the other, and the
// stager never writes the workspace's own tables.
// Threading: stage() on the stager's thread; the rest on the writer's, which
// also destroys it (after the stager has stopped).
class ReplayScratch {
public:
    virtual ~ReplayScratch() = default;

    // The staged batch's table as the batch's statements name it, and the
    // DDL that makes a scratch table ("CREATE TABLE", "CREATE UNLOGGED TABLE").
    virtual QString stagedTable() const = 0;
    virtual QString createTable() const = 0;
    // The schema a log's work table is named in (StreamLog::readAside);
    // empty: unqualified, found where stage() and enter() point the session.
    virtual QString workSchema() const = 0;
    // Stager: runs `body` (which stages batch k into stagedTable()) where
    // batch k lives, and leaves what it wrote readable by the writer.
    virtual Status stage(std::size_t k, const std::function<Status()> &body) = 0;
    // Writer: before batch k's transaction, first in it, and after it.
    virtual Status attach(std::size_t k) = 0;
    virtual Status enter(std::size_t k) = 0;
    virtual void release(std::size_t k) = 0;
    // Whether the stager checkpoints the workspace's WAL after each batch it
    // stages (the writer's connection then need not at its commits).
    virtual bool checkpointsAside() const { return false; }
};

// SQLite: one scratch database file per batch in a temporary folder of the
// process, attached under one schema name on each connection in turn. Null
// where the workspace is not a file other connections share, or no folder.
std::unique_ptr<ReplayScratch> sqliteReplayScratch(const Database &db);
// PostgreSQL: one schema per batch (named for the writer's backend), of
// unlogged tables, found through the session's search path (set for the
// transaction only). Null where the role may not create schemas.
std::unique_ptr<ReplayScratch> postgresReplayScratch(const Database &db);

} // namespace rw
