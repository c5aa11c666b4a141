#include "core/dlq/dlqstore.h"

#include "core/dlq/dlq.h"
#include "core/sql/timejson.h"
#include "core/workspace/workspace.h"

#include <QStringBuilder>

namespace rw::dlqstore {

namespace {

// The columns every new record fills, in the order quarantineStatement and
// importRecords give them.
const QString kRecordColumns = QStringLiteral(
    "source_kind, source_name, part, log_offset, event_id, record_key, error_class, error, "
    "original_payload, payload, status, attempts, first_seen");

// History of the records above `afterId`, just inserted.
Status recordQuarantined(const Database &db, const QVariant &afterId, const QString &reason,
                         bool withErrorClass) {
    auto history =
        db.exec(QStringLiteral("INSERT INTO rewind_dlq_history (dlq_id, at, os_user, action, "
                               "from_status, to_status, reason, payload_after) "
                               "SELECT dlq_id, first_seen, ?, 'quarantined', NULL, ?, ") %
                    (withErrorClass ? QStringLiteral("? || error_class") : QStringLiteral("?")) %
                    QStringLiteral(", payload FROM rewind_dlq WHERE dlq_id > ?"),
                {osUser(), enumName(DlqStatus::New), reason, afterId});
    if (!history)
        return fail(history.error());
    return {};
}

Result<QVariant> highestId(const Database &db) {
    return db.scalar(QStringLiteral("SELECT COALESCE(MAX(dlq_id), 0) FROM rewind_dlq"));
}

} // namespace

Sql quarantineStatement(const SqlDialect &dialect, const QuarantineRows &rows) {
    Sql s;
    s << QStringLiteral("INSERT INTO rewind_dlq (") % kRecordColumns % QStringLiteral(") SELECT ")
      << Bind{rows.sourceKind} << QStringLiteral(", ") << Bind{rows.sourceName};
    for (const Sql *column : {&rows.part, &rows.logOffset, &rows.eventId, &rows.recordKey,
                              &rows.errorClass, &rows.error, &rows.payload, &rows.payload})
        s << QStringLiteral(", ") << *column;
    s << QStringLiteral(", ") << Bind{enumName(DlqStatus::New)} << QStringLiteral(", 0, ")
      << TimeJson::of(dialect).nowUtcText() << rows.from;
    return s;
}

Result<Quarantined> quarantine(const Database &db, const Sql &statement, const QString &reason,
                               bool withErrorClass) {
    auto before = highestId(db);
    if (!before)
        return fail(before.error());
    auto inserted = db.exec(statement.text, statement.binds);
    if (!inserted)
        return fail(inserted.error());
    Quarantined out{*before, inserted->numRowsAffected()};
    if (out.added > 0)
        if (auto s = recordQuarantined(db, *before, reason, withErrorClass); !s)
            return fail(s.error());
    return out;
}

Result<Quarantined> importRecords(const Database &db, const std::vector<ImportedRecord> &records,
                                  const QString &reason) {
    Quarantined out;
    auto before = highestId(db);
    if (!before)
        return fail(before.error());
    out.afterId = *before;
    if (records.empty())
        return out;
    constexpr int kColumns = 16;
    QVariantList binds;
    binds.reserve(qsizetype(records.size()) * kColumns);
    for (const ImportedRecord &r : records)
        binds << r.stream << r.part << r.logOffset << r.eventId << r.recordKey << r.errorClass
              << r.error << r.payload << r.payload << r.kafkaTopic << r.kafkaKey << r.kafkaValue
              << r.kafkaHeaders << r.dlqTopic << r.dlqPartition << r.dlqOffset;
    const QString row = QStringLiteral("('stream', ?, ?, ?, ?, ?, ?, ?, ?, ?, '") %
                        enumName(DlqStatus::New) % QStringLiteral("', 0, ") %
                        TimeJson::of(db.dialect()).nowUtcText() %
                        QStringLiteral(", ?, ?, ?, ?, ?, ?, ?, 'imported')");
    if (auto s = db.execRows(QStringLiteral("INSERT INTO rewind_dlq (") % kRecordColumns %
                                 QStringLiteral(", kafka_topic, kafka_key, kafka_value, "
                                                "kafka_headers, dlq_topic, dlq_partition, "
                                                "dlq_offset, dlq_source) VALUES "),
                             row, kColumns, binds, QStringLiteral(" ON CONFLICT DO NOTHING"));
        !s)
        return fail(s.error());
    auto count =
        db.scalar(QStringLiteral("SELECT COUNT(*) FROM rewind_dlq WHERE dlq_id > ?"), {*before});
    if (!count)
        return fail(count.error());
    out.added = count->toLongLong();
    if (out.added > 0)
        if (auto s = recordQuarantined(db, *before, reason, true); !s)
            return fail(s.error());
    return out;
}

Status setKafkaOrigin(const Database &db, const QVariant &afterId, const QString &stream,
                      const QString &topic, const QString &events) {
    const QString match =
        QStringLiteral(" FROM ") % events %
        QStringLiteral(" AS e WHERE CAST(e.partition_id AS TEXT) = rewind_dlq.part AND "
                       "e.log_offset = rewind_dlq.log_offset)");
    auto r = db.exec(
        QStringLiteral("UPDATE rewind_dlq SET kafka_topic = ?, kafka_key = (SELECT e.key_bytes") %
            match % QStringLiteral(", kafka_headers = (SELECT e.headers") % match %
            QStringLiteral(", kafka_value = (SELECT e.raw_value") % match %
            QStringLiteral(" WHERE dlq_id > ? AND source_kind = 'stream' AND source_name = ?"),
        {topic, afterId, stream});
    if (!r)
        return fail(r.error());
    return {};
}

Result<qint64> applyFixes(const Database &db, const QString &work, const QString &reason) {
    auto updated = db.exec(QStringLiteral("UPDATE rewind_dlq SET status = ?, payload = (SELECT "
                                          "f.p_after FROM ") %
                               work %
                               QStringLiteral(" AS f WHERE f.dlq_id = rewind_dlq.dlq_id) WHERE "
                                              "dlq_id IN (SELECT dlq_id FROM ") %
                               work % u')',
                           {enumName(DlqStatus::Fixed)});
    if (!updated)
        return fail(updated.error());
    const qint64 changed = updated->numRowsAffected();
    auto history = db.exec(QStringLiteral("INSERT INTO rewind_dlq_history (dlq_id, at, "
                                          "os_user, action, from_status, to_status, reason, "
                                          "payload_before, payload_after) SELECT f.dlq_id, ") %
                               TimeJson::of(db.dialect()).nowUtcText() %
                               QStringLiteral(", ?, 'fixed', f.from_status, ?, ?, f.p_before, "
                                              "f.p_after FROM ") %
                               work % QStringLiteral(" AS f"),
                           {osUser(), enumName(DlqStatus::Fixed), reason});
    if (!history)
        return fail(history.error());
    return changed;
}

Result<qint64> discard(const Database &db, const QString &work, const QString &reason) {
    auto updated = db.exec(QStringLiteral("UPDATE rewind_dlq SET status = ? WHERE dlq_id IN "
                                          "(SELECT dlq_id FROM ") %
                               work % u')',
                           {enumName(DlqStatus::Discarded)});
    if (!updated)
        return fail(updated.error());
    const qint64 changed = updated->numRowsAffected();
    auto history = db.exec(QStringLiteral("INSERT INTO rewind_dlq_history (dlq_id, at, os_user, "
                                          "action, from_status, to_status, reason) "
                                          "SELECT x.dlq_id, ") %
                               TimeJson::of(db.dialect()).nowUtcText() %
                               QStringLiteral(", ?, 'discarded', x.from_status, ?, ? FROM ") %
                               work % QStringLiteral(" AS x"),
                           {osUser(), enumName(DlqStatus::Discarded), reason});
    if (!history)
        return fail(history.error());
    return changed;
}

Status settleReplay(const Database &db, const QString &work) {
    const QString now = TimeJson::of(db.dialect()).nowUtcText();
    auto updated = db.exec(
        QStringLiteral("UPDATE rewind_dlq SET status = CASE WHEN w.error_class IS NULL "
                       "THEN 'replayed' ELSE 'failed' END, "
                       "attempts = rewind_dlq.attempts + 1, last_attempt_at = ") %
        now %
        QStringLiteral(", last_error_class = COALESCE(w.error_class, rewind_dlq.last_error_class), "
                       "last_error = COALESCE(w.error, rewind_dlq.last_error) FROM ") %
        work %
        QStringLiteral(" AS w WHERE rewind_dlq.dlq_id = w.dlq_id AND rewind_dlq.dlq_id IN "
                       "(SELECT dlq_id FROM ") %
        work % QStringLiteral(")"));
    if (!updated)
        return fail(updated.error());
    auto history = db.exec(
        QStringLiteral("INSERT INTO rewind_dlq_history (dlq_id, at, os_user, action, "
                       "from_status, to_status, reason) SELECT w.dlq_id, ") %
            now %
            QStringLiteral(", ?, CASE WHEN w.error_class IS NULL THEN 'replayed' ELSE "
                           "'replay_failed' END, w.status, "
                           "CASE WHEN w.error_class IS NULL THEN 'replayed' ELSE 'failed' END, "
                           "CASE WHEN w.error_class IS NOT NULL THEN w.error_class || ': ' || "
                           "w.error WHEN w.landed = 1 THEN 'already in ' || w.dest || ': nothing "
                           "written' ELSE 'written to ' || w.dest END FROM ") %
            work % QStringLiteral(" AS w"),
        {osUser()});
    if (!history)
        return fail(history.error());
    return {};
}

Status settleRedrive(const Database &db, const QString &work) {
    const QString now = TimeJson::of(db.dialect()).nowUtcText();
    if (auto r = db.exec(QStringLiteral("INSERT INTO rewind_dlq_history (dlq_id, at, os_user, "
                                        "action, from_status, to_status, reason) SELECT dlq_id, ") %
                             now %
                             QStringLiteral(", ?, 'replay', from_status, CASE WHEN error IS NULL "
                                            "THEN 'replayed' ELSE 'failed' END, "
                                            "CASE WHEN error IS NULL THEN 'produced to ' || topic "
                                            "|| ' [' || CAST(partition_id AS TEXT) || '] @' "
                                            "|| CAST(log_offset AS TEXT) ELSE 'producing to ' || "
                                            "topic || ' failed: ' || error END FROM ") %
                             work,
                         {osUser()});
        !r)
        return fail(r.error());
    const QString match = QStringLiteral(" AS p WHERE p.dlq_id = rewind_dlq.dlq_id)");
    if (auto r = db.exec(
            QStringLiteral("UPDATE rewind_dlq SET status = CASE WHEN (SELECT p.error FROM ") %
            work % match %
            QStringLiteral(" IS NULL THEN 'replayed' ELSE 'failed' END, attempts = attempts + 1, "
                           "last_attempt_at = ") %
            now %
            QStringLiteral(", last_error_class = (SELECT CASE WHEN p.error IS NULL "
                           "THEN NULL ELSE 'produce_failed' END FROM ") %
            work % match % QStringLiteral(", last_error = (SELECT p.error FROM ") % work % match %
            QStringLiteral(" WHERE dlq_id IN (SELECT dlq_id FROM ") % work % u')');
        !r)
        return fail(r.error());
    return {};
}

Status settlePublished(const Database &db, const QString &work) {
    const QString match = QStringLiteral(" FROM ") % work %
                          QStringLiteral(" AS p WHERE p.dlq_id = rewind_dlq.dlq_id)");
    if (auto r = db.exec(QStringLiteral("UPDATE rewind_dlq SET dlq_topic = (SELECT p.topic") %
                         match % QStringLiteral(", dlq_partition = (SELECT p.partition_id") %
                         match % QStringLiteral(", dlq_offset = (SELECT p.log_offset") % match %
                         QStringLiteral(", dlq_source = 'published' WHERE dlq_id IN (SELECT "
                                        "dlq_id FROM ") %
                         work % u')');
        !r)
        return fail(r.error());
    if (auto r =
            db.exec(QStringLiteral("INSERT INTO rewind_dlq_history (dlq_id, at, os_user, "
                                   "action, from_status, to_status, reason) SELECT p.dlq_id, ") %
                        TimeJson::of(db.dialect()).nowUtcText() %
                        QStringLiteral(", ?, 'published', d.status, d.status, 'published to "
                                       "' || p.topic || ' [' || CAST(p.partition_id AS "
                                       "TEXT) || '] @' || CAST(p.log_offset AS TEXT) FROM ") %
                        work % QStringLiteral(" AS p JOIN rewind_dlq AS d ON d.dlq_id = p.dlq_id"),
                    {osUser()});
        !r)
        return fail(r.error());
    return {};
}

} // namespace rw::dlqstore
