#pragma once

#include "core/streams/offsets.h"
#include "core/streams/streams.h"

#include <QMap>
#include <memory>
#include <optional>
#include <vector>

namespace rw {

// Offsets [from, to) of one partition.
struct OffsetRange {
    qint64 partition = 0;
    qint64 from = 0;
    qint64 to = 0;
};

// A partition's first offset whose record timestamp is at or after an instant.
struct FirstAtOrAfter {
    std::optional<qint64> offset; // none: no readable timestamp at or after the instant
    qint64 unreadable = 0;        // events whose record timestamp cannot be read
    // The boundary, where the log can say (KafkaLog): the record timestamps
    // (epoch ms) of the record at the offset and of the one before it.
    std::optional<qint64> atMs;
    std::optional<qint64> beforeMs;
    // Which way answered: "broker" (its offset-for-timestamp lookup),
    // "record_search" (a binary search over fetched records' timestamps,
    // where the broker answered no offset although a record is at or after
    // the instant) or empty (a log table's own query).
    QString foundBy;
};

// Where replay's SQL reads a batch's events: a relation of the workspace
// with the log's columns (partition, offset, event_id, record_ts, payload).
struct EventRelation {
    QString table;  // unquoted, as Database::quoteTable takes it
    QString schema; // a work table's schema where it is not found unqualified
    LogColumns columns;
    // A work table that readRange fills on the calling connection only: no
    // other connection (replay's stager) sees its rows.
    bool thisConnectionOnly = false;
    // Rewind's own work table: its columns as made, with a storage position
    // (SQLite's rowid) no column shadows; it may be in a schema that is
    // attached only while a batch is staged or written (StreamLog::readAside).
    bool workTable = false;
};

// One kind of log a stream reads: a log table of the workspace (TableLog)
// or a Kafka topic (KafkaLog). Offsets, resets and replay ask only this of it.
// Replay's staging, dedupe by event_id, DLQ routing and its one transaction
// per batch (sink rows and rewind_offsets together) stay shared: a log only
// makes a batch's events readable by SQL (readRange) in eventRelation(), so
// the same INSERT ... SELECT statements serve every kind. rewind_offsets is
// the truth for what reached the sink; a log that keeps its own record of a
// group's offsets follows it (followCommitted).
// Threading: a StreamLog is made per operation (openStreamLog) and used on
// the thread that made it, with that thread's connection, except readRange
// (below). It holds copies of the handle and spec: no ownership to manage.
class StreamLog {
public:
    virtual ~StreamLog() = default;

    // Per partition: log start and end (low and high watermark), events
    // present, first and last record timestamps. Reads only.
    virtual Result<std::vector<StreamPartitionInfo>> partitions() const = 0;
    // The group's committed offsets against each partition's log start and
    // end (see PartitionOffsets). Reads only.
    virtual Result<std::vector<PartitionOffsets>> committedOffsets(const QString &group) const = 0;
    // The groups that have committed offsets, with their total lag, sorted
    // by name. Reads only.
    virtual Result<std::vector<ConsumerGroupInfo>> consumerGroups() const = 0;
    // Per partition, the first offset whose record timestamp is at or after
    // `ms` (epoch milliseconds). Reads only.
    virtual Result<QMap<qint64, FirstAtOrAfter>> firstOffsetsAtOrAfter(qint64 ms) const = 0;
    // Makes (partition, next offset to read) pairs the group's committed
    // offsets. TableLog: rewind_offsets, inside the caller's write transaction.
    virtual Status commit(const QString &group,
                          const std::vector<std::pair<qint64, qint64>> &offsets) const = 0;

    // Replay.
    // Where a replay of the group starts in each partition: the committed
    // offsets, unless the log knows better (KafkaLog: the workspace's offsets
    // where a crash kept a replay's commit from reaching the cluster; with
    // `execute`, that commit is caught up first).
    virtual Result<std::vector<PartitionOffsets>> replayStart(const QString &group,
                                                              bool execute) const {
        Q_UNUSED(execute);
        return committedOffsets(group);
    }
    // Readies the log for range reads before the first batch, inside the
    // caller's write transaction (TableLog: an index on (partition, offset)).
    // True when it changed the database.
    virtual Result<bool> prepareReads() const = 0;
    virtual EventRelation eventRelation() const = 0;
    // Makes the events of `ranges` readable in eventRelation() on the calling
    // thread's connection (a log that is not a table fetches them into a
    // work table). TableLog: nothing to do. May be called from a replay's
    // staging thread, with that thread's connection.
    virtual Status readRange(const std::vector<OffsetRange> &ranges) const = 0;
    // For a replay that stages its batches ahead on a second connection
    // (ReplayScratch): from now on readRange makes the work table with
    // `createTable` (CREATE [UNLOGGED] TABLE) in `schema` (SQLite: a scratch
    // database attached under that name on the connection that stages a
    // batch, then on the one that writes it; empty: unqualified, where the
    // batch's transaction finds it) instead of a table of the calling
    // connection only, and eventRelation() names it there. False where the
    // log has no work table (TableLog: every connection reads it).
    virtual bool readAside(const QString &schema, const QString &createTable) {
        Q_UNUSED(schema);
        Q_UNUSED(createTable);
        return false;
    }
    // Inside a replay batch's transaction, after it dead-lettered records
    // (rewind_dlq rows above `afterDlqId`): what the log knows of them beyond
    // the payload (KafkaLog: key, headers, topic). TableLog: nothing.
    virtual Status annotateDeadLetters(const QVariant &afterDlqId) const {
        Q_UNUSED(afterDlqId);
        return {};
    }
    // Records of aborted transactions the reads so far passed over (KafkaLog
    // reads committed records only: read_committed). TableLog: none.
    virtual qint64 abortedSkipped() const { return 0; }
    // Called after a replay batch's transaction committed `reached` (the
    // ranges read, `to` being the new committed offset) to rewind_offsets.
    // TableLog: nothing, rewind_offsets is its record.
    virtual Status followCommitted(const QString &group,
                                   const std::vector<OffsetRange> &reached) const = 0;
};

// The log of `stream`, its kind chosen once from the spec.
std::unique_ptr<StreamLog> openStreamLog(const Database &db, const StreamSpec &stream);

} // namespace rw
