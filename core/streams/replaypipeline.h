#pragma once

#include "core/sql/database.h"

#include <QTemporaryDir>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

namespace rw {

// Staging ahead (SQLite). The staging statement (reading the batch from the
// log, json_valid, json_extract) is about as much work as the rest of the
// batch (the sink insert, DLQ rows, offsets, audit and commit). On SQLite
// the next batch is staged on a second connection, in a thread of its own,
// while the replay's connection writes the current batch: the two run on two
// cores. A staged batch is a table in a scratch database file of its own (one
// per batch, in a temporary folder), written by the stager and then attached
// to the writer for the batch's transaction: two files, so neither connection
// ever waits on the other's lock. The stager reads only the log (a WAL
// snapshot); every write to the workspace stays in the writer's per-batch
// transaction, so a replay killed at any point resumes as before.
// REWIND_REPLAY_PIPELINE=0 stages each batch in turn on one connection.
// Threading: made, started, attached, released and destroyed on the
// writer's thread; the stager thread only calls `stage`. Destroying it stops
// and joins the stager, then removes the scratch files.
class ReplayPipeline {
public:
    // Stages batch k into the (schema-qualified) table named, on the calling
    // thread's connection.
    using Stage = std::function<Status(std::size_t batch, const QString &table)>;

    // A pipeline for `batches` batches, or null where it cannot run (not
    // SQLite, REWIND_REPLAY_PIPELINE=0, a database not shared across
    // connections, no scratch folder). `inOrder`: every batch is staged on
    // the stager, one after another (a log read in sequence, as a Kafka
    // consumer reads); else the first is staged by start() while the stager
    // does the second.
    static std::unique_ptr<ReplayPipeline> open(const Database &db, std::size_t batches,
                                                Stage stage, bool inOrder = false);
    ~ReplayPipeline();

    // The schema the batch's scratch file is attached under, while it is
    // staged and while it is written.
    static QString stageSchema();
    // The staged batch's table while it is attached, as the batch's statements read it.
    static QString stagedTable();

    // Starts the stager on batch 1 and stages batch 0 on the calling thread
    // (in order: starts the stager on batch 0).
    void start();
    // Waits for batch k's scratch file and attaches it (outside any
    // transaction, as SQLite requires).
    Status attach(std::size_t k);
    // Detaches batch k and lets the stager go one further.
    void release(std::size_t k);

private:
    ReplayPipeline(const Database &db, std::size_t batches, Stage stage, bool inOrder,
                   const QString &scratchTemplate);
    QString scratchFile(std::size_t k) const;
    Status stageToFile(std::size_t k);
    void stageAhead();

    const Database &m_db;
    Stage m_stage;
    bool m_inOrder;
    QTemporaryDir m_scratch;
    std::thread m_stager;
    // The stager writes only m_ready and m_error, under m_mutex.
    std::mutex m_mutex;
    std::condition_variable m_wake;
    std::vector<bool> m_ready;  // per batch: staged into its file
    std::size_t m_consumed = 0; // batches whose transaction is over (their files released)
    bool m_stop = false;
    std::optional<Error> m_error;
};

} // namespace rw
