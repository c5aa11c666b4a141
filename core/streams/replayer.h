#pragma once

// Internal to replay (replay.cpp, replaystatements.cpp, replaysink.cpp):
// one replay of a stream's group, and the SQL it builds.

#include "core/sql/badvalue.h"
#include "core/sql/boundsql.h"
#include "core/streams/replay.h"
#include "core/streams/replaypipeline.h"
#include "core/streams/streamlog.h"
#include "core/streams/streamsdialect.h"

#include <QMap>
#include <memory>
#include <optional>
#include <vector>

namespace rw {

namespace replay_detail {

// A batch's share of one partition: the offset range it reads.
using Slice = OffsetRange;
using Batch = std::vector<Slice>;

// Threading: run() on one thread with that thread's connection; the
// pipeline's stager thread calls stageBatch() only.
class Replayer {
public:
    Replayer(const Database &db, const StreamSpec &stream, QString group,
             const ReplayOptions &options);
    Result<ReplayResult> run();

private:
    // replay.cpp: planning, the dry run, the batch loop.
    void readEventsFrom(EventRelation events);
    Status planSlices();
    Status publishNow(); // publishDeadLetters, counted in the result
    Status dryRun();
    Status execute();
    Status runBatch(const Batch &batch, std::size_t k);

    // replaystatements.cpp: the slices, the staged batch and the statements that read it.
    Status fillSlices(const Batch &batch);
    // Fills the slices, has the log make them readable and stages them as `createTable` AS ...
    Status stageBatch(const Batch &batch, const QString &createTable);
    // The staging SELECT for the filled slices; `assumeValid`: parsing every
    // payload unguarded (StreamsDialect::stagesOptimistically).
    Result<Sql> stageStatement(bool assumeValid = false) const;
    Sql stageSelect() const { return stageSelect(m_from); }
    Sql stageSelect(const QString &from, bool assumeValid = false) const;
    bool hasTypeChecks() const;
    QString stagedPresent() const;
    std::vector<FieldValue> stagedValues(const QString &alias) const;
    QString stagedValid() const;
    qsizetype fieldIndex(const QString &field) const;
    QString pathOf(const QString &field) const;
    Sql dryRunCounts(bool sinkExists) const;
    Status buildStatements();

    // replaysink.cpp: the sink, its columns and their types.
    Status ensureSink();
    Result<QStringList> fieldTypes();
    // The indexes (in m_stream.fields) of the fields the existing sink has no column for.
    Result<QList<qsizetype>> fieldsWithoutColumn();
    Status addSinkColumns();
    Status readSinkColumns();

    const Database &m_db;
    // What the replay needs of the session's role, checked before it starts.
    Status requirePrivileges() const;
    const StreamSpec &m_stream;
    const QString m_group;
    const ReplayOptions &m_options;
    qint64 m_batchSize = 0; // the option's, capped by the velocity
    const StreamsDialect &m_sd;
    std::unique_ptr<StreamLog> m_log;
    EventRelation m_events; // where the batch's SQL reads events
    QString m_eventsSql;    // m_events as the SQL names it
    QString m_slices, m_p, m_o, m_e, m_payload, m_from, m_countSlices, m_rangeFrom, m_rangeProbe;
    Sql m_stage, m_sinkInsert, m_dlqInsert; // m_stage: the staged batch's SELECT
    Sql m_stageUnguarded;                   // m_stage assuming every payload is JSON
    // m_stage (and unguarded) over a stretch of storage positions (binds: first, last)
    std::optional<Sql> m_rangeStage, m_rangeStageUnguarded;
    QString m_anyInvalid; // a row when some staged event is not valid (goes to the DLQ)
    std::unique_ptr<ReplayPipeline> m_pipeline; // staging ahead, when it runs
    QMap<QString, ColumnInfo> m_sinkColumns;    // field -> its sink column (declared type, strict)
    std::vector<Batch> m_batches;
    qint64 m_offsetsTotal = 0;
    std::optional<qint64> m_restoreCache;
    std::optional<qint64> m_restoreAutoCheckpoint;
    ReplayResult m_result;
};

} // namespace replay_detail

} // namespace rw
