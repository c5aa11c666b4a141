// Step 2 of a recovery: the duplicate keys, the partitions they are in (the
// scope the re-run overwrites) and those partitions' totals before it.
#include "core/batch/partitions.h"
#include "core/batch/scope.h"
#include "core/recovery/recoverydetail.h"

#include <QSqlRecord>
#include <QStringBuilder>

namespace rw {

namespace recovery_detail {

Result<DuplicateReport> findDuplicates(const Database &db, const DatasetSpec &dataset,
                                       const BatchSql &sql, int samples) {
    DuplicateReport out;
    out.dataset = dataset.name;
    out.target = dataset.target;
    // delete_insert and append keep several rows a key by design (as the
    // partitions view counts them): none is a duplicate key.
    if (!sql.targetExists() || dataset.keepsEveryRow())
        return out;
    const QStringList cols = identityColumns(dataset, sql);
    const QString where =
        dataset.scd2 ? QStringLiteral(" WHERE ") % scd2IsCurrent(db, *dataset.scd2) : QString();
    // Keys are duplicates within a partition: with a granularity, within the
    // partition column's hour, day or month (as the listing and the dedupe
    // count them), named as the column.
    QStringList grouped, selected;
    for (const QString &c : cols) {
        const bool part = dataset.partitioned() && c == dataset.partitionColumn;
        grouped << (part ? partitionValueSql(db, dataset) : db.quote(c));
        selected << (part ? partitionValueSql(db, dataset) % QStringLiteral(" AS ") % db.quote(c)
                          : db.quote(c));
    }
    const QString inner = QStringLiteral("SELECT ") % selected.join(QStringLiteral(", ")) %
                          QStringLiteral(", COUNT(*) AS rewind_n FROM ") % sql.quotedTarget() %
                          where % QStringLiteral(" GROUP BY ") %
                          grouped.join(QStringLiteral(", ")) %
                          QStringLiteral(" HAVING COUNT(*) > 1");
    auto q = db.exec(QStringLiteral("SELECT ") % sql.partLabelColumns(QStringLiteral("d")) %
                     QStringLiteral(", COUNT(*), SUM(d.rewind_n - 1) FROM (") % inner %
                     QStringLiteral(") AS d") % sql.groupByPart(QStringLiteral("d")));
    if (!q)
        return fail(q.error());
    while (q->next()) {
        DuplicatePartition p{labelOf(*q, 0), q->value(2).toLongLong(), q->value(3).toLongLong()};
        out.duplicateKeys += p.duplicateKeys;
        out.extraRows += p.extraRows;
        out.partitions.push_back(p);
    }
    sortByPartition(out.partitions, [](const DuplicatePartition &p) { return p.partition; });
    if (samples > 0 && out.duplicateKeys > 0) {
        auto s =
            db.exec(QStringLiteral("SELECT * FROM (") % inner % QStringLiteral(") AS d ORDER BY ") %
                        quotedList(db, cols, QStringLiteral("d")) % QStringLiteral(" LIMIT ?"),
                    {samples});
        if (!s)
            return fail(s.error());
        while (s->next()) {
            const QSqlRecord r = s->record();
            QJsonObject o;
            for (int i = 0; i < cols.size(); ++i)
                o.insert(cols[i], db.dialect().jsonValue(r.field(i)));
            o.insert(QStringLiteral("rows"), r.value(int(cols.size())).toLongLong());
            out.samples.push_back(o);
        }
    }
    return out;
}

} // namespace recovery_detail

using namespace recovery_detail;

Result<DuplicateReport> findDuplicates(const Database &db, const DatasetSpec &dataset,
                                       int samples) {
    auto sql = BatchSql::make(db, dataset);
    if (!sql)
        return fail(sql.error());
    return recovery_detail::findDuplicates(db, dataset, *sql, samples);
}

Status Recovery::findAffected(int samples) {
    const BatchSql sql = batchSql();
    auto before = findDuplicates(m_db, m_dataset, sql, samples);
    if (!before)
        return fail(before.error());
    m_result.before = *before;
    m_result.scope.clear();
    m_result.scopeLabels.clear();
    m_result.nullPartition = false;
    for (const auto &p : m_result.before.partitions) {
        if (p.partition)
            m_result.scopeLabels << *p.partition;
        else
            m_result.nullPartition = true;
    }
    if (!m_result.before.partitions.empty()) {
        ScopeRequest request;
        if (m_dataset.partitioned())
            request.partitions = m_result.scopeLabels;
        if (!m_dataset.partitioned() || !m_result.scopeLabels.isEmpty()) {
            auto resolved = resolveScope(m_db, m_dataset, sql, request);
            if (!resolved)
                return fail(resolved.error());
            m_result.scope = *resolved;
        }
    }
    auto totalsNow = compareTotals(m_db, m_dataset, sql, m_result.scope);
    if (!totalsNow)
        return fail(totalsNow.error());
    m_result.totalsBefore = *totalsNow;
    return {};
}

Status Recovery::identify(bool refresh, int samples) {
    if (auto s = require(RecoveryStep::Identify, RecoveryStep::Freeze); !s)
        return s;
    if (refresh) {
        // The dataset is frozen by now: its catalog, as its rows, no longer
        // moves. Resolved again here, since the console's wizard opened the
        // recovery (and its catalog) when the page loaded, possibly long ago.
        auto catalog = DatasetCatalog::resolve(m_db, m_dataset);
        if (!catalog)
            return fail(catalog.error());
        m_catalog = std::move(*catalog);
        if (auto s = findAffected(samples); !s)
            return s;
    }
    if (auto s = auditStep(m_db, m_dataset.name, QStringLiteral("recover identify"), QVariant(),
                           duplicatesDetail(m_result.before));
        !s)
        return fail(s.error());
    m_result.steps.push_back({RecoveryStep::Identify, RecoveryStepStatus::Done,
                              QStringLiteral("%1 duplicate keys, %2 extra rows in %3")
                                  .arg(m_result.before.duplicateKeys)
                                  .arg(m_result.before.extraRows)
                                  .arg(affectedText(m_result))});
    if (m_result.nullPartition && m_dataset.partitioned())
        stop(RecoveryStep::Identify,
             QStringLiteral(
                 "duplicates in the NULL partition of %1 cannot be re-run by partition name")
                 .arg(m_dataset.partitionColumn));
    return {};
}

} // namespace rw
