#include "core/batch/planstore.h"

#include "core/batch/partitions.h"
#include "core/sql/timejson.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRandomGenerator>
#include <QStringBuilder>
#include <algorithm>

namespace rw {

Result<QStringList> stalePartitions(const Database &db, const BatchSql &sql, const Plan &plan) {
    if (std::none_of(plan.scope.begin(), plan.scope.end(), [&](const PartitionRef &p) {
            return plan.stats.contains(partitionKey(p.label));
        }))
        return QStringList();
    auto now = sourceStats(db, sql, plan.scope);
    if (!now)
        return fail(now.error());
    QStringList stale;
    for (const auto &p : plan.scope) {
        const QString key = partitionKey(p.label);
        // A partition the plan did not fingerprint (a run planned afresh) is not locked.
        if (plan.stats.contains(key) &&
            plan.stats.value(key).fingerprint != now->value(key).fingerprint)
            stale << partitionLabel(p.label);
    }
    return stale;
}

QString newPlanId() {
    return QStringLiteral("plan-%1").arg(
        QRandomGenerator::system()->generate64() & 0xffffffffffffULL, 12, 16, QLatin1Char('0'));
}

Status storePlan(const Database &db, const Plan &plan, const QString &summaryJson,
                 const QString &createdAt) {
    QJsonObject fingerprints;
    for (auto it = plan.stats.cbegin(); it != plan.stats.cend(); ++it)
        fingerprints.insert(it.key(), it->fingerprint); // "rows:checksum"; the rows are its count
    QJsonObject scope{{QStringLiteral("mode"), enumName(plan.mode)},
                      {QStringLiteral("partitions"),
                       QJsonDocument::fromJson(scopeToJson(plan.scope).toUtf8()).array()}};
    if (!plan.dbtChecksum.isEmpty())
        scope.insert(QStringLiteral("dbt_checksum"), plan.dbtChecksum);
    if (!plan.sourceSnapshot.isEmpty())
        scope.insert(QStringLiteral("source_snapshot"), plan.sourceSnapshot);
    if (!plan.targetSnapshot.isEmpty())
        scope.insert(QStringLiteral("target_snapshot"), plan.targetSnapshot);
    if (!plan.schemaChange.empty()) {
        auto change = plan.schemaChange.toJson(SchemaChangePolicy::Fail);
        change.erase("policy"); // the spec's, not the plan's
        scope.insert(QStringLiteral("schema_change"),
                     QJsonDocument::fromJson(QByteArray::fromStdString(change.dump())).object());
    }
    auto r = db.exec(
        QStringLiteral("INSERT INTO rewind_plans (plan_id, dataset, created_at, "
                       "scope_json, fingerprint, summary_json) VALUES (?, ?, ") %
            (createdAt.isEmpty() ? TimeJson::of(db.dialect()).nowUtcText() : QStringLiteral("?")) %
            QStringLiteral(", ?, ?, ?)"),
        QVariantList{plan.id, plan.dataset} +
            (createdAt.isEmpty() ? QVariantList() : QVariantList{createdAt}) +
            QVariantList{
                QString::fromUtf8(QJsonDocument(scope).toJson(QJsonDocument::Compact)),
                QString::fromUtf8(QJsonDocument(fingerprints).toJson(QJsonDocument::Compact)),
                summaryJson});
    if (!r)
        return fail(r.error());
    return {};
}

Result<Plan> loadPlan(const Database &db, const QString &planId) {
    auto q = db.exec(
        QStringLiteral("SELECT dataset, scope_json, fingerprint, summary_json FROM rewind_plans "
                       "WHERE plan_id = ?"),
        {planId});
    if (!q)
        return fail(q.error());
    if (!q->next())
        return badInput(
            QStringLiteral(
                "unknown plan \"%1\" (preview first: rewindctl preview prints a plan_id)")
                .arg(planId));
    Plan plan;
    plan.id = planId;
    plan.dataset = q->value(0).toString();
    const QJsonObject scope = QJsonDocument::fromJson(q->value(1).toString().toUtf8()).object();
    const QString mode = scope.value(QStringLiteral("mode")).toString();
    if (const auto known = enumFromName<WriteMode>(mode))
        plan.mode = *known;
    else
        return badInput(
            QStringLiteral("plan \"%1\" records an unknown write mode \"%2\": preview again")
                .arg(planId, mode));
    plan.schemaChange =
        SchemaChange::fromJson(scope.value(QStringLiteral("schema_change")).toObject());
    plan.dbtChecksum = scope.value(QStringLiteral("dbt_checksum")).toString();
    plan.sourceSnapshot = scope.value(QStringLiteral("source_snapshot")).toString();
    plan.targetSnapshot = scope.value(QStringLiteral("target_snapshot")).toString();
    plan.scope = scopeFromJson(QString::fromUtf8(
        QJsonDocument(scope.value(QStringLiteral("partitions")).toArray()).toJson()));
    const QJsonObject fps = QJsonDocument::fromJson(q->value(2).toString().toUtf8()).object();
    for (auto it = fps.begin(); it != fps.end(); ++it) {
        if (it.value().isString()) { // "rows:checksum"
            const QString fingerprint = it.value().toString();
            plan.stats.insert(it.key(),
                              {fingerprint.section(u':', 0, 0).toLongLong(), fingerprint});
            continue;
        }
        const QJsonObject o = it.value().toObject(); // as plans stored them before
        plan.stats.insert(it.key(), {qint64(o.value(QStringLiteral("rows")).toDouble()),
                                     o.value(QStringLiteral("fingerprint")).toString()});
    }
    const auto summary =
        nlohmann::ordered_json::parse(q->value(3).toString().toStdString(), nullptr, false);
    if (summary.is_object() && summary.contains("totals") && summary["totals"].is_object())
        plan.columns =
            columnsFromJson(summary["totals"].value("columns", nlohmann::ordered_json()));
    return plan;
}

} // namespace rw
