#include "core/recovery/recovery.h"

#include "core/batch/batchsql.h"
#include "core/batch/partitions.h"
#include "core/batch/planstore.h"
#include "core/batch/runs.h"
#include "core/batch/scope.h"
#include "core/workspace/workspace.h"

#include <QDateTime>
#include <QJsonDocument>
#include <QSqlRecord>
#include <QStringBuilder>
#include <QTextStream>
#include <cmath>
#include <nlohmann/json.hpp>

namespace rw {

namespace {

using Json = nlohmann::ordered_json;

std::optional<QString> labelOf(const QSqlQuery &q, int at) {
    return q.value(at + 1).toInt() ? std::nullopt : std::optional<QString>(q.value(at).toString());
}

// Partition column (if any) then key columns, each once.
QStringList identityColumns(const DatasetSpec &dataset, const BatchSql &sql) {
    QStringList cols;
    if (dataset.partitioned())
        cols << dataset.partitionColumn;
    for (const QString &k : sql.keyColumns())
        if (!cols.contains(k))
            cols << k;
    return cols;
}

QString quotedList(const Database &db, const QStringList &columns,
                   const QString &qualifier = QString()) {
    QStringList out;
    for (const QString &c : columns)
        out << (qualifier.isEmpty() ? db.quote(c) : qualifier % u'.' % db.quote(c));
    return out.join(QStringLiteral(", "));
}

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

Status auditStep(const Database &db, const QString &dataset, const QString &action,
                 const QVariant &runId, const Json &detail) {
    return Database::retryTransient(5, [&] {
        return db.writeTransaction([&]() -> Status {
            return writeAudit(db, action, dataset, QString(), runId,
                              QString::fromStdString(detail.dump()));
        });
    });
}

Json duplicatesDetail(const DuplicateReport &d) {
    Json parts = Json::array();
    for (const auto &p : d.partitions)
        parts.push_back(
            {{"partition", p.partition ? Json(p.partition->toStdString()) : Json(nullptr)},
             {"duplicate_keys", p.duplicateKeys},
             {"extra_rows", p.extraRows}});
    return {
        {"duplicate_keys", d.duplicateKeys}, {"extra_rows", d.extraRows}, {"partitions", parts}};
}

Result<DuplicateReport> findDuplicates(const Database &db, const DatasetSpec &dataset,
                                       const BatchSql &sql, int samples) {
    DuplicateReport out;
    out.dataset = dataset.name;
    out.target = dataset.target;
    if (!sql.targetExists())
        return out;
    const QStringList cols = identityColumns(dataset, sql);
    const QString where = dataset.scd2
                              ? QStringLiteral(" WHERE CAST(") % db.quote(dataset.scd2->current) %
                                    QStringLiteral(" AS INTEGER) = 1")
                              : QString();
    const QString inner = QStringLiteral("SELECT ") % quotedList(db, cols) %
                          QStringLiteral(", COUNT(*) AS rewind_n FROM ") % sql.quotedTarget() %
                          where % QStringLiteral(" GROUP BY ") % quotedList(db, cols) %
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

} // namespace

bool sameSum(const QVariant &a, const QVariant &b) {
    const double x = a.isNull() ? 0.0 : a.toDouble(), y = b.isNull() ? 0.0 : b.toDouble();
    return std::fabs(x - y) <= 1e-9 * std::max({1.0, std::fabs(x), std::fabs(y)});
}

Result<DuplicateReport> findDuplicates(const Database &db, const DatasetSpec &dataset,
                                       int samples) {
    auto sql = BatchSql::make(db, dataset);
    if (!sql)
        return fail(sql.error());
    return findDuplicates(db, dataset, *sql, samples);
}

namespace {

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
    auto source = collect(QStringLiteral("SELECT ") % sql.partLabelColumns(QStringLiteral("x")) %
                              QStringLiteral(", ") % aggregates % QStringLiteral(" FROM ") %
                              db.quote(QStringLiteral("rewind_stage")) % QStringLiteral(" AS x") %
                              sql.groupByPart(QStringLiteral("x")),
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

} // namespace

Result<std::vector<TotalsRow>> compareTotals(const Database &db, const DatasetSpec &dataset,
                                             const std::vector<PartitionRef> &scope) {
    if (scope.empty())
        return std::vector<TotalsRow>{};
    auto sql = BatchSql::make(db, dataset);
    if (!sql)
        return fail(sql.error());
    return compareTotals(db, dataset, *sql, scope);
}

namespace {

Status checkRecoverable(const DatasetSpec &dataset) {
    if (dataset.write == WriteMode::Scd2)
        return badInput(
            QStringLiteral("dataset \"%1\" is an scd2 dimension: recover re-runs by overwrite, "
                           "which would drop its history; "
                           "use rewindctl duplicates to inspect it and rollback to undo a bad run")
                .arg(dataset.name));
    if (dataset.key.isEmpty())
        return badInput(QStringLiteral("dataset \"%1\" has no key: duplicates are defined per key; "
                                       "add \"key\" to its spec")
                            .arg(dataset.name));
    return {};
}

QString affectedText(const RecoveryResult &r) {
    return r.scopeLabels.isEmpty()
               ? (r.scope.empty() ? QStringLiteral("none") : QStringLiteral("the whole dataset"))
               : r.scopeLabels.join(QStringLiteral(", "));
}

// Finds the duplicates, then the affected partitions as stored and their totals.
Status identify(const Database &db, const DatasetSpec &dataset, const BatchSql &sql,
                RecoveryResult &result, int samples) {
    auto before = findDuplicates(db, dataset, sql, samples);
    if (!before)
        return fail(before.error());
    result.before = *before;
    result.scope.clear();
    result.scopeLabels.clear();
    result.nullPartition = false;
    for (const auto &p : result.before.partitions) {
        if (p.partition)
            result.scopeLabels << *p.partition;
        else
            result.nullPartition = true;
    }
    if (!result.before.partitions.empty()) {
        ScopeRequest request;
        if (dataset.partitioned())
            request.partitions = result.scopeLabels;
        if (!dataset.partitioned() || !result.scopeLabels.isEmpty()) {
            auto resolved = resolveScope(db, dataset, sql, request);
            if (!resolved)
                return fail(resolved.error());
            result.scope = *resolved;
        }
    }
    auto totalsNow = compareTotals(db, dataset, sql, result.scope);
    if (!totalsNow)
        return fail(totalsNow.error());
    result.totalsBefore = *totalsNow;
    return {};
}

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

// A failed step: recorded, audited, and the dataset left frozen.
void stopRecovery(const Database &db, const DatasetSpec &dataset, RecoveryResult &result,
                  RecoveryStep step, const QString &message) {
    result.steps.push_back({step, RecoveryStepStatus::Failed, message});
    result.status = RecoveryStatus::Failed;
    result.error = message % QStringLiteral(" (\"") % dataset.name %
                   QStringLiteral("\" stays frozen: rewindctl unfreeze when resolved)");
    result.leftFrozen = true;
    (void)auditStep(db, dataset.name, QStringLiteral("recover failed"), result.rerunId,
                    Json{{"step", enumName(step).toStdString()}, {"error", message.toStdString()}});
}

// Steps run in order, and none after a failed one.
Status requireStep(const RecoveryResult &result, RecoveryStep step, RecoveryStep previous) {
    if (result.failed())
        return badInput(QStringLiteral("the recovery of \"%1\" failed (%2): step %3 is not run")
                            .arg(result.dataset, result.error, enumName(step)));
    const RecoveryStepResult *p = result.step(previous);
    if (!p || p->status == RecoveryStepStatus::Planned)
        return badInput(QStringLiteral("recovery step %1 comes after step %2, which has not run")
                            .arg(enumName(step), enumName(previous)));
    return {};
}

} // namespace

const RecoveryStepResult *RecoveryResult::step(RecoveryStep name) const {
    for (auto it = steps.rbegin(); it != steps.rend(); ++it)
        if (it->step == name)
            return &*it;
    return nullptr;
}

namespace {

// After checkRecoverable.
Result<RecoveryResult> planRecovery(const Database &db, const DatasetSpec &dataset,
                                    const BatchSql &sql, int samples) {
    RecoveryResult result;
    result.dataset = dataset.name;
    result.target = dataset.target;
    result.status = RecoveryStatus::Planned;
    result.uniqueIndex = QStringLiteral("rewind_unique_") % dataset.target;
    result.uniqueIndexColumns = identityColumns(dataset, sql);
    if (auto s = identify(db, dataset, sql, result, samples); !s)
        return fail(s.error());
    return result;
}

} // namespace

Result<RecoveryResult> planRecovery(const Database &db, const DatasetSpec &dataset, int samples) {
    if (auto s = checkRecoverable(dataset); !s)
        return fail(s.error());
    auto sql = BatchSql::make(db, dataset);
    if (!sql)
        return fail(sql.error());
    return planRecovery(db, dataset, *sql, samples);
}

Result<std::vector<RecoveryStepResult>>
plannedRecoverySteps(const Database &db, const DatasetSpec &dataset, const RecoveryResult &plan) {
    auto has = uniqueIndexExists(db, dataset, plan.uniqueIndex);
    if (!has)
        return fail(has.error());
    return std::vector<RecoveryStepResult>{
        {RecoveryStep::Freeze, RecoveryStepStatus::Planned,
         QStringLiteral("freeze \"%1\": Rewind's writers refuse it").arg(dataset.name)},
        {RecoveryStep::Identify, RecoveryStepStatus::Done,
         QStringLiteral("%1 duplicate keys, %2 extra rows")
             .arg(plan.before.duplicateKeys)
             .arg(plan.before.extraRows)},
        {RecoveryStep::Rerun,
         plan.scope.empty() ? RecoveryStepStatus::Skipped : RecoveryStepStatus::Planned,
         QStringLiteral("overwrite partitions from the deduped source: %1")
             .arg(affectedText(plan))},
        {RecoveryStep::Totals, RecoveryStepStatus::Planned,
         QStringLiteral("row counts and sums of numeric columns against the source")},
        {RecoveryStep::UniqueIndex, RecoveryStepStatus::Planned,
         *has ? QStringLiteral("%1 already exists").arg(plan.uniqueIndex)
              : QStringLiteral("CREATE UNIQUE INDEX %1 ON %2 (%3)")
                    .arg(plan.uniqueIndex, dataset.target, plan.uniqueIndexColumns.join(u", "))},
        {RecoveryStep::Unfreeze, RecoveryStepStatus::Planned, QStringLiteral("lift the freeze")},
    };
}

Status recoverFreeze(const Database &db, const DatasetSpec &dataset, RecoveryResult &result) {
    if (result.failed())
        return badInput(
            QStringLiteral("the recovery of \"%1\" failed: %2").arg(result.dataset, result.error));
    result.executed = true;
    result.steps.clear(); // a dry run's plan gives way to what is done
    auto frozen = freezeInfo(db, dataset.name);
    if (!frozen)
        return fail(frozen.error());
    if (*frozen) {
        result.steps.push_back({RecoveryStep::Freeze, RecoveryStepStatus::Done,
                                QStringLiteral("already frozen since %1 by %2%3")
                                    .arg((*frozen)->frozenAt, (*frozen)->osUser,
                                         (*frozen)->reason.isEmpty()
                                             ? QString()
                                             : QStringLiteral(" (") % (*frozen)->reason % u')')});
        if (auto s = auditStep(db, dataset.name, QStringLiteral("recover freeze"), QVariant(),
                               Json{{"already_frozen", true}});
            !s)
            return fail(s.error());
    } else {
        auto f = freeze(db, dataset, QStringLiteral("recover: duplicate incident"),
                        QStringLiteral("recover freeze"));
        if (!f)
            return fail(f.error());
        result.steps.push_back({RecoveryStep::Freeze, RecoveryStepStatus::Done,
                                QStringLiteral("frozen: Rewind's writers refuse it")});
    }
    return {};
}

Status recoverIdentify(const Database &db, const DatasetSpec &dataset, RecoveryResult &result,
                       bool refresh, int samples) {
    if (auto s = requireStep(result, RecoveryStep::Identify, RecoveryStep::Freeze); !s)
        return s;
    if (refresh) {
        auto sql = BatchSql::make(db, dataset);
        if (!sql)
            return fail(sql.error());
        if (auto s = identify(db, dataset, *sql, result, samples); !s)
            return s;
    }
    if (auto s = auditStep(db, dataset.name, QStringLiteral("recover identify"), QVariant(),
                           duplicatesDetail(result.before));
        !s)
        return fail(s.error());
    result.steps.push_back({RecoveryStep::Identify, RecoveryStepStatus::Done,
                            QStringLiteral("%1 duplicate keys, %2 extra rows in %3")
                                .arg(result.before.duplicateKeys)
                                .arg(result.before.extraRows)
                                .arg(affectedText(result))});
    if (result.nullPartition && dataset.partitioned())
        stopRecovery(
            db, dataset, result, RecoveryStep::Identify,
            QStringLiteral(
                "duplicates in the NULL partition of %1 cannot be re-run by partition name")
                .arg(dataset.partitionColumn));
    return {};
}

namespace {

DatasetSpec overwriteOf(const DatasetSpec &dataset) {
    DatasetSpec overwrite = dataset;
    overwrite.write = WriteMode::OverwritePartition;
    return overwrite;
}

} // namespace

Result<RunResult> previewRecoveryRerun(const Database &db, const DatasetSpec &dataset,
                                       const RecoveryResult &result, int samples) {
    if (result.scope.empty()) {
        RunResult none;
        none.dataset = dataset.name;
        none.mode = WriteMode::OverwritePartition;
        none.status = RunStatus::Previewed;
        return none;
    }
    BatchOptions o;
    o.samples = samples;
    if (dataset.partitioned())
        o.scope.partitions = result.scopeLabels;
    return preview(db, overwriteOf(dataset), o);
}

namespace {

Status recordRerun(const Database &db, const DatasetSpec &dataset, RecoveryResult &result,
                   RunResult rerun);

Status recoverRerun(const Database &db, const DatasetSpec &dataset, const BatchSql &sql,
                    RecoveryResult &result, const RecoveryRerunOptions &options) {
    if (auto s = requireStep(result, RecoveryStep::Rerun, RecoveryStep::Identify); !s)
        return s;
    if (result.scope.empty()) {
        result.steps.push_back({RecoveryStep::Rerun, RecoveryStepStatus::Skipped,
                                QStringLiteral("no duplicate keys")});
        return {};
    }
    BatchOptions o;
    o.execute = true;
    o.ignoreFreeze = true;
    o.kind = RunKind::Recover; // resumeRun() finishes the recovery after a crash
    o.planId = options.planId;
    o.progress = options.progress;
    o.cancel = options.cancel;
    if (dataset.partitioned() && o.planId.isEmpty()) // a plan fixes its scope
        o.scope.partitions = result.scopeLabels;
    auto rerun = run(db, overwriteOf(dataset), sql.catalog(), o);
    if (!rerun) {
        // A stale (or unusable) preview is the operator's to look at again,
        // not a failed recovery: nothing was written.
        if (!options.planId.isEmpty() && (rerun.error().code == Error::Code::StalePlan ||
                                          rerun.error().code == Error::Code::BadInput))
            return fail(rerun.error());
        stopRecovery(db, dataset, result, RecoveryStep::Rerun, rerun.error().message);
        return {};
    }
    return recordRerun(db, dataset, result, std::move(*rerun));
}

// The re-run's outcome as step 3: done (audited), or the recovery stopped.
Status recordRerun(const Database &db, const DatasetSpec &dataset, RecoveryResult &result,
                   RunResult rerun) {
    result.rerun = rerun;
    result.rerunId = rerun.runId;
    if (rerun.status != RunStatus::Succeeded) {
        stopRecovery(
            db, dataset, result, RecoveryStep::Rerun,
            QStringLiteral("run %1 ended %2%3")
                .arg(rerun.runId.toString(), enumName(rerun.status),
                     rerun.error.isEmpty() ? QString() : QStringLiteral(": ") % rerun.error));
        return {};
    }
    const PartitionResult t = rerun.totals();
    if (auto s = auditStep(db, dataset.name, QStringLiteral("recover rerun"), rerun.runId,
                           Json{{"partitions", rerun.partitions.size()},
                                {"inserted", t.inserted},
                                {"deleted", t.deleted}});
        !s)
        return fail(s.error());
    result.steps.push_back(
        {RecoveryStep::Rerun, RecoveryStepStatus::Done,
         QStringLiteral("run %1 overwrote %2 partition(s): %3 rows written, %4 removed")
             .arg(rerun.runId.toString())
             .arg(rerun.partitions.size())
             .arg(t.stagedRows)
             .arg(t.deleted)});
    return {};
}

} // namespace

Status recoverRerun(const Database &db, const DatasetSpec &dataset, RecoveryResult &result,
                    const RecoveryRerunOptions &options) {
    auto sql = BatchSql::make(db, dataset);
    if (!sql)
        return fail(sql.error());
    return recoverRerun(db, dataset, *sql, result, options);
}

namespace {

Status recoverTotals(const Database &db, const DatasetSpec &dataset, const BatchSql &sql,
                     RecoveryResult &result) {
    if (auto s = requireStep(result, RecoveryStep::Totals, RecoveryStep::Rerun); !s)
        return s;
    auto totals = compareTotals(db, dataset, sql, result.scope);
    if (!totals)
        return fail(totals.error());
    result.totals = *totals;
    result.totalsMatch = std::all_of(result.totals.begin(), result.totals.end(),
                                     [](const TotalsRow &t) { return t.match; });
    Json rows = Json::array();
    for (const auto &t : result.totals)
        rows.push_back(
            {{"partition", t.partition ? Json(t.partition->toStdString()) : Json(nullptr)},
             {"source_rows", t.sourceRows},
             {"target_rows", t.targetRows},
             {"match", t.match}});
    if (auto s = auditStep(db, dataset.name, QStringLiteral("recover totals"), result.rerunId,
                           Json{{"match", result.totalsMatch}, {"partitions", rows}});
        !s)
        return fail(s.error());
    if (!result.totalsMatch) {
        stopRecovery(db, dataset, result, RecoveryStep::Totals,
                     QStringLiteral("business totals differ from the source after the re-run"));
        return {};
    }
    result.steps.push_back(
        {RecoveryStep::Totals, RecoveryStepStatus::Done,
         QStringLiteral("row counts and sums match the deduped source in %1 partition(s)")
             .arg(result.totals.size())});
    return {};
}

} // namespace

Status recoverTotals(const Database &db, const DatasetSpec &dataset, RecoveryResult &result) {
    auto sql = BatchSql::make(db, dataset);
    if (!sql)
        return fail(sql.error());
    return recoverTotals(db, dataset, *sql, result);
}

namespace {

Status recoverUniqueIndex(const Database &db, const DatasetSpec &dataset, const BatchSql &sql,
                          RecoveryResult &result, int samples) {
    if (auto s = requireStep(result, RecoveryStep::UniqueIndex, RecoveryStep::Totals); !s)
        return s;
    if (sql.targetExists()) {
        auto nulls = db.exec(QStringLiteral("SELECT ") %
                             [&] {
                                 QStringList sums;
                                 for (const QString &c : result.uniqueIndexColumns)
                                     sums << QStringLiteral("SUM(CASE WHEN ") % db.quote(c) %
                                                 QStringLiteral(" IS NULL THEN 1 ELSE 0 END)");
                                 return sums.join(QStringLiteral(", "));
                             }() %
                             QStringLiteral(" FROM ") % sql.quotedTarget());
        if (!nulls)
            return fail(nulls.error());
        QStringList nullable;
        if (nulls->next())
            for (int i = 0; i < result.uniqueIndexColumns.size(); ++i)
                if (nulls->value(i).toLongLong() > 0)
                    nullable << QStringLiteral("%1 (%2 rows)")
                                    .arg(result.uniqueIndexColumns[i])
                                    .arg(nulls->value(i).toLongLong());
        if (!nullable.isEmpty()) {
            stopRecovery(
                db, dataset, result, RecoveryStep::UniqueIndex,
                QStringLiteral("key columns hold NULL: %1; a unique index treats NULLs as "
                               "distinct, so it would not stop duplicates of those keys. "
                               "Make the key NOT NULL (or fill the NULLs), then add the index")
                    .arg(nullable.join(QStringLiteral(", "))));
            return {};
        }
        auto after = findDuplicates(db, dataset, sql, samples);
        if (!after)
            return fail(after.error());
        result.after = *after;
        if (after->duplicateKeys > 0) {
            stopRecovery(
                db, dataset, result, RecoveryStep::UniqueIndex,
                QStringLiteral(
                    "%1 duplicate keys remain (%2 extra rows): the unique index cannot be added")
                    .arg(after->duplicateKeys)
                    .arg(after->extraRows));
            return {};
        }
        auto has = uniqueIndexExists(db, dataset, result.uniqueIndex);
        if (!has)
            return fail(has.error());
        const Status indexed = Database::retryTransient(5, [&] {
            return db.writeTransaction([&]() -> Status {
                auto r = db.exec(QStringLiteral("CREATE UNIQUE INDEX IF NOT EXISTS ") %
                                 db.quote(result.uniqueIndex) % QStringLiteral(" ON ") %
                                 sql.quotedTarget() % QStringLiteral(" (") %
                                 quotedList(db, result.uniqueIndexColumns) % u')');
                if (!r)
                    return fail(r.error());
                return writeAudit(
                    db, QStringLiteral("recover unique index"), dataset.name, QString(),
                    result.rerunId,
                    QString::fromStdString(Json{
                        {"index", result.uniqueIndex.toStdString()},
                        {"columns", result.uniqueIndexColumns.join(u',').toStdString()},
                        {"already_present",
                         *has}}.dump()));
            });
        });
        if (!indexed) {
            stopRecovery(db, dataset, result, RecoveryStep::UniqueIndex, indexed.error().message);
            return {};
        }
        result.uniqueIndexAdded = true;
        result.steps.push_back(
            {RecoveryStep::UniqueIndex, RecoveryStepStatus::Done,
             *has ? QStringLiteral("%1 was already in place").arg(result.uniqueIndex)
                  : QStringLiteral("added %1 on %2 (%3)")
                        .arg(result.uniqueIndex, dataset.target,
                             result.uniqueIndexColumns.join(u", "))});
    } else {
        result.after = result.before;
        result.steps.push_back({RecoveryStep::UniqueIndex, RecoveryStepStatus::Skipped,
                                QStringLiteral("the target does not exist yet")});
    }
    auto lifted = unfreeze(db, dataset, QStringLiteral("recover finished"),
                           QStringLiteral("recover unfreeze"));
    if (!lifted)
        return fail(lifted.error());
    result.steps.push_back({RecoveryStep::Unfreeze, RecoveryStepStatus::Done,
                            QStringLiteral("writers may publish again")});
    result.status = RecoveryStatus::Recovered;
    return {};
}

} // namespace

Status recoverUniqueIndex(const Database &db, const DatasetSpec &dataset, RecoveryResult &result,
                          int samples) {
    auto sql = BatchSql::make(db, dataset);
    if (!sql)
        return fail(sql.error());
    return recoverUniqueIndex(db, dataset, *sql, result, samples);
}

Result<RecoveryResult> recover(const Database &db, const DatasetSpec &dataset,
                               const RecoverOptions &options) {
    if (auto s = checkRecoverable(dataset); !s)
        return fail(s.error());
    if (!options.reportPath.isEmpty())
        if (auto s = checkReportPath(options.reportPath); !s)
            return fail(s.error());
    // One catalog for the whole recovery: its re-run changes the target's
    // rows, not its columns or indexes (the last step adds its index).
    auto sql = BatchSql::make(db, dataset);
    if (!sql)
        return fail(sql.error());
    auto plan = planRecovery(db, dataset, *sql, options.samples);
    if (!plan)
        return fail(plan.error());
    RecoveryResult result = std::move(*plan);
    result.executed = options.execute;

    if (!options.execute) {
        result.totals = result.totalsBefore;
        result.totalsMatch = std::all_of(result.totals.begin(), result.totals.end(),
                                         [](const TotalsRow &t) { return t.match; });
        auto steps = plannedRecoverySteps(db, dataset, result);
        if (!steps)
            return fail(steps.error());
        result.steps = std::move(*steps);
        if (!options.reportPath.isEmpty()) // a dry run's report only where asked for
            if (auto s = writeRecoveryReport(db, dataset, result, options.reportPath); !s)
                return fail(s.error());
        return result;
    }

    auto finishReport = [&]() -> Result<RecoveryResult> {
        if (auto s = writeRecoveryReport(db, dataset, result, options.reportPath); !s)
            return fail(s.error());
        return result;
    };

    // The five steps; a failed one stops here with the dataset frozen.
    const std::function<Status()> steps[] = {
        [&] { return recoverFreeze(db, dataset, result); },
        [&] { return recoverIdentify(db, dataset, result, false, options.samples); },
        [&] { return recoverRerun(db, dataset, *sql, result, {}); },
        [&] { return recoverTotals(db, dataset, *sql, result); },
        [&] { return recoverUniqueIndex(db, dataset, *sql, result, options.samples); },
    };
    for (const auto &step : steps) {
        if (auto s = step(); !s)
            return fail(s.error());
        if (result.failed())
            return finishReport();
    }
    return finishReport();
}

Result<ResumedRun> resumeRun(const Database &db, const Spec &spec, qint64 runId,
                             const BatchOptions &options, const RecoverOptions &recoverOptions) {
    auto info = loadRun(db, runId);
    if (!info)
        return fail(info.error());
    if (info->kind != RunKind::Recover) {
        auto plain = resume(db, spec, runId, options);
        if (!plain)
            return fail(plain.error());
        return ResumedRun{std::move(*plain), std::nullopt};
    }
    // A duplicate recovery's re-run, cut short: the recovery carries on
    // from step 3 under its freeze, over the partitions that run planned.
    auto specDataset = spec.requireDataset(info->dataset);
    if (!specDataset)
        return fail(specDataset.error());
    const DatasetSpec &dataset = **specDataset;
    if (info->status == RunStatus::Succeeded) {
        // The re-run is done; what may be left is the recovery's last steps.
        auto frozen = freezeInfo(db, dataset.name);
        if (!frozen)
            return fail(frozen.error());
        if (*frozen)
            return badInput(QStringLiteral("run %1 already succeeded: it is the re-run of a "
                                           "duplicate recovery of \"%2\", which stopped after it "
                                           "(the dataset is still frozen); rewindctl recover "
                                           "--dataset %2 --execute finishes it (totals, unique "
                                           "index, unfreeze), or unfreeze lifts the freeze")
                                .arg(runId)
                                .arg(dataset.name));
    }
    if (auto s = checkRecoverable(dataset); !s)
        return fail(s.error());
    if (!options.execute)
        return badInput(QStringLiteral("resume publishes: add --execute"));
    auto sql = BatchSql::make(db, dataset);
    if (!sql)
        return fail(sql.error());
    auto plan = loadPlan(db, info->planId);
    if (!plan)
        return fail(plan.error());
    auto planned = planRecovery(db, dataset, *sql, recoverOptions.samples);
    if (!planned)
        return fail(planned.error());
    RecoveryResult result = std::move(*planned);
    result.scope = plan->scope;
    result.scopeLabels.clear();
    for (const PartitionRef &p : result.scope)
        if (p.label)
            result.scopeLabels << *p.label;
    auto before = compareTotals(db, dataset, *sql, result.scope);
    if (!before)
        return fail(before.error());
    result.totalsBefore = *before;
    BatchOptions o = options;
    o.ignoreFreeze = true;  // the recovery's own freeze
    result.rerunId = runId; // named by the audit rows of a step that fails
    bool started = false;
    // Steps 1 and 2 again, once resume() knows the run goes ahead: a run
    // that cannot resume (succeeded, rolled back, a stale plan) changes nothing.
    o.beforeResume = [&]() -> Status {
        started = true;
        if (auto s = recoverFreeze(db, dataset, result);
            !s) // adopts the freeze the crash left (or freezes again)
            return s;
        if (auto s = auditStep(db, dataset.name, QStringLiteral("recover identify"), runId,
                               Json{{"resumed_run", runId}, {"partitions", result.scope.size()}});
            !s)
            return s;
        result.steps.push_back(
            {RecoveryStep::Identify, RecoveryStepStatus::Done,
             QStringLiteral(
                 "resuming run %1, which re-runs %2 partition(s); %3 duplicate keys left")
                 .arg(runId)
                 .arg(result.scope.size())
                 .arg(result.before.duplicateKeys)});
        return {};
    };
    auto rerun = resume(db, spec, runId, o);
    if (!rerun) {
        if (!started)
            return fail(rerun.error()); // refused before anything was written
        stopRecovery(db, dataset, result, RecoveryStep::Rerun, rerun.error().message);
    } else if (auto s = recordRerun(db, dataset, result, *rerun); !s) {
        return fail(s.error());
    }
    if (!result.failed())
        if (auto s = recoverTotals(db, dataset, *sql, result); !s)
            return fail(s.error());
    if (!result.failed())
        if (auto s = recoverUniqueIndex(db, dataset, *sql, result, recoverOptions.samples); !s)
            return fail(s.error());
    // The recovery is done (or stopped) whether or not its report can be
    // written (a console started where it may not write): said, not fatal.
    if (auto s = writeRecoveryReport(db, dataset, result, recoverOptions.reportPath); !s) {
        result.reportPath.clear();
        result.steps.push_back(
            {RecoveryStep::Report, RecoveryStepStatus::Failed, s.error().message});
    }
    RunResult runResult = result.rerun ? *result.rerun : RunResult{};
    if (!result.rerun) { // the resume failed: the run as it stands
        runResult.dataset = dataset.name;
        runResult.runId = runId;
        runResult.status = RunStatus::Failed;
        runResult.error = result.error;
    }
    return ResumedRun{std::move(runResult), std::move(result)};
}

} // namespace rw
