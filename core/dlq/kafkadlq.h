#pragma once

// Dead-letter topics (issue 31): a Kafka Connect sink's dead-letter topic
// imported into the DLQ, and DLQ records produced back to Kafka (redrive).
//
// Import reads the stream's `dlq_topic` from where the last import stopped
// (per partition: the highest offset imported plus one, or the log start)
// to the high watermark seen at the start. Each record keeps its value, key
// and headers byte for byte; Connect's __connect.errors.topic, .partition,
// .offset, .exception.class.name and .exception.message headers (their last
// occurrence: Connect appends) become its origin, error_class and error. A
// record without them is its own origin, error class `unknown`. Records are
// keyed by (DLQ topic, partition, offset): importing twice adds nothing.
// One transaction per batch holds the records, their history and an audit row.
//
// Redrive produces selected records through an idempotent producer to a
// topic (default: each record's origin topic, or its Kafka stream's topic),
// in batches: key and headers kept, __connect.errors.* dropped, a
// `rewind.dlq.id` header added. A record turns `replayed` only after the
// broker acknowledged it, with the topic, partition and offset in its
// history, in the batch's transaction after the acknowledgements. A process
// killed between the two leaves the batch produced but unmarked: the next
// redrive produces it again (consumers drop the repeat by rewind.dlq.id).
//
// Threading: the calling thread, with its connection; progress is called on
// it after each batch; cancel is checked between batches.

#include "core/dlq/dlq.h"
#include "core/sql/database.h"
#include "core/workspace/spec.h"

#include <atomic>
#include <functional>
#include <optional>
#include <vector>

namespace rw {

struct DlqImportPartition {
    qint64 partition = 0;
    qint64 from = 0; // first offset read
    qint64 to = 0;   // the high watermark at the start
};

struct DlqImportProgress {
    qint64 read = 0;  // records read so far
    qint64 total = 0; // offsets to read
};

struct DlqImportOptions {
    bool execute = false;
    qint64 batchSize = 5000; // records per transaction
    std::function<void(const DlqImportProgress &)> progress;
    const std::atomic<bool> *cancel = nullptr;
};

struct DlqImportResult {
    QString stream;
    QString topic;
    bool executed = false;
    bool cancelled = false;
    // Imported now; in a dry run the offsets that would be read (a record
    // count only where the topic has no gaps: compaction, transaction markers).
    qint64 imported = 0;
    qint64 alreadyImported = 0; // records of the topic already in the DLQ
    std::vector<DlqImportPartition> partitions;
};

// BadInput (nothing changed): a stream that is not a Kafka stream or names no
// dlq_topic, a dlq_topic that does not exist. A cluster that cannot be
// reached: an error naming it.
Result<DlqImportResult> importDlqTopic(const Database &db, const StreamSpec &stream,
                                       const DlqImportOptions &options);

struct DlqProduceProgress {
    int batchesDone = 0;
    qint64 selected = 0;
    qint64 produced = 0;
    qint64 failed = 0;
};

struct DlqProduceOptions {
    bool execute = false;
    QString topic;          // empty: each record's origin topic
    qint64 batchSize = 500; // records per batch
    std::optional<double> maxPerSecond;
    std::function<void(const DlqProduceProgress &)> progress;
    const std::atomic<bool> *cancel = nullptr;
};

struct DlqProduced {
    qint64 id = 0;
    QString topic;
    qint64 partition = -1; // -1: not produced (dry run, or refused)
    qint64 offset = -1;
    QString error;
};

struct DlqProduceResult {
    bool executed = false;
    bool cancelled = false;
    qint64 selected = 0;
    qint64 produced = 0; // acknowledged by the broker (in a dry run: would be produced)
    qint64 failed =
        0; // refused by the broker: the record stays as it was, the error in its history
    qint64 skipped = 0; // selected but replayed or discarded
    int batches = 0;
    std::vector<std::pair<QString, qint64>> byTopic; // records per target topic
    QStringList streams;              // the Kafka streams the records come from (their clusters)
    std::vector<DlqProduced> records; // the first 1000
};

// BadInput (nothing produced): a selected record with no Kafka stream to say
// which cluster (its source is not a Kafka stream), a record with no topic to
// go to (no origin, no --to-topic), a target topic that does not exist.
Result<DlqProduceResult> produceDlq(const Database &db, const Spec &spec,
                                    const DlqSelection &selection,
                                    const DlqProduceOptions &options);

// For replay --dlq-to-topic: BadInput unless the stream is a Kafka stream
// whose kafka.dlq_topic exists on its cluster.
Status checkDeadLetterTopic(const StreamSpec &stream);

// Produces the stream's records that Rewind's Kafka replays dead-lettered and
// that are not yet on its dlq_topic (new, fixed or failed, not published
// before) to that topic, as Kafka Connect would: the original key, value and
// headers, plus __connect.errors.topic, .partition, .offset,
// .exception.class.name and .exception.message from the record, and
// rewind.dlq.id. Once acknowledged each record gets its place there
// (dlq_topic, dlq_partition, dlq_offset; dlq_source 'published') and a
// history row, in one transaction per page of `pageSize` records (by DLQ
// id), so a DLQ of millions is never held at once. Killed in between, the
// next call produces that page again; a page the cluster does not fully
// acknowledge ends the call (an error naming how many are left). Returns
// how many were published.
Result<qint64> publishDeadLetters(const Database &db, const StreamSpec &stream,
                                  int pageSize = 5000);

} // namespace rw
