#include "core/dlq/dlqstore.h"
#include "core/streams/replayer.h"

#include <QStringBuilder>
#include <algorithm>
#include <nlohmann/json.hpp>

namespace rw::replay_detail {

namespace {

const QString kBatchTable = QStringLiteral("rewind_replay_batch");

// The batch's events, read from the log and validated once: one row per
// event with its partition, offset, event_id, json_valid(payload) and the
// extracted fields (NULL when the payload is not JSON). The sink insert,
// the DLQ insert and the checks all read this instead of the log, so each
// payload is parsed once per batch.
QString stageColumn(qsizetype field) {
    return QStringLiteral("c") % QString::number(field);
}

} // namespace

Status Replayer::fillSlices(const Batch &batch) {
    const QString big = m_db.dialect().bigintType();
    if (auto r = m_db.exec(
            QStringLiteral("CREATE TEMP TABLE IF NOT EXISTS rewind_replay_slices (p ") % big %
            QStringLiteral(" PRIMARY KEY, lo ") % big % QStringLiteral(", hi ") % big % u')');
        !r)
        return fail(r.error());
    if (auto r = m_db.exec(QStringLiteral("DELETE FROM ") % m_slices); !r)
        return fail(r.error());
    nlohmann::json rows = nlohmann::json::array();
    for (const Slice &s : batch)
        rows.push_back({s.partition, s.from, s.to});
    auto r = m_db.exec(QStringLiteral("INSERT INTO ") % m_slices % QStringLiteral(" (p, lo, hi) ") %
                           m_sd.jsonIntegerRows(QString(), 3, QString()),
                       {QString::fromStdString(rows.dump())});
    if (!r)
        return fail(r.error());
    return {};
}

Status Replayer::stageBatch(const Batch &batch, const QString &createTable) {
    if (auto f = fillSlices(batch); !f)
        return f;
    if (auto f = m_log->readRange(batch); !f)
        return f;
    // Inside a transaction: the writer's, or the stager's (a pipeline's).
    if (m_sd.stagesOptimistically() && (m_pipeline || m_db.inWriteTransaction())) {
        // Most batches are all JSON: every payload parsed by a plain cast,
        // in a savepoint. The first payload that is not JSON fails it; then
        // the batch is staged again with each parse guarded (the DLQ needs
        // to know which). On PostgreSQL the guard is a PL/pgSQL exception
        // block per row, about a second per 250,000 events.
        auto fast = stageStatement(true);
        if (!fast)
            return fail(fast.error());
        if (auto r = m_db.exec(QStringLiteral("SAVEPOINT rewind_stage")); !r)
            return fail(r.error());
        const bool staged =
            bool(m_db.exec(createTable % QStringLiteral(" AS ") % fast->text, fast->binds));
        if (!staged)
            if (auto r = m_db.exec(QStringLiteral("ROLLBACK TO SAVEPOINT rewind_stage")); !r)
                return fail(r.error());
        if (auto r = m_db.exec(QStringLiteral("RELEASE SAVEPOINT rewind_stage")); !r)
            return fail(r.error());
        if (staged)
            return {};
    }
    auto stage = stageStatement();
    if (!stage)
        return fail(stage.error());
    if (auto r = m_db.exec(createTable % QStringLiteral(" AS ") % stage->text, stage->binds); !r)
        return fail(r.error());
    return {};
}

// The statement that stages the batch whose slices are filled. A log
// landed in arrival order holds a batch's events together in storage:
// reading them through the (partition, offset) index looks each row up on
// its own, about twice the cost of scanning the stretch they lie in (2M
// events: 4.7 s against 2.5 s). The stretch is read when it holds at most
// twice the batch's events.
Result<Sql> Replayer::stageStatement(bool assumeValid) const {
    const Sql &whole = assumeValid ? m_stageUnguarded : m_stage;
    if (!m_rangeStage)
        return whole;
    auto q = m_db.exec(m_rangeProbe);
    if (!q)
        return fail(q.error());
    if (!q->next() || q->value(0).isNull())
        return whole;
    const qint64 first = q->value(0).toLongLong(), last = q->value(1).toLongLong(),
                 events = q->value(2).toLongLong();
    if (last - first + 1 > 2 * events)
        return whole;
    Sql ranged = assumeValid ? *m_rangeStageUnguarded : *m_rangeStage;
    ranged.binds << first << last;
    return ranged;
}

// The staged events' SELECT (its binds: the fields' paths). Against a
// sink with typed columns it adds "fit" (1 when every value fits its
// column, else 0), computed once per event for the sink and DLQ inserts.
// Needs m_sinkColumns.
Sql Replayer::stageSelect(const QString &from, bool assumeValid) const {
    const SqlDialect &d = m_db.dialect();
    Sql stage;
    stage.text = m_sd.jsonStageSelect({{QStringLiteral("s.p"), QStringLiteral("p")},
                                       {m_o, QStringLiteral("o")},
                                       {m_e, QStringLiteral("e")}},
                                      m_payload, int(m_stream.fields.size()), from, assumeValid);
    for (const auto &field : m_stream.fields)
        stage.binds << field.second;
    if (hasTypeChecks())
        stage.text = QStringLiteral("SELECT y.*, CASE WHEN ") %
                     valuesFit(d, stagedValues(QStringLiteral("y"))) %
                     QStringLiteral(" THEN 1 ELSE 0 END AS fit FROM (") % stage.text %
                     m_sd.subqueryFence() % QStringLiteral(") AS y");
    return stage;
}

bool Replayer::hasTypeChecks() const {
    for (const FieldValue &f : stagedValues(QStringLiteral("b")))
        if (!m_db.dialect().valueFitsType(f.value, f.type, f.strict).isEmpty())
            return true;
    return false;
}

// Every required field of the staged event b is there.
QString Replayer::stagedPresent() const {
    QStringList terms;
    for (const QString &field : m_stream.required)
        terms << QStringLiteral("b.") % stageColumn(fieldIndex(field)) %
                     QStringLiteral(" IS NOT NULL");
    return terms.isEmpty() ? QStringLiteral("(1 = 1)")
                           : QString(u'(' % terms.join(QStringLiteral(" AND ")) % u')');
}

// The staged event's fields, each with its sink column's type.
std::vector<FieldValue> Replayer::stagedValues(const QString &alias) const {
    std::vector<FieldValue> values;
    for (qsizetype i = 0; i < qsizetype(m_stream.fields.size()); ++i) {
        const auto &[name, path] = m_stream.fields[i];
        const ColumnInfo column = m_sinkColumns.value(name);
        values.push_back({name, path, column.type, alias % u'.' % stageColumn(i), column.strict});
    }
    return values;
}

// Whether the staged event b goes to the sink (else to the DLQ): an
// event_id, valid JSON, every required field, and every field's value
// one its sink column takes (dry run and replay alike).
QString Replayer::stagedValid() const {
    return QStringLiteral("(b.e IS NOT NULL AND ") % m_sd.isTrue(QStringLiteral("b.jv")) %
           QStringLiteral(" AND ") % stagedPresent() %
           (hasTypeChecks() ? QStringLiteral(" AND b.fit = 1)") : QStringLiteral(")"));
}

qsizetype Replayer::fieldIndex(const QString &field) const {
    for (qsizetype i = 0; i < qsizetype(m_stream.fields.size()); ++i)
        if (m_stream.fields[i].first == field)
            return i;
    return -1;
}

QString Replayer::pathOf(const QString &field) const {
    const qsizetype i = fieldIndex(field);
    return i < 0 ? QString() : m_stream.fields[i].second;
}

// The dry run's counts: the events staged as a replay stages them, judged
// by the same test; ok once per row, the DLQ and sink probes only where
// they matter.
Sql Replayer::dryRunCounts(bool sinkExists) const {
    const Sql stage = stageSelect();
    Sql sql;
    sql << QStringLiteral(
               "SELECT COUNT(DISTINCT CASE WHEN ok = 1 AND NOT in_sink THEN e END), SUM(ok), "
               "SUM(CASE WHEN ok = 0 AND NOT in_dlq THEN 1 ELSE 0 END), SUM(CASE WHEN ok = 0 AND "
               "in_dlq THEN 1 ELSE 0 END) FROM (SELECT "
               "b.e AS e, CASE WHEN ")
        << stagedValid() << QStringLiteral(" THEN 1 ELSE 0 END AS ok, ")
        << (sinkExists ? QString(QStringLiteral("EXISTS (SELECT 1 FROM ") %
                                 m_db.quoteTable(m_stream.sink) %
                                 QStringLiteral(" AS k WHERE k.\"event_id\" = b.e)"))
                       : QStringLiteral("1 = 0"))
        << QStringLiteral(" AS in_sink, EXISTS (SELECT 1 FROM rewind_dlq AS d WHERE d.source_kind "
                          "= 'stream' AND d.source_name = ")
        << Bind{m_stream.name}
        << QStringLiteral(
               " AND d.part = CAST(b.p AS TEXT) AND d.log_offset = b.o) AS in_dlq FROM (")
        << stage.text << QStringLiteral(") AS b) AS v");
    sql.binds << stage.binds;
    return sql;
}

Status Replayer::buildStatements() {
    const SqlDialect &d = m_db.dialect();
    if (auto s = readSinkColumns(); !s)
        return s;
    m_stage = stageSelect();
    m_stageUnguarded = stageSelect(m_from, true);
    if (!m_rangeFrom.isEmpty()) {
        // Not when a log column takes the position's name (it would range
        // over the column), nor on a table without one (WITHOUT ROWID, a view).
        // Rewind's own work table has the position; it may be attached only
        // while a batch is staged or written, so it is not looked at here.
        bool usable = m_events.workTable;
        if (!usable) {
            auto columns = m_db.columns(m_events.table);
            if (!columns)
                return fail(columns.error());
            const QString pos = m_sd.storageOrderColumn();
            const bool shadowed = std::ranges::any_of(*columns, [&](const ColumnInfo &c) {
                return c.name.compare(pos, Qt::CaseInsensitive) == 0;
            });
            usable = !shadowed &&
                     m_db.exec(QStringLiteral("SELECT ") % pos % QStringLiteral(" FROM ") %
                               m_db.quoteTable(m_events.table) % QStringLiteral(" LIMIT 0"));
        }
        if (usable) {
            m_rangeStage = stageSelect(m_rangeFrom);
            m_rangeStageUnguarded = stageSelect(m_rangeFrom, true);
        }
    }

    const QString from = QStringLiteral(" FROM ") %
                         (m_pipeline ? m_pipeline->stagedTable() : m_sd.tempTable(kBatchTable)) %
                         QStringLiteral(" AS b");
    const QString ok = stagedValid();
    QStringList cols{QStringLiteral("\"event_id\"")};
    QString sink = QStringLiteral("SELECT b.e");
    for (qsizetype i = 0; i < qsizetype(m_stream.fields.size()); ++i) {
        cols << m_db.quote(m_stream.fields[i].first);
        sink += QStringLiteral(", ") %
                m_sd.sinkValue(QStringLiteral("b.") % stageColumn(i),
                               m_sinkColumns.value(m_stream.fields[i].first).type);
    }
    // In key order the unique index is walked once per batch instead of
    // probed at random; among equal event_ids the earliest offset wins.
    m_sinkInsert.text =
        QStringLiteral("INSERT INTO ") % m_db.quoteTable(m_stream.sink) % QStringLiteral(" (") %
        cols.join(QStringLiteral(", ")) % QStringLiteral(") ") % sink % from %
        QStringLiteral(" WHERE ") % ok %
        QStringLiteral(" ORDER BY b.e, b.p, b.o ON CONFLICT (\"event_id\") DO NOTHING");
    // Most batches have no invalid event: one look spares the DLQ insert's join.
    m_anyInvalid = QStringLiteral("SELECT 1") % from % QStringLiteral(" WHERE NOT ") % ok %
                   QStringLiteral(" LIMIT 1");

    // Why an event is invalid, naming the fields. Only the invalid events
    // (few) go back to the log, by (partition, offset), for their payload.
    // In log order, so that DLQ ids (the order the DLQ lists records in)
    // follow the log on every engine: PostgreSQL's join returns its rows
    // in any order, SQLite's happened to follow the batch table.
    dlqstore::QuarantineRows dlq;
    dlq.sourceKind = QStringLiteral("stream");
    dlq.sourceName = m_stream.name;
    dlq.part = Sql(QStringLiteral("CAST(b.p AS TEXT)"));
    dlq.logOffset = Sql(QStringLiteral("b.o"));
    dlq.eventId = Sql(QStringLiteral("b.e"));
    dlq.recordKey = Sql(QStringLiteral("b.e"));
    dlq.errorClass << QStringLiteral("CASE WHEN ") << m_sd.isNotTrue(QStringLiteral("b.jv"))
                   << QStringLiteral(
                          " THEN 'invalid_json' WHEN b.e IS NULL THEN 'missing_event_id' WHEN NOT ")
                   << stagedPresent()
                   << QStringLiteral(" THEN 'missing_field' ELSE 'bad_value' END");
    dlq.error << QStringLiteral("CASE WHEN ") << m_sd.isNotTrue(QStringLiteral("b.jv"))
              << QStringLiteral(" THEN CASE WHEN ") << m_payload
              << QStringLiteral(" IS NULL THEN 'payload is NULL' ELSE 'payload is not valid JSON' "
                                "END WHEN b.e IS NULL THEN 'event_id is NULL' WHEN NOT ")
              << stagedPresent()
              << QStringLiteral(" THEN 'required field missing or null: ' || rtrim(''");
    for (const QString &field : m_stream.required)
        dlq.error << QStringLiteral(" || CASE WHEN b.") << stageColumn(fieldIndex(field))
                  << QStringLiteral(" IS NULL THEN ")
                  << Bind{QString(field % QStringLiteral(" (") % pathOf(field) %
                                  QStringLiteral("), "))}
                  << QStringLiteral(" ELSE '' END");
    dlq.error << QStringLiteral(", ', ') ELSE ");
    QVariantList messageBinds;
    const QString message = badValueMessage(d, stagedValues(QStringLiteral("b")), messageBinds);
    dlq.error << Sql(message, messageBinds) << QStringLiteral(" END");
    dlq.payload = Sql(m_payload);
    dlq.from << from << u' ' % m_sd.fixedOrderJoin() % u' ' << m_eventsSql
             << QStringLiteral(" AS l ON ") << m_p << QStringLiteral(" = b.p AND ") << m_o
             << QStringLiteral(" = b.o WHERE NOT ") << ok
             << QStringLiteral(" AND NOT EXISTS (SELECT 1 FROM rewind_dlq AS d WHERE "
                               "d.source_kind = 'stream' AND d.source_name = ")
             << Bind{m_stream.name}
             << QStringLiteral(
                    " AND d.part = CAST(b.p AS TEXT) AND d.log_offset = b.o) ORDER BY b.p, b.o");
    m_dlqInsert = dlqstore::quarantineStatement(d, dlq);
    return {};
}

} // namespace rw::replay_detail
