#pragma once

#include "core/sql/database.h"
#include "core/sql/privileges.h"
#include "core/workspace/spec.h"

#include <QDateTime>
#include <optional>
#include <vector>

namespace rw {

// A consumer group's position in one partition of a stream's log. The
// committed offset is the next offset to read, as in Kafka; a group that
// never committed in a partition starts at the log start.
struct PartitionOffsets {
    qint64 partition = 0;
    qint64 committed = 0; // stored, or the log start when nothing is stored
    bool stored = false;  // a committed offset exists in rewind_offsets
    qint64 logStart = 0;  // smallest offset still present
    qint64 logEnd = 0;    // largest offset plus one
    qint64 lag = 0;       // offsets still to read: logEnd - max(committed, logStart), at least 0
    // A committed offset in a partition that has no events left in the log
    // (all removed): kept and shown, with log start and end at the committed
    // offset, since what the log's end was is no longer known.
    bool noEvents = false;
};

// Committed offsets of stream/group per log partition, in one query. Reads only.
Result<std::vector<PartitionOffsets>> listOffsets(const Database &db, const StreamSpec &stream,
                                                  const QString &group);

// A live member of a Kafka consumer group, as its coordinator describes it
// (DescribeGroups).
struct GroupMember {
    QString memberId;
    QString clientId;
    QString host;
    std::vector<qint64> partitions; // of the stream's topic, from its assignment
};

// A consumer group of a stream: for a log table, one that has committed
// offsets in rewind_offsets; for a Kafka topic, the cluster's groups with
// commits on it (where it can list them) and the spec's `groups`.
struct ConsumerGroupInfo {
    QString group;
    qint64 partitions = 0; // partitions with a committed offset
    QString lastCommitAt;  // newest updated_at, as stored (log tables)
    qint64 lag = 0;        // summed over the log's partitions, as listOffsets computes it
    std::vector<PartitionOffsets> offsets; // per partition, as read
    // The cluster's group state ("Stable", "Empty", ...); none where it
    // cannot say (a log table, a cluster that cannot list groups).
    std::optional<QString> state;
    // Whether the group has active members: from the state, or for a log
    // table whether a replay of it runs; none where unknown.
    std::optional<bool> hasMembers;
    // Kafka: the group's protocol ("range", "cooperative-sticky", ...; empty
    // without members) and its live members, from the coordinator.
    QString protocol;
    std::vector<GroupMember> members;
    QString status = QStringLiteral("unknown"); // Burrow's, over the lag samples (see lag.h)
};

// Offsets of stream/group (listOffsets) that also records them as a lag
// sample (lag.h); a sample that cannot be written is a warning, not an error.
Result<std::vector<PartitionOffsets>>
readOffsetsSampled(const Database &db, const StreamSpec &stream, const QString &group);

// The stream's consumer groups with their total lag, sorted by name; each
// group's offsets are recorded as a lag sample and its status computed
// from the newest samples.
Result<std::vector<ConsumerGroupInfo>> listConsumerGroups(const Database &db,
                                                          const StreamSpec &stream);

// A reset, as `kafka-consumer-groups --reset-offsets` takes it.
struct ResetRequest {
    enum class Kind { ToEarliest, ToLatest, ToCurrent, ToOffset, ShiftBy, ToDatetime, FromFile };
    Kind kind = Kind::ToCurrent;
    qint64 value = 0;       // ToOffset: the offset; ShiftBy: the shift (may be negative)
    qint64 timestampMs = 0; // ToDatetime (and --by-duration, resolved to now - D)
    std::vector<std::pair<qint64, qint64>> fileOffsets; // FromFile: partition -> offset
    std::vector<qint64> partitions; // --partition: limit to these; empty means every partition
    QString describe() const;       // "to-datetime 2025-05-06T10:00:00.000Z", for audit rows
};

struct ResetPartition {
    qint64 partition = 0;
    qint64 current = 0; // committed now (log start when nothing is stored)
    qint64 newOffset = 0;
    qint64 logStart = 0;
    qint64 logEnd = 0;
    bool clamped = false; // the requested offset was outside [logStart, logEnd]
    bool stored = true;   // the group has a committed offset here (else `current` is the log start)
    // --to-datetime: events of this partition whose record timestamp cannot
    // be read (NULL, not a timestamp, out of range); not considered.
    qint64 unreadableTimestamps = 0;
    // --to-datetime, where the log can say (Kafka): the record timestamps
    // (epoch ms) at the new offset and just before it, the boundary the
    // operator checks; and which way found the offset ("broker",
    // "record_search").
    std::optional<qint64> newRecordMs;
    std::optional<qint64> previousRecordMs;
    QString foundBy;
};

struct ResetPlan {
    QString stream;
    QString group;
    QString request; // ResetRequest::describe()
    bool executed = false;
    std::vector<ResetPartition> partitions;
};

// Computes the new offsets. Refuses (BadInput) a --partition or a file row
// for a partition the log does not have. With `execute`, applies them, with
// an audit row, in one write transaction; refused (BadInput) while a replay
// of the same group runs. Without it, reads only. A plan with no partitions
// (an empty log, nothing committed) is never applied: `executed` stays false.
Result<ResetPlan> resetOffsets(const Database &db, const StreamSpec &stream, const QString &group,
                               const ResetRequest &request, bool execute);
// What a reset needs of the session's role (with `execute`, its writes too),
// checked before it starts: BadInput naming each privilege lacking
// (core/sql/privileges.h).
Status requireResetPrivileges(const Database &db, const StreamSpec &stream, const QString &group,
                              bool execute);
// What a reset and a replay of a group of `stream` both need: temporary
// objects, its log, the replay log; with `execute`, writing the group's
// offsets and the audit log.
void addGroupNeeds(std::vector<privileges::Need> &needs, const StreamSpec &stream, bool execute);

// The reset plan as CSV lines "topic,partition,offset" (no header), as
// kafka-consumer-groups --reset-offsets --export writes them for one group;
// `topic` is the stream's Kafka topic or log table.
QString resetPlanCsv(const ResetPlan &plan, const QString &topic);
// Reads an offset plan for `group` on `topic`, in any of the forms:
// "topic,partition,offset" (Kafka, one group), "group,topic,partition,offset"
// (Kafka, several groups) and Rewind's earlier "group,partition,offset". A
// header line and quoted fields are allowed; rows for other groups or topics
// are skipped, and a file with none for this one is refused, naming what it
// has. Errors name the file and line.
Result<std::vector<std::pair<qint64, qint64>>>
readResetCsv(const QString &path, const QString &group, const QString &topic);

// An ISO-8601 duration (PnDTnHnMnS, fractions of seconds allowed, as
// --by-duration takes it; also PnW) or a short form (90s, 15m, 2h, 1d) to milliseconds.
Result<qint64> parseResetDuration(const QString &text);

} // namespace rw
