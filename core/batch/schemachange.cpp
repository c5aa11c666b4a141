#include "core/batch/schemachange.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QStringBuilder>

namespace rw {

QString SchemaChange::describe() const {
    if (empty())
        return {};
    QStringList columns;
    for (const AddedColumn &a : added)
        columns << (a.type.isEmpty() ? a.column : a.column % QStringLiteral(" (") % a.type % u')');
    return (added.size() == 1 ? QStringLiteral("adds column ") : QStringLiteral("adds columns ")) %
           columns.join(QStringLiteral(", ")) % QStringLiteral(" to ") % target;
}

nlohmann::ordered_json SchemaChange::toJson(SchemaChangePolicy policy) const {
    nlohmann::ordered_json columns = nlohmann::ordered_json::array();
    for (const AddedColumn &a : added)
        columns.push_back({{"column", a.column.toStdString()}, {"type", a.type.toStdString()}});
    return {{"policy", enumName(policy).toStdString()},
            {"target", target.toStdString()},
            {"added", columns}};
}

SchemaChange SchemaChange::fromJson(const QJsonObject &object) {
    SchemaChange change;
    change.target = object.value(QStringLiteral("target")).toString();
    for (const auto &v : object.value(QStringLiteral("added")).toArray()) {
        const QJsonObject a = v.toObject();
        change.added.push_back({a.value(QStringLiteral("column")).toString(),
                                a.value(QStringLiteral("type")).toString()});
    }
    return change;
}

namespace schemachanges {

Status recordApplied(const Database &db, const QString &dataset, const QVariant &runId,
                     const SchemaChange &change, const QString &appliedAt) {
    auto json = change.toJson(SchemaChangePolicy::AppendNewColumns);
    auto r = db.exec(
        QStringLiteral("INSERT INTO rewind_schema_changes (dataset, run_id, "
                       "applied_at, target, added_json) VALUES (?, ?, ?, ?, ?)"),
        {dataset, runId, appliedAt, change.target, QString::fromStdString(json["added"].dump())});
    if (!r)
        return fail(r.error());
    return {};
}

Result<std::vector<Applied>> applied(const Database &db, const QString &target) {
    auto q = db.exec(QStringLiteral("SELECT run_id, applied_at, target, added_json FROM "
                                    "rewind_schema_changes WHERE target = ? ORDER BY applied_at"),
                     {target});
    if (!q)
        return fail(q.error());
    std::vector<Applied> out;
    while (q->next()) {
        Applied a;
        a.runId = q->value(0).toLongLong();
        a.appliedAt = QDateTime::fromString(q->value(1).toString(), Qt::ISODateWithMs);
        const QJsonArray added = QJsonDocument::fromJson(q->value(3).toString().toUtf8()).array();
        a.change = SchemaChange::fromJson(
            {{QStringLiteral("target"), q->value(2).toString()}, {QStringLiteral("added"), added}});
        out.push_back(std::move(a));
    }
    return out;
}

Status forgetApplied(const Database &db, qint64 runId) {
    auto r = db.exec(QStringLiteral("DELETE FROM rewind_schema_changes WHERE run_id = ?"), {runId});
    if (!r)
        return fail(r.error());
    return {};
}

} // namespace schemachanges

} // namespace rw
