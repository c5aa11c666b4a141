#pragma once

// The dead-letter queue: records quarantined by stream replays (bad JSON,
// missing fields) and by batch checks with on_fail "quarantine", and what an
// operator does with them: list, show, fix, validate, replay, discard.
//
// Statuses: new, fixed, replayed, failed, discarded. Every transition writes
// a rewind_dlq_history row (time, OS user, action, reason, payload before and
// after for fixes) in the same transaction as the change and an audit row. A
// record is never deleted.
//
// Payloads are bytes: they are read and written as BLOBs (QByteArray), never
// decoded, so invalid UTF-8 and payloads of tens of MB survive byte for byte.
//
// Threading: every call runs on the calling thread with that thread's
// connection.

#include "core/sql/database.h"
#include "core/sql/privileges.h"
#include "core/sql/sqliteapi.h"
#include "core/workspace/spec.h"

#include <QByteArray>
#include <atomic>
#include <functional>
#include <optional>
#include <span>
#include <vector>

namespace rw {

// Where a record stands (rewind_dlq.status).
enum class DlqStatus {
    New,       // quarantined, untouched
    Fixed,     // its payload was edited
    Replayed,  // written to its sink or target
    Failed,    // a replay found it still invalid
    Discarded, // given up on, with a reason
};
template <> struct EnumNames<DlqStatus> {
    static constexpr std::pair<DlqStatus, std::string_view> names[] = {
        {DlqStatus::New, "new"},
        {DlqStatus::Fixed, "fixed"},
        {DlqStatus::Replayed, "replayed"},
        {DlqStatus::Failed, "failed"},
        {DlqStatus::Discarded, "discarded"}};
};

// Which records an operation covers. Criteria combine with AND; values of one
// criterion with OR. An empty selection means every record.
struct DlqSelection {
    QList<qint64> ids;
    QStringList statuses; // as the operator named them; an unknown one is refused (BadInput)
    QStringList errorClasses;
    QStringList sources; // "NAME", "stream:NAME" or "dataset:NAME"
    QString since;       // first_seen at or after (ISO-8601 or epoch seconds)
    QString until;       // first_seen before
    QString signature;   // error signature (see errorSignature)

    bool byFilter() const {
        return !statuses.isEmpty() || !errorClasses.isEmpty() || !sources.isEmpty() ||
               !since.isEmpty() || !until.isEmpty() || !signature.isEmpty();
    }
    bool isEmpty() const { return ids.isEmpty() && !byFilter(); }
};

struct DlqRecord {
    qint64 id = 0;
    QString sourceKind; // stream | dataset
    QString sourceName;
    std::optional<QString> partition;
    std::optional<qint64> offset;
    std::optional<QString> eventId;
    std::optional<QString> key; // JSON object text of the dataset key
    QString errorClass;
    QString error;
    QString signature;
    DlqStatus status = DlqStatus::New;
    int attempts = 0;
    QString firstSeen;
    std::optional<QString> lastAttemptAt;
    std::optional<QString> lastErrorClass; // of the last failed replay
    std::optional<QString> lastError;
    qint64 originalBytes = 0;
    qint64 payloadBytes = 0;
    bool payloadChanged = false;

    QString source() const { return sourceKind + QLatin1Char(':') + sourceName; }
};

struct DlqGroup {
    QString errorClass;
    QString signature;
    QString example; // one error message of the group
    qint64 count = 0;
    std::vector<std::pair<DlqStatus, qint64>> byStatus;
};

struct DlqListResult {
    qint64 total = 0;                                   // records matching the selection
    std::vector<DlqRecord> records;                     // the first `limit` of them, by id
    std::vector<std::pair<DlqStatus, qint64>> byStatus; // ordered by the status names
    std::vector<DlqGroup> groups;                       // by error signature, largest first
};

// Filters, counts per status and groups by error signature. Reads only.
Result<DlqListResult> listDlq(const Database &db, const DlqSelection &selection, int limit);

// One page of the selection in id order: the records with an id above
// `afterId` (0: from the start), at most `limit`. A keyset seek on the primary
// key, so the millionth record's page costs what the first one does (a
// signature filter still evaluates the signature per record it passes).
// Reads only.
Result<std::vector<DlqRecord>> pageDlq(const Database &db, const DlqSelection &selection,
                                       qint64 afterId, int limit);

struct DlqCounts {
    qint64 total = 0;
    std::vector<std::pair<DlqStatus, qint64>> byStatus; // ordered by the status names
};

// How many records match the selection, per status; no grouping. Reads only.
Result<DlqCounts> countDlq(const Database &db, const DlqSelection &selection);

struct DlqHistoryEntry {
    qint64 id = 0;
    QString at;
    QString osUser;
    QString action;
    std::optional<QString> fromStatus; // as recorded: shown, never acted on
    std::optional<QString> toStatus;
    std::optional<QString> reason;
    std::optional<QByteArray> payloadBefore;
    std::optional<QByteArray> payloadAfter;
};

// A Kafka record in the DLQ (imported from a dead-letter topic, or
// dead-lettered by a Kafka replay): where it came from and what it carried.
struct DlqKafkaRecord {
    QString topic; // its origin topic (part and log_offset of the record: partition and offset)
    std::optional<QByteArray> key; // byte for byte
    std::vector<std::pair<QString, std::optional<QByteArray>>>
        headers;                     // in order, Connect's included
    std::optional<QString> dlqTopic; // imported: where it was read
    qint64 dlqPartition = -1;
    qint64 dlqOffset = -1;
};

struct DlqDetail {
    DlqRecord record;
    std::optional<QByteArray>
        originalPayload; // a Kafka value the payload text could not hold: its bytes
    std::optional<QByteArray> payload;
    std::vector<DlqHistoryEntry> history;
    std::optional<DlqKafkaRecord> kafka;
};

// One record, both payloads byte for byte, and its history. BadInput when
// there is no such record.
Result<DlqDetail> showDlq(const Database &db, qint64 id);

struct DlqFixRequest {
    DlqSelection selection; // when it names no status: every new, failed or fixed record
    std::vector<std::pair<QString, QString>>
        sets;                          // JSONPath -> value (JSON when it parses, else a string)
    std::optional<QByteArray> payload; // replaces the payload (exactly one record)
    QString reason;
    bool execute = false;
};

struct DlqChange {
    qint64 id = 0;
    QByteArray before;
    QByteArray after;
};

struct DlqFixResult {
    bool executed = false;
    qint64 selected = 0;
    qint64 changed = 0;             // payload differs after the fix
    std::vector<DlqChange> samples; // up to 5
};

// Sets JSON paths in, or replaces, the payload of the selected records: their
// status becomes fixed, with history (payload before and after) and an audit
// row, in one transaction. Without `execute`, reports and changes nothing.
// BadInput (nothing changed): a payload that is not valid JSON (with the
// parse error's position), a malformed path, a selected record whose payload
// is not JSON (for --set), a replayed or discarded record named by id.
Result<DlqFixResult> fixDlq(const Database &db, const DlqFixRequest &request);

// What every DLQ action that changes records (fix, discard, replay, redrive)
// needs of the session's role, besides what a replay writes: exit 2 naming
// each privilege lacking (core/sql/privileges.h). `operation` names it.
Status requireDlqWritePrivileges(const Database &db, const QString &operation);
// What an import of a dead-letter topic needs: adding records and their history.
Status requireDlqImportPrivileges(const Database &db, const QString &operation);

struct DlqDiscardResult {
    bool executed = false;
    qint64 selected = 0;
    QList<qint64> ids; // up to 100
};

// Marks the selected new, fixed or failed records discarded with the reason
// (required), history and audit row. They stay in the table.
Result<DlqDiscardResult> discardDlq(const Database &db, const DlqSelection &selection,
                                    const QString &reason, bool execute);

struct DlqReplayProgress {
    int batchesDone = 0;
    qint64 selected = 0;
    qint64 processed = 0;
    qint64 replayed = 0;
    qint64 failed = 0;
};

// Threading: `progress` is called on the calling thread after each batch
// commits; `cancel` may be set from any thread and is checked between
// batches and while waiting for the velocity limit: a cancelled replay stops
// at a batch boundary with everything before it committed.
struct DlqReplayOptions {
    bool execute = false;
    qint64 batchSize = 500;             // records per transaction
    std::optional<double> maxPerSecond; // velocity: records committed per second, at most
    int maxRecords = 1000;              // per-record verdicts kept in the result
    std::function<void(const DlqReplayProgress &)> progress;
    const std::atomic<bool> *cancel = nullptr;
};

struct DlqVerdict {
    qint64 id = 0;
    QString source;
    DlqStatus status = DlqStatus::New; // before the replay
    bool valid = false;
    bool alreadyLanded = false;
    QString errorClass; // why not, when not valid
    QString error;
};

// How a replay of DLQ records ended.
enum class DlqReplayStatus {
    DryRun,
    Succeeded,
    Cancelled, // stopped at a batch boundary
};
template <> struct EnumNames<DlqReplayStatus> {
    static constexpr std::pair<DlqReplayStatus, std::string_view> names[] = {
        {DlqReplayStatus::DryRun, "dry_run"},
        {DlqReplayStatus::Succeeded, "succeeded"},
        {DlqReplayStatus::Cancelled, "cancelled"}};
};

struct DlqReplayResult {
    bool executed = false;
    DlqReplayStatus status = DlqReplayStatus::DryRun;
    qint64 selected = 0;      // records matching the selection
    qint64 replayed = 0;      // valid (would be replayed, in a dry run)
    qint64 failed = 0;        // still invalid
    qint64 skipped = 0;       // matched but not replayable (replayed or discarded)
    qint64 alreadyLanded = 0; // valid, and their row or event_id was already there: nothing written
    qint64 inserted = 0;
    qint64 updated = 0;
    int batches = 0;
    double seconds = 0;
    std::vector<DlqVerdict> records; // the first maxRecords verdicts, by id
    std::vector<std::pair<QString, qint64>> failuresByClass;
};

// Replays the selection (default: every new or fixed record; by id or
// --status, failed ones too) in batches. Each record is validated exactly as
// validateDlq reports: JSON validity; for a stream record its event_id and the
// stream's required fields; for a dataset record a JSON object of the
// target's columns passing the dataset's row-level checks (not_null,
// references). Valid ones are written idempotently, a stream's into its sink
// by event_id (at most once), a dataset's merged into its target by key
// (null-safe: update where different, insert where missing), and become
// replayed; invalid ones become failed with attempts + 1 and the error kept.
// One transaction per batch holds the writes, the transitions, the history
// and an audit row. Set-based SQL per batch and source.
// Without `execute`: the same checks, nothing written (validate).
Result<DlqReplayResult> replayDlq(const Database &db, const Spec &spec,
                                  const DlqSelection &selection, const DlqReplayOptions &options);

// "class: message" with numbers, UUIDs, hex ids and quoted values replaced
// by placeholders, so "order 123 missing" and "order 456 missing" group.
QString errorSignature(const QString &errorClass, const QString &error);

// The DLQ's SQLite function, registered on every SQLite connection
// (core/sql/sqlitefunctions.h): rewind_dlq_signature(class, error), the same
// as errorSignature, so grouping runs in the database as a GROUP BY.
std::span<const sqlite::Function> dlqSqliteFunctions();

namespace dlqinternal {
// The WHERE predicate (over alias d) of a selection, appending its binds.
Result<QString> selectionPredicate(const SqlDialect &dialect, const DlqSelection &selection,
                                   QVariantList &binds);
// Makes the DLQ's SQL functions available on this thread's connection: on
// PostgreSQL the JSON helpers of SqlDialect::dlqSessionFunctions (SQLite's
// are registered as each connection opens). Outside a transaction.
Status ensureFunctions(const Database &db);
// BadInput naming ids of the selection that do not exist.
Status requireIds(const Database &db, const QList<qint64> &ids);
// What every DLQ action that updates records needs of the session's role:
// temporary objects, updating rewind_dlq, its history and the audit log.
void addWriteNeeds(std::vector<privileges::Need> &needs);
} // namespace dlqinternal

} // namespace rw
