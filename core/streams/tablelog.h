#pragma once

#include "core/streams/streamlog.h"

namespace rw {

// A stream's log as an append-only table of the workspace (the spec's
// "log"); group offsets are kept in rewind_offsets. Everything is set-based
// SQL run by the engine.
class TableLog final : public StreamLog {
public:
    TableLog(Database db, StreamSpec stream);

    Result<std::vector<StreamPartitionInfo>> partitions() const override;
    Result<std::vector<PartitionOffsets>> committedOffsets(const QString &group) const override;
    Result<std::vector<ConsumerGroupInfo>> consumerGroups() const override;
    Result<QMap<qint64, FirstAtOrAfter>> firstOffsetsAtOrAfter(qint64 ms) const override;
    Status commit(const QString &group,
                  const std::vector<std::pair<qint64, qint64>> &offsets) const override;

    Result<bool> prepareReads() const override;
    EventRelation eventRelation() const override {
        return {m_stream.log, QString(), m_stream.logColumns};
    }
    Status readRange(const std::vector<OffsetRange> &) const override { return {}; }
    Status followCommitted(const QString &, const std::vector<OffsetRange> &) const override {
        return {};
    }

private:
    // "SELECT p, MIN(offset) AS lo, MAX(offset) + 1 AS hi FROM log ... GROUP BY p"
    QString extentPerPartition() const;

    Database m_db;
    StreamSpec m_stream;
};

} // namespace rw
