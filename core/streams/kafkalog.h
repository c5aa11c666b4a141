#pragma once

#include "core/streams/streamlog.h"

namespace rw {

// A stream's log as an Apache Kafka topic (the spec's "kafka"), read through
// librdkafka. Each call connects with the spec's bootstrap list and config
// (`${NAME}` read from the environment) and waits at most
// REWIND_KAFKA_TIMEOUT_MS (10 s) for the cluster: an unreachable cluster is
// an error naming the bootstrap list and librdkafka's reason, never a hang.
// No config value is ever put in a message: they may be secrets.
//
// What it does today: reads the topic's partitions and watermarks and a
// group's committed offsets (the spec's groups), and commits a reset's
// offsets to the group from outside it (refused while it has members).
// Resets by time, replay and the dead-letter topic are refused with a
// message saying so (exit 2, nothing changed).
class KafkaLog final : public StreamLog {
public:
    KafkaLog(Database db, StreamSpec stream);

    Result<std::vector<StreamPartitionInfo>> partitions() const override;
    Result<std::vector<PartitionOffsets>> committedOffsets(const QString &group) const override;
    Result<std::vector<ConsumerGroupInfo>> consumerGroups() const override;
    Result<QMap<qint64, FirstAtOrAfter>> firstOffsetsAtOrAfter(qint64 ms) const override;
    Status commit(const QString &group, const std::vector<std::pair<qint64, qint64>> &offsets) const override;

    Result<bool> prepareReads() const override;
    EventRelation eventRelation() const override { return {}; }
    Status readRange(const std::vector<OffsetRange> &ranges) const override;
    Status followCommitted(const QString &group, const std::vector<OffsetRange> &reached) const override;

private:
    Status notYet(const QString &what) const;

    Database m_db;
    StreamSpec m_stream;
};

// `value` with each ${NAME} replaced by the environment's NAME; BadInput
// naming `property` and NAME when one is not set.
Result<QString> expandEnvironment(const QString &property, const QString &value);

} // namespace rw
