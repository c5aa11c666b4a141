#pragma once

#include "core/sql/database.h"
#include "core/streams/replayscratch.h"

#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

namespace rw {

// Staging ahead. The staging statement (reading the batch from the log,
// json_valid, json_extract; for Kafka, fetching the batch's records first)
// is about as much work as the rest of the batch (the sink insert, DLQ rows,
// offsets, audit and commit). The next batch is staged on a second
// connection, in a thread of its own, while the replay's connection writes
// the current batch: the two run on two cores. Where a staged batch lives is
// the engine's ReplayScratch. The stager writes only scratch tables; every
// write to the workspace stays in the writer's per-batch transaction, so a
// replay killed at any point resumes as before.
// REWIND_REPLAY_PIPELINE=0 stages each batch in turn on one connection.
// Threading: made, started, attached, entered, released and destroyed on
// the writer's thread; the stager thread only calls `stage`. Destroying it
// stops and joins the stager, then removes the scratch tables.
class ReplayPipeline {
public:
    // Stages batch k on the calling thread's connection with `createTable`
    // (a CREATE TABLE naming the staged table, to which " AS SELECT ..." is added).
    using Stage = std::function<Status(std::size_t batch, const QString &createTable)>;

    // A pipeline for `batches` batches, or null where it cannot run
    // (REWIND_REPLAY_PIPELINE=0, no scratch for the engine:
    // StreamsDialect::replayScratch). `inOrder`: every batch is staged on
    // the stager, one after another (a log read in sequence, as a Kafka
    // consumer reads); else the first is staged by start() while the stager
    // does the second.
    static std::unique_ptr<ReplayPipeline> open(const Database &db, std::size_t batches,
                                                Stage stage, bool inOrder = false);
    ~ReplayPipeline();

    // Where a log's work table goes (StreamLog::readAside), and the staged
    // batch's table, as the batch's statements name them.
    QString workSchema() const { return m_scratch->workSchema(); }
    QString stagedTable() const { return m_scratch->stagedTable(); }
    QString createTable() const { return m_scratch->createTable(); }
    // Whether the stager checkpoints the WAL (ReplayScratch::checkpointsAside).
    bool checkpointsAside() const { return m_scratch->checkpointsAside(); }

    // Starts the stager on batch 1 and stages batch 0 on the calling thread
    // (in order: starts the stager on batch 0).
    void start();
    // Waits for batch k to be staged and makes it readable (before the
    // batch's transaction); enter() is the first statement inside it.
    Status attach(std::size_t k);
    Status enter(std::size_t k) { return m_scratch->enter(k); }
    // Lets batch k's scratch go and the stager go one further.
    void release(std::size_t k);

private:
    ReplayPipeline(const Database &db, std::size_t batches, Stage stage, bool inOrder,
                   std::unique_ptr<ReplayScratch> scratch);
    Status stageOne(std::size_t k);
    void stageAhead();

    const Database &m_db;
    Stage m_stage;
    bool m_inOrder;
    std::unique_ptr<ReplayScratch> m_scratch;
    std::thread m_stager;
    // The stager writes only m_ready and m_error, under m_mutex.
    std::mutex m_mutex;
    std::condition_variable m_wake;
    std::vector<bool> m_ready;  // per batch: staged
    std::size_t m_consumed = 0; // batches whose transaction is over (their scratch released)
    bool m_stop = false;
    std::optional<Error> m_error;
};

} // namespace rw
