// Step 4 of a recovery: business totals (row counts and sums of numeric
// columns) of the re-run partitions, the deduped source against the target.
#include "core/batch/partitions.h"
#include "core/batch/scope.h"
#include "core/recovery/recoverydetail.h"

#include <QStringBuilder>
#include <cmath>

namespace rw {

namespace {

bool isNumericType(const QString &type) {
    const QString t = type.toUpper();
    for (const char *n : {"INT", "REAL", "FLOA", "DOUB", "NUM", "DEC"})
        if (t.contains(QLatin1String(n)))
            return true;
    return false;
}

// A sum's text as a number: an integer when it is one, else a double.
QVariant sumValue(const QVariant &text) {
    if (text.isNull())
        return QVariant();
    bool ok = false;
    if (const qlonglong i = text.toString().toLongLong(&ok); ok)
        return i;
    return text.toString().toDouble();
}

} // namespace

bool sameSum(const QVariant &a, const QVariant &b) {
    const double x = a.isNull() ? 0.0 : a.toDouble(), y = b.isNull() ? 0.0 : b.toDouble();
    return std::fabs(x - y) <= 1e-9 * std::max({1.0, std::fabs(x), std::fabs(y)});
}

namespace recovery_detail {

Result<std::vector<TotalsRow>> compareTotals(const Database &db, const DatasetSpec &dataset,
                                             const BatchSql &sql,
                                             const std::vector<PartitionRef> &scope) {
    std::vector<TotalsRow> out;
    if (scope.empty())
        return out;
    QStringList numeric;
    if (sql.targetExists()) {
        auto cols = db.columns(dataset.target);
        if (!cols)
            return fail(cols.error());
        for (const ColumnInfo &c : *cols)
            if (isNumericType(c.type) && sql.columns().contains(c.name) &&
                c.name != dataset.partitionColumn)
                numeric << c.name;
    }
    // Each sum as the engine's exact text (sumValue() reads it): PostgreSQL
    // sums bigints as numeric, which the driver would read as a double
    // (15000041417.0, and rounded past 2^53).
    QStringList sums;
    for (const QString &c : numeric)
        sums << db.dialect().castText(QStringLiteral("SUM(x.") % db.quote(c) % u')');
    const QString aggregates =
        QStringLiteral("COUNT(*)") %
        (sums.isEmpty() ? QString() : QStringLiteral(", ") % sums.join(QStringLiteral(", ")));

    struct Side {
        qint64 rows = 0;
        QVariantList sums;
    };
    auto collect = [&](const QString &query,
                       const QVariantList &binds) -> Result<QHash<QString, Side>> {
        auto q = db.exec(query, binds);
        if (!q)
            return fail(q.error());
        QHash<QString, Side> byPart;
        while (q->next()) {
            Side side;
            side.rows = q->value(2).toLongLong();
            for (int i = 0; i < numeric.size(); ++i)
                side.sums << sumValue(q->value(3 + i));
            byPart.insert(partitionKey(labelOf(*q, 0)), side);
        }
        return byPart;
    };

    // The source as a re-run stages it: deduped to one row per (partition, key).
    QVariantList binds;
    const QStringList stage = sql.createStage(scope, binds);
    for (qsizetype i = 0; i < stage.size(); ++i)
        if (auto r = db.exec(stage[i], i == 1 ? binds : QVariantList()); !r)
            return fail(r.error());
    auto source =
        collect(QStringLiteral("SELECT ") % sql.partLabelColumns(QStringLiteral("x")) %
                    QStringLiteral(", ") % aggregates % QStringLiteral(" FROM ") % sql.workStage() %
                    QStringLiteral(" AS x") % sql.groupByPart(QStringLiteral("x")),
                {});
    (void)db.execAll(sql.dropWorkTables());
    if (!source)
        return fail(source.error());
    QHash<QString, Side> target;
    if (sql.targetExists()) {
        QVariantList tb;
        const QString scopeSql = sql.scopePredicate(QStringLiteral("x"), scope, tb);
        auto t = collect(QStringLiteral("SELECT ") % sql.partLabelColumns(QStringLiteral("x")) %
                             QStringLiteral(", ") % aggregates % QStringLiteral(" FROM ") %
                             sql.quotedTarget() % QStringLiteral(" AS x WHERE ") % scopeSql %
                             sql.groupByPart(QStringLiteral("x")),
                         tb);
        if (!t)
            return fail(t.error());
        target = *t;
    }
    for (const PartitionRef &p : scope) {
        const QString key = partitionKey(p.label);
        const Side s = source->value(key), t = target.value(key);
        TotalsRow row;
        row.partition = p.label;
        row.sourceRows = s.rows;
        row.targetRows = t.rows;
        row.match = s.rows == t.rows;
        for (int i = 0; i < numeric.size(); ++i) {
            const QVariant a = s.sums.value(i), b = t.sums.value(i);
            row.sums.emplace_back(numeric[i], a, b);
            row.match = row.match && sameSum(a, b);
        }
        out.push_back(std::move(row));
    }
    return out;
}

} // namespace recovery_detail

using namespace recovery_detail;

Result<std::vector<TotalsRow>> compareTotals(const Database &db, const DatasetSpec &dataset,
                                             const std::vector<PartitionRef> &scope) {
    if (scope.empty())
        return std::vector<TotalsRow>{};
    auto sql = BatchSql::make(db, dataset);
    if (!sql)
        return fail(sql.error());
    return recovery_detail::compareTotals(db, dataset, *sql, scope);
}

Status Recovery::totals() {
    if (auto s = require(RecoveryStep::Totals, RecoveryStep::Rerun); !s)
        return s;
    auto totals = compareTotals(m_db, m_dataset, batchSql(), m_result.scope);
    if (!totals)
        return fail(totals.error());
    m_result.totals = *totals;
    m_result.totalsMatch = std::all_of(m_result.totals.begin(), m_result.totals.end(),
                                       [](const TotalsRow &t) { return t.match; });
    Json rows = Json::array();
    for (const auto &t : m_result.totals)
        rows.push_back(
            {{"partition", t.partition ? Json(t.partition->toStdString()) : Json(nullptr)},
             {"source_rows", t.sourceRows},
             {"target_rows", t.targetRows},
             {"match", t.match}});
    if (auto s = auditStep(m_db, m_dataset.name, QStringLiteral("recover totals"), m_result.rerunId,
                           Json{{"match", m_result.totalsMatch}, {"partitions", rows}});
        !s)
        return fail(s.error());
    if (!m_result.totalsMatch) {
        stop(RecoveryStep::Totals,
             QStringLiteral("business totals differ from the source after the re-run"));
        return {};
    }
    m_result.steps.push_back(
        {RecoveryStep::Totals, RecoveryStepStatus::Done,
         QStringLiteral("row counts and sums match the deduped source in %1 partition(s)")
             .arg(m_result.totals.size())});
    return {};
}

} // namespace rw
