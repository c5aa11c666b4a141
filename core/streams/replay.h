#pragma once

#include "core/sql/database.h"
#include "core/workspace/spec.h"

#include <atomic>
#include <functional>
#include <optional>
#include <vector>

namespace rw {

struct ReplayProgress {
    int batchesDone = 0;
    int batchesTotal = 0;
    qint64 consumed = 0;     // events read so far
    qint64 offsetsTotal = 0; // offsets the replay covers (events, unless retention left gaps)
    qint64 inserted = 0;
    qint64 duplicates = 0;
    qint64 deadLettered = 0;
};

// Threading: replay() runs on the calling thread with that thread's
// connection; `progress` is called on it after each committed batch.
// `cancel` may be set from any thread: it is checked between batches, so a
// cancelled replay stops at a batch boundary with everything before it
// committed; running it again continues from there.
// Events per transaction unless told otherwise. Larger batches mean fewer
// commits and fewer walks of the sink's event_id index (2M events: 50k ->
// 250k batches took CPU from about 16 s to 11 s); the batch's staged events
// are held in memory (about 0.3 KB each), so peak memory grows with it.
inline constexpr qint64 kDefaultReplayBatchSize = 250000;

struct ReplayOptions {
    bool execute = false;            // without it: report what would be consumed, write nothing
    std::optional<qint64> maxEvents; // at most this many offsets in all
    qint64 batchSize = kDefaultReplayBatchSize; // offsets per transaction
    // Velocity: at most this many offsets read per second. Batches are then
    // at most R offsets, and each starts no earlier than (offsets read with
    // it) / R seconds after the replay began.
    std::optional<double> maxPerSecond;
    std::function<void(const ReplayProgress &)> progress;
    const std::atomic<bool> *cancel = nullptr;
    // Kafka streams: after each batch, produce the dead letters not yet on
    // the stream's kafka.dlq_topic there (publishDeadLetters, kafkadlq.h).
    bool publishDeadLetters = false;
};

struct ReplayPartition {
    qint64 partition = 0;
    qint64 from = 0;     // first offset read (the committed offset, or the log start)
    qint64 to = 0;       // the committed offset afterwards (planned, in a dry run)
    qint64 consumed = 0; // events read
};

// How a replay stands. A result says dry_run, succeeded or cancelled; the
// rewind_replays row says running until it finishes (succeeded, cancelled,
// failed), or interrupted once another replay finds its process gone.
enum class ReplayStatus {
    DryRun,
    Running,
    Interrupted,
    Succeeded,
    Failed,
    Cancelled,
};
template <> struct EnumNames<ReplayStatus> {
    static constexpr std::pair<ReplayStatus, std::string_view> names[] = {
        {ReplayStatus::DryRun, "dry_run"},          {ReplayStatus::Running, "running"},
        {ReplayStatus::Interrupted, "interrupted"}, {ReplayStatus::Succeeded, "succeeded"},
        {ReplayStatus::Failed, "failed"},           {ReplayStatus::Cancelled, "cancelled"}};
};

struct ReplayResult {
    QString stream;
    QString group;
    bool executed = false;
    ReplayStatus status = ReplayStatus::DryRun; // dry_run, succeeded, cancelled
    qint64 replayId = 0;                        // rewind_replays row; 0 for a dry run
    qint64 consumed = 0;
    qint64 inserted = 0; // new event_ids written to the sink
    qint64 duplicates =
        0; // valid events whose event_id the sink already had (or had earlier in the replay)
    qint64 deadLettered = 0; // invalid events newly written to the DLQ
    qint64 alreadyDeadLettered =
        0; // invalid events the DLQ already held (read again after a rewind)
    qint64 publishedDeadLetters =
        0; // with publishDeadLetters: dead letters produced to the dlq_topic
    // Kafka: records of aborted transactions passed over (the replay reads
    // committed records only); their offsets, and the transactions' control
    // markers, hold no event.
    qint64 abortedSkipped = 0;
    int batches = 0;
    bool sinkCreated = false;
    // Fields the existing sink had no column for, added to it before the
    // first batch (on_schema_change append_new_columns; a dry run: would be).
    QStringList sinkColumnsAdded;
    bool logIndexCreated = false;
    double seconds = 0;
    std::vector<ReplayPartition> partitions;
};

// Replays stream/group from its committed offsets to the log end (or
// maxEvents), batch by batch. Each batch is one write transaction: valid
// events into the sink (each event_id at most once: a unique index, ON
// CONFLICT DO NOTHING), invalid ones (payload not JSON, a required field
// missing or null, no event_id, a value the sink column's declared type does
// not take: bad_value) into the DLQ with their history rows, the
// new committed offsets and an audit row. All set-based SQL. The sink is
// created from the spec's fields on first use. A replay killed at any point
// and run again ends with every valid event exactly once.
// Errors: BadInput when another replay of the group is running.
// What a replay needs of the session's role (with `execute`, its writes:
// the sink or CREATE on its schema, offsets, replays, DLQ, audit), checked
// before it starts: BadInput naming each privilege lacking.
Status requireReplayPrivileges(const Database &db, const StreamSpec &stream, const QString &group,
                               bool execute);
Result<ReplayResult> replay(const Database &db, const StreamSpec &stream, const QString &group,
                            const ReplayOptions &options);

} // namespace rw
