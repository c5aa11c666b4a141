#pragma once

// The one writer of rewind_dlq and rewind_dlq_history (scripts/check-layout
// refuses a write from anywhere else): the column lists, the ids, and the
// history row every change of a record gets. Batch gates, stream replay, the
// DLQ's own triage and replay, and the Kafka dead-letter topics all write
// through here, so a new column is added in this file.
//
// Every call runs inside the caller's write transaction, which also holds the
// change that made it (the sink rows, the staged batch) and its audit row.
// Work tables named by the caller (`work`) are the caller's temp tables.
//
// Threading: the calling thread, with its connection.

#include "core/sql/boundsql.h"
#include "core/sql/database.h"

#include <vector>

namespace rw::dlqstore {

// The records a statement quarantines: each column is an SQL expression over
// `from` (NULL where not given). `payload` is stored twice: as the original
// payload, kept byte for byte, and as the payload a fix may edit. Binds go
// in the order the columns are listed here, then `from`'s.
struct QuarantineRows {
    QString sourceKind; // "stream" | "dataset"
    QString sourceName;
    Sql part{QStringLiteral("NULL")};
    Sql logOffset{QStringLiteral("NULL")};
    Sql eventId{QStringLiteral("NULL")};
    Sql recordKey{
        QStringLiteral("NULL")}; // JSON object text of a dataset key, or a stream's event id
    Sql errorClass;
    Sql error;
    Sql payload;
    Sql from; // " FROM ... WHERE ... [ORDER BY ...]": the ORDER BY is the order ids follow
};

// The INSERT ... SELECT of `rows` as new records (status new, no attempts,
// first seen now), for quarantine(). Built once, run per batch.
Sql quarantineStatement(const SqlDialect &dialect, const QuarantineRows &rows);

struct Quarantined {
    QVariant afterId; // the highest id before: the new records are those above it
    qint64 added = 0;
};

// Runs a quarantineStatement and gives each new record its history row
// (action quarantined, the payload as captured, at its first_seen): `reason`,
// then the record's error class when `withErrorClass`.
Result<Quarantined> quarantine(const Database &db, const Sql &statement, const QString &reason,
                               bool withErrorClass);

// A record read from a Kafka dead-letter topic (core/dlq/kafkadlq).
struct ImportedRecord {
    QVariant stream; // source_name: the stream whose dlq_topic it was read from
    QVariant part;   // its origin partition (text), offset and event id
    QVariant logOffset;
    QVariant eventId;
    QVariant recordKey; // the Kafka key as text, where it is clean UTF-8
    QVariant errorClass;
    QVariant error;
    QVariant payload;      // original and current
    QVariant kafkaTopic;   // its origin topic
    QVariant kafkaKey;     // bytes
    QVariant kafkaValue;   // bytes, where the payload column cannot hold them exactly
    QVariant kafkaHeaders; // JSON array (kafkaclient::headersJson)
    QVariant dlqTopic;     // where it was read: topic, partition, offset
    QVariant dlqPartition;
    QVariant dlqOffset;
};

// Inserts imported records (dlq_source 'imported'); one already there, by
// (dlq_topic, dlq_partition, dlq_offset), is skipped. History as quarantine().
Result<Quarantined> importRecords(const Database &db, const std::vector<ImportedRecord> &records,
                                  const QString &reason);

// The Kafka origin of the records a Kafka replay just dead-lettered (ids
// above `afterId`, of `stream`): `topic`, and key, headers and raw value
// from `events`, a relation of (partition_id, log_offset, key_bytes,
// headers, raw_value), matched by partition and offset.
Status setKafkaOrigin(const Database &db, const QVariant &afterId, const QString &stream,
                      const QString &topic, const QString &events);

// Fixes: `work` holds (dlq_id, from_status, p_before, p_after); each record
// gets p_after as its payload, status fixed, and a history row with both
// payloads. Returns the records changed.
Result<qint64> applyFixes(const Database &db, const QString &work, const QString &reason);

// Discards: `work` holds (dlq_id, from_status); each record turns discarded
// with `reason` in its history. Returns the records changed.
Result<qint64> discard(const Database &db, const QString &work, const QString &reason);

// A DLQ replay's verdicts: `work` holds (dlq_id, status, error_class, error,
// landed, dest); a record with no error class turns replayed ("written to
// DEST" or "already in DEST"), one with an error turns failed with it as its
// last error; attempts + 1 either way.
Status settleReplay(const Database &db, const QString &work);

// A redrive to Kafka, after the broker's acknowledgements: `work` holds
// (dlq_id, from_status, topic, partition_id, log_offset, error); a record
// with no error turns replayed ("produced to T [p] @o"), one with an error
// failed (produce_failed).
Status settleRedrive(const Database &db, const QString &work);

// Dead letters published to their stream's dlq_topic: `work` holds (dlq_id,
// topic, partition_id, log_offset); each record gets its place there
// (dlq_source 'published') and a history row; its status is unchanged.
Status settlePublished(const Database &db, const QString &work);

} // namespace rw::dlqstore
