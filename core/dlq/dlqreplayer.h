#pragma once

// Internal to core/dlq/dlqreplay.cpp and dlqreplaychecks.cpp: one DLQ
// replay (or validation), batch by batch, set-based per batch and source.

#include "core/dlq/dlq.h"
#include "core/sql/badvalue.h"
#include "core/sql/timejson.h"
#include "core/workspace/spec.h"

#include <QMap>
#include <QStringBuilder>
#include <nlohmann/json.hpp>

namespace rw::dlq_detail {

// Temporary tables, named unqualified: temporary tables come first in name
// resolution on both engines.
inline const QString kWork = QStringLiteral("rewind_dlq_work");
inline const QString kRows = QStringLiteral("rewind_dlq_rows");

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

inline QString columnPath(const QString &column) {
    return QStringLiteral("$.\"") % column % u'"';
}

inline QString jsonArray(const QStringList &values) {
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

    Result<DlqReplayResult> run();

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

    Status prepare();
    Status requirePrivileges();

    Status planSource(SourcePlan &p);

    // One batch: fill, validate, (write, transition, audit). `n` is the batch's size.
    Status batch(qint64 lastId, qint64 size, qint64 &n);

    // The value at a bound JSON path of the work row's payload.
    QString extract() const {
        return TimeJson::of(m_db.dialect())
            .jsonExtract(QStringLiteral("w.doc"), QStringLiteral("?"));
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
    Status badValues(const SourcePlan &p, std::vector<FieldValue> fields);

    Status validate(const SourcePlan &p);

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
    Status markLanded(const SourcePlan &p);

    Status write(const SourcePlan &p);

    // The batch's outcome, and the first verdicts for the report.
    Status tally();

    Status transition();

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

} // namespace rw::dlq_detail
