// rewindctl lag, finalize.
#include "app/rewindctl/clisupport.h"
#include "core/batch/batch.h"
#include "core/batch/partitions.h"
#include "core/lateness/feeds.h"
#include "core/lateness/finalize.h"
#include "core/lateness/lateness.h"
#include "core/util/timeutil.h"

#include <QStringBuilder>
#include <unistd.h>

namespace rw::cli {

namespace {

const QCommandLineOption kBuckets(
    {QStringLiteral("buckets")},
    QStringLiteral("Log-scaled histogram buckets for lateness >= 0 (1 to 200, default 16)."),
    QStringLiteral("N"), QStringLiteral("16"));
const QCommandLineOption kWhatIf(
    {QStringLiteral("what-if")},
    QStringLiteral(
        "Also count the events later than allowed lateness D (like 90s, 15m, 2h, 1d; repeatable): "
        "the console's watermark slider."),
    QStringLiteral("D"));
const QCommandLineOption kFinalizePlan(
    {QStringLiteral("plan")},
    QStringLiteral("With --execute: publish exactly this stored plan (a preview of partitions "
                   "the watermark has passed); refused, exit 4, if its source changed."),
    QStringLiteral("ID"));

// Seconds for people: "95s", "2h", "1.5s".
QString humanSeconds(const std::optional<qint64> &ms) {
    if (!ms)
        return QStringLiteral("-");
    const qint64 v = *ms;
    if (v % 1000 != 0)
        return QString::number(double(v) / 1000.0, 'f', 3) % u's';
    return v < 0 ? u'-' % timeutil::formatDuration(-v / 1000) : timeutil::formatDuration(v / 1000);
}

QString percent(double fraction) {
    return QString::number(fraction * 100.0, 'f', 3) % u'%';
}

// --- lag ----------------------------------------------------------------------------

Status runLag(Context &ctx) {
    if (!ctx.parser.isSet(kDataset))
        return badInput(QStringLiteral("--dataset is required"));
    LatenessOptions options;
    auto buckets = intOption(ctx, kBuckets, 1, 200);
    if (!buckets)
        return fail(buckets.error());
    options.buckets = *buckets;
    if (ctx.parser.isSet(kFrom))
        options.from = ctx.parser.value(kFrom);
    if (ctx.parser.isSet(kTo))
        options.to = ctx.parser.value(kTo);
    for (const QString &text : ctx.parser.values(kWhatIf)) {
        auto seconds = timeutil::parseDuration(text);
        if (!seconds)
            return badInput(
                QStringLiteral("--what-if \"%1\": %2").arg(text, seconds.error().message));
        options.whatIfSeconds.push_back(*seconds);
    }
    auto wd = datasetOf(ctx);
    if (!wd)
        return fail(wd.error());
    // The feeding groups holding the watermark back (finalize's held_by).
    std::vector<WatermarkHold> holds;
    if (wd->second->allowedLatenessSeconds && !wd->second->feeds.empty()) {
        auto held = watermarkHolds(wd->first.db, *wd->second);
        if (!held)
            return fail(held.error());
        holds = std::move(*held);
    }
    auto report = lateness(wd->first.db, *wd->second, options);
    if (!report) {
        // A dataset with a watermark but no ingest_time: no lateness to
        // measure, and the refusal still says what holds its watermark.
        Error e = report.error();
        for (const WatermarkHold &h : holds)
            e.message +=
                QStringLiteral("\n") % wd->second->name % QStringLiteral(": ") % describeHold(h);
        return fail(e);
    }
    if (ctx.json) {
        auto j = toJson(*report);
        j["held_by"] = toJson(holds);
        ctx.print(j);
        return {};
    }
    const LatenessReport &r = *report;
    for (const WatermarkHold &h : holds)
        ctx.out << r.dataset << ": " << describeHold(h) << '\n';
    const auto &p = r.percentiles;
    ctx.out << r.dataset << ": lateness (" << wd->second->ingestTime << " - "
            << wd->second->eventTime << ") of " << thousands(r.count) << " events";
    if (options.from)
        ctx.out << ", partitions " << *options.from << " .. " << options.to.value_or(QString());
    ctx.out << "\n\n  p50 " << humanSeconds(p.p50) << "   p90 " << humanSeconds(p.p90) << "   p99 "
            << humanSeconds(p.p99) << "   p99.9 " << humanSeconds(p.p999) << "   max "
            << humanSeconds(p.max) << '\n';
    ctx.out << "  negative (ingested before the event time): " << thousands(r.negative)
            << "   unparseable or missing timestamps: " << thousands(r.unparseable) << "\n\n";
    qint64 peak = 1;
    for (const auto &b : r.histogram)
        peak = std::max(peak, b.count);
    TextTable table(
        {QStringLiteral("FROM"), QStringLiteral("TO"), QStringLiteral("EVENTS"), QString()},
        {false, false, true, false});
    for (const auto &b : r.histogram) {
        QString from, to;
        if (b.kind == QLatin1String("negative")) {
            from = QStringLiteral("negative");
        } else if (b.kind == QLatin1String("unparseable")) {
            from = QStringLiteral("unparseable");
        } else {
            from = humanSeconds(b.loMs);
            to = humanSeconds(b.hiMs);
        }
        table.add({from, to, thousands(b.count),
                   QString(int(std::llround(40.0 * double(b.count) / double(peak))), u'#')});
    }
    table.print(ctx.out);
    ctx.out << '\n';
    if (r.allowedLatenessSeconds && r.lateFraction)
        ctx.out << "allowed_lateness " << timeutil::formatDuration(*r.allowedLatenessSeconds)
                << ": " << thousands(r.late) << " events later (" << percent(*r.lateFraction)
                << ")\n";
    else if (!r.allowedLatenessSeconds)
        ctx.out << "no allowed_lateness in the spec\n";
    for (const auto &w : r.whatIf)
        ctx.out << "what if allowed_lateness " << timeutil::formatDuration(w.seconds) << ": "
                << thousands(w.late) << " events later (" << percent(w.lateFraction) << ")\n";
    if (r.suggestion)
        ctx.out << "suggested allowed_lateness " << timeutil::formatDuration(r.suggestion->seconds)
                << ": " << percent(r.suggestion->lateFraction)
                << " of events later; a day becomes final "
                << timeutil::formatDuration(r.suggestion->seconds)
                << " after it ends (event time)\n";
    else if (r.count > 0)
        ctx.out << "no round duration up to 7d keeps 99% of events on time\n";
    return {};
}

// --- finalize -------------------------------------------------------------------------

Status runFinalize(Context &ctx) {
    if (!ctx.parser.isSet(kDataset))
        return badInput(QStringLiteral("--dataset is required"));
    auto wd = datasetOf(ctx);
    if (!wd)
        return fail(wd.error());
    FinalizeOptions options;
    options.execute = ctx.given(QStringLiteral("execute"));
    options.planId = ctx.parser.value(kFinalizePlan);
    if (!options.planId.isEmpty() && !options.execute)
        return badInput(QStringLiteral("--plan is for --execute"));
    if (!ctx.json && ::isatty(STDERR_FILENO)) {
        QTextStream *err = &ctx.err;
        options.progress = [err](const Progress &p) {
            *err << "\r\033[K[" << p.partitionsDone << '/' << p.partitionsTotal << "] "
                 << p.partition << ' ' << p.phase;
            err->flush();
        };
    }
    auto result = finalize(wd->first.db, *wd->second, options);
    if (!result)
        return fail(result.error());
    ctx.reported = true;
    if (ctx.json) {
        ctx.print(toJson(*result));
    } else {
        if (::isatty(STDERR_FILENO) && options.progress)
            ctx.err << "\r\033[K";
        const FinalizeResult &r = *result;
        const QString computed = QStringLiteral("max event time ") %
                                 (r.maxEventMs ? isoUtc(*r.maxEventMs) : QStringLiteral("-")) %
                                 QStringLiteral(" - ") %
                                 timeutil::formatDuration(r.allowedLatenessSeconds);
        ctx.out << r.dataset << ": watermark "
                << (r.watermarkMs  ? isoUtc(*r.watermarkMs)
                    : r.maxEventMs ? QStringLiteral("(none: held)")
                                   : QStringLiteral("(no event time)"));
        if (r.heldBy.empty())
            ctx.out << " = " << computed << '\n';
        else
            ctx.out << ", held back by a stream that feeds it:\n";
        for (const WatermarkHold &h : r.heldBy)
            ctx.out << "  " << describeHold(h) << '\n';
        if (!r.heldBy.empty())
            ctx.out << "  unheld it would be "
                    << (r.unheldWatermarkMs ? isoUtc(*r.unheldWatermarkMs) : QStringLiteral("-"))
                    << " = " << computed << '\n';
        if (r.futureEvents > 0)
            ctx.out << "  " << r.futureEvents
                    << (r.futureEvents == 1 ? " event has its" : " events have their")
                    << " event time after now: ignored for the watermark (a producer's clock, or a "
                       "wrong time zone?)\n";
        ctx.out << '\n';
        auto line = [&](const char *title, const QStringList &values) {
            ctx.out << "  " << QString::fromLatin1(title).leftJustified(26)
                    << (values.isEmpty() ? QStringLiteral("-") : values.join(QStringLiteral(", ")))
                    << '\n';
        };
        line(r.executed ? "finalized:" : "would finalize:", r.finalized);
        line("provisional:", r.provisional);
        line("stale (run --stale):", r.stale);
        line("already final:", r.alreadyFinal);
        if (!r.undated.isEmpty()) {
            QStringList undated;
            for (const auto &p : r.undated)
                undated << partitionLabel(p);
            line("undated:", undated);
        }
        if (!r.failed.isEmpty())
            line("not published (failed):", r.failed);
        if (!r.executed && !r.finalized.isEmpty())
            ctx.out << "\nNothing was changed. To publish and finalize these partitions:\n  "
                       "rewindctl "
                       "finalize --db "
                    << shownDb(ctx) << " --spec " << ctx.parser.value(kSpec) << " --dataset "
                    << r.dataset << " --execute\n";
    }
    const int code = exitCodeOf(*result);
    if (code == 0)
        return {};
    return fail(Error{static_cast<Error::Code>(code),
                      result->run && !result->run->error.isEmpty()
                          ? result->run->error
                          : QStringLiteral("not finalized: %1").arg(result->failed.join(u','))});
}

} // namespace

std::vector<Command> lateCommands() {
    return {
        {QStringLiteral("lag"),
         QStringLiteral("Lateness distribution (ingest - event time): percentiles, histogram, "
                        "suggested allowed_lateness."),
         withWorkspace({kDataset, kFrom, kTo, kBuckets, kWhatIf}), runLag},
        {QStringLiteral("finalize"),
         QStringLiteral(
             "Watermark: list (or, with --execute, publish and mark final) the hour, day or month "
             "partitions it has passed, held while a group of a stream feeding the dataset lags "
             "(held_by). Event times after now are left out of the watermark and counted."),
         withWorkspace({kDataset, kFinalizePlan, kExecute}), runFinalize},
    };
}

} // namespace rw::cli
