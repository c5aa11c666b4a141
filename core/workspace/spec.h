#pragma once

#include "core/util/enumnames.h"
#include "core/util/error.h"

#include <QDateTime>
#include <QMap>
#include <QString>
#include <QStringBuilder>
#include <QStringList>
#include <optional>
#include <utility>
#include <vector>

namespace rw {

class Database;

// A quality gate run on the staged rows before publish.
struct CheckSpec {
    QString type;        // not_null, unique_key, references, row_count, total, sql, max_changed,
                         // unchanged, delta
    QString name;        // defaults to the type (plus the column for single-column checks)
    QStringList columns; // not_null, unchanged
    QString column;      // references, total, max_changed, delta
    QString refTable;    // references: "table"
    QString refColumn;   // references: "to"
    std::optional<double> min;               // row_count, sql
    std::optional<double> max;               // row_count, sql
    double tolerancePct = 0;                 // total
    double maxPct = 0;                       // max_changed, delta
    QString query;                           // sql: may use {staged}
    QString onFail = QStringLiteral("fail"); // not_null, references: fail | quarantine
};

// How a run writes a dataset's target.
enum class WriteMode {
    Merge,              // insert new keys, update changed rows
    OverwritePartition, // replace each partition in scope
    Scd2,               // versions with valid_from/valid_to/current
    // dbt's delete+insert: in each partition, the target's rows whose key is
    // among the staged rows are deleted and every staged row inserted (no
    // dedupe: a key may hold several rows).
    DeleteInsert,
    Append, // dbt's append: every staged row inserted, nothing deleted or updated
};
template <> struct EnumNames<WriteMode> {
    static constexpr std::pair<WriteMode, std::string_view> names[] = {
        {WriteMode::Merge, "merge"},
        {WriteMode::OverwritePartition, "overwrite_partition"},
        {WriteMode::Scd2, "scd2"},
        {WriteMode::DeleteInsert, "delete_insert"},
        {WriteMode::Append, "append"}};
};

// What a run does when the transform's columns differ from the target's
// (dbt's on_schema_change): refuse, naming them and the option that would
// allow it (fail); add new ones in the run's first publish
// (append_new_columns); or also drop the ones it no longer yields and widen
// the ones it yields wider (sync_all_columns). A stream's sink only ever
// takes new columns.
enum class SchemaChangePolicy {
    Fail,
    AppendNewColumns,
    SyncAllColumns,
};
template <> struct EnumNames<SchemaChangePolicy> {
    static constexpr std::pair<SchemaChangePolicy, std::string_view> names[] = {
        {SchemaChangePolicy::Fail, "fail"},
        {SchemaChangePolicy::AppendNewColumns, "append_new_columns"},
        {SchemaChangePolicy::SyncAllColumns, "sync_all_columns"}};
};

struct Scd2Spec {
    QStringList tracked;
    bool trackAll = false; // "tracked": "all": every column the source yields but the key
                           // and the partition column (the effective date)
    // With "all": columns not compared either, derived ones (dbt's dbt_scd_id).
    QStringList notTracked;
    QString validFrom;
    QString validTo;
    QString current; // optional: without it, a version is current while valid_to is NULL
    // "invalidate": each partition is the whole dimension as of its date, so
    // a key with an open version and no row in it is closed at that date
    // (dbt's hard_deletes: invalidate). Only for a snapshot dated by its run.
    bool invalidateHardDeletes = false;
    // The columns Rewind writes beside the staged ones: valid_from, valid_to
    // and current where there is one.
    QStringList versionColumns() const {
        QStringList out{validFrom, validTo};
        if (!current.isEmpty())
            out << current;
        return out;
    }
};

struct LogColumns {
    QString partitionId = QStringLiteral("partition_id");
    QString logOffset = QStringLiteral("log_offset");
    QString eventId = QStringLiteral("event_id");
    QString recordTs = QStringLiteral("record_ts");
    QString payload = QStringLiteral("payload");
};

// A stream read from an Apache Kafka topic instead of a log table
// (CONTRACT, "Streams on Apache Kafka").
struct KafkaSpec {
    QString bootstrap; // bootstrap.servers
    QString topic;
    std::vector<std::pair<QString, QString>>
        config;         // librdkafka properties as written: ${NAME} read at connection
    QStringList groups; // groups to show where the cluster cannot list them
    QString dlqTopic;
};

struct StreamSpec {
    QString name;
    QString log;                             // empty for a Kafka stream
    std::optional<KafkaSpec> kafka;          // exclusive with log
    QString eventId = QStringLiteral("key"); // Kafka: "key", "$.path" or "header:NAME"
    QString sink;
    // Fields the existing sink has no column for: refused (fail), or added
    // to it before the replay's first batch (append_new_columns).
    SchemaChangePolicy onSchemaChange = SchemaChangePolicy::Fail;
    // Where it reads: the log table, or the Kafka topic; and what that is.
    QString source() const { return kafka ? kafka->topic : log; }
    QString sourceKind() const {
        return kafka ? QStringLiteral("Kafka topic") : QStringLiteral("log");
    }
    LogColumns logColumns;
    std::vector<std::pair<QString, QString>> fields; // sink column -> JSONPath, in spec order
    QStringList required;
};

struct DatasetSpec {
    QString name;
    QString source;    // table or view; may be empty when transform is given
    QString transform; // a single SELECT; empty means SELECT * FROM source
    QString target;
    QString partitionColumn; // empty: unpartitioned (one partition, value null)
    // "hour", "day" or "month": the partition is that unit of the
    // partition column's timestamp (labels 2025-05-06T05:00:00Z, 2025-05-06,
    // 2025-05-01); empty: the column's own values.
    QString partitionGranularity;
    QStringList key;
    QString orderBy;
    WriteMode write = WriteMode::Merge;
    // merge only, as dbt's merge_update_columns / merge_exclude_columns: a
    // matched key's row has these columns updated (or all but these), the
    // others keep the target's values; an unmatched key is inserted whole.
    // At most one of the two is given.
    QStringList mergeUpdateColumns;
    QStringList mergeExcludeColumns;
    SchemaChangePolicy onSchemaChange = SchemaChangePolicy::Fail;
    QString eventTime;
    QString ingestTime;
    std::optional<qint64> allowedLatenessSeconds;
    std::optional<Scd2Spec> scd2;
    std::vector<CheckSpec> checks;
    // A dataset made from a dbt model (rewindctl init --dbt): the node it
    // came from and that node's checksum then (docs/dbt.md).
    struct DbtOrigin {
        QString uniqueId;
        QString checksum;
    };
    std::optional<DbtOrigin> dbt;
    // The streams that feed it: those "fed_by" names, and any stream whose
    // sink is its source or a table its transform reads. While a consumer
    // group of one lags, the watermark is held at its earliest unconsumed
    // event (core/lateness/feeds.h). `fedBy` as the spec writes it; `feeds`
    // resolved when the spec is parsed, in spec order.
    QStringList fedBy;
    std::vector<StreamSpec> feeds;

    // Set by the command that runs it, never read from the spec: the time a
    // snapshot dated by its run takes (below), "YYYY-MM-DD HH:MM:SS.fff" in
    // UTC. Empty: the time the source is read.
    QString snapshotTime;

    bool partitioned() const { return !partitionColumn.isEmpty(); }
    // An scd2 dataset whose transform says {snapshot_time}: each run takes
    // the source as the dimension at that instant (as a dbt snapshot does),
    // its one partition the run's time (docs/spec.md).
    bool datedByRun() const {
        return write == WriteMode::Scd2 && transform.contains(QLatin1String("{snapshot_time}"));
    }
    bool hasWatermark() const { return allowedLatenessSeconds.has_value(); }
    // delete_insert and append: the staged rows are every source row of the
    // scope, not one per key.
    bool keepsEveryRow() const {
        return write == WriteMode::DeleteInsert || write == WriteMode::Append;
    }
};

struct Spec {
    QString path;
    // "dbt_manifest": the manifest its dbt datasets were imported from
    // (rewindctl init --dbt writes it), resolved against the spec's folder;
    // empty when it names none.
    QString dbtManifest;
    // "control_db": the transactional store a Trino warehouse's control
    // tables (plans, runs, checkpoints, audit) live in, as a --db names a
    // database (a SQLite path resolved against the spec's folder, or
    // postgresql://...); empty when it names none. Only with a Trino --db.
    QString controlDb;
    std::vector<DatasetSpec> datasets;
    std::vector<StreamSpec> streams;
    // Datasets and streams whose names do not resolve against the catalog
    // (catalogProblems), "dataset:NAME" or "stream:NAME" -> why: refused by
    // the commands that touch them, while the others keep working.
    QMap<QString, QString> broken;
    QString brokenReason(const QString &kind, const QString &name) const {
        return broken.value(kind % u':' % name);
    }
    // What still works beside a broken one: "its other datasets and streams
    // work", or, when none resolves, a hint at the wrong database.
    QString brokenHint() const;

    const DatasetSpec *dataset(const QString &name) const;
    const StreamSpec *stream(const QString &name) const;
    // BadInput errors that list what exists.
    Result<const DatasetSpec *> requireDataset(const QString &name) const;
    Result<const StreamSpec *> requireStream(const QString &name) const;
};

// Parses and checks the shape of a spec: JSON syntax (errors give line and
// column), field types, known modes and check types. `origin` names the file
// in messages. Every error names the dataset or stream and the field.
Result<Spec> parseSpec(const QByteArray &json, const QString &origin);
Result<Spec> loadSpec(const QString &path);

// Checks a parsed spec against the database catalog: tables and columns
// exist, the transform is a single SELECT that compiles, target differs from
// source. Reads only; collects every problem into one BadInput error.
Status validateSpec(const Spec &spec, const Database &db);
// The same checks, per dataset and stream: "dataset:NAME" or "stream:NAME"
// -> the problems found, one per line. Reads only.
Result<QMap<QString, QString>> catalogProblems(const Spec &spec, const Database &db);

// The SELECT that yields a dataset's rows: its transform, or every column of
// its source.
QString sourceSelect(const DatasetSpec &dataset, const Database &db);
// sourceSelect as a derived table: "(SELECT ...) AS alias", the one way every
// query over a dataset's rows reads them (a batch operation reads it from its
// DatasetCatalog, resolved once).
// A snapshot time as {snapshot_time} is replaced by (quoted): UTC,
// "YYYY-MM-DD HH:MM:SS.fff".
QString snapshotTimeText(const QDateTime &at);
QString sourceRelation(const DatasetSpec &dataset, const Database &db, const QString &alias);

} // namespace rw
