#include "ui/lateness/latenesssnapshot.h"

#include "core/batch/batchprivileges.h"
#include "core/batch/scope.h"
#include "core/sql/privileges.h"
#include "core/util/timeutil.h"

#include <QHash>
#include <QStringBuilder>
#include <algorithm>
#include <cmath>
#include <future>
#include <limits>

namespace rw {

std::vector<qint64> latenessGrid(std::optional<qint64> maxMs, std::optional<qint64> extra) {
    static const std::vector<qint64> steps = [] {
        std::vector<qint64> s;
        for (qint64 v = 0; v <= 10; ++v)
            s.push_back(v);
        for (qint64 v : {12, 15, 20, 25, 30, 40, 45, 50})
            s.push_back(v);
        for (double m : {1.0, 1.5, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 10.0, 12.0, 15.0, 20.0, 25.0,
                         30.0, 40.0, 45.0, 50.0})
            s.push_back(qint64(m * 60));
        for (double h : {1.0, 1.25, 1.5, 1.75, 2.0, 2.5, 3.0, 4.0, 5.0, 6.0, 8.0, 10.0, 12.0, 15.0,
                         18.0, 21.0})
            s.push_back(qint64(h * 3600));
        for (double d : {1.0, 1.5, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 10.0, 14.0, 21.0, 30.0, 60.0, 90.0,
                         180.0, 365.0})
            s.push_back(qint64(d * 86400));
        return s;
    }();
    // The spec's value inside the range keeps a shorter grid a prefix of a longer one.
    const qint64 top =
        std::max<qint64>({3600, maxMs ? (*maxMs + 999) / 1000 : 0, extra.value_or(0)});
    std::vector<qint64> grid;
    for (qint64 s : steps) {
        grid.push_back(s);
        if (s >= top)
            break;
    }
    if (extra && std::find(grid.begin(), grid.end(), *extra) == grid.end())
        grid.push_back(*extra);
    std::sort(grid.begin(), grid.end());
    return grid;
}

QString latenessText(qint64 ms) {
    if (ms < 0)
        return u'\u2212' + latenessText(-ms);
    const auto trimmed = [](double v) {
        return v >= 10 ? QString::number(std::llround(v))
                       : QString::number(v, 'f', 1).remove(QStringLiteral(".0"));
    };
    if (ms < 1000)
        return QStringLiteral("%1 ms").arg(ms);
    const double s = double(ms) / 1000.0;
    if (s < 60)
        return trimmed(s) + QStringLiteral(" s");
    if (s < 3600)
        return trimmed(s / 60) + QStringLiteral(" min");
    if (s < 86400)
        return trimmed(s / 3600) + QStringLiteral(" h");
    return trimmed(s / 86400) + QStringLiteral(" d");
}

QString durationLabel(qint64 seconds) {
    return seconds == 0 ? QStringLiteral("0s") : timeutil::formatDuration(seconds);
}

QString percentText(double fraction) {
    const double p = fraction * 100.0;
    if (p == 0)
        return QStringLiteral("0 %");
    return QString::number(p, 'f', p < 0.01 ? 4 : p < 10 ? 2 : 1) + QStringLiteral(" %");
}

Result<LatenessSnapshot> loadLatenessSnapshot(const Database &db, const DatasetSpec &dataset) {
    LatenessSnapshot snap;
    // One aggregate answers every slider step: ask for all of them, then
    // keep the steps up to the first one past the maximum.
    LatenessOptions options;
    options.buckets = 16;
    options.whatIfSeconds =
        latenessGrid(std::numeric_limits<qint64>::max() / 2, dataset.allowedLatenessSeconds);
    // The lateness aggregate and the partitions (with the finalize dry run)
    // are independent reads of the source: the aggregate runs on a
    // connection of its own meanwhile, where one reaches the same data.
    // Without ingest_time there is no lateness to measure, only the
    // watermark: an empty report, one row per partition below.
    const bool measured = !dataset.ingestTime.isEmpty();
    std::future<Result<LatenessReport>> sideReport;
    if (measured && db.sharedAcrossConnections())
        sideReport = std::async(std::launch::async,
                                [db, dataset, options] { return lateness(db, dataset, options); });
    const auto takeReport = [&]() -> Result<LatenessReport> {
        if (!measured) {
            LatenessReport none;
            none.dataset = dataset.name;
            return none;
        }
        if (!sideReport.valid())
            return lateness(db, dataset, options);
        Result<LatenessReport> side = sideReport.get();
        return side ? std::move(side)
                    : lateness(db, dataset, options); // a refused second connection: here
    };

    // The partitions (source, target and state) are read once, for the
    // statuses here and the finalize dry run's classes both.
    auto parts = listPartitions(db, dataset);
    std::optional<Result<FinalizeResult>> dry;
    if (parts && dataset.allowedLatenessSeconds && !dataset.eventTime.isEmpty()) {
        FinalizeOptions dryRun;
        dryRun.partitions = &*parts;
        dry = finalize(db, dataset, dryRun);
    }
    auto report = takeReport(); // waited for whatever failed here
    if (!report)
        return fail(report.error());
    if (!parts)
        return fail(parts.error());
    if (dry && !*dry)
        return fail(dry->error());
    if (dry)
        snap.finalize = std::move(**dry);

    snap.report = std::move(*report);
    snap.grid = latenessGrid(snap.report.percentiles.max, dataset.allowedLatenessSeconds);
    const std::size_t keep = snap.grid.size(); // a prefix of the full grid
    snap.report.whatIf.resize(keep);
    for (PartitionLateness &p : snap.report.partitions)
        p.whatIfLate.resize(std::min(keep, p.whatIfLate.size()));
    // Finalize and backfill publish through a run: whether this role may.
    snap.runRefused = privileges::refusalOf(requireRunPrivileges(
        db, dataset, QStringLiteral("A finalize or backfill of ") % dataset.name));
    QHash<QString, PartitionStatus> status;
    for (const PartitionInfo &p : *parts) {
        status.insert(partitionKey(p.partition), p.status);
        if (p.sourceChanged)
            ++snap.staleCount;
    }
    if (!measured)
        for (const PartitionInfo &p : *parts) {
            PartitionLateness none;
            none.partition = p.partition;
            none.whatIfLate.resize(keep);
            snap.report.partitions.push_back(std::move(none));
        }
    for (const PartitionLateness &p : snap.report.partitions)
        snap.partitions.push_back(
            {p.partition, status.value(partitionKey(p.partition), PartitionStatus::Unloaded), p});
    return snap;
}

} // namespace rw
