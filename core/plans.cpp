#include "plans.h"

#include "partitions.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QRandomGenerator>
#include <QStringBuilder>

#include <algorithm>

namespace rw {

QString partitionKey(const std::optional<QString> &label) { return label ? QStringLiteral("v:") % *label : QStringLiteral("null"); }

namespace {

// The partition values present in the source and the target, as stored.
Result<std::vector<PartitionRef>> knownPartitions(const Database &db, const DatasetSpec &dataset, const BatchSql &sql)
{
    std::vector<PartitionRef> out;
    if (!dataset.partitioned()) {
        out.push_back({QVariant(), std::nullopt});
        return out;
    }
    const QString p = db.quote(dataset.partitionColumn);
    // With an index leading with the partition column, walk the distinct
    // values with one index seek each (a loose index scan) instead of
    // reading every row; without one, a single DISTINCT pass.
    auto leadsWithPartition = [&](const QString &table) -> bool {
        if (table.isEmpty())
            return false;
        auto q = db.exec(db.dialect().listIndexColumns(), {table});
        if (!q)
            return false;
        while (q->next())
            if (q->value(1).toInt() == 0 && q->value(2).toString() == dataset.partitionColumn)
                return true;
        return false;
    };
    auto distinct = [&](const QString &from, bool indexed) -> QString {
        if (!indexed)
            return QStringLiteral("SELECT DISTINCT ") % p % QStringLiteral(" AS v FROM ") % from;
        return QStringLiteral("SELECT v FROM (WITH RECURSIVE d(v) AS (SELECT MIN(") % p % QStringLiteral(") FROM ") % from
               % QStringLiteral(" UNION ALL SELECT (SELECT MIN(") % p % QStringLiteral(") FROM ") % from % QStringLiteral(" WHERE ") % p
               % QStringLiteral(" > d.v) FROM d WHERE d.v IS NOT NULL) SELECT v FROM d WHERE v IS NOT NULL) AS walk UNION ALL SELECT NULL WHERE EXISTS (SELECT 1 FROM ")
               % from % QStringLiteral(" WHERE ") % p % QStringLiteral(" IS NULL)");
    };
    // Source values of another type than the target's read as the target's
    // type (as the stage holds them), so that the two sides unite.
    const QString cast = sql.targetCast(dataset.partitionColumn);
    const QString source = cast.isEmpty() ? QString(u'(' % sourceSelect(dataset, db) % QStringLiteral(") AS s"))
                                          : QString(QStringLiteral("(SELECT CAST(") % p % QStringLiteral(" AS ") % cast % QStringLiteral(") AS ") % p
                                                    % QStringLiteral(" FROM (") % sourceSelect(dataset, db) % QStringLiteral(") AS s0) AS s"));
    QString query = distinct(source, cast.isEmpty() && leadsWithPartition(dataset.source));
    if (sql.targetExists())
        query = query % QStringLiteral(" UNION ") % distinct(db.quoteTable(dataset.target), leadsWithPartition(dataset.target));
    // Labelled by the text form the listing and the stats use (a date as
    // 2026-03-01, whatever type the driver would read it into).
    auto q = db.exec(QStringLiteral("SELECT v, ") % db.dialect().castText(QStringLiteral("v")) % QStringLiteral(" FROM (") % query
                     % QStringLiteral(") AS known"));
    if (!q)
        return fail(q.error());
    QSet<QString> seen;
    while (q->next()) {
        const QVariant v = q->value(0);
        const std::optional<QString> label = v.isNull() ? std::nullopt : std::optional<QString>(q->value(1).toString());
        const QString key = partitionKey(label);
        if (seen.contains(key))
            continue; // 1 and '1' in a loosely typed column: one partition
        seen.insert(key);
        out.push_back({v.isNull() ? v : db.dialect().partitionBind(v, *label), label});
    }
    std::sort(out.begin(), out.end(), [](const PartitionRef &a, const PartitionRef &b) { return partitionLess(a.label, b.label); });
    return out;
}

QString preview(const std::vector<PartitionRef> &known)
{
    if (known.empty())
        return QStringLiteral("it has no partitions");
    const QString first = partitionLabel(known.front().label), last = partitionLabel(known.back().label);
    return QStringLiteral("it has %1 partition%2, %3%4").arg(known.size()).arg(known.size() == 1 ? QString() : QStringLiteral("s"), first,
                                                               known.size() > 1 ? QStringLiteral(" .. ") % last : QString());
}

} // namespace

Result<std::vector<PartitionRef>> resolveScope(const Database &db, const DatasetSpec &dataset, const BatchSql &sql,
                                               const ScopeRequest &request)
{
    const bool explicitList = !request.partitions.isEmpty();
    const bool range = request.from || request.to;
    if (!dataset.partitioned() && (explicitList || range))
        return badInput(QStringLiteral("dataset \"%1\" has no partition_column: it is published whole, so --partition, --from and --to do not apply")
                            .arg(dataset.name));
    if (explicitList && (range || request.stale))
        return badInput(QStringLiteral("give either --partition, or --from/--to, or --stale, not several"));
    if (range && request.stale)
        return badInput(QStringLiteral("give either --from/--to or --stale, not both"));
    if (range && (!request.from || !request.to))
        return badInput(QStringLiteral("--from and --to go together (both inclusive)"));

    auto known = knownPartitions(db, dataset, sql);
    if (!known)
        return fail(known.error());

    std::vector<PartitionRef> scope;
    if (explicitList) {
        for (const QString &wanted : request.partitions) {
            const auto it = std::find_if(known->begin(), known->end(), [&](const PartitionRef &p) { return p.label && *p.label == wanted; });
            if (it == known->end())
                return badInput(QStringLiteral("unknown partition \"%1\" of dataset \"%2\" (%3)").arg(wanted, dataset.name, preview(*known)));
            if (std::none_of(scope.begin(), scope.end(), [&](const PartitionRef &p) { return p.label == it->label; }))
                scope.push_back(*it);
        }
    } else if (range) {
        if (partitionLess(std::optional<QString>(*request.to), std::optional<QString>(*request.from)))
            return badInput(QStringLiteral("--from %1 is after --to %2").arg(*request.from, *request.to));
        for (const auto &p : *known)
            if (p.label && !partitionLess(p.label, std::optional<QString>(*request.from))
                && !partitionLess(std::optional<QString>(*request.to), p.label))
                scope.push_back(p);
        if (scope.empty())
            return badInput(QStringLiteral("no partition of dataset \"%1\" lies between %2 and %3 (%4)")
                                .arg(dataset.name, *request.from, *request.to, preview(*known)));
    } else if (request.stale) {
        auto parts = listPartitions(db, dataset);
        if (!parts)
            return fail(parts.error());
        for (const auto &info : *parts)
            if (info.status == QLatin1String("stale"))
                for (const auto &p : *known)
                    if (p.label == info.partition)
                        scope.push_back(p);
    } else {
        scope = *known;
    }
    std::sort(scope.begin(), scope.end(), [](const PartitionRef &a, const PartitionRef &b) { return partitionLess(a.label, b.label); });
    return scope;
}

Result<SourceStatsMap> sourceStats(const Database &db, const BatchSql &sql, const std::vector<PartitionRef> &scope)
{
    QVariantList binds;
    auto q = db.exec(sql.sourceStats(scope, binds), binds);
    if (!q)
        return fail(q.error());
    SourceStatsMap out;
    while (q->next()) {
        const std::optional<QString> label = q->value(1).toInt() ? std::nullopt : std::optional<QString>(q->value(0).toString());
        out.insert(partitionKey(label), {q->value(2).toLongLong(), q->value(3).toString()});
    }
    return out;
}

Result<QStringList> stalePartitions(const Database &db, const BatchSql &sql, const Plan &plan)
{
    if (std::none_of(plan.scope.begin(), plan.scope.end(), [&](const PartitionRef &p) { return plan.stats.contains(partitionKey(p.label)); }))
        return QStringList();
    auto now = sourceStats(db, sql, plan.scope);
    if (!now)
        return fail(now.error());
    QStringList stale;
    for (const auto &p : plan.scope) {
        const QString key = partitionKey(p.label);
        // A partition the plan did not fingerprint (a run planned afresh) is not locked.
        if (plan.stats.contains(key) && plan.stats.value(key).fingerprint != now->value(key).fingerprint)
            stale << partitionLabel(p.label);
    }
    return stale;
}

QString newPlanId()
{
    return QStringLiteral("plan-%1").arg(QRandomGenerator::system()->generate64() & 0xffffffffffffULL, 12, 16, QLatin1Char('0'));
}

QString scopeToJson(const std::vector<PartitionRef> &scope)
{
    QJsonArray list;
    for (const auto &p : scope) {
        QJsonObject o;
        o.insert(QStringLiteral("partition"), p.label ? QJsonValue(*p.label) : QJsonValue(QJsonValue::Null));
        o.insert(QStringLiteral("value"), QJsonValue::fromVariant(p.value));
        list.append(o);
    }
    return QString::fromUtf8(QJsonDocument(list).toJson(QJsonDocument::Compact));
}

std::vector<PartitionRef> scopeFromJson(const QString &json)
{
    std::vector<PartitionRef> scope;
    const QJsonArray list = QJsonDocument::fromJson(json.toUtf8()).array();
    for (const auto &item : list) {
        const QJsonObject o = item.toObject();
        PartitionRef p;
        const QJsonValue label = o.value(QStringLiteral("partition"));
        if (!label.isNull())
            p.label = label.toString();
        const QJsonValue value = o.value(QStringLiteral("value"));
        if (value.isDouble()) {
            const double d = value.toDouble();
            p.value = d == double(qint64(d)) ? QVariant(qint64(d)) : QVariant(d);
        } else if (value.isString()) {
            p.value = value.toString();
        }
        scope.push_back(p);
    }
    return scope;
}

Status storePlan(const Database &db, const Plan &plan, const QString &summaryJson)
{
    QJsonObject fingerprints;
    for (auto it = plan.stats.cbegin(); it != plan.stats.cend(); ++it)
        fingerprints.insert(it.key(), QJsonObject{{QStringLiteral("rows"), it->rows}, {QStringLiteral("fingerprint"), it->fingerprint}});
    QJsonObject scope{{QStringLiteral("mode"), plan.mode},
                      {QStringLiteral("partitions"), QJsonDocument::fromJson(scopeToJson(plan.scope).toUtf8()).array()}};
    auto r = db.exec(QStringLiteral("INSERT INTO rewind_plans (plan_id, dataset, created_at, scope_json, fingerprint, summary_json) VALUES (?, ?, ")
                         % db.dialect().nowUtcText() % QStringLiteral(", ?, ?, ?)"),
                     {plan.id, plan.dataset, QString::fromUtf8(QJsonDocument(scope).toJson(QJsonDocument::Compact)),
                      QString::fromUtf8(QJsonDocument(fingerprints).toJson(QJsonDocument::Compact)), summaryJson});
    if (!r)
        return fail(r.error());
    return {};
}

Result<Plan> loadPlan(const Database &db, const QString &planId)
{
    auto q = db.exec(QStringLiteral("SELECT dataset, scope_json, fingerprint FROM rewind_plans WHERE plan_id = ?"), {planId});
    if (!q)
        return fail(q.error());
    if (!q->next())
        return badInput(QStringLiteral("unknown plan \"%1\" (preview first: rewindctl preview prints a plan_id)").arg(planId));
    Plan plan;
    plan.id = planId;
    plan.dataset = q->value(0).toString();
    const QJsonObject scope = QJsonDocument::fromJson(q->value(1).toString().toUtf8()).object();
    plan.mode = scope.value(QStringLiteral("mode")).toString();
    plan.scope = scopeFromJson(QString::fromUtf8(QJsonDocument(scope.value(QStringLiteral("partitions")).toArray()).toJson()));
    const QJsonObject fps = QJsonDocument::fromJson(q->value(2).toString().toUtf8()).object();
    for (auto it = fps.begin(); it != fps.end(); ++it) {
        const QJsonObject o = it.value().toObject();
        plan.stats.insert(it.key(), {qint64(o.value(QStringLiteral("rows")).toDouble()), o.value(QStringLiteral("fingerprint")).toString()});
    }
    return plan;
}

} // namespace rw
