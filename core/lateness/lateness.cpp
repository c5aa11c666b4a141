#include "core/lateness/lateness.h"

#include "core/batch/batchdialect.h"
#include "core/batch/partitions.h"
#include "core/batch/scope.h"
#include "core/lateness/latenessfunctions.h"
#include "core/sql/timejson.h"
#include "core/util/timeutil.h"

#include <QHash>
#include <QStringBuilder>
#include <algorithm>
#include <cmath>
#include <numeric>

namespace rw {

namespace {

using Json = nlohmann::ordered_json;

struct Value {
    qint64 ms = 0;
    qint64 count = 0;
};

// Nearest rank over values sorted ascending: for p in per-mille, the
// smallest value whose cumulative count reaches ceil(p * n / 1000).
LatenessPercentiles percentilesOf(const std::vector<Value> &sorted, qint64 n) {
    LatenessPercentiles out;
    if (n <= 0 || sorted.empty())
        return out;
    const qint64 perMille[] = {500, 900, 990, 999};
    std::optional<qint64> *targets[] = {&out.p50, &out.p90, &out.p99, &out.p999};
    qint64 cumulative = 0;
    std::size_t next = 0;
    for (const Value &v : sorted) {
        cumulative += v.count;
        while (next < 4 && cumulative * 1000 >= perMille[next] * n) {
            *targets[next] = v.ms;
            ++next;
        }
    }
    out.min = sorted.front().ms;
    out.max = sorted.back().ms;
    return out;
}

// Events later than `ms` among sorted values, from suffix sums.
qint64 laterThan(const std::vector<Value> &sorted, const std::vector<qint64> &suffix, qint64 ms) {
    const auto it = std::upper_bound(sorted.begin(), sorted.end(), ms,
                                     [](qint64 x, const Value &v) { return x < v.ms; });
    return suffix[std::size_t(it - sorted.begin())];
}

// Log-scaled edges in seconds for lateness >= 0: 0, 1, then geometric up to
// the first whole second past the maximum, at most `buckets` buckets.
std::vector<qint64> bucketEdges(qint64 maxMs, int buckets) {
    const qint64 top = maxMs < 0 ? 1 : maxMs / 1000 + 1;
    std::vector<qint64> edges{0};
    if (buckets == 1) {
        edges.push_back(top);
        return edges;
    }
    for (int i = 1; i <= buckets; ++i) {
        qint64 edge =
            i == buckets ? top
                         : std::llround(std::pow(double(top), double(i - 1) / double(buckets - 1)));
        edge = std::max(edge, edges.back() + 1);
        if (edge >= top) {
            edges.push_back(top);
            break;
        }
        edges.push_back(edge);
    }
    return edges;
}

double fraction(qint64 part, qint64 whole) {
    return whole > 0 ? double(part) / double(whole) : 0.0;
}

Json percentilesJson(const LatenessPercentiles &p) {
    auto j = [](const std::optional<qint64> &ms) { return ms ? secondsJson(*ms) : Json(nullptr); };
    return {{"p50", j(p.p50)},   {"p90", j(p.p90)}, {"p99", j(p.p99)},
            {"p999", j(p.p999)}, {"max", j(p.max)}, {"min", j(p.min)}};
}

std::string label(qint64 seconds) {
    return timeutil::formatDuration(seconds).toStdString();
}

} // namespace

Json secondsJson(qint64 ms) {
    if (ms % 1000 == 0)
        return Json(ms / 1000);
    return Json(double(ms) / 1000.0);
}

const std::vector<qint64> &latenessCandidatesSeconds() {
    static const std::vector<qint64> candidates{60,    300,   900,   1800,   3600,  7200,
                                                21600, 43200, 86400, 172800, 604800};
    return candidates;
}

namespace {

// SQLite: one pass of the rewind_lateness aggregate (a hash map in C++,
// no sort), decoded.
Result<LatenessCounts> sqliteLatenessCounts(const Database &db, const DatasetSpec &dataset,
                                            const QString &part, const QString &where,
                                            const QVariantList &binds) {
    const QString sql = QStringLiteral("SELECT rewind_lateness(") % db.quote(dataset.eventTime) %
                        QStringLiteral(", ") % db.quote(dataset.ingestTime) % QStringLiteral(", ") %
                        part % QStringLiteral(") FROM ") %
                        sourceRelation(dataset, db, QStringLiteral("src")) % where;
    auto blob = db.scalar(sql, binds);
    if (!blob)
        return fail(blob.error());
    return decodeLatenessCounts(blob->toByteArray());
}

// Other engines: the same counts from one GROUP BY (partition, lateness in
// ms) in the engine; the rows with an unreadable timestamp form the group
// whose lateness is NULL. Reads one row per distinct lateness, never the
// source's rows.
Result<LatenessCounts> groupedLatenessCounts(const Database &db, const DatasetSpec &dataset,
                                             const QString &part, const QString &where,
                                             const QVariantList &binds) {
    const SqlDialect &d = db.dialect();
    const QString event = db.quote(dataset.eventTime);
    const QString ingest = db.quote(dataset.ingestTime);
    const QString sql =
        QStringLiteral("SELECT ") % BatchDialect::of(d).partitionText(QStringLiteral("p")) %
        QStringLiteral(", CASE WHEN p IS NULL THEN 1 ELSE 0 END, ms, "
                       "COUNT(*), SUM(missing) FROM (SELECT ") %
        part % QStringLiteral(" AS p, ") % TimeJson::of(d).epochMs(ingest) % QStringLiteral(" - ") %
        TimeJson::of(d).epochMs(event) % QStringLiteral(" AS ms, CASE WHEN ") % event %
        QStringLiteral(" IS NULL OR ") % ingest %
        QStringLiteral(" IS NULL THEN 1 ELSE 0 END AS missing FROM ") %
        sourceRelation(dataset, db, QStringLiteral("src")) % where %
        QStringLiteral(") AS t GROUP BY p, ms");
    auto q = db.exec(sql, binds);
    if (!q)
        return fail(q.error());
    LatenessCounts counts;
    QHash<std::pair<bool, QString>, quint32> index; // (is NULL, partition text) -> slot
    while (q->next()) {
        const bool isNull = q->value(1).toInt() == 1;
        const std::pair<bool, QString> key{isNull, isNull ? QString() : q->value(0).toString()};
        auto it = index.find(key);
        if (it == index.end()) {
            it = index.insert(key, quint32(counts.partitions.size()));
            counts.partitions.push_back(
                {isNull ? std::nullopt : std::optional<QString>(q->value(0).toString()), 0, 0});
        }
        const qint64 n = q->value(3).toLongLong();
        if (q->value(2).isNull()) {
            counts.partitions[*it].unparseable += n;
            counts.partitions[*it].missing += q->value(4).toLongLong();
        } else {
            counts.entries.push_back({*it, q->value(2).toLongLong(), n});
        }
    }
    return counts;
}

} // namespace

Result<LatenessReport> lateness(const Database &db, const DatasetSpec &dataset,
                                const LatenessOptions &options) {
    if (dataset.eventTime.isEmpty() || dataset.ingestTime.isEmpty())
        return badInput(QStringLiteral("dataset \"%1\" has no %2: set \"event_time\" and "
                                       "\"ingest_time\" in the spec to measure lateness")
                            .arg(dataset.name, dataset.eventTime.isEmpty()
                                                   ? QStringLiteral("event_time")
                                                   : QStringLiteral("ingest_time")));
    if (options.buckets < 1 || options.buckets > 200)
        return badInput(
            QStringLiteral("--buckets %1: expected a number from 1 to 200").arg(options.buckets));

    // The range, resolved exactly as run --from/--to resolves it.
    QString where;
    QVariantList binds;
    if (options.from || options.to) {
        auto sql = BatchSql::make(db, dataset);
        if (!sql)
            return fail(sql.error());
        ScopeRequest request;
        request.from = options.from;
        request.to = options.to;
        auto scope = resolveScope(db, dataset, *sql, request);
        if (!scope)
            return fail(scope.error());
        QStringList marks;
        for (const auto &p : *scope) {
            marks << QStringLiteral("?");
            binds << p.value;
        }
        where = QStringLiteral(" WHERE ") % partitionValueSql(db, dataset) %
                QStringLiteral(" IN (") % marks.join(u',') % QStringLiteral(")");
    }
    const QString part = partitionValueSql(db, dataset);
    auto counts = db.dialect().inProcessFunctions()
                      ? sqliteLatenessCounts(db, dataset, part, where, binds)
                      : groupedLatenessCounts(db, dataset, part, where, binds);
    if (!counts)
        return fail(counts.error());

    LatenessReport report;
    report.dataset = dataset.name;
    report.allowedLatenessSeconds = dataset.allowedLatenessSeconds;

    // Entries by (partition, lateness): per-partition walks; merged by
    // lateness alone: the dataset's walk.
    std::vector<LatenessCounts::Entry> &entries = counts->entries;
    std::sort(entries.begin(), entries.end(), [](const auto &a, const auto &b) {
        return a.latenessMs != b.latenessMs ? a.latenessMs < b.latenessMs
                                            : a.partition < b.partition;
    });
    std::vector<Value> all;
    for (const auto &e : entries) {
        if (!all.empty() && all.back().ms == e.latenessMs)
            all.back().count += e.count;
        else
            all.push_back({e.latenessMs, e.count});
    }
    for (const Value &v : all) {
        report.count += v.count;
        if (v.ms < 0)
            report.negative += v.count;
    }
    for (const auto &p : counts->partitions) {
        report.unparseable += p.unparseable;
        report.missing += p.missing;
    }
    report.rows = report.count + report.unparseable;
    report.percentiles = percentilesOf(all, report.count);

    std::vector<qint64> suffix(all.size() + 1, 0);
    for (std::size_t i = all.size(); i-- > 0;)
        suffix[i] = suffix[i + 1] + all[i].count;
    if (report.allowedLatenessSeconds && report.count > 0) {
        report.late = laterThan(all, suffix, *report.allowedLatenessSeconds * 1000);
        report.lateFraction = fraction(report.late, report.count);
    }
    if (report.count > 0) {
        for (const qint64 seconds : latenessCandidatesSeconds()) {
            const qint64 late = laterThan(all, suffix, seconds * 1000);
            const LatenessCandidate c{seconds, late, fraction(late, report.count)};
            report.candidates.push_back(c);
            // At least 99% on time, in integers: (count - late) / count >= 99 / 100.
            if (!report.suggestion && (report.count - late) * 100 >= report.count * 99)
                report.suggestion = c;
        }
    }
    for (const qint64 seconds : options.whatIfSeconds) {
        const qint64 late = report.count > 0 ? laterThan(all, suffix, seconds * 1000) : 0;
        report.whatIf.push_back({seconds, late, fraction(late, report.count)});
    }

    // Histogram: negative, log-scaled lateness buckets, unparseable.
    const std::vector<qint64> edges =
        bucketEdges(report.percentiles.max.value_or(0), options.buckets);
    report.histogram.push_back({QStringLiteral("negative"),
                                report.negative > 0 ? report.percentiles.min : std::nullopt, 0, 0});
    for (std::size_t i = 0; i + 1 < edges.size(); ++i)
        report.histogram.push_back(
            {QStringLiteral("lateness"), edges[i] * 1000, edges[i + 1] * 1000, 0});
    report.histogram.push_back(
        {QStringLiteral("unparseable"), std::nullopt, std::nullopt, report.unparseable});
    // The bucket of a lateness value: 0 for negative, else 1 + its log bucket.
    auto bucketOf = [&](qint64 ms) -> std::size_t {
        if (ms < 0)
            return 0;
        const auto it = std::upper_bound(edges.begin(), edges.end(), ms / 1000);
        return std::min<std::size_t>(std::size_t(it - edges.begin()), edges.size() - 1);
    };
    for (const Value &v : all)
        report.histogram[bucketOf(v.ms)].count += v.count;

    // Per partition, for the heat strip.
    std::stable_sort(entries.begin(), entries.end(),
                     [](const auto &a, const auto &b) { return a.partition < b.partition; });
    std::vector<PartitionLateness> parts(counts->partitions.size());
    std::vector<Value> values;
    for (std::size_t p = 0, e = 0; p < parts.size(); ++p) {
        PartitionLateness &out = parts[p];
        out.partition = counts->partitions[p].value;
        out.unparseable = counts->partitions[p].unparseable;
        out.histogram.assign(report.histogram.size(), 0);
        out.histogram.back() = out.unparseable;
        values.clear();
        for (; e < entries.size() && entries[e].partition == p; ++e) {
            const auto &entry = entries[e];
            values.push_back({entry.latenessMs, entry.count});
            out.count += entry.count;
            if (entry.latenessMs < 0)
                out.negative += entry.count;
            if (report.allowedLatenessSeconds &&
                entry.latenessMs > *report.allowedLatenessSeconds * 1000)
                out.late += entry.count;
            out.histogram[bucketOf(entry.latenessMs)] += entry.count;
        }
        out.percentiles = percentilesOf(values, out.count);
        if (!options.whatIfSeconds.empty()) {
            std::vector<qint64> partSuffix(values.size() + 1, 0);
            for (std::size_t i = values.size(); i-- > 0;)
                partSuffix[i] = partSuffix[i + 1] + values[i].count;
            for (const qint64 seconds : options.whatIfSeconds)
                out.whatIfLate.push_back(laterThan(values, partSuffix, seconds * 1000));
        }
    }
    sortByPartition(parts, [](const PartitionLateness &p) { return p.partition; });
    report.partitions = std::move(parts);
    return report;
}

Json toJson(const LatenessReport &r) {
    Json histogram = Json::array();
    for (const auto &b : r.histogram)
        histogram.push_back({{"lo_seconds", b.loMs ? secondsJson(*b.loMs) : Json(nullptr)},
                             {"hi_seconds", b.hiMs ? secondsJson(*b.hiMs) : Json(nullptr)},
                             {"count", b.count},
                             {"kind", b.kind.toStdString()}});
    auto pct = percentilesJson(r.percentiles);
    pct.erase("min");
    Json candidates = Json::array();
    for (const auto &c : r.candidates)
        candidates.push_back({{"seconds", c.seconds},
                              {"label", label(c.seconds)},
                              {"late_count", c.late},
                              {"late_fraction", c.lateFraction}});
    Json suggestion = nullptr;
    if (r.suggestion)
        suggestion = {{"allowed_lateness_seconds", r.suggestion->seconds},
                      {"label", label(r.suggestion->seconds)},
                      {"late_count", r.suggestion->late},
                      {"late_fraction", r.suggestion->lateFraction},
                      {"on_time_fraction", 1.0 - r.suggestion->lateFraction},
                      // The watermark trails the newest event time by the allowed
                      // lateness: a day becomes final that long after it ends.
                      {"finalization_delay_seconds", r.suggestion->seconds}};
    Json whatIf = Json::array();
    for (const auto &w : r.whatIf)
        whatIf.push_back({{"allowed_lateness_seconds", w.seconds},
                          {"late_count", w.late},
                          {"late_fraction", w.lateFraction}});
    Json partitions = Json::array();
    for (const auto &p : r.partitions) {
        Json late = r.allowedLatenessSeconds && p.count > 0 ? Json(fraction(p.late, p.count))
                                                            : Json(nullptr);
        partitions.push_back(
            {{"partition", p.partition ? Json(p.partition->toStdString()) : Json(nullptr)},
             {"count", p.count},
             {"negative_count", p.negative},
             {"unparseable_count", p.unparseable},
             {"late_count", p.late},
             {"late_fraction", late},
             {"percentiles_seconds", percentilesJson(p.percentiles)},
             {"histogram_counts", p.histogram}});
        if (!p.whatIfLate.empty())
            partitions.back()["what_if_late_counts"] = p.whatIfLate;
    }
    Json out = {
        {"dataset", r.dataset.toStdString()},
        {"count", r.count},
        {"percentiles_seconds", pct},
        {"histogram", histogram},
        {"allowed_lateness_seconds",
         r.allowedLatenessSeconds ? Json(*r.allowedLatenessSeconds) : Json(nullptr)},
        {"late_fraction", r.lateFraction ? Json(*r.lateFraction) : Json(nullptr)},
        {"suggested_allowed_lateness_seconds",
         r.suggestion ? Json(r.suggestion->seconds) : Json(nullptr)},
        {"rows", r.rows},
        {"negative_count", r.negative},
        {"unparseable_count", r.unparseable},
        {"missing_timestamp_count", r.missing},
        {"min_seconds", r.percentiles.min ? secondsJson(*r.percentiles.min) : Json(nullptr)},
        {"late_count", r.late},
        {"suggestion", suggestion},
        {"candidates", candidates},
        {"partitions", partitions},
    };
    if (!r.whatIf.empty())
        out["what_if"] = whatIf;
    return out;
}

} // namespace rw
