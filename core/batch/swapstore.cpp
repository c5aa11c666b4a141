#include "core/batch/swapstore.h"

#include <QStringBuilder>
#include <nlohmann/json.hpp>

namespace rw::swapstore {

namespace {

QString indexesJson(const std::vector<std::pair<QString, QString>> &indexes) {
    nlohmann::json j = nlohmann::json::array();
    for (const auto &[saved, original] : indexes)
        j.push_back({{"saved", saved.toStdString()}, {"original", original.toStdString()}});
    return QString::fromStdString(j.dump());
}

std::vector<std::pair<QString, QString>> indexesFromJson(const QString &text) {
    std::vector<std::pair<QString, QString>> out;
    const auto j = nlohmann::json::parse(text.toStdString(), nullptr, false);
    if (!j.is_array())
        return out;
    for (const auto &e : j)
        if (e.is_object() && e.value("saved", nlohmann::json()).is_string() &&
            e.value("original", nlohmann::json()).is_string())
            out.emplace_back(QString::fromStdString(e["saved"].get<std::string>()),
                             QString::fromStdString(e["original"].get<std::string>()));
    return out;
}

} // namespace

Status record(const Database &db, const std::vector<Swap> &swaps) {
    QVariantList binds;
    for (const Swap &s : swaps)
        binds << s.runId << s.dataset << s.partition.value_or(QString()) << (s.partition ? 0 : 1)
              << s.parent << s.leafSchema << s.leafName << s.bound << s.check
              << (s.savedTable.isEmpty() ? QVariant() : QVariant(s.savedTable))
              << indexesJson(s.savedIndexes) << s.swappedAt;
    return db.execRows(QStringLiteral("INSERT INTO rewind_swaps (run_id, dataset, part, "
                                      "part_is_null, parent, leaf_schema, leaf_name, bound, "
                                      "check_sql, saved_table, indexes_json, swapped_at) VALUES "),
                       QStringLiteral("(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"), 12, binds);
}

Result<std::vector<Swap>> ofRun(const Database &db, qint64 runId, const QString &dataset) {
    auto q = db.exec(QStringLiteral("SELECT part, part_is_null, parent, leaf_schema, leaf_name, "
                                    "bound, saved_table, indexes_json, swapped_at, check_sql FROM "
                                    "rewind_swaps WHERE run_id = ? AND dataset = ?"),
                     {runId, dataset});
    if (!q)
        return fail(q.error());
    std::vector<Swap> out;
    while (q->next()) {
        Swap s;
        s.runId = runId;
        s.dataset = dataset;
        if (q->value(1).toInt() == 0)
            s.partition = q->value(0).toString();
        s.parent = q->value(2).toString();
        s.leafSchema = q->value(3).toString();
        s.leafName = q->value(4).toString();
        s.bound = q->value(5).toString();
        s.savedTable = q->value(6).toString();
        s.savedIndexes = indexesFromJson(q->value(7).toString());
        s.swappedAt = q->value(8).toString();
        s.check = q->value(9).toString();
        out.push_back(std::move(s));
    }
    return out;
}

Status forget(const Database &db, const Swap &swap) {
    auto r = db.exec(
        QStringLiteral("DELETE FROM rewind_swaps WHERE run_id = ? AND dataset = ? "
                       "AND part = ? AND part_is_null = ?"),
        {swap.runId, swap.dataset, swap.partition.value_or(QString()), swap.partition ? 0 : 1});
    if (!r)
        return fail(r.error());
    return {};
}

Result<int> dropSaved(const Database &db, qint64 runId, const QString &dataset) {
    auto swaps = ofRun(db, runId, dataset);
    if (!swaps)
        return fail(swaps.error());
    int dropped = 0;
    for (const Swap &s : *swaps) {
        if (s.savedTable.isEmpty())
            continue; // the run created the leaf: nothing was detached
        if (auto r = db.exec(QStringLiteral("DROP TABLE IF EXISTS ") % s.savedTable); !r)
            return fail(r.error());
        ++dropped;
    }
    auto r = db.exec(QStringLiteral("DELETE FROM rewind_swaps WHERE run_id = ? AND dataset = ?"),
                     {runId, dataset});
    if (!r)
        return fail(r.error());
    return dropped;
}

} // namespace rw::swapstore
