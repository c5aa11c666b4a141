// DLQ validate and replay: batch by batch, set-based per batch and source.
//
// A batch is a work table (rewind_dlq_work, temporary) of up to N selected records
// with their current payload as text. Validation marks each failing row with
// an error class and message (one UPDATE per check and source); the valid
// rows are then written where they belong and every row of the batch
// changes status, all in one transaction with history and an audit row.
#include "core/dlq/dlq.h"
#include "core/dlq/dlqdialect.h"
#include "core/dlq/dlqstore.h"
#include "core/sql/badvalue.h"
#include "core/util/failpoint.h"
#include "core/workspace/workspace.h"

#include <QElapsedTimer>
#include <QMap>
#include <QStringBuilder>
#include <QThread>
#include <cmath>
#include <nlohmann/json.hpp>

namespace rw {

namespace {

// Temporary tables, named unqualified: temporary tables come first in name
// resolution on both engines.
const QString kWork = QStringLiteral("rewind_dlq_work");
const QString kRows = QStringLiteral("rewind_dlq_rows");

// Where the records of one (source_kind, source_name) go, and how they are checked.
struct SourcePlan {
    QString kind;
    QString name;
    const StreamSpec *stream = nullptr;
    const DatasetSpec *dataset = nullptr;
    QStringList columns;  // dataset: the target's columns
    QStringList types;    // and their types; stream: the sink's fields' types
    QList<bool> strict;   // and whether each is a SQLite STRICT table's column
    QString problemClass; // set: every record of this source fails with it
    QString problem;
    QString dest;
};

QString columnPath(const QString &column) {
    return QStringLiteral("$.\"") % column % u'"';
}

QString jsonArray(const QStringList &values) {
    nlohmann::json a = nlohmann::json::array();
    for (const QString &v : values)
        a.push_back(v.toStdString());
    return QString::fromStdString(a.dump());
}

class DlqReplayer {
public:
    DlqReplayer(const Database &db, const Spec &spec, const DlqSelection &selection,
                const DlqReplayOptions &options)
        : m_db(db)
        , m_spec(spec)
        , m_selection(selection)
        , m_options(options) {}

    Result<DlqReplayResult> run() {
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
                while (clock.nsecsElapsed() / 1e9 < due && !cancelled())
                    QThread::msleep(std::clamp<unsigned long>(
                        static_cast<unsigned long>((due - clock.nsecsElapsed() / 1e9) * 1000) + 1,
                        1, 50));
                if (cancelled())
                    break;
            }
            qint64 n = 0;
            const Status s =
                m_options.execute
                    ? Database::retryTransient(5,
                                               [&] {
                                                   return m_db.writeTransaction(
                                                       [&] { return batch(lastId, batchSize, n); });
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
                m_options.progress({m_result.batches, m_result.selected, done, m_result.replayed,
                                    m_result.failed});
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

private:
    bool cancelled() const { return m_options.cancel && m_options.cancel->load(); }

    Status exec(const QString &sql, const QVariantList &binds = {}, qint64 *affected = nullptr) {
        auto q = m_db.exec(sql, binds);
        if (!q)
            return fail(q.error());
        if (affected)
            *affected = q->numRowsAffected();
        return {};
    }

    Status prepare() {
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
            *pred % (defaultStatuses ? QStringLiteral(" AND (d.status || '') IN ('new', 'fixed')")
                                     : QString());
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
            QStringLiteral(
                "SELECT DISTINCT d.source_kind, d.source_name FROM rewind_dlq AS d WHERE ") %
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
        for (SourcePlan &p : m_sources)
            if (auto s = planSource(p); !s)
                return s;
        if (auto s = exec(m_db.dialect().dropTempTable(kWork)); !s)
            return s;
        if (auto s = exec(QStringLiteral("CREATE TEMP TABLE ") % kWork %
                          QStringLiteral(" (dlq_id ") % m_db.dialect().bigintType() %
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

    Status planSource(SourcePlan &p) {
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
        if (p.dataset->write == WriteMode::Scd2) {
            p.problemClass = QStringLiteral("unsupported");
            p.problem =
                QStringLiteral(
                    "dataset \"%1\" writes scd2: re-run its partition instead of replaying rows")
                    .arg(p.name);
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

    // One batch: fill, validate, (write, transition, audit). `n` is the batch's size.
    Status batch(qint64 lastId, qint64 size, qint64 &n) {
        m_batch = {};
        if (auto s = exec(QStringLiteral("DELETE FROM ") % kWork); !s)
            return s;
        if (auto s =
                exec(QStringLiteral("INSERT INTO ") % kWork %
                         QStringLiteral(
                             " (dlq_id, kind, name, status, doc, event_id) SELECT d.dlq_id, "
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
        if (auto s = exec(
                QStringLiteral("UPDATE ") % kWork %
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

    // The value at a bound JSON path of the work row's payload.
    QString extract() const {
        return m_db.dialect().jsonExtract(QStringLiteral("w.doc"), QStringLiteral("?"));
    }

    // "w.kind = ? AND w.name = ?" for one source; binds appended.
    QString of(const SourcePlan &p, QVariantList &binds) const {
        binds << p.kind << p.name;
        return QStringLiteral("w.kind = ? AND w.name = ?");
    }

    Status setError(const SourcePlan &p, const QString &errorClass, const QString &errorSql,
                    const QVariantList &errorBinds, const QString &failing,
                    const QVariantList &failingBinds) {
        QVariantList binds{errorClass};
        binds << errorBinds;
        const QString where = of(p, binds);
        binds << failingBinds;
        return exec(QStringLiteral("UPDATE ") % kWork %
                        QStringLiteral(" AS w SET error_class = ?, error = ") % errorSql %
                        QStringLiteral(" WHERE ") % where %
                        QStringLiteral(" AND w.error_class IS NULL AND ") % failing,
                    binds);
    }

    // bad_value: a field whose value its column's type does not take (the
    // write would fail the batch), as stream replay judges it. `fields` name
    // their paths; their values are extracted once per row.
    Status badValues(const SourcePlan &p, std::vector<FieldValue> fields) {
        QStringList extracts;
        QVariantList paths;
        std::vector<FieldValue> checked;
        for (FieldValue &f : fields) {
            if (m_db.dialect().valueFitsType(QStringLiteral("x.v"), f.type, f.strict).isEmpty())
                continue;
            const QString alias = QStringLiteral("v") % QString::number(checked.size());
            f.value = QStringLiteral("x.") % alias;
            extracts << extract() % QStringLiteral(" AS ") % alias;
            paths << f.path;
            checked.push_back(std::move(f));
        }
        if (checked.empty())
            return {};
        const QString values = QStringLiteral(" FROM (SELECT ") %
                               extracts.join(QStringLiteral(", ")) % QStringLiteral(") AS x");
        QVariantList messageBinds;
        const QString message = QStringLiteral("(SELECT ") %
                                badValueMessage(m_db.dialect(), checked, messageBinds) % values %
                                u')';
        messageBinds << paths;
        return setError(p, QStringLiteral("bad_value"), message, messageBinds,
                        QStringLiteral("EXISTS (SELECT 1") % values %
                            QStringLiteral(" WHERE NOT ") % valuesFit(m_db.dialect(), checked) %
                            u')',
                        paths);
    }

    Status validate(const SourcePlan &p) {
        if (!p.problemClass.isEmpty())
            return setError(p, p.problemClass, QStringLiteral("?"), {p.problem},
                            QStringLiteral("1 = 1"), {});
        if (p.stream) {
            if (auto s = setError(p, QStringLiteral("missing_event_id"),
                                  QStringLiteral("'event_id is NULL'"), {},
                                  QStringLiteral("w.event_id IS NULL"), {});
                !s)
                return s;
            if (p.stream->required.isEmpty())
                return {};
            QString message = QStringLiteral("'required field missing or null: ' || rtrim(''");
            QVariantList messageBinds;
            QStringList missing;
            QVariantList missingBinds;
            for (const QString &field : p.stream->required) {
                QString path;
                for (const auto &[name, fieldPath] : p.stream->fields)
                    if (name == field)
                        path = fieldPath;
                message += QStringLiteral(" || CASE WHEN ") % extract() %
                           QStringLiteral(" IS NULL THEN ? ELSE '' END");
                messageBinds << path
                             << QString(field % QStringLiteral(" (") % path %
                                        QStringLiteral("), "));
                missing << extract() % QStringLiteral(" IS NULL");
                missingBinds << path;
            }
            message += QStringLiteral(", ', ')");
            if (auto s = setError(p, QStringLiteral("missing_field"), message, messageBinds,
                                  u'(' % missing.join(QStringLiteral(" OR ")) % u')', missingBinds);
                !s)
                return s;
            std::vector<FieldValue> fields;
            for (qsizetype i = 0; i < qsizetype(p.stream->fields.size()); ++i)
                fields.push_back({p.stream->fields[i].first, p.stream->fields[i].second,
                                  p.types.value(i), QString(), p.strict.value(i)});
            return badValues(p, std::move(fields));
        }
        // A dataset row: a JSON object of the target's columns passing the row-level checks.
        const DatasetSpec &d = *p.dataset;
        if (auto s = setError(
                p, QStringLiteral("not_an_object"),
                QStringLiteral("'payload is not a JSON object'"), {},
                QStringLiteral("NOT (") %
                    DlqDialect::of(m_db.dialect()).jsonIsObject(QStringLiteral("w.doc")) % u')',
                {});
            !s)
            return s;
        const QString columns = jsonArray(p.columns);
        if (auto s =
                setError(p, QStringLiteral("unknown_column"),
                         QStringLiteral("'not a column of ' || ? || ': ' || (SELECT ") %
                             DlqDialect::of(m_db.dialect())
                                 .stringAgg(QStringLiteral("j.key"), QStringLiteral("', '")) %
                             QStringLiteral(" FROM ") %
                             DlqDialect::of(m_db.dialect()).jsonEach(QStringLiteral("w.doc")) %
                             QStringLiteral(" AS j WHERE j.key NOT IN (") %
                             DlqDialect::of(m_db.dialect()).jsonArrayTexts(QStringLiteral("?")) %
                             QStringLiteral("))"),
                         {d.target, columns},
                         QStringLiteral("EXISTS (SELECT 1 FROM ") %
                             DlqDialect::of(m_db.dialect()).jsonEach(QStringLiteral("w.doc")) %
                             QStringLiteral(" AS j WHERE j.key NOT IN (") %
                             DlqDialect::of(m_db.dialect()).jsonArrayTexts(QStringLiteral("?")) %
                             QStringLiteral("))"),
                         {columns});
            !s)
            return s;
        std::vector<FieldValue> fields;
        for (qsizetype i = 0; i < p.columns.size(); ++i)
            fields.push_back({p.columns.at(i), columnPath(p.columns.at(i)), p.types.value(i),
                              QString(), p.strict.value(i)});
        if (auto s = badValues(p, std::move(fields)); !s)
            return s;
        for (const CheckSpec &check : d.checks) {
            if (check.type == QLatin1String("not_null")) {
                QStringList terms;
                QVariantList binds;
                for (const QString &c : check.columns) {
                    terms << extract() % QStringLiteral(" IS NULL");
                    binds << columnPath(c);
                }
                const QString message = QStringLiteral("NULL in ") %
                                        check.columns.join(QStringLiteral(" or ")) %
                                        QStringLiteral(" (check ") % check.name % u')';
                if (auto s = setError(p, QStringLiteral("not_null"), QStringLiteral("?"), {message},
                                      u'(' % terms.join(QStringLiteral(" OR ")) % u')', binds);
                    !s)
                    return s;
            } else if (check.type == QLatin1String("references")) {
                const QString message = check.column % QStringLiteral(" has no match in ") %
                                        check.refTable % u'.' % check.refColumn %
                                        QStringLiteral(" (check ") % check.name % u')';
                const QString refColumn = QStringLiteral("r.") % m_db.quote(check.refColumn);
                const QString failing =
                    extract() % QStringLiteral(" IS NOT NULL AND NOT EXISTS (SELECT 1 FROM ") %
                    m_db.quoteTable(check.refTable) % QStringLiteral(" AS r WHERE ") %
                    m_db.dialect().comparedWithJsonValue(refColumn) % QStringLiteral(" = ") %
                    extract() % u')';
                if (auto s =
                        setError(p, QStringLiteral("references"), QStringLiteral("?"), {message},
                                 failing, {columnPath(check.column), columnPath(check.column)});
                    !s)
                    return s;
            }
        }
        return {};
    }

    QString keyMatch(const DatasetSpec &d, const QStringList &columns, const QString &a,
                     const QString &b) const {
        QStringList terms;
        for (const QString &k : d.key.isEmpty() ? columns : d.key)
            terms << m_db.dialect().nullSafeEqual(a % u'.' % m_db.quote(k),
                                                  b % u'.' % m_db.quote(k));
        return terms.join(QStringLiteral(" AND "));
    }

    QString rowMatch(const QStringList &columns, const QString &a, const QString &b) const {
        QStringList terms;
        for (const QString &c : columns)
            terms << m_db.dialect().nullSafeEqual(a % u'.' % m_db.quote(c),
                                                  b % u'.' % m_db.quote(c));
        return terms.join(QStringLiteral(" AND "));
    }

    // Valid rows whose event_id (or exact row) is already where it belongs:
    // they become replayed and nothing is written for them.
    Status markLanded(const SourcePlan &p) {
        if (!p.problemClass.isEmpty())
            return {};
        QVariantList binds;
        const QString where = of(p, binds);
        if (auto s = exec(QStringLiteral("UPDATE ") % kWork %
                              QStringLiteral(" AS w SET dest = ? WHERE ") % where,
                          QVariantList{p.dest} << binds);
            !s)
            return s;
        if (p.stream) {
            auto exists = m_db.hasRelation(p.stream->sink);
            if (!exists)
                return fail(exists.error());
            QString landed = QStringLiteral("EXISTS (SELECT 1 FROM ") % kWork %
                             QStringLiteral(" AS w2 WHERE w2.kind = w.kind AND w2.name = w.name "
                                            "AND w2.event_id = w.event_id "
                                            "AND w2.error_class IS NULL AND w2.dlq_id < w.dlq_id)");
            if (*exists)
                landed += QStringLiteral(" OR EXISTS (SELECT 1 FROM ") %
                          m_db.quoteTable(p.stream->sink) %
                          QStringLiteral(" AS k WHERE k.\"event_id\" = w.event_id)");
            return exec(QStringLiteral("UPDATE ") % kWork %
                            QStringLiteral(" AS w SET landed = 1 WHERE ") % where %
                            QStringLiteral(" AND w.error_class IS NULL AND (") % landed % u')',
                        binds);
        }
        // Dataset: extract the rows, keep the last record per key, find those the target already
        // holds.
        QStringList defs{QStringLiteral("rewind_dlq_id ") % m_db.dialect().bigintType()}, cols,
            extracts;
        QVariantList extractBinds;
        for (qsizetype i = 0; i < p.columns.size(); ++i) {
            const QString &c = p.columns.at(i);
            defs << DlqDialect::of(m_db.dialect()).workColumn(m_db.quote(c), p.types.value(i));
            cols << m_db.quote(c);
            extracts << DlqDialect::of(m_db.dialect()).fromJsonText(extract(), p.types.value(i));
            extractBinds << columnPath(c);
        }
        if (auto s = exec(m_db.dialect().dropTempTable(kRows)); !s)
            return s;
        if (auto s = exec(QStringLiteral("CREATE TEMP TABLE ") % kRows % QStringLiteral(" (") %
                          defs.join(QStringLiteral(", ")) % u')');
            !s)
            return s;
        QVariantList insertBinds = extractBinds;
        const QString where2 = of(p, insertBinds);
        if (auto s =
                exec(QStringLiteral("INSERT INTO ") % kRows % QStringLiteral(" (rewind_dlq_id, ") %
                         cols.join(QStringLiteral(", ")) % QStringLiteral(") SELECT w.dlq_id, ") %
                         extracts.join(QStringLiteral(", ")) % QStringLiteral(" FROM ") % kWork %
                         QStringLiteral(" AS w WHERE ") % where2 %
                         QStringLiteral(" AND w.error_class IS NULL"),
                     insertBinds);
            !s)
            return s;
        if (auto s =
                exec(QStringLiteral("UPDATE ") % kWork %
                     QStringLiteral(
                         " AS w SET landed = 1 WHERE w.dlq_id IN (SELECT r.rewind_dlq_id FROM ") %
                     kRows % QStringLiteral(" AS r WHERE EXISTS (SELECT 1 FROM ") %
                     m_db.quoteTable(p.dataset->target) % QStringLiteral(" AS t WHERE ") %
                     rowMatch(p.columns, QStringLiteral("t"), QStringLiteral("r")) %
                     QStringLiteral("))"));
            !s)
            return s;
        // Of several records with one key, the last one wins.
        return exec(QStringLiteral("DELETE FROM ") % kRows %
                    QStringLiteral(" AS r WHERE EXISTS (SELECT 1 FROM ") % kRows %
                    QStringLiteral(" AS r2 WHERE ") %
                    keyMatch(*p.dataset, p.columns, QStringLiteral("r2"), QStringLiteral("r")) %
                    QStringLiteral(" AND r2.rewind_dlq_id > r.rewind_dlq_id)"));
    }

    Status write(const SourcePlan &p) {
        if (!p.problemClass.isEmpty())
            return {};
        if (p.stream) {
            QStringList cols{QStringLiteral("\"event_id\"")};
            QStringList values{QStringLiteral("w.event_id")};
            QVariantList binds;
            qsizetype i = 0;
            for (const auto &[name, path] : p.stream->fields) {
                cols << m_db.quote(name);
                values
                    << DlqDialect::of(m_db.dialect()).fromJsonText(extract(), p.types.value(i++));
                binds << path;
            }
            const QString where = of(p, binds);
            qint64 inserted = 0;
            if (auto s =
                    exec(QStringLiteral("INSERT INTO ") % m_db.quoteTable(p.stream->sink) %
                             QStringLiteral(" (") % cols.join(QStringLiteral(", ")) %
                             QStringLiteral(") SELECT ") % values.join(QStringLiteral(", ")) %
                             QStringLiteral(" FROM ") % kWork % QStringLiteral(" AS w WHERE ") %
                             where % QStringLiteral(" AND w.error_class IS NULL AND w.landed = 0"),
                         binds, &inserted);
                !s)
                return s;
            m_batch.inserted += inserted;
            return {};
        }
        // Merge into the target by key, null-safe: update where different, insert where missing.
        const DatasetSpec &d = *p.dataset;
        const QString target = m_db.quoteTable(d.target);
        QStringList cols, rcols, sets, valueCols;
        for (const QString &c : p.columns) {
            cols << m_db.quote(c);
            rcols << QStringLiteral("r.") % m_db.quote(c);
            if (!d.key.contains(c)) {
                sets << m_db.quote(c) % QStringLiteral(" = r.") % m_db.quote(c);
                valueCols << c;
            }
        }
        const QString fresh =
            QStringLiteral("(SELECT r.* FROM ") % kRows % QStringLiteral(" AS r JOIN ") % kWork %
            QStringLiteral(" AS w ON w.dlq_id = r.rewind_dlq_id WHERE w.landed = 0)");
        if (!d.key.isEmpty() && !sets.isEmpty()) {
            qint64 updated = 0;
            if (auto s =
                    exec(QStringLiteral("UPDATE ") % target % QStringLiteral(" AS t SET ") %
                             sets.join(QStringLiteral(", ")) % QStringLiteral(" FROM ") % fresh %
                             QStringLiteral(" AS r WHERE ") %
                             keyMatch(d, p.columns, QStringLiteral("t"), QStringLiteral("r")) %
                             QStringLiteral(" AND NOT (") %
                             rowMatch(valueCols, QStringLiteral("t"), QStringLiteral("r")) % u')',
                         {}, &updated);
                !s)
                return s;
            m_batch.updated += updated;
        }
        qint64 inserted = 0;
        if (auto s =
                exec(QStringLiteral("INSERT INTO ") % target % QStringLiteral(" (") %
                         cols.join(QStringLiteral(", ")) % QStringLiteral(") SELECT ") %
                         rcols.join(QStringLiteral(", ")) % QStringLiteral(" FROM ") % fresh %
                         QStringLiteral(" AS r WHERE NOT EXISTS (SELECT 1 FROM ") % target %
                         QStringLiteral(" AS t WHERE ") %
                         keyMatch(d, p.columns, QStringLiteral("t"), QStringLiteral("r")) % u')',
                     {}, &inserted);
            !s)
            return s;
        m_batch.inserted += inserted;
        return {};
    }

    // The batch's outcome, and the first verdicts for the report.
    Status tally() {
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
        auto classes =
            m_db.exec(QStringLiteral("SELECT error_class, COUNT(*) FROM ") % kWork %
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

    Status transition() {
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

    void commitCounts() {
        m_result.batches += 1;
        m_result.replayed += m_batch.valid;
        m_result.failed += m_batch.size - m_batch.valid;
        m_result.alreadyLanded += m_batch.landed;
        m_result.inserted += m_batch.inserted;
        m_result.updated += m_batch.updated;
        for (auto it = m_batch.failures.cbegin(); it != m_batch.failures.cend(); ++it)
            m_failures[it.key()] += it.value();
        for (auto &v : m_batch.verdicts)
            m_result.records.push_back(std::move(v));
    }

    struct BatchCounts {
        qint64 lastId = 0;
        qint64 size = 0;
        qint64 valid = 0;
        qint64 landed = 0;
        qint64 inserted = 0;
        qint64 updated = 0;
        QMap<QString, qint64> failures;
        std::vector<DlqVerdict> verdicts;
    };

    const Database &m_db;
    const Spec &m_spec;
    const DlqSelection &m_selection;
    const DlqReplayOptions &m_options;
    QString m_pred;
    QVariantList m_binds;
    qint64 m_replayable = 0;
    std::vector<SourcePlan> m_sources;
    BatchCounts m_batch;
    QMap<QString, qint64> m_failures;
    DlqReplayResult m_result;
};

} // namespace

Result<DlqReplayResult> replayDlq(const Database &db, const Spec &spec,
                                  const DlqSelection &selection, const DlqReplayOptions &options) {
    return DlqReplayer(db, spec, selection, options).run();
}

} // namespace rw
