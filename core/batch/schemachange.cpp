#include "core/batch/schemachange.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QStringBuilder>
#include <algorithm>

namespace rw {

bool SchemaChange::isAdded(const QString &column) const {
    return std::any_of(added.begin(), added.end(),
                       [&](const SchemaColumn &a) { return a.column == column; });
}

const WidenedColumn *SchemaChange::widening(const QString &column) const {
    const auto w = std::find_if(widened.begin(), widened.end(),
                                [&](const WidenedColumn &c) { return c.column == column; });
    return w == widened.end() ? nullptr : &*w;
}

namespace {

QString columnsWithTypes(const std::vector<SchemaColumn> &columns) {
    QStringList out;
    for (const SchemaColumn &a : columns)
        out << (a.type.isEmpty() ? a.column : a.column % QStringLiteral(" (") % a.type % u')');
    return (columns.size() == 1 ? QStringLiteral("column ") : QStringLiteral("columns ")) %
           out.join(QStringLiteral(", "));
}

nlohmann::ordered_json columnsJson(const std::vector<SchemaColumn> &columns) {
    nlohmann::ordered_json out = nlohmann::ordered_json::array();
    for (const SchemaColumn &a : columns)
        out.push_back({{"column", a.column.toStdString()}, {"type", a.type.toStdString()}});
    return out;
}

std::vector<SchemaColumn> columnsFromJson(const QJsonValue &value) {
    std::vector<SchemaColumn> out;
    for (const auto &v : value.toArray()) {
        const QJsonObject a = v.toObject();
        out.push_back({a.value(QStringLiteral("column")).toString(),
                       a.value(QStringLiteral("type")).toString()});
    }
    return out;
}

} // namespace

QString SchemaChange::describe() const {
    QStringList parts;
    if (!added.empty())
        parts << QStringLiteral("adds ") % columnsWithTypes(added) % QStringLiteral(" to ") %
                     target;
    if (!dropped.empty())
        parts << QStringLiteral("drops ") % columnsWithTypes(dropped) % QStringLiteral(" from ") %
                     target;
    if (!widened.empty()) {
        QStringList columns;
        for (const WidenedColumn &w : widened)
            columns << w.column % QStringLiteral(" from ") % w.from % QStringLiteral(" to ") % w.to;
        parts << (widened.size() == 1 ? QStringLiteral("widens column ")
                                      : QStringLiteral("widens columns ")) %
                     columns.join(QStringLiteral(", ")) % QStringLiteral(" in ") % target;
    }
    return parts.join(QStringLiteral("; "));
}

nlohmann::ordered_json SchemaChange::toJson(SchemaChangePolicy policy) const {
    nlohmann::ordered_json widen = nlohmann::ordered_json::array();
    for (const WidenedColumn &w : widened)
        widen.push_back({{"column", w.column.toStdString()},
                         {"from", w.from.toStdString()},
                         {"to", w.to.toStdString()}});
    return {{"policy", enumName(policy).toStdString()},
            {"target", target.toStdString()},
            {"add", columnsJson(added)},
            {"drop", columnsJson(dropped)},
            {"widen", widen}};
}

SchemaChange SchemaChange::fromJson(const QJsonObject &object) {
    SchemaChange change;
    change.target = object.value(QStringLiteral("target")).toString();
    change.added = columnsFromJson(object.value(QStringLiteral("add")));
    if (change.added.empty()) // as plans of release 0.x wrote it
        change.added = columnsFromJson(object.value(QStringLiteral("added")));
    change.dropped = columnsFromJson(object.value(QStringLiteral("drop")));
    for (const auto &v : object.value(QStringLiteral("widen")).toArray()) {
        const QJsonObject w = v.toObject();
        change.widened.push_back({w.value(QStringLiteral("column")).toString(),
                                  w.value(QStringLiteral("from")).toString(),
                                  w.value(QStringLiteral("to")).toString()});
    }
    return change;
}

namespace schemachanges {

Status recordApplied(const Database &db, const QString &dataset, const QVariant &runId,
                     const SchemaChange &change, SchemaChangePolicy policy,
                     const QString &appliedAt) {
    auto json = change.toJson(policy);
    auto r =
        db.exec(QStringLiteral("INSERT INTO rewind_schema_changes (dataset, run_id, "
                               "applied_at, target, added_json, change_json) VALUES (?, ?, "
                               "?, ?, ?, ?)"),
                {dataset, runId, appliedAt, change.target,
                 QString::fromStdString(json["add"].dump()), QString::fromStdString(json.dump())});
    if (!r)
        return fail(r.error());
    return {};
}

Result<std::vector<Applied>> applied(const Database &db, const QString &target) {
    auto q = db.control().exec(
        QStringLiteral("SELECT run_id, applied_at, target, added_json, change_json "
                       "FROM rewind_schema_changes WHERE target = ? ORDER BY "
                       "applied_at"),
        {target});
    if (!q)
        return fail(q.error());
    std::vector<Applied> out;
    while (q->next()) {
        Applied a;
        a.runId = q->value(0).toLongLong();
        a.appliedAt = QDateTime::fromString(q->value(1).toString(), Qt::ISODateWithMs);
        // The whole change (change_json); a row of release 0.x holds only
        // the added columns (added_json).
        QJsonObject change = QJsonDocument::fromJson(q->value(4).toString().toUtf8()).object();
        if (change.isEmpty())
            change = {{QStringLiteral("add"),
                       QJsonDocument::fromJson(q->value(3).toString().toUtf8()).array()}};
        change.insert(QStringLiteral("target"), q->value(2).toString());
        a.change = SchemaChange::fromJson(change);
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
