#pragma once

#include "core/kafka/kafkaclient.h"
#include "core/streams/kafkaeventrows.h"
#include "core/streams/streamlog.h"

#include <array>
#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <span>

namespace rw {

// A stream's log as an Apache Kafka topic (the spec's "kafka"), read through
// librdkafka. Each call connects with the spec's bootstrap list and config
// (`${NAME}` read from the environment) and waits at most
// REWIND_KAFKA_TIMEOUT_MS (10 s) for the cluster: an unreachable cluster is
// an error naming the bootstrap list and librdkafka's reason, never a hang.
// No config value is ever put in a message: they may be secrets.
//
// Offsets and resets read and commit the group's offsets on the cluster,
// from outside the group (refused while it has members), and keep the
// workspace's rewind_offsets in step. Replay fetches each batch's records
// into a work table (rewind_kafka_events: the calling connection's, or the
// batch's scratch file's where the replay stages ahead), so the shared
// replay SQL reads them as it reads a log table; after each batch's
// transaction it commits the offsets reached to the group (see replayStart
// for a crash in between).
class KafkaLog final : public StreamLog {
public:
    KafkaLog(Database db, StreamSpec stream);
    ~KafkaLog() override;

    Result<std::vector<StreamPartitionInfo>> partitions() const override;
    Result<std::vector<PartitionOffsets>> committedOffsets(const QString &group) const override;
    Result<std::vector<ConsumerGroupInfo>> consumerGroups() const override;
    Result<QMap<qint64, FirstAtOrAfter>> firstOffsetsAtOrAfter(qint64 ms) const override;
    // Commits to the cluster and records the offsets in rewind_offsets
    // (committed and cluster offset), inside the caller's write transaction.
    Status commit(const QString &group,
                  const std::vector<std::pair<qint64, qint64>> &offsets) const override;

    // The cluster's committed offsets, except where rewind_offsets is ahead
    // while the cluster still holds what Rewind last committed there (a
    // replay killed between its batch's transaction and the cluster commit):
    // there the workspace's. With `execute` these starts are committed to
    // the group first (a commit from outside it, refused while it has
    // members) and recorded as the cluster's in rewind_offsets.
    Result<std::vector<PartitionOffsets>> replayStart(const QString &group,
                                                      bool execute) const override;
    Result<bool> prepareReads() const override;
    EventRelation eventRelation() const override;
    // The work table moves to the replay's scratch (staging ahead): the next
    // batch is fetched on the stager's connection while the writer's
    // connection writes this one.
    bool readAside(const QString &schema, const QString &createTable) override;
    // Reads committed records only (isolation.level read_committed): the
    // records of aborted transactions are passed over and counted
    // (abortedSkipped), by a second read of the ranges that had offsets
    // without a record, which also holds those records.
    Status readRange(const std::vector<OffsetRange> &ranges) const override;
    qint64 abortedSkipped() const override { return m_aborted; }
    // The records the batch dead-lettered get their Kafka key, headers and
    // topic, and where the payload text cannot hold the value exactly, its
    // bytes (kafka_value): what a redrive to the topic produces.
    Status annotateDeadLetters(const QVariant &afterDlqId) const override;
    // Commits `reached` to the group on the cluster, retrying with backoff
    // within REWIND_KAFKA_TIMEOUT_MS, then records it as the cluster's.
    Status followCommitted(const QString &group,
                           const std::vector<OffsetRange> &reached) const override;

private:
    struct Reader;
    Result<std::vector<PartitionOffsets>>
    committedOn(const QString &group, const std::vector<StreamPartitionInfo> &parts) const;
    // A group as its coordinator describes it.
    struct Described {
        QString state;
        QString protocol;
        std::vector<GroupMember> members;
    };
    // The cluster's consumer groups (all, or only `group`) as their
    // coordinators describe them; none where it cannot list them (an error
    // only where it cannot be reached).
    Result<std::optional<QMap<QString, Described>>> clusterGroups(const QString &group = {}) const;
    // BadInput naming the group, its state and members where it has live
    // members (a commit from outside it would be refused, and would race
    // its consumers): checked before anything changes.
    Status requireNoMembers(const QString &group) const;
    Status clusterCommit(const QString &group,
                         const std::vector<std::pair<qint64, qint64>> &offsets) const;
    Status recordOffsets(const QString &group, const std::vector<std::array<qint64, 3>> &rows,
                         bool committed) const;
    Result<Reader *> reader() const;
    // Records in [from, to) of each range, committed or not (read_uncommitted).
    Result<qint64> recordsIn(const std::vector<OffsetRange> &ranges) const;
    // The work table where it lives now, and its CREATE [TEMP] TABLE IF NOT EXISTS.
    QString workTable() const;
    Status createWorkTable() const;

    Database m_db;
    StreamSpec m_stream;
    mutable std::mutex m_readerMutex;
    mutable std::unique_ptr<Reader> m_reader; // replay's consumer, made on first read
    mutable std::atomic<qint64> m_aborted{0};
    mutable std::map<qint64, qint64> m_abortedCountedTo; // per partition; under m_readerMutex
    // The work table: the connection's temporary table, or (readAside, when
    // m_createAside is set) the table of that name in the scratch schema
    // (or unqualified). Set before reads overlap.
    QString m_workSchema;
    QString m_createAside;
};

} // namespace rw
