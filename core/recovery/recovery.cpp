// The recovery as one object (Recovery): opening it, its plan, the order of
// its steps and recover(), which runs them all. Each step is a file of its
// own: freeze.cpp, identify.cpp, rerun.cpp, totals.cpp, uniqueindex.cpp;
// resume.cpp finishes a recovery whose re-run was cut short.
#include "core/batch/batchprivileges.h"
#include "core/recovery/recoverydetail.h"
#include "core/workspace/workspace.h"

#include <QStringBuilder>
#include <algorithm>

namespace rw {

namespace recovery_detail {

std::optional<QString> labelOf(const QSqlQuery &q, int at) {
    return q.value(at + 1).toInt() ? std::nullopt : std::optional<QString>(q.value(at).toString());
}

QStringList identityColumns(const DatasetSpec &dataset, const BatchSql &sql) {
    QStringList cols;
    if (dataset.partitioned())
        cols << dataset.partitionColumn;
    for (const QString &k : sql.keyColumns())
        if (!cols.contains(k))
            cols << k;
    return cols;
}

QString quotedList(const Database &db, const QStringList &columns, const QString &qualifier) {
    QStringList out;
    for (const QString &c : columns)
        out << (qualifier.isEmpty() ? db.quote(c) : qualifier % u'.' % db.quote(c));
    return out.join(QStringLiteral(", "));
}

Status auditStep(const Database &db, const QString &dataset, const QString &action,
                 const QVariant &runId, const Json &detail) {
    const Database ctl = db.control(); // the audit log lives in the control store
    return Database::retryTransient(5, [&] {
        return ctl.writeTransaction([&]() -> Status {
            return writeAudit(ctl, action, dataset, QString(), runId,
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
    if (dataset.keepsEveryRow())
        return badInput(
            QStringLiteral("dataset \"%1\" writes %2, which keeps several rows a key by design: "
                           "recover keeps one row per key; rollback undoes a bad run")
                .arg(dataset.name, enumName(dataset.write)));
    return {};
}

QString affectedText(const RecoveryResult &r) {
    return r.scopeLabels.isEmpty()
               ? (r.scope.empty() ? QStringLiteral("none") : QStringLiteral("the whole dataset"))
               : r.scopeLabels.join(QStringLiteral(", "));
}

DatasetSpec overwriteOf(const DatasetSpec &dataset) {
    DatasetSpec overwrite = dataset;
    overwrite.write = WriteMode::OverwritePartition;
    return overwrite;
}

} // namespace recovery_detail

using namespace recovery_detail;

const RecoveryStepResult *RecoveryResult::step(RecoveryStep name) const {
    for (auto it = steps.rbegin(); it != steps.rend(); ++it)
        if (it->step == name)
            return &*it;
    return nullptr;
}

Recovery::Recovery(const Database &db, const DatasetSpec &dataset, DatasetCatalog catalog)
    : m_db(db)
    , m_dataset(dataset)
    , m_catalog(std::move(catalog)) {
    m_result.dataset = dataset.name;
    m_result.target = dataset.target;
    m_result.status = RecoveryStatus::Planned;
    m_result.uniqueIndex = QStringLiteral("rewind_unique_") % dataset.target;
}

Result<Recovery> Recovery::open(const Database &db, const DatasetSpec &dataset) {
    if (auto s = checkRecoverable(dataset); !s)
        return fail(s.error());
    // One catalog for the whole recovery: its re-run changes the target's
    // rows, not its columns or indexes (the last step adds its index).
    auto catalog = DatasetCatalog::resolve(db, dataset);
    if (!catalog)
        return fail(catalog.error());
    Recovery r(db, dataset, std::move(*catalog));
    r.m_result.uniqueIndexColumns = identityColumns(r.m_dataset, r.batchSql());
    return r;
}

Status Recovery::plan(int samples) {
    return findAffected(samples);
}

Result<std::vector<RecoveryStepResult>> Recovery::plannedSteps() const {
    const RecoveryResult &plan = m_result;
    // From the catalog the recovery resolved: no second catalog query.
    const bool has =
        std::any_of(m_catalog.targetIndexes.begin(), m_catalog.targetIndexes.end(),
                    [&](const auto &index) { return index.first == plan.uniqueIndex; });
    return std::vector<RecoveryStepResult>{
        {RecoveryStep::Freeze, RecoveryStepStatus::Planned,
         QStringLiteral("freeze \"%1\": Rewind's writers refuse it").arg(m_dataset.name)},
        {RecoveryStep::Identify, RecoveryStepStatus::Done,
         QStringLiteral("%1 duplicate keys, %2 extra rows")
             .arg(plan.before.duplicateKeys)
             .arg(plan.before.extraRows)},
        {RecoveryStep::Rerun,
         plan.scope.empty() ? RecoveryStepStatus::Skipped : RecoveryStepStatus::Planned,
         QStringLiteral("overwrite partitions from the deduped source: %1")
             .arg(recovery_detail::affectedText(plan))},
        {RecoveryStep::Totals, RecoveryStepStatus::Planned,
         QStringLiteral("row counts and sums of numeric columns against the source")},
        m_db.dialect().keepsControlApart()
            ? RecoveryStepResult{RecoveryStep::UniqueIndex, RecoveryStepStatus::Skipped,
                                 kNoIcebergIndex}
            : RecoveryStepResult{RecoveryStep::UniqueIndex, RecoveryStepStatus::Planned,
                                 has ? QStringLiteral("%1 already exists").arg(plan.uniqueIndex)
                                     : QStringLiteral("CREATE UNIQUE INDEX %1 ON %2 (%3)")
                                           .arg(plan.uniqueIndex, m_dataset.target,
                                                plan.uniqueIndexColumns.join(u", "))},
        {RecoveryStep::Unfreeze, RecoveryStepStatus::Planned, QStringLiteral("lift the freeze")},
    };
}

void Recovery::stop(RecoveryStep step, const QString &message) {
    m_result.steps.push_back({step, RecoveryStepStatus::Failed, message});
    m_result.status = RecoveryStatus::Failed;
    m_result.error = message % QStringLiteral(" (\"") % m_dataset.name %
                     QStringLiteral("\" stays frozen: rewindctl unfreeze when resolved)");
    m_result.leftFrozen = true;
    (void)auditStep(m_db, m_dataset.name, QStringLiteral("recover failed"), m_result.rerunId,
                    Json{{"step", enumName(step).toStdString()}, {"error", message.toStdString()}});
}

Status Recovery::require(RecoveryStep step, RecoveryStep previous) const {
    if (m_result.failed())
        return badInput(QStringLiteral("the recovery of \"%1\" failed (%2): step %3 is not run")
                            .arg(m_result.dataset, m_result.error, enumName(step)));
    const RecoveryStepResult *p = m_result.step(previous);
    if (!p || p->status == RecoveryStepStatus::Planned)
        return badInput(QStringLiteral("recovery step %1 comes after step %2, which has not run")
                            .arg(enumName(step), enumName(previous)));
    return {};
}

Status requireRecoverPrivileges(const Database &db, const DatasetSpec &dataset,
                                const QString &operation) {
    std::vector<privileges::Need> needs;
    // First: its reason is the one said for the target.
    privileges::addTable(needs, dataset.target, QStringLiteral("OWNER"),
                         QStringLiteral("the target: the recovery adds its unique index and "
                                        "drops its freeze triggers"));
    privileges::addTable(needs, dataset.target, QStringLiteral("TRIGGER"),
                         QStringLiteral("the target"), true);
    if (auto s = addRunNeeds(db, overwriteOf(dataset), needs); !s)
        return s;
    privileges::addControl(needs, {QStringLiteral("rewind_frozen")},
                           QStringLiteral("SELECT, INSERT, DELETE"));
    return privileges::require(db, operation, needs);
}

Result<RecoveryResult> recover(const Database &db, const DatasetSpec &dataset,
                               const RecoverOptions &options) {
    if (auto s = checkRecoverable(dataset); !s)
        return fail(s.error());
    if (!options.reportPath.isEmpty())
        if (auto s = checkReportPath(options.reportPath); !s)
            return fail(s.error());
    auto opened = Recovery::open(db, dataset);
    if (!opened)
        return fail(opened.error());
    Recovery &recovery = *opened;
    if (auto s = recovery.plan(options.samples); !s)
        return fail(s.error());

    if (!options.execute) {
        RecoveryResult result = recovery.result();
        result.totals = result.totalsBefore;
        result.totalsMatch = std::all_of(result.totals.begin(), result.totals.end(),
                                         [](const TotalsRow &t) { return t.match; });
        auto steps = recovery.plannedSteps();
        if (!steps)
            return fail(steps.error());
        result.steps = std::move(*steps);
        if (!options.reportPath.isEmpty()) // a dry run's report only where asked for
            if (auto s = writeRecoveryReport(db, dataset, result, options.reportPath); !s)
                return fail(s.error());
        return result;
    }

    // The five steps; a failed one stops there with the dataset frozen.
    const std::function<Status()> steps[] = {
        [&] { return recovery.freeze(); },
        [&] { return recovery.identify(false, options.samples); },
        [&] { return recovery.rerun(); },
        [&] { return recovery.totals(); },
        [&] { return recovery.uniqueIndex(options.samples); },
    };
    for (const auto &step : steps) {
        if (auto s = step(); !s)
            return fail(s.error());
        if (recovery.result().failed())
            break;
    }
    RecoveryResult result = recovery.result();
    if (auto s = writeRecoveryReport(db, dataset, result, options.reportPath); !s)
        return fail(s.error());
    return result;
}

} // namespace rw
