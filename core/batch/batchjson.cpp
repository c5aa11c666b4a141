#include "core/batch/batchjson.h"

#include <QJsonDocument>

namespace rw {

namespace {

using Json = nlohmann::ordered_json;

std::string s(const QString &t) {
    return t.toStdString();
}

Json fromQt(const QJsonObject &o) {
    return Json::parse(QJsonDocument(o).toJson(QJsonDocument::Compact).toStdString());
}

Json rows(const std::vector<QJsonObject> &list) {
    Json out = Json::array();
    for (const auto &o : list)
        out.push_back(fromQt(o));
    return out;
}

} // namespace

Json partitionJson(const PartitionResult &p) {
    Json j{{"partition", p.partition ? Json(s(*p.partition)) : Json(nullptr)},
           {"source_rows", p.sourceRows},
           {"staged_rows", p.stagedRows},
           {"duplicates_dropped", p.duplicatesDropped},
           {"inserted", p.inserted},
           {"updated", p.updated},
           {"deleted", p.deleted},
           {"unchanged", p.unchanged},
           {"published", p.published}};
    if (p.publish) {
        j["publish"] = s(*p.publish);
        if (!p.publishReason.isEmpty())
            j["publish_reason"] = s(p.publishReason);
    }
    if (!p.snapshotBefore.isEmpty())
        j["snapshot_before"] = s(p.snapshotBefore);
    if (!p.snapshotAfter.isEmpty())
        j["snapshot_after"] = s(p.snapshotAfter);
    if (p.recognised)
        j["recognised"] = true;
    if (!p.commitTag.isEmpty())
        j["commit_tag"] = s(p.commitTag);
    if (!p.commitQuery.isEmpty())
        j["commit_query"] = s(p.commitQuery);
    if (p.versionsOpened)
        j["versions_opened"] = *p.versionsOpened;
    if (p.versionsClosed)
        j["versions_closed"] = *p.versionsClosed;
    if (p.versionsInvalidated)
        j["versions_invalidated"] = *p.versionsInvalidated;
    if (p.keysTouched)
        j["keys_touched"] = *p.keysTouched;
    if (!p.columns.empty())
        j["columns"] = columnsJson(p.columns);
    if (p.samples) {
        Json updated = Json::array();
        for (const auto &[before, after] : p.samples->updated)
            updated.push_back({{"before", fromQt(before)}, {"after", fromQt(after)}});
        j["samples"] = {{"inserted", rows(p.samples->inserted)},
                        {"updated", updated},
                        {"deleted", rows(p.samples->deleted)},
                        {"unchanged", rows(p.samples->unchanged)}};
    }
    return j;
}

PartitionResult partitionFromJson(const QString &json) {
    PartitionResult p;
    const Json j = Json::parse(json.toStdString(), nullptr, false);
    if (!j.is_object())
        return p;
    if (j.value("partition", Json()).is_string())
        p.partition = QString::fromStdString(j["partition"].get<std::string>());
    p.sourceRows = j.value("source_rows", 0LL);
    p.stagedRows = j.value("staged_rows", 0LL);
    p.duplicatesDropped = j.value("duplicates_dropped", 0LL);
    p.inserted = j.value("inserted", 0LL);
    p.updated = j.value("updated", 0LL);
    p.deleted = j.value("deleted", 0LL);
    p.unchanged = j.value("unchanged", 0LL);
    p.published = j.value("published", false);
    if (j.contains("versions_opened"))
        p.versionsOpened = j.value("versions_opened", 0LL);
    if (j.contains("versions_closed"))
        p.versionsClosed = j.value("versions_closed", 0LL);
    if (j.contains("versions_invalidated"))
        p.versionsInvalidated = j.value("versions_invalidated", 0LL);
    if (j.contains("keys_touched"))
        p.keysTouched = j.value("keys_touched", 0LL);
    if (j.contains("columns"))
        p.columns = columnsFromJson(j["columns"]);
    if (j.value("publish", Json()).is_string())
        p.publish = QString::fromStdString(j["publish"].get<std::string>());
    if (j.value("snapshot_before", Json()).is_string())
        p.snapshotBefore = QString::fromStdString(j["snapshot_before"].get<std::string>());
    if (j.value("snapshot_after", Json()).is_string())
        p.snapshotAfter = QString::fromStdString(j["snapshot_after"].get<std::string>());
    p.recognised = j.value("recognised", false);
    if (j.value("commit_tag", Json()).is_string())
        p.commitTag = QString::fromStdString(j["commit_tag"].get<std::string>());
    if (j.value("commit_query", Json()).is_string())
        p.commitQuery = QString::fromStdString(j["commit_query"].get<std::string>());
    if (j.value("publish_reason", Json()).is_string())
        p.publishReason = QString::fromStdString(j["publish_reason"].get<std::string>());
    return p;
}

Json checksJson(const std::vector<CheckResult> &checks) {
    Json out = Json::array();
    for (const auto &c : checks) {
        Json j{{"name", s(c.name)},
               {"partition", c.partition ? Json(s(*c.partition)) : Json(nullptr)},
               {"passed", c.passed},
               {"detail", s(c.detail)}};
        if (c.quarantined > 0)
            j["quarantined"] = c.quarantined;
        out.push_back(j);
    }
    return out;
}

namespace {

Json totalsJson(const RunResult &r) {
    const PartitionResult t = r.totals();
    Json j{{"source_rows", t.sourceRows},
           {"staged_rows", t.stagedRows},
           {"duplicates_dropped", t.duplicatesDropped},
           {"inserted", t.inserted},
           {"updated", t.updated},
           {"deleted", t.deleted},
           {"unchanged", t.unchanged}};
    if (r.mode == WriteMode::Scd2) {
        j["versions_opened"] = t.versionsOpened.value_or(0);
        j["versions_closed"] = t.versionsClosed.value_or(0);
        if (t.versionsInvalidated)
            j["versions_invalidated"] = *t.versionsInvalidated;
    }
    if (r.mode == WriteMode::DeleteInsert)
        j["keys_touched"] = t.keysTouched.value_or(0);
    if (!t.columns.empty())
        j["columns"] = columnsJson(t.columns);
    return j;
}

} // namespace

Json planSummaryJson(const RunResult &r) {
    constexpr std::size_t kChangedListed = 1000;
    RunResult head = r; // toJson of the result without its partitions
    head.partitions.clear();
    Json j = toJson(head);
    j["totals"] = totalsJson(r);
    Json changed = Json::array();
    std::size_t changedCount = 0;
    for (const auto &p : r.partitions)
        if (p.inserted + p.updated + p.deleted > 0 && changedCount++ < kChangedListed) {
            PartitionResult counts = p;
            counts.samples.reset();
            counts.columns.clear(); // the totals keep them (a plan of 1,000 changed days)
            changed.push_back(partitionJson(counts));
        }
    j["partitions"] = changed;
    j["partitions_total"] = r.partitions.size();
    j["partitions_changed"] = changedCount;
    return j;
}

Json toJson(const RunResult &r) {
    Json partitions = Json::array();
    for (const auto &p : r.partitions)
        partitions.push_back(partitionJson(p));
    Json j{{"dataset", s(r.dataset)},
           {"mode", s(enumName(r.mode))},
           {"plan_id", r.planId.isEmpty() ? Json(nullptr) : Json(s(r.planId))},
           {"run_id", r.runId.isNull() ? Json(nullptr) : Json(r.runId.toLongLong())},
           {"executed", r.executed},
           {"status", s(enumName(r.status))},
           {"partitions", partitions},
           {"totals", totalsJson(r)},
           {"checks", checksJson(r.checks)},
           {"schema_change", r.schemaChange.toJson(r.onSchemaChange)}};
    if (!r.error.isEmpty())
        j["error"] = s(r.error);
    if (!r.startedAt.isEmpty())
        j["started_at"] = s(r.startedAt);
    if (!r.finishedAt.isEmpty())
        j["finished_at"] = s(r.finishedAt);
    if (r.executed && r.mode == WriteMode::OverwritePartition)
        j["lock_ms"] = r.lockMs ? Json(*r.lockMs) : Json(nullptr);
    if (!r.planColumns.empty())
        j["plan_columns"] = columnsJson(r.planColumns);
    return j;
}

} // namespace rw
