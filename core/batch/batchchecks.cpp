#include "core/batch/batchchecks.h"

#include "core/batch/batchdialect.h"
#include "core/dlq/dlqstore.h"
#include "core/sql/timejson.h"
#include "core/workspace/workspace.h"

#include <QHash>
#include <QLocale>
#include <QStringBuilder>
#include <cmath>

namespace rw {

namespace {

QString labelKey(const std::optional<QString> &label) {
    return label ? QStringLiteral("v:") % *label : QStringLiteral("null");
}

QString number(double v) {
    static const QLocale english(QLocale::English, QLocale::UnitedStates);
    if (v == std::floor(v) && std::fabs(v) < 1e15)
        return english.toString(qint64(v));
    return english.toString(v, 'f', 2);
}

class Checker {
public:
    Checker(const Database &db, const DatasetSpec &dataset, const BatchSql &sql,
            const std::vector<PartitionRef> &scope, const QVariant &runId)
        : m_db(db)
        , m_dataset(dataset)
        , m_sql(sql)
        , m_scope(scope)
        , m_runId(runId) {}

    Result<std::vector<CheckResult>> run() {
        for (const CheckSpec &check : m_dataset.checks) {
            Status s;
            if (check.type == QLatin1String("max_changed") ||
                check.type == QLatin1String("unchanged") || check.type == QLatin1String("delta"))
                s = changeSize(check);
            if (check.type == QLatin1String("not_null") ||
                check.type == QLatin1String("references"))
                s = rowLevel(check);
            else if (check.type == QLatin1String("unique_key"))
                s = uniqueKey(check);
            else if (check.type == QLatin1String("row_count"))
                s = rowCount(check);
            else if (check.type == QLatin1String("total"))
                s = total(check);
            else if (check.type == QLatin1String("sql"))
                s = sqlCheck(check);
            if (!s)
                return fail(s.error());
        }
        return m_results;
    }

private:
    QString q(const QString &id) const { return m_db.quote(id); }
    QString qt(const QString &table) const { return m_db.quoteTable(table); }

    // Runs a per-partition aggregate "SELECT label, is_null, value ..." into a map.
    Result<QHash<QString, QVariant>> perPartition(const QString &sql,
                                                  const QVariantList &binds = {}) {
        auto query = m_db.exec(sql, binds);
        if (!query)
            return fail(query.error());
        QHash<QString, QVariant> out;
        while (query->next())
            out.insert(query->value(1).toInt() ? QStringLiteral("null")
                                               : QStringLiteral("v:") % query->value(0).toString(),
                       query->value(2));
        return out;
    }

    void add(const CheckSpec &check, const PartitionRef &p, bool passed, const QString &detail,
             qint64 quarantined = 0) {
        m_results.push_back({check.name, p.label, passed, detail, quarantined});
    }

    QString stageGrouped(const QString &valueExpr, const QString &where = QString()) const {
        return QStringLiteral("SELECT ") % m_sql.partLabelColumns(QStringLiteral("s")) %
               QStringLiteral(", ") % valueExpr % QStringLiteral(" FROM rewind_stage AS s") %
               (where.isEmpty() ? QString() : QStringLiteral(" WHERE ") % where) %
               m_sql.groupByPart(QStringLiteral("s"));
    }

    QString failingPredicate(const CheckSpec &check) const {
        if (check.type == QLatin1String("not_null")) {
            QStringList terms;
            for (const QString &c : check.columns)
                terms << QStringLiteral("s.") % q(c) % QStringLiteral(" IS NULL");
            return u'(' % terms.join(QStringLiteral(" OR ")) % u')';
        }
        // references: a non-NULL value with no row in the referenced table.
        return QStringLiteral("(s.") % q(check.column) %
               QStringLiteral(" IS NOT NULL AND NOT EXISTS (SELECT 1 FROM ") % qt(check.refTable) %
               QStringLiteral(" AS r WHERE r.") % q(check.refColumn) % QStringLiteral(" = s.") %
               q(check.column) % QStringLiteral("))");
    }

    QString describeFailure(const CheckSpec &check, qint64 rows) const {
        if (check.type == QLatin1String("not_null"))
            return number(rows) % QStringLiteral(" rows with NULL in ") %
                   check.columns.join(QStringLiteral(" or "));
        return number(rows) % QStringLiteral(" rows whose ") % check.column %
               QStringLiteral(" has no match in ") % check.refTable % u'.' % check.refColumn;
    }

    Status rowLevel(const CheckSpec &check) {
        // A referenced table another dataset creates (a dbt project's
        // model) may not be built yet: every partition fails the gate,
        // saying so, rather than the run failing on the engine's error.
        if (check.type == QLatin1String("references")) {
            auto exists = m_db.hasRelation(check.refTable);
            if (!exists)
                return fail(exists.error());
            if (!*exists) {
                for (const auto &p : m_scope)
                    add(check, p, false,
                        QStringLiteral("table %1 does not exist yet: build it first (another "
                                       "dataset's target, or the model a dbt test refers to)")
                            .arg(check.refTable));
                return {};
            }
        }
        const QString failing = failingPredicate(check);
        auto counts = perPartition(stageGrouped(QStringLiteral("SUM(CASE WHEN ") % failing %
                                                QStringLiteral(" THEN 1 ELSE 0 END)")));
        if (!counts)
            return fail(counts.error());
        const bool quarantine = check.onFail == QLatin1String("quarantine");
        qint64 anyFailing = 0;
        for (const auto &p : m_scope) {
            const qint64 n = counts->value(labelKey(p.label)).toLongLong();
            anyFailing += n;
            if (n == 0)
                add(check, p, true, QStringLiteral("no rows fail"));
            else if (quarantine)
                add(check, p, true,
                    describeFailure(check, n) %
                        QStringLiteral(": quarantined to the DLQ, the rest publish"),
                    n);
            else
                add(check, p, false, describeFailure(check, n));
        }
        if (quarantine && anyFailing > 0)
            return quarantineRows(check, failing);
        return {};
    }

    Status quarantineRows(const CheckSpec &check, const QString &failing) {
        const SqlDialect &d = m_db.dialect();
        if (!m_runId.isNull()) {
            QStringList row, key;
            for (const QString &c : m_sql.columns())
                row << QStringLiteral("'") % QString(c).replace(u'\'', QStringLiteral("''")) %
                           QStringLiteral("'")
                    << QStringLiteral("s.") % q(c);
            for (const QString &c : m_dataset.key)
                key << QStringLiteral("'") % QString(c).replace(u'\'', QStringLiteral("''")) %
                           QStringLiteral("'")
                    << QStringLiteral("s.") % q(c);
            const QString message =
                check.type == QLatin1String("not_null")
                    ? QString(QStringLiteral("NULL in ") %
                              check.columns.join(QStringLiteral(" or ")))
                    : QString(check.column % QStringLiteral(" has no match in ") % check.refTable %
                              u'.' % check.refColumn);
            dlqstore::QuarantineRows rows;
            rows.sourceKind = QStringLiteral("dataset");
            rows.sourceName = m_dataset.name;
            rows.part = Sql(BatchDialect::of(d).partitionText(m_sql.partExpr(QStringLiteral("s"))));
            rows.recordKey =
                Sql(key.isEmpty() ? QStringLiteral("NULL") : TimeJson::of(d).jsonObject(key));
            rows.errorClass << Bind{check.type};
            rows.error << Bind{QString(message % QStringLiteral(" (check ") % check.name % u')')};
            rows.payload = Sql(TimeJson::of(d).jsonObject(row));
            rows.from = Sql(QStringLiteral(" FROM rewind_stage AS s WHERE ") % failing);
            if (auto q = dlqstore::quarantine(m_db, dlqstore::quarantineStatement(d, rows),
                                              QStringLiteral("run ") % m_runId.toString() %
                                                  QStringLiteral(": check ") % check.name,
                                              false);
                !q)
                return fail(q.error());
        }
        auto removed = m_db.exec(QStringLiteral("DELETE FROM rewind_stage AS s WHERE ") % failing);
        if (!removed)
            return fail(removed.error());
        return {};
    }

    Status uniqueKey(const CheckSpec &check) {
        QStringList cols;
        if (m_dataset.partitioned())
            cols << m_sql.partExpr(QStringLiteral("s"));
        for (const QString &k : m_dataset.key)
            cols << QStringLiteral("s.") % q(k);
        const QString sql =
            QStringLiteral("SELECT ") % m_sql.partLabelColumns(QStringLiteral("d")) %
            QStringLiteral(", COUNT(*) FROM (SELECT ") %
            (m_dataset.partitioned() ? m_sql.partExpr(QStringLiteral("s"))
                                     : QStringLiteral("NULL")) %
            QStringLiteral(" AS ") %
            (m_dataset.partitioned() ? q(m_dataset.partitionColumn) : QStringLiteral("p")) %
            QStringLiteral(" FROM rewind_stage AS s GROUP BY ") % cols.join(u", ") %
            QStringLiteral(" HAVING COUNT(*) > 1) AS d") % m_sql.groupByPart(QStringLiteral("d"));
        auto counts = perPartition(sql);
        if (!counts)
            return fail(counts.error());
        for (const auto &p : m_scope) {
            const qint64 n = counts->value(labelKey(p.label)).toLongLong();
            add(check, p, n == 0,
                n == 0 ? QStringLiteral("every key is unique")
                       : number(n) % QStringLiteral(" keys appear more than once"));
        }
        return {};
    }

    Status rowCount(const CheckSpec &check) {
        auto counts = perPartition(stageGrouped(QStringLiteral("COUNT(*)")));
        if (!counts)
            return fail(counts.error());
        for (const auto &p : m_scope) {
            const double n = counts->value(labelKey(p.label)).toDouble();
            const bool low = check.min && n < *check.min;
            const bool high = check.max && n > *check.max;
            QString detail = number(n) % QStringLiteral(" rows");
            if (low)
                detail += QStringLiteral(", fewer than the minimum ") % number(*check.min);
            if (high)
                detail += QStringLiteral(", more than the maximum ") % number(*check.max);
            add(check, p, !low && !high, detail);
        }
        return {};
    }

    Status total(const CheckSpec &check) {
        // The staged sum against the source table's own deduped sum (the
        // transform may have changed values); without a source table, against
        // the transform's rows before dedupe is not meaningful, so the staged
        // rows are compared with the scoped transform deduped the same way.
        auto staged = perPartition(stageGrouped(QStringLiteral("SUM(s.") % q(check.column) % u')'));
        if (!staged)
            return fail(staged.error());
        QHash<QString, QVariant> expected;
        const bool sourceUsable = [&] {
            if (m_dataset.source.isEmpty())
                return false;
            auto cols = m_db.columns(m_dataset.source);
            if (!cols)
                return false;
            QStringList names;
            for (const auto &c : *cols)
                names << c.name;
            QStringList needed = m_dataset.key;
            needed << check.column;
            if (m_dataset.partitioned())
                needed << m_dataset.partitionColumn;
            if (!m_dataset.orderBy.isEmpty())
                needed << m_dataset.orderBy;
            for (const QString &n : needed)
                if (!names.contains(n))
                    return false;
            return true;
        }();
        if (sourceUsable) {
            QVariantList binds;
            QStringList partitionBy;
            if (m_dataset.partitioned())
                partitionBy << m_sql.partExpr(QString());
            for (const QString &k : m_dataset.key)
                partitionBy << q(k);
            const QString order = m_dataset.orderBy.isEmpty()
                                      ? QStringLiteral("1")
                                      : q(m_dataset.orderBy) % QStringLiteral(" DESC NULLS LAST");
            const QString ranked =
                partitionBy.isEmpty()
                    ? QString(QStringLiteral("SELECT *, 1 AS rewind_rn FROM ") %
                              qt(m_dataset.source) % QStringLiteral(" AS src WHERE ") %
                              m_sql.scopePredicate(QStringLiteral("src"), m_scope, binds))
                    : QString(QStringLiteral("SELECT *, ROW_NUMBER() OVER (PARTITION BY ") %
                              partitionBy.join(u", ") % QStringLiteral(" ORDER BY ") % order %
                              QStringLiteral(") AS rewind_rn FROM ") % qt(m_dataset.source) %
                              QStringLiteral(" AS src WHERE ") %
                              m_sql.scopePredicate(QStringLiteral("src"), m_scope, binds));
            const QString cast = m_sql.targetCast(check.column);
            const QString column = cast.isEmpty()
                                       ? QString(QStringLiteral("s.") % q(check.column))
                                       : QString(QStringLiteral("CAST(s.") % q(check.column) %
                                                 QStringLiteral(" AS ") % cast % u')');
            const QString sql = QStringLiteral("SELECT ") %
                                m_sql.partLabelColumns(QStringLiteral("s")) %
                                QStringLiteral(", SUM(") % column % QStringLiteral(") FROM (") %
                                ranked % QStringLiteral(") AS s WHERE rewind_rn = 1") %
                                m_sql.groupByPart(QStringLiteral("s"));
            auto sums = perPartition(sql, binds);
            if (!sums)
                return fail(sums.error());
            expected = *sums;
        } else {
            expected = *staged;
        }
        for (const auto &p : m_scope) {
            const double got = staged->value(labelKey(p.label)).toDouble();
            const double want = expected.value(labelKey(p.label)).toDouble();
            const double diffPct =
                want == 0 ? (got == 0 ? 0 : 100) : std::fabs(got - want) / std::fabs(want) * 100.0;
            const bool passed = diffPct <= check.tolerancePct + 1e-9;
            add(check, p, passed,
                QStringLiteral("staged ") % check.column % QStringLiteral(" total ") % number(got) %
                    QStringLiteral(" vs source ") % number(want) % QStringLiteral(" (") %
                    QString::number(diffPct, 'f', 2) % QStringLiteral("% off, tolerance ") %
                    QString::number(check.tolerancePct) % QStringLiteral("%)"));
        }
        return {};
    }

    // The staged rows against the target's, matched on partition and key
    // (plain `=` where no staged key is NULL: a hash join or an index probe):
    // per partition the matched rows, the rows changing each of `columns`,
    // and for a delta's column the sum of the inserted values, of the matched
    // rows' changes (a NULL as 0), and of every staged value.
    struct Matched {
        qint64 matched = 0;
        QHash<QString, qint64> changed;
        double inserted = 0, updated = 0, staged = 0;
    };
    Result<QHash<QString, Matched>> matchTarget(const QStringList &columns, const QString &sumOf) {
        auto nullKey = m_db.exec(m_sql.stageKeysNullProbe());
        if (!nullKey)
            return fail(nullKey.error());
        const QString t = QStringLiteral("t"), s = QStringLiteral("s");
        QString on;
        if (nullKey->next()) {
            on = m_sql.keyMatch(t, s);
        } else {
            QStringList terms;
            if (m_dataset.partitioned())
                terms << m_sql.partExpr(t) % QStringLiteral(" = ") % m_sql.partExpr(s);
            for (const QString &k : m_sql.keyColumns())
                terms << QStringLiteral("t.") % q(k) % QStringLiteral(" = s.") % q(k);
            on = terms.join(QStringLiteral(" AND "));
        }
        nullKey->finish();
        const QString tid = BatchDialect::of(m_db.dialect()).rowIdentity(t);
        QStringList values = {QStringLiteral("COUNT(") % tid % u')'};
        for (const QString &c : columns)
            values << QStringLiteral("SUM(CASE WHEN ") % tid %
                          QStringLiteral(" IS NOT NULL AND NOT ") %
                          m_db.dialect().nullSafeEqual(QStringLiteral("t.") % q(c),
                                                       QStringLiteral("s.") % q(c)) %
                          QStringLiteral(" THEN 1 ELSE 0 END)");
        if (!sumOf.isEmpty()) {
            const QString a = QStringLiteral("s.") % q(sumOf), b = QStringLiteral("t.") % q(sumOf);
            values << QStringLiteral("SUM(CASE WHEN ") % tid % QStringLiteral(" IS NULL THEN ") %
                          a % QStringLiteral(" END)")
                   << QStringLiteral("SUM(CASE WHEN ") % tid %
                          QStringLiteral(" IS NOT NULL THEN COALESCE(") % a %
                          QStringLiteral(", 0) - COALESCE(") % b % QStringLiteral(", 0) END)")
                   << QStringLiteral("SUM(") % a % u')';
        }
        QVariantList binds;
        const QString sql = QStringLiteral("SELECT ") % m_sql.partLabelColumns(s) %
                            QStringLiteral(", ") % values.join(QStringLiteral(", ")) %
                            QStringLiteral(" FROM rewind_stage AS s LEFT JOIN ") %
                            qt(m_dataset.target) % QStringLiteral(" AS t ON ") % on %
                            QStringLiteral(" AND ") % m_sql.scopePredicate(t, m_scope, binds) %
                            m_sql.groupByPart(s);
        auto query = m_db.exec(sql, binds);
        if (!query)
            return fail(query.error());
        QHash<QString, Matched> out;
        while (query->next()) {
            Matched m;
            int i = 2;
            m.matched = query->value(i++).toLongLong();
            for (const QString &c : columns)
                m.changed.insert(c, query->value(i++).toLongLong());
            if (!sumOf.isEmpty()) {
                m.inserted = query->value(i++).toDouble();
                m.updated = query->value(i++).toDouble();
                m.staged = query->value(i++).toDouble();
            }
            out.insert(query->value(1).toInt() ? QStringLiteral("null")
                                               : QStringLiteral("v:") % query->value(0).toString(),
                       m);
        }
        return out;
    }

    // max_changed, unchanged, delta: how much of the target the staged rows
    // would change, before anything is written.
    Status changeSize(const CheckSpec &check) {
        if (!m_sql.targetExists()) {
            for (const auto &p : m_scope)
                add(check, p, true,
                    QStringLiteral("target %1 does not exist yet: nothing to compare")
                        .arg(m_dataset.target));
            return {};
        }
        const bool delta = check.type == QLatin1String("delta");
        const QStringList columns =
            check.type == QLatin1String("unchanged") ? check.columns : QStringList{check.column};
        auto matched = matchTarget(columns, delta ? check.column : QString());
        if (!matched)
            return fail(matched.error());
        QHash<QString, QVariant> before;
        if (delta) {
            QVariantList binds;
            auto sums = perPartition(
                QStringLiteral("SELECT ") % m_sql.partLabelColumns(QStringLiteral("t")) %
                    QStringLiteral(", SUM(t.") % q(check.column) % QStringLiteral(") FROM ") %
                    qt(m_dataset.target) % QStringLiteral(" AS t WHERE ") %
                    m_sql.scopePredicate(QStringLiteral("t"), m_scope, binds) %
                    m_sql.groupByPart(QStringLiteral("t")),
                binds);
            if (!sums)
                return fail(sums.error());
            before = *sums;
        }
        const bool overwrite = m_dataset.write == WriteMode::OverwritePartition;
        const bool compared = m_sql.catalog().updated.contains(check.column);
        const auto pct = [](double part, double whole) {
            return whole == 0 ? (part == 0 ? 0.0 : 100.0) : 100.0 * part / whole;
        };
        for (const auto &p : m_scope) {
            const Matched m = matched->value(labelKey(p.label));
            if (check.type == QLatin1String("unchanged")) {
                QStringList touched;
                for (const QString &c : columns)
                    if (const qint64 n = m.changed.value(c); n > 0)
                        touched << c % QStringLiteral(" in ") % number(double(n)) %
                                       QStringLiteral(" rows");
                add(check, p, touched.isEmpty(),
                    touched.isEmpty()
                        ? QString(QStringLiteral("no matched row changes ") %
                                  columns.join(QStringLiteral(", ")))
                        : QString(QStringLiteral("changes ") % touched.join(QStringLiteral(", ")) %
                                  QStringLiteral(" (of ") % number(double(m.matched)) %
                                  QStringLiteral(" matched rows)")));
            } else if (!delta) {
                const qint64 n = m.changed.value(check.column);
                const double share = m.matched == 0 ? 0 : pct(double(n), double(m.matched));
                add(check, p, share <= check.maxPct + 1e-9,
                    number(double(n)) % QStringLiteral(" of ") % number(double(m.matched)) %
                        QStringLiteral(" matched rows change ") % check.column %
                        QStringLiteral(" (") % QString::number(share, 'f', 2) %
                        QStringLiteral("%, at most ") % QString::number(check.maxPct) %
                        QStringLiteral("%)"));
            } else {
                const double was = before.value(labelKey(p.label)).toDouble();
                const double will =
                    overwrite ? m.staged : was + m.inserted + (compared ? m.updated : 0);
                const double moved = pct(std::fabs(will - was), std::fabs(was));
                add(check, p, moved <= check.maxPct + 1e-9,
                    QStringLiteral("target ") % check.column % QStringLiteral(" total ") %
                        number(was) % QStringLiteral(" -> ") % number(will) % QStringLiteral(" (") %
                        (will >= was ? QStringLiteral("+") : QStringLiteral("-")) %
                        QString::number(moved, 'f', 2) % QStringLiteral("%, at most ") %
                        QString::number(check.maxPct) % QStringLiteral("%)"));
            }
        }
        return {};
    }

    Status sqlCheck(const CheckSpec &check) {
        for (const auto &p : m_scope) {
            QVariantList binds;
            QString filter;
            if (!m_dataset.partitioned())
                filter = QStringLiteral("1 = 1");
            else if (p.value.isNull())
                filter = m_sql.partExpr(QString()) % QStringLiteral(" IS NULL");
            else {
                filter = m_sql.partExpr(QString()) % QStringLiteral(" = ?");
            }
            QString query = check.query;
            const QString staged = QStringLiteral("(SELECT * FROM ") % m_sql.workStage() %
                                   QStringLiteral(" WHERE ") % filter %
                                   QStringLiteral(") AS staged");
            const int uses = int(query.count(QLatin1String("{staged}")));
            query.replace(QLatin1String("{staged}"), staged);
            if (m_dataset.partitioned() && !p.value.isNull())
                for (int i = 0; i < uses; ++i)
                    binds << m_sql.bindOf(p);
            auto value = m_db.scalar(query, binds);
            if (!value)
                return fail(value.error());
            const double v = value->toDouble();
            const bool low = check.min && v < *check.min;
            const bool high = check.max && v > *check.max;
            QString detail = QStringLiteral("value ") % number(v);
            if (low)
                detail += QStringLiteral(", below the minimum ") % number(*check.min);
            if (high)
                detail += QStringLiteral(", above the maximum ") % number(*check.max);
            add(check, p, !low && !high, detail);
        }
        return {};
    }

    const Database &m_db;
    const DatasetSpec &m_dataset;
    const BatchSql &m_sql;
    const std::vector<PartitionRef> &m_scope;
    QVariant m_runId;
    std::vector<CheckResult> m_results;
};

} // namespace

Result<std::vector<CheckResult>> runChecks(const Database &db, const DatasetSpec &dataset,
                                           const BatchSql &sql,
                                           const std::vector<PartitionRef> &scope,
                                           const QVariant &runId) {
    return Checker(db, dataset, sql, scope, runId).run();
}

} // namespace rw
