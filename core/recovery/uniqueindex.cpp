// Step 5 of a recovery: the unique index on (partition, key) that keeps the
// duplicates from coming back, then the freeze lifted.
#include "core/recovery/recoverydetail.h"
#include "core/workspace/workspace.h"

#include <QStringBuilder>

namespace rw {

namespace recovery_detail {

Result<bool> uniqueIndexExists(const Database &db, const DatasetSpec &dataset,
                               const QString &index) {
    auto q = db.exec(db.dialect().listIndexColumns(), {dataset.target});
    if (!q)
        return fail(q.error());
    while (q->next())
        if (q->value(0).toString() == index)
            return true;
    return false;
}

} // namespace recovery_detail

using namespace recovery_detail;

// The target's duplicates after the re-run (m_result.after): true when no
// key repeats; else the recovery stops there, saying so, `then` after it.
Result<bool> Recovery::noKeyRepeats(const BatchSql &sql, int samples, const QString &then) {
    auto after = findDuplicates(m_db, m_dataset, sql, samples);
    if (!after)
        return fail(after.error());
    m_result.after = *after;
    if (after->duplicateKeys == 0)
        return true;
    stop(RecoveryStep::UniqueIndex, QStringLiteral("%1 duplicate keys remain (%2 extra rows)%3")
                                        .arg(after->duplicateKeys)
                                        .arg(after->extraRows)
                                        .arg(then));
    return false;
}

Status Recovery::uniqueIndex(int samples) {
    const BatchSql sql = batchSql();
    if (auto s = require(RecoveryStep::UniqueIndex, RecoveryStep::Totals); !s)
        return s;
    if (m_db.dialect().keepsControlApart()) {
        // Iceberg (Trino) has no indexes: what the index would have checked,
        // that no key repeats, is checked once more and said.
        auto clean = noKeyRepeats(sql, samples, QStringLiteral(" after the re-run"));
        if (!clean)
            return fail(clean.error());
        if (!*clean)
            return {};
        m_result.steps.push_back(
            {RecoveryStep::UniqueIndex, RecoveryStepStatus::Skipped, kNoIcebergIndex});
        return unfreezeAfter();
    }
    if (!m_dataset.partitionGranularity.isEmpty() &&
        !m_dataset.key.contains(m_dataset.partitionColumn)) {
        stop(RecoveryStep::UniqueIndex,
             QStringLiteral("the dataset's partitions are the %1 of %2, and a unique index on "
                            "(%2, key) would let a key repeat within one %1: Rewind's dedupe "
                            "keeps each key once per %1 instead")
                 .arg(m_dataset.partitionGranularity, m_dataset.partitionColumn));
        return {};
    }
    if (sql.targetExists()) {
        auto nulls = m_db.exec(QStringLiteral("SELECT ") %
                               [&] {
                                   QStringList sums;
                                   for (const QString &c : m_result.uniqueIndexColumns)
                                       sums << QStringLiteral("SUM(CASE WHEN ") % m_db.quote(c) %
                                                   QStringLiteral(" IS NULL THEN 1 ELSE 0 END)");
                                   return sums.join(QStringLiteral(", "));
                               }() %
                               QStringLiteral(" FROM ") % sql.quotedTarget());
        if (!nulls)
            return fail(nulls.error());
        QStringList nullable;
        if (nulls->next())
            for (int i = 0; i < m_result.uniqueIndexColumns.size(); ++i)
                if (nulls->value(i).toLongLong() > 0)
                    nullable << QStringLiteral("%1 (%2 rows)")
                                    .arg(m_result.uniqueIndexColumns[i])
                                    .arg(nulls->value(i).toLongLong());
        if (!nullable.isEmpty()) {
            stop(RecoveryStep::UniqueIndex,
                 QStringLiteral("key columns hold NULL: %1; a unique index treats NULLs as "
                                "distinct, so it would not stop duplicates of those keys. "
                                "Make the key NOT NULL (or fill the NULLs), then add the index")
                     .arg(nullable.join(QStringLiteral(", "))));
            return {};
        }
        auto clean =
            noKeyRepeats(sql, samples, QStringLiteral(": the unique index cannot be added"));
        if (!clean)
            return fail(clean.error());
        if (!*clean)
            return {};
        auto has = uniqueIndexExists(m_db, m_dataset, m_result.uniqueIndex);
        if (!has)
            return fail(has.error());
        const Status indexed = Database::retryTransient(5, [&] {
            return m_db.writeTransaction([&]() -> Status {
                auto r = m_db.exec(QStringLiteral("CREATE UNIQUE INDEX IF NOT EXISTS ") %
                                   m_db.quote(m_result.uniqueIndex) % QStringLiteral(" ON ") %
                                   sql.quotedTarget() % QStringLiteral(" (") %
                                   quotedList(m_db, m_result.uniqueIndexColumns) % u')');
                if (!r)
                    return fail(r.error());
                return writeAudit(
                    m_db, QStringLiteral("recover unique index"), m_dataset.name, QString(),
                    m_result.rerunId,
                    QString::fromStdString(Json{
                        {"index", m_result.uniqueIndex.toStdString()},
                        {"columns", m_result.uniqueIndexColumns.join(u',').toStdString()},
                        {"already_present",
                         *has}}.dump()));
            });
        });
        if (!indexed) {
            stop(RecoveryStep::UniqueIndex, indexed.error().message);
            return {};
        }
        m_result.uniqueIndexAdded = true;
        m_result.steps.push_back(
            {RecoveryStep::UniqueIndex, RecoveryStepStatus::Done,
             *has ? QStringLiteral("%1 was already in place").arg(m_result.uniqueIndex)
                  : QStringLiteral("added %1 on %2 (%3)")
                        .arg(m_result.uniqueIndex, m_dataset.target,
                             m_result.uniqueIndexColumns.join(u", "))});
    } else {
        m_result.after = m_result.before;
        m_result.steps.push_back({RecoveryStep::UniqueIndex, RecoveryStepStatus::Skipped,
                                  QStringLiteral("the target does not exist yet")});
    }
    return unfreezeAfter();
}

// The last step: the freeze lifted, the recovery done.
Status Recovery::unfreezeAfter() {
    auto lifted = unfreeze(m_db, m_dataset, QStringLiteral("recover finished"),
                           QStringLiteral("recover unfreeze"));
    if (!lifted)
        return fail(lifted.error());
    m_result.steps.push_back({RecoveryStep::Unfreeze, RecoveryStepStatus::Done,
                              QStringLiteral("writers may publish again")});
    m_result.status = RecoveryStatus::Recovered;
    return {};
}

} // namespace rw
