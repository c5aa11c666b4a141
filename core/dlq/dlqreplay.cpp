// DLQ validate and replay: batch by batch, set-based per batch and source.
//
// A batch is a work table (rewind_dlq_work, temporary) of up to N selected records
// with their current payload as text. Validation marks each failing row with
// an error class and message (one UPDATE per check and source); the valid
// rows are then written where they belong and every row of the batch
// changes status, all in one transaction with history and an audit row.
#include "core/dlq/dlqdialect.h"
#include "core/dlq/dlqreplayer.h"
#include "core/dlq/dlqstore.h"
#include "core/util/failpoint.h"
#include "core/util/timeutil.h"
#include "core/workspace/workspace.h"

#include <QElapsedTimer>
#include <QStringBuilder>
#include <cmath>

namespace rw {

namespace dlq_detail {

Result<DlqReplayResult> DlqReplayer::run() {
    QElapsedTimer clock;
    clock.start();
    m_result.executed = m_options.execute;
    m_result.status = m_options.execute ? DlqReplayStatus::Succeeded : DlqReplayStatus::DryRun;
    if (m_options.batchSize <= 0)
        return badInput(QStringLiteral("--batch-size must be positive"));
    if (m_options.maxPerSecond && !(*m_options.maxPerSecond > 0))
        return badInput(QStringLiteral("--max-per-second must be positive"));
    if (auto s = prepare(); !s)
        return fail(s.error());
    qint64 batchSize = m_options.batchSize;
    if (m_options.maxPerSecond)
        batchSize =
            std::min<qint64>(batchSize, std::max<qint64>(1, qint64(*m_options.maxPerSecond)));
    qint64 lastId = 0;
    qint64 done = 0;
    while (done < m_replayable) {
        if (cancelled())
            break;
        if (m_options.execute && m_options.maxPerSecond) {
            // Velocity: when this batch commits, at most R records per elapsed second.
            const qint64 planned = std::min(batchSize, m_replayable - done);
            const double due = double(done + planned) / *m_options.maxPerSecond;
            timeutil::waitUntil(clock, due, [this] { return cancelled(); });
            if (cancelled())
                break;
        }
        qint64 n = 0;
        const Status s = m_options.execute
                             ? Database::retryTransient(5,
                                                        [&] {
                                                            return m_db.writeTransaction([&] {
                                                                return batch(lastId, batchSize, n);
                                                            });
                                                        })
                             : batch(lastId, batchSize, n);
        if (!s)
            return fail(s.error());
        if (n == 0)
            break;
        done += n;
        lastId = m_batch.lastId;
        commitCounts();
        if (m_options.execute)
            failpoint("dlq-replay-after-commit");
        if (m_options.progress)
            m_options.progress(
                {m_result.batches, m_result.selected, done, m_result.replayed, m_result.failed});
    }
    if (m_options.execute && cancelled() && done < m_replayable)
        m_result.status = DlqReplayStatus::Cancelled;
    for (auto it = m_failures.cbegin(); it != m_failures.cend(); ++it)
        m_result.failuresByClass.emplace_back(it.key(), it.value());
    (void)m_db.exec(m_db.dialect().dropTempTable(kWork));
    (void)m_db.exec(m_db.dialect().dropTempTable(kRows));
    m_result.seconds = clock.nsecsElapsed() / 1e9;
    return m_result;
}

Status DlqReplayer::prepare() {
    if (auto s = dlqinternal::requireIds(m_db, m_selection.ids); !s)
        return s;
    DlqSelection sel = m_selection;
    // By default the new and fixed records (kept out of the status index, see below).
    const bool defaultStatuses = sel.ids.isEmpty() && sel.statuses.isEmpty();
    if (auto s = dlqinternal::ensureFunctions(m_db); !s)
        return s;
    auto pred = dlqinternal::selectionPredicate(m_db.dialect(), sel, m_binds);
    if (!pred)
        return fail(pred.error());
    // `|| ''` keeps the status index out of the batch query: walking
    // dlq_id from the last batch on reads one batch, where the index
    // would read and sort every replayable record for each batch.
    const QString selected =
        *pred %
        (defaultStatuses ? QStringLiteral(" AND (d.status || '') IN ('new', 'fixed')") : QString());
    m_pred = selected % QStringLiteral(" AND (d.status || '') IN ('new', 'fixed', 'failed')");
    auto counts =
        m_db.exec(QStringLiteral("SELECT COUNT(*), COALESCE(SUM(CASE WHEN d.status IN ('new', "
                                 "'fixed', 'failed') THEN 1 ELSE 0 END), 0) "
                                 "FROM rewind_dlq AS d WHERE ") %
                      selected,
                  m_binds);
    if (!counts)
        return fail(counts.error());
    if (counts->next()) {
        m_result.selected = counts->value(0).toLongLong();
        m_replayable = counts->value(1).toLongLong();
        m_result.skipped = m_result.selected - m_replayable;
    }
    auto sources = m_db.exec(
        QStringLiteral("SELECT DISTINCT d.source_kind, d.source_name FROM rewind_dlq AS d WHERE ") %
            m_pred,
        m_binds);
    if (!sources)
        return fail(sources.error());
    while (sources->next()) {
        SourcePlan plan;
        plan.kind = sources->value(0).toString();
        plan.name = sources->value(1).toString();
        m_sources.push_back(std::move(plan));
    }
    if (m_options.execute)
        if (auto s = requirePrivileges(); !s)
            return s;
    for (SourcePlan &p : m_sources)
        if (auto s = planSource(p); !s)
            return s;
    if (auto s = exec(m_db.dialect().dropTempTable(kWork)); !s)
        return s;
    if (auto s = exec(QStringLiteral("CREATE TEMP TABLE ") % kWork % QStringLiteral(" (dlq_id ") %
                      m_db.dialect().bigintType() %
                      QStringLiteral(" PRIMARY KEY, kind TEXT, name TEXT, status TEXT, doc "
                                     "TEXT, event_id TEXT, error_class TEXT, error TEXT, "
                                     "landed INTEGER NOT NULL DEFAULT 0, dest TEXT)"));
        !s)
        return s;
    // The earlier-record-with-this-event lookup of landed(): without it a
    // batch compares every pair of its records.
    if (auto s = exec(m_db.dialect().createTempIndex(
            QStringLiteral("rewind_dlq_work_event"), kWork,
            {QStringLiteral("kind"), QStringLiteral("name"), QStringLiteral("event_id")}));
        !s)
        return s;
    return {};
}

// What the replay writes, checked before it makes or writes anything: each
// source's sink (or its schema, to make it) or target, the tables its
// dataset's row checks read, and the DLQ's own tables.
Status DlqReplayer::requirePrivileges() {
    std::vector<privileges::Need> needs;
    dlqinternal::addWriteNeeds(needs);
    // Only the sources planSource() lets write: not an unknown, broken or
    // scd2 one, whose records fail instead.
    for (const SourcePlan &p : m_sources) {
        if (!m_spec.brokenReason(p.kind, p.name).isEmpty())
            continue;
        if (p.kind == QLatin1String("stream")) {
            if (const StreamSpec *stream = m_spec.stream(p.name))
                if (auto s = privileges::addTableOrCreate(m_db, needs, stream->sink,
                                                          QStringLiteral("SELECT, INSERT"),
                                                          QStringLiteral("the sink"));
                    !s)
                    return s;
        } else if (const DatasetSpec *dataset = m_spec.dataset(p.name);
                   dataset && p.kind == QLatin1String("dataset") &&
                   dataset->write != WriteMode::Scd2 && !dataset->keepsEveryRow()) {
            // Merged by key: rows already there are updated; without a key,
            // inserted only.
            privileges::addTable(needs, dataset->target,
                                 dataset->key.isEmpty() ? QStringLiteral("SELECT, INSERT")
                                                        : QStringLiteral("SELECT, INSERT, UPDATE"),
                                 QStringLiteral("the target of ") % dataset->name);
            for (const CheckSpec &c : dataset->checks)
                if (!c.refTable.isEmpty())
                    privileges::addTable(needs, c.refTable, QStringLiteral("SELECT"),
                                         QStringLiteral("read by the check ") % c.name);
        }
    }
    return privileges::require(m_db, QStringLiteral("DLQ replay"), needs);
}

Status DlqReplayer::planSource(SourcePlan &p) {
    if (p.kind == QLatin1String("stream")) {
        p.stream = m_spec.stream(p.name);
        if (!p.stream) {
            p.problemClass = QStringLiteral("unknown_source");
            p.problem = QStringLiteral("stream \"%1\" is not in the spec").arg(p.name);
            return {};
        }
        if (const QString why = m_spec.brokenReason(QStringLiteral("stream"), p.name);
            !why.isEmpty()) {
            p.problemClass = QStringLiteral("unusable_source");
            p.problem = QStringLiteral("stream \"%1\" cannot be used: %2").arg(p.name, why);
            return {};
        }
        p.dest = QStringLiteral("sink ") % p.stream->sink;
        auto exists = m_db.hasRelation(p.stream->sink);
        if (!exists)
            return fail(exists.error());
        // What the fields are written as: the sink's types, TEXT for a sink still to be made.
        QMap<QString, ColumnInfo> sinkColumns;
        if (*exists) {
            auto sinkCols = m_db.columns(p.stream->sink);
            if (!sinkCols)
                return fail(sinkCols.error());
            for (const ColumnInfo &c : *sinkCols)
                sinkColumns.insert(c.name, c);
        }
        for (const auto &[name, path] : p.stream->fields) {
            const ColumnInfo column = sinkColumns.value(name, {name, QStringLiteral("TEXT")});
            p.types << column.type;
            p.strict << column.strict;
        }
        if (!m_options.execute || *exists)
            return {};
        // The sink as stream replay creates it: event_id plus the fields.
        QStringList cols{QStringLiteral("\"event_id\" TEXT PRIMARY KEY")};
        for (const auto &[name, path] : p.stream->fields)
            cols << DlqDialect::of(m_db.dialect())
                        .workColumn(m_db.quote(name), QStringLiteral("TEXT"));
        return m_db.writeTransaction([&] {
            return exec(QStringLiteral("CREATE TABLE IF NOT EXISTS ") %
                        m_db.quoteTable(p.stream->sink) % QStringLiteral(" (") %
                        cols.join(QStringLiteral(", ")) % u')');
        });
    }
    if (p.kind != QLatin1String("dataset")) {
        p.problemClass = QStringLiteral("unknown_source");
        p.problem = QStringLiteral("unknown source kind \"%1\"").arg(p.kind);
        return {};
    }
    p.dataset = m_spec.dataset(p.name);
    if (!p.dataset) {
        p.problemClass = QStringLiteral("unknown_source");
        p.problem = QStringLiteral("dataset \"%1\" is not in the spec").arg(p.name);
        return {};
    }
    if (const QString why = m_spec.brokenReason(QStringLiteral("dataset"), p.name);
        !why.isEmpty()) {
        p.problemClass = QStringLiteral("unusable_source");
        p.problem = QStringLiteral("dataset \"%1\" cannot be used: %2").arg(p.name, why);
        return {};
    }
    p.dest = QStringLiteral("target ") % p.dataset->target;
    if (p.dataset->write == WriteMode::Scd2 || p.dataset->keepsEveryRow()) {
        p.problemClass = QStringLiteral("unsupported");
        p.problem = QStringLiteral(
                        "dataset \"%1\" writes %2: re-run its partition instead of replaying rows")
                        .arg(p.name, enumName(p.dataset->write));
        return {};
    }
    auto exists = m_db.hasRelation(p.dataset->target);
    if (!exists)
        return fail(exists.error());
    if (!*exists) {
        if (m_options.execute)
            return badInput(
                QStringLiteral(
                    "target \"%1\" of dataset \"%2\" does not exist yet: run the dataset first")
                    .arg(p.dataset->target, p.name));
        p.problemClass = QStringLiteral("no_target");
        p.problem = QStringLiteral("target \"%1\" does not exist yet").arg(p.dataset->target);
        return {};
    }
    auto cols = m_db.columns(p.dataset->target);
    if (!cols)
        return fail(cols.error());
    for (const ColumnInfo &c : *cols) {
        p.columns << c.name;
        p.types << c.type;
        p.strict << c.strict;
    }
    if (m_options.execute) {
        auto frozen = m_db.exec(
            QStringLiteral("SELECT frozen_at, os_user FROM rewind_frozen WHERE dataset = ?"),
            {p.name});
        if (!frozen)
            return fail(frozen.error());
        if (frozen->next())
            return internalError(
                QStringLiteral("dataset \"%1\" is frozen since %2 by %3: writes are refused "
                               "until rewindctl unfreeze")
                    .arg(p.name, frozen->value(0).toString(), frozen->value(1).toString()));
    }
    return {};
}

Status DlqReplayer::batch(qint64 lastId, qint64 size, qint64 &n) {
    m_batch = {};
    if (auto s = exec(QStringLiteral("DELETE FROM ") % kWork); !s)
        return s;
    if (auto s = exec(
            QStringLiteral("INSERT INTO ") % kWork %
                QStringLiteral(" (dlq_id, kind, name, status, doc, event_id) SELECT d.dlq_id, "
                               "d.source_kind, d.source_name, d.status, "
                               "CAST(d.payload AS TEXT), d.event_id FROM rewind_dlq AS d WHERE ") %
                m_pred % QStringLiteral(" AND d.dlq_id > ? ORDER BY d.dlq_id LIMIT ?"),
            QVariantList(m_binds) << lastId << size, &n);
        !s)
        return s;
    if (n == 0)
        return {};
    auto last = m_db.scalar(QStringLiteral("SELECT MAX(dlq_id) FROM ") % kWork);
    if (!last)
        return fail(last.error());
    m_batch.lastId = last->toLongLong();
    m_batch.size = n;
    if (auto s =
            exec(QStringLiteral("UPDATE ") % kWork %
                 QStringLiteral(" SET error_class = 'invalid_json', error = CASE WHEN doc IS NULL "
                                "THEN 'payload is NULL' "
                                "ELSE 'payload is not valid JSON' END, doc = NULL WHERE NOT (") %
                 DlqDialect::of(m_db.dialect()).isValidJson(QStringLiteral("doc")) % u')');
        !s)
        return s;
    for (const SourcePlan &p : m_sources)
        if (auto s = validate(p); !s)
            return s;
    for (const SourcePlan &p : m_sources) {
        if (auto s = markLanded(p); !s)
            return s;
        if (m_options.execute)
            if (auto s = write(p); !s)
                return s;
    }
    if (m_options.execute)
        failpoint("dlq-replay-after-write");
    if (auto s = tally(); !s)
        return s;
    if (!m_options.execute)
        return {};
    return transition();
}

Status DlqReplayer::tally() {
    auto q = m_db.exec(
        QStringLiteral(
            "SELECT COALESCE(SUM(CASE WHEN error_class IS NULL THEN 1 ELSE 0 END), 0), "
            "COALESCE(SUM(CASE WHEN error_class IS NULL AND landed = 1 THEN 1 ELSE 0 END), 0) "
            "FROM ") %
        kWork);
    if (!q)
        return fail(q.error());
    if (q->next()) {
        m_batch.valid = q->value(0).toLongLong();
        m_batch.landed = q->value(1).toLongLong();
    }
    auto classes = m_db.exec(QStringLiteral("SELECT error_class, COUNT(*) FROM ") % kWork %
                             QStringLiteral(" WHERE error_class IS NOT NULL GROUP BY error_class"));
    if (!classes)
        return fail(classes.error());
    while (classes->next())
        m_batch.failures.insert(classes->value(0).toString(), classes->value(1).toLongLong());
    const qint64 room = m_options.maxRecords - qint64(m_result.records.size());
    if (room <= 0)
        return {};
    auto v = m_db.exec(QStringLiteral("SELECT dlq_id, kind || ':' || name, status, error_class "
                                      "IS NULL, landed, error_class, error FROM ") %
                           kWork % QStringLiteral(" ORDER BY dlq_id LIMIT ?"),
                       {room});
    if (!v)
        return fail(v.error());
    while (v->next()) {
        const auto status = enumFromName<DlqStatus>(v->value(2).toString());
        if (!status)
            return internalError(QStringLiteral("DLQ record %1 holds an unknown status \"%2\"")
                                     .arg(v->value(0).toLongLong())
                                     .arg(v->value(2).toString()));
        m_batch.verdicts.push_back({v->value(0).toLongLong(), v->value(1).toString(), *status,
                                    v->value(3).toInt() != 0, v->value(4).toInt() != 0,
                                    v->value(5).toString(), v->value(6).toString()});
    }
    return {};
}

Status DlqReplayer::transition() {
    if (auto s = dlqstore::settleReplay(m_db, kWork); !s)
        return s;
    QStringList datasets, streams;
    for (const SourcePlan &p : m_sources)
        (p.kind == QLatin1String("stream") ? streams : datasets) << p.name;
    nlohmann::json failures = nlohmann::json::object();
    for (auto it = m_batch.failures.cbegin(); it != m_batch.failures.cend(); ++it)
        failures[it.key().toStdString()] = it.value();
    const nlohmann::json detail = {{"batch", m_result.batches + 1},
                                   {"last_id", m_batch.lastId},
                                   {"records", m_batch.size},
                                   {"replayed", m_batch.valid},
                                   {"failed", m_batch.size - m_batch.valid},
                                   {"already_landed", m_batch.landed},
                                   {"inserted", m_batch.inserted},
                                   {"updated", m_batch.updated},
                                   {"failures", failures}};
    if (auto s = writeAudit(m_db, QStringLiteral("dlq-replay-batch"),
                            datasets.size() == 1 ? datasets.constFirst() : QString(),
                            streams.size() == 1 ? streams.constFirst() : QString(), QVariant(),
                            QString::fromStdString(detail.dump()));
        !s)
        return s;
    failpoint("dlq-replay-before-commit");
    return {};
}

} // namespace dlq_detail

Result<DlqReplayResult> replayDlq(const Database &db, const Spec &spec,
                                  const DlqSelection &selection, const DlqReplayOptions &options) {
    return dlq_detail::DlqReplayer(db, spec, selection, options).run();
}

} // namespace rw
