// rewindctl offsets, offsets-reset, replay.
#include "app/rewindctl/clisupport.h"
#include "core/streams/lag.h"
#include "core/streams/offsets.h"
#include "core/streams/replay.h"
#include "core/util/timeutil.h"

#include <QFile>
#include <QSaveFile>
#include <QStringBuilder>
#include <unistd.h>

namespace rw::cli {

namespace {

const QCommandLineOption kStreamOpt({QStringLiteral("stream")},
                                    QStringLiteral("Stream name from the spec."),
                                    QStringLiteral("S"));
const QCommandLineOption kGroupOpt({QStringLiteral("group")}, QStringLiteral("Consumer group."),
                                   QStringLiteral("G"));
const QCommandLineOption kToEarliest({QStringLiteral("to-earliest")},
                                     QStringLiteral("Reset to the log start."));
const QCommandLineOption kToLatest({QStringLiteral("to-latest")},
                                   QStringLiteral("Reset to the log end."));
const QCommandLineOption kToCurrent({QStringLiteral("to-current")},
                                    QStringLiteral("Reset to the current committed offset."));
const QCommandLineOption
    kToOffset({QStringLiteral("to-offset")},
              QStringLiteral("Reset to offset N (clamped to [log start, log end])."),
              QStringLiteral("N"));
const QCommandLineOption kShiftBy(
    {QStringLiteral("shift-by")},
    QStringLiteral(
        "Move the committed offset by N, negative allowed (clamped to [log start, log end])."),
    QStringLiteral("N"));
const QCommandLineOption
    kToDatetime({QStringLiteral("to-datetime")},
                QStringLiteral("Reset to the first offset whose record_ts is at or after T "
                               "(ISO-8601 or epoch seconds), else the log end."),
                QStringLiteral("T"));
const QCommandLineOption kByDuration(
    {QStringLiteral("by-duration")},
    QStringLiteral(
        "Reset to --to-datetime (now - D); D is ISO-8601 PnDTnHnMnS (or 90s, 15m, 2h, 1d)."),
    QStringLiteral("D"));
const QCommandLineOption kFromFile(
    {QStringLiteral("from-file")},
    QStringLiteral(
        "Reset to the offsets in a CSV file: topic,partition,offset rows (as kafka-consumer-groups "
        "--export writes them), group,topic,partition,offset, or group,partition,offset."),
    QStringLiteral("CSV"));
const QCommandLineOption
    kStreamPartition({QStringLiteral("partition")},
                     QStringLiteral("Limit the reset to partition N (repeatable)."),
                     QStringLiteral("N"));
const QCommandLineOption kExport(
    {QStringLiteral("export")},
    QStringLiteral(
        "Write the reset plan (group,partition,offset) to a CSV file; with or without --execute."),
    QStringLiteral("CSV"));
const QCommandLineOption
    kDlqToTopic({QStringLiteral("dlq-to-topic")},
                QStringLiteral("Kafka streams: also produce the records dead-lettered (these and "
                               "earlier ones not there yet) to the "
                               "stream's kafka.dlq_topic, with Kafka Connect's error headers."));
const QCommandLineOption kReplayRate({QStringLiteral("max-per-second")},
                                     QStringLiteral("Velocity: read at most R events per second."),
                                     QStringLiteral("R"));
const QCommandLineOption kMaxEvents({QStringLiteral("max-events")},
                                    QStringLiteral("Consume at most N events in all."),
                                    QStringLiteral("N"));
const QCommandLineOption
    kBatchSize({QStringLiteral("batch-size")},
               QStringLiteral("Events per transaction (default %1).").arg(kDefaultReplayBatchSize),
               QStringLiteral("N"), QString::number(kDefaultReplayBatchSize));

void streamGroupOptions(QCommandLineParser &p) {
    workspaceOptions(p);
    p.addOptions({kStreamOpt, kGroupOpt});
}

struct Target {
    Workspace ws;
    const StreamSpec *stream = nullptr;
    QString group;
};

// The stream the command names, in its workspace, and (with `withGroup`) the group.
Result<Target> target(const Context &ctx, bool withGroup = true) {
    auto name = required(ctx, kStreamOpt);
    if (!name)
        return fail(name.error());
    QString group;
    if (withGroup) {
        auto g = required(ctx, kGroupOpt);
        if (!g)
            return fail(g.error());
        group = *g;
    }
    auto ws = workspace(ctx);
    if (!ws)
        return fail(ws.error());
    auto stream = ws->spec.requireStream(*name);
    if (!stream)
        return fail(stream.error());
    Target t{std::move(*ws), nullptr, group};
    t.stream = t.ws.spec.stream(*name);
    return t;
}

Result<qint64> integerOption(const Context &ctx, const QCommandLineOption &option,
                             qint64 min = std::numeric_limits<qint64>::min()) {
    const QString text = ctx.parser.value(option);
    bool ok = false;
    const qint64 n = text.trimmed().toLongLong(&ok);
    if (!ok || n < min)
        return badInput(QStringLiteral("--%1 \"%2\": expected %3")
                            .arg(option.names().constFirst(), text,
                                 min == 0   ? QStringLiteral("a non-negative integer")
                                 : min == 1 ? QStringLiteral("a positive integer")
                                            : QStringLiteral("an integer")));
    return n;
}

// --- consumer-groups ------------------------------------------------------------

Status runConsumerGroups(Context &ctx) {
    auto t = target(ctx, false);
    if (!t)
        return fail(t.error());
    const StreamSpec *stream = t->stream;
    auto groups = listConsumerGroups(t->ws.db, *stream);
    if (!groups)
        return fail(groups.error());
    if (ctx.json) {
        Json list = Json::array();
        for (const auto &g : *groups) {
            Json members = Json::array();
            for (const GroupMember &m : g.members)
                members.push_back({{"member_id", s(m.memberId)},
                                   {"client_id", s(m.clientId)},
                                   {"host", s(m.host)},
                                   {"partitions", m.partitions}});
            list.push_back({{"group", s(g.group)},
                            {"partitions", g.partitions},
                            {"lag", g.lag},
                            {"last_commit_at", s(g.lastCommitAt)},
                            {"state", g.state ? Json(s(*g.state)) : Json()},
                            {"protocol", g.protocol.isEmpty() ? Json() : Json(s(g.protocol))},
                            {"members", members},
                            {"status", s(g.status)}});
        }
        ctx.print({{"stream", s(stream->name)}, {"groups", list}});
        return {};
    }
    ctx.out << "stream " << stream->name << " (" << stream->sourceKind() << " " << stream->source()
            << ")\n\n";
    TextTable table({QStringLiteral("GROUP"), QStringLiteral("PARTITIONS"), QStringLiteral("LAG"),
                     QStringLiteral("STATE"), QStringLiteral("MEMBERS"), QStringLiteral("STATUS"),
                     QStringLiteral("LAST COMMIT")},
                    {false, true, true, false, true, false, false});
    for (const auto &g : *groups)
        table.add({g.group, QString::number(g.partitions), thousands(g.lag),
                   g.state.value_or(QStringLiteral("-")), QString::number(g.members.size()),
                   g.status, g.lastCommitAt});
    table.print(ctx.out);
    // Each live member: what it reads, as its coordinator assigned it.
    for (const auto &g : *groups)
        for (const GroupMember &m : g.members) {
            QStringList parts;
            for (qint64 p : m.partitions)
                parts << QString::number(p);
            ctx.out << "  " << g.group << ": member " << m.memberId << " (" << m.clientId << " on "
                    << m.host << ", " << g.protocol << "), partitions "
                    << (parts.isEmpty() ? QStringLiteral("none") : parts.join(u',')) << "\n";
        }
    ctx.out << "status: Burrow's rules over the last " << kLagWindow
            << " lag samples (one per offsets read, at most one a second); see docs/cli.md\n";
    if (groups->empty())
        ctx.out << "no consumer group has committed offsets on this stream\n";
    return {};
}

// --- offsets ------------------------------------------------------------------

Status runOffsets(Context &ctx) {
    auto t = target(ctx);
    if (!t)
        return fail(t.error());
    auto offsets = readOffsetsSampled(t->ws.db, *t->stream, t->group);
    if (!offsets)
        return fail(offsets.error());
    qint64 lag = 0;
    for (const auto &p : *offsets)
        lag += p.lag;
    if (ctx.json) {
        Json list = Json::array();
        for (const auto &p : *offsets)
            list.push_back({{"partition", p.partition},
                            {"committed", p.committed},
                            {"log_start", p.logStart},
                            {"log_end", p.logEnd},
                            {"lag", p.lag},
                            {"stored", p.stored},
                            {"no_events", p.noEvents}});
        ctx.print({{"stream", s(t->stream->name)},
                   {"group", s(t->group)},
                   {"partitions", list},
                   {"total_lag", lag}});
        return {};
    }
    ctx.out << "stream " << t->stream->name << " (" << t->stream->sourceKind() << " "
            << t->stream->source() << "), group " << t->group << "\n\n";
    TextTable table({QStringLiteral("PARTITION"), QStringLiteral("COMMITTED"),
                     QStringLiteral("LOG START"), QStringLiteral("LOG END"), QStringLiteral("LAG")},
                    {true, true, true, true, true});
    for (const auto &p : *offsets)
        table.add({QString::number(p.partition),
                   p.stored ? QString::number(p.committed)
                            : QString::number(p.committed) % QStringLiteral(" (new)"),
                   QString::number(p.logStart), QString::number(p.logEnd), thousands(p.lag)});
    table.print(ctx.out);
    ctx.out << "\ntotal lag: " << thousands(lag) << " events\n";
    for (const auto &p : *offsets)
        if (p.noEvents)
            ctx.out << "partition " << p.partition
                    << ": no events left in the log; the group's commit there is kept (log start "
                       "and end shown as it)\n";
    return {};
}

// --- offsets-reset ----------------------------------------------------------------

Result<ResetRequest> resetRequest(const Context &ctx, const QString &group, const QString &topic) {
    const QList<const QCommandLineOption *> modes{&kToEarliest, &kToLatest, &kToCurrent,
                                                  &kToOffset,   &kShiftBy,  &kToDatetime,
                                                  &kByDuration, &kFromFile};
    QStringList given, all;
    for (const auto *m : modes) {
        all << QStringLiteral("--") % m->names().constFirst();
        if (ctx.parser.isSet(*m))
            given << QStringLiteral("--") % m->names().constFirst();
    }
    if (given.size() != 1)
        return badInput((given.isEmpty()
                             ? QStringLiteral("choose one reset: ")
                             : QStringLiteral("choose only one of ") %
                                   given.join(QStringLiteral(", ")) % QStringLiteral(": one of ")) %
                        all.join(QStringLiteral(", ")));
    ResetRequest r;
    for (const QString &text : ctx.parser.values(kStreamPartition)) {
        bool ok = false;
        const qint64 p = text.trimmed().toLongLong(&ok);
        if (!ok)
            return badInput(
                QStringLiteral("--partition \"%1\": expected a partition number").arg(text));
        if (std::find(r.partitions.begin(), r.partitions.end(), p) == r.partitions.end())
            r.partitions.push_back(p);
    }
    if (ctx.parser.isSet(kToEarliest))
        r.kind = ResetRequest::Kind::ToEarliest;
    else if (ctx.parser.isSet(kToLatest))
        r.kind = ResetRequest::Kind::ToLatest;
    else if (ctx.parser.isSet(kToCurrent))
        r.kind = ResetRequest::Kind::ToCurrent;
    else if (ctx.parser.isSet(kToOffset) || ctx.parser.isSet(kShiftBy)) {
        const bool to = ctx.parser.isSet(kToOffset);
        auto n = integerOption(ctx, to ? kToOffset : kShiftBy);
        if (!n)
            return fail(n.error());
        r.kind = to ? ResetRequest::Kind::ToOffset : ResetRequest::Kind::ShiftBy;
        r.value = *n;
    } else if (ctx.parser.isSet(kToDatetime)) {
        auto ts = timeutil::parseTimestamp(ctx.parser.value(kToDatetime));
        if (!ts)
            return badInput(QStringLiteral("--to-datetime: ") % ts.error().message);
        r.kind = ResetRequest::Kind::ToDatetime;
        r.timestampMs = ts->toMSecsSinceEpoch();
    } else if (ctx.parser.isSet(kByDuration)) {
        auto ms = parseResetDuration(ctx.parser.value(kByDuration));
        if (!ms)
            return badInput(QStringLiteral("--by-duration: ") % ms.error().message);
        r.kind = ResetRequest::Kind::ToDatetime;
        r.timestampMs = QDateTime::currentMSecsSinceEpoch() - *ms;
    } else {
        auto rows = readResetCsv(ctx.parser.value(kFromFile), group, topic);
        if (!rows)
            return fail(rows.error());
        r.kind = ResetRequest::Kind::FromFile;
        r.fileOffsets = std::move(*rows);
    }
    return r;
}

Status runOffsetsReset(Context &ctx) {
    auto group = required(ctx, kGroupOpt);
    if (!group)
        return fail(group.error());
    if (auto st = required(ctx, kStreamOpt); !st)
        return fail(st.error());
    if (ctx.parser.isSet(kExport) && ctx.parser.value(kExport).isEmpty())
        return badInput(QStringLiteral("--export: no file given"));
    auto t = target(ctx);
    if (!t)
        return fail(t.error());
    auto request = resetRequest(ctx, *group, t->stream->source());
    if (!request)
        return fail(request.error());
    const bool execute = ctx.given(QStringLiteral("execute"));
    // An export that cannot be written is found before the reset is applied;
    // the file is replaced only once the plan is written whole.
    std::optional<QSaveFile> exportFile;
    if (ctx.parser.isSet(kExport)) {
        exportFile.emplace(ctx.parser.value(kExport));
        if (!exportFile->open(QIODevice::WriteOnly | QIODevice::Text))
            return badInput(QStringLiteral("--export %1: cannot write it (%2); nothing changed")
                                .arg(exportFile->fileName(), exportFile->errorString()));
    }
    auto plan = resetOffsets(t->ws.db, *t->stream, t->group, *request, execute);
    if (!plan)
        return fail(plan.error());
    if (exportFile && (exportFile->write(resetPlanCsv(*plan, t->stream->source()).toUtf8()) < 0 ||
                       !exportFile->commit()))
        return internalError(
            QStringLiteral("--export %1: cannot write it (%2)%3")
                .arg(exportFile->fileName(), exportFile->errorString(),
                     plan->executed ? QStringLiteral("; the reset itself was applied and audited")
                                    : QString()));
    if (ctx.json) {
        Json list = Json::array();
        const auto instant = [](const std::optional<qint64> &ms) {
            return ms ? Json(s(timeutil::isoUtcMs(*ms))) : Json();
        };
        for (const auto &p : plan->partitions) {
            Json o = {
                {"partition", p.partition}, {"current", p.current},
                {"new", p.newOffset},       {"log_start", p.logStart},
                {"log_end", p.logEnd},      {"clamped", p.clamped},
                {"stored", p.stored},       {"unreadable_timestamps", p.unreadableTimestamps}};
            if (!p.foundBy.isEmpty()) {
                o["found_by"] = s(p.foundBy);
                o["new_record_ts"] = instant(p.newRecordMs);
                o["previous_record_ts"] = instant(p.previousRecordMs);
            }
            list.push_back(o);
        }
        ctx.print({{"stream", s(plan->stream)},
                   {"group", s(plan->group)},
                   {"executed", plan->executed},
                   {"reset", s(plan->request)},
                   {"partitions", list}});
        return {};
    }
    ctx.out << "stream " << plan->stream << ", group " << plan->group << ": reset " << plan->request
            << "\n\n";
    TextTable table({QStringLiteral("PARTITION"), QStringLiteral("CURRENT"), QStringLiteral("NEW"),
                     QStringLiteral("LOG START"), QStringLiteral("LOG END"),
                     QStringLiteral("NOTE")},
                    {true, true, true, true, true, false});
    qint64 unreadable = 0;
    for (const auto &p : plan->partitions) {
        QStringList notes;
        if (p.clamped)
            notes << QStringLiteral("clamped to the log");
        if (p.unreadableTimestamps)
            notes << thousands(p.unreadableTimestamps) %
                         (p.unreadableTimestamps == 1 ? QStringLiteral(" event")
                                                      : QStringLiteral(" events")) %
                         QStringLiteral(" without a readable record_ts skipped");
        unreadable += p.unreadableTimestamps;
        if (!p.foundBy.isEmpty()) // the boundary: the record at the new offset and the one before
            notes << QStringLiteral("record ts %1, before it %2 (%3)")
                         .arg(p.newRecordMs ? timeutil::isoUtcMs(*p.newRecordMs)
                                            : QStringLiteral("none: log end"),
                              p.previousRecordMs ? timeutil::isoUtcMs(*p.previousRecordMs)
                                                 : QStringLiteral("none"),
                              p.foundBy == QLatin1String("broker")
                                  ? QStringLiteral("broker lookup")
                                  : QStringLiteral("record search"));
        table.add({QString::number(p.partition),
                   p.stored ? QString::number(p.current)
                            : QString::number(p.current) % QStringLiteral(" (new)"),
                   QString::number(p.newOffset), QString::number(p.logStart),
                   QString::number(p.logEnd), notes.join(QStringLiteral("; "))});
    }
    table.print(ctx.out);
    if (unreadable)
        ctx.out << "\nNote: " << thousands(unreadable)
                << (unreadable == 1 ? " event has" : " events have") << " a "
                << t->stream->logColumns.recordTs
                << " that is not ISO-8601 or epoch seconds (years 0000 to 9999): left out of "
                   "--to-datetime.\n";
    if (plan->partitions.empty())
        ctx.out << "Nothing to reset: the " << t->stream->sourceKind() << " " << t->stream->source()
                << " has no events and the group has no committed offsets.\n";
    else if (plan->executed)
        ctx.out << "\nApplied and audited.\n";
    else
        ctx.out << "\nDry run: nothing changed. Add --execute to apply it.\n";
    return {};
}

// --- replay ---------------------------------------------------------------------

Status runReplay(Context &ctx) {
    ReplayOptions options;
    if (ctx.parser.isSet(kMaxEvents)) {
        auto n = integerOption(ctx, kMaxEvents, 0);
        if (!n)
            return fail(n.error());
        options.maxEvents = *n;
    }
    auto batch = integerOption(ctx, kBatchSize, 1);
    if (!batch)
        return fail(batch.error());
    options.batchSize = *batch;
    options.execute = ctx.given(QStringLiteral("execute"));
    options.publishDeadLetters = ctx.parser.isSet(kDlqToTopic);
    if (ctx.parser.isSet(kReplayRate)) {
        bool ok = false;
        const double rate = ctx.parser.value(kReplayRate).toDouble(&ok);
        if (!ok || !(rate > 0))
            return badInput(QStringLiteral("--max-per-second \"%1\": expected a positive number")
                                .arg(ctx.parser.value(kReplayRate)));
        options.maxPerSecond = rate;
    }
    auto t = target(ctx);
    if (!t)
        return fail(t.error());
    const bool live = !ctx.json && ::isatty(STDERR_FILENO);
    if (live) {
        QTextStream *err = &ctx.err;
        options.progress = [err](const ReplayProgress &p) {
            *err << "\r\033[K[" << p.batchesDone << '/' << p.batchesTotal << "] "
                 << thousands(p.consumed) << " events, " << thousands(p.inserted) << " inserted, "
                 << thousands(p.duplicates) << " duplicates, " << thousands(p.deadLettered)
                 << " dead-lettered";
            err->flush();
        };
    }
    auto r = replay(t->ws.db, *t->stream, t->group, options);
    if (live)
        ctx.err << "\r\033[K";
    if (!r)
        return fail(r.error());
    if (ctx.json) {
        Json list = Json::array();
        for (const auto &p : r->partitions)
            list.push_back({{"partition", p.partition},
                            {"from", p.from},
                            {"to", p.to},
                            {"consumed", p.consumed}});
        ctx.print({{"stream", s(r->stream)},
                   {"group", s(r->group)},
                   {"executed", r->executed},
                   {"status", s(enumName(r->status))},
                   {"consumed", r->consumed},
                   {"inserted", r->inserted},
                   {"duplicates", r->duplicates},
                   {"dead_lettered", r->deadLettered},
                   {"already_dead_lettered", r->alreadyDeadLettered},
                   {"aborted_skipped", r->abortedSkipped},
                   {"published_dead_letters",
                    options.publishDeadLetters ? Json(r->publishedDeadLetters) : Json()},
                   {"partitions", list},
                   {"batches", r->batches},
                   {"replay_id", r->replayId ? Json(r->replayId) : Json(nullptr)},
                   {"sink_created", r->sinkCreated},
                   {"sink_columns_added", strings(r->sinkColumnsAdded)},
                   {"log_index_created", r->logIndexCreated},
                   {"seconds", r->seconds}});
        return {};
    }
    ctx.out << "stream " << r->stream << ", group " << r->group << ": "
            << (r->executed ? enumName(r->status) : QStringLiteral("dry run")) << "\n\n";
    TextTable table({QStringLiteral("PARTITION"), QStringLiteral("FROM"), QStringLiteral("TO"),
                     QStringLiteral("EVENTS")},
                    {true, true, true, true});
    for (const auto &p : r->partitions)
        table.add({QString::number(p.partition), QString::number(p.from), QString::number(p.to),
                   thousands(p.consumed)});
    table.print(ctx.out);
    const QString verb = r->executed ? QString() : QStringLiteral("would be ");
    ctx.out << '\n'
            << thousands(r->consumed) << " events " << (r->executed ? "consumed" : "to consume")
            << ": " << thousands(r->inserted) << ' ' << verb << "inserted, "
            << thousands(r->duplicates) << ' ' << verb << "skipped as duplicates, "
            << thousands(r->deadLettered) << ' ' << verb << "dead-lettered";
    if (r->alreadyDeadLettered)
        ctx.out << " (" << thousands(r->alreadyDeadLettered) << " already in the DLQ)";
    ctx.out << ".\n";
    if (r->abortedSkipped)
        ctx.out << thousands(r->abortedSkipped)
                << " records of aborted transactions passed over (committed records only are "
                   "read).\n";
    if (!r->sinkColumnsAdded.isEmpty())
        ctx.out << "Sink " << t->stream->sink << ": " << (r->executed ? "added" : "would add")
                << (r->sinkColumnsAdded.size() == 1 ? " column " : " columns ")
                << r->sinkColumnsAdded.join(QStringLiteral(", "))
                << " (on_schema_change append_new_columns).\n";
    if (options.publishDeadLetters && r->executed)
        ctx.out << thousands(r->publishedDeadLetters) << " dead letters produced to "
                << t->stream->kafka->dlqTopic << ".\n";
    if (r->executed)
        ctx.out << r->batches << (r->batches == 1 ? " batch in " : " batches in ")
                << QString::number(r->seconds, 'f', 2) << " s"
                << (r->sinkCreated ? QStringLiteral("; created the sink ") % t->stream->sink
                                   : QString())
                << ".\n";
    else
        ctx.out << "Dry run: nothing written. Add --execute to replay.\n";
    return {};
}

} // namespace

std::vector<Command> streamCommands() {
    return {
        {QStringLiteral("consumer-groups"),
         QStringLiteral("The consumer groups of a stream with their total lag."),
         withWorkspace({kStreamOpt}), runConsumerGroups},
        {QStringLiteral("offsets"),
         QStringLiteral(
             "A consumer group's committed offsets, log start, log end and lag per partition."),
         streamGroupOptions, runOffsets},
        {QStringLiteral("offsets-reset"),
         QStringLiteral(
             "Reset a group's offsets as kafka-consumer-groups does: a dry run unless --execute."),
         [](QCommandLineParser &p) {
             streamGroupOptions(p);
             p.addOptions({kToEarliest, kToLatest, kToCurrent, kToOffset, kShiftBy, kToDatetime,
                           kByDuration, kFromFile, kStreamPartition, kExport, kExecute});
         },
         runOffsetsReset},
        {QStringLiteral("replay"),
         QStringLiteral("Replay a stream from a group's offsets into its sink, each event_id once: "
                        "a dry run unless --execute."),
         [](QCommandLineParser &p) {
             streamGroupOptions(p);
             p.addOptions({kMaxEvents, kBatchSize, kReplayRate, kDlqToTopic, kExecute});
         },
         runReplay},
    };
}

} // namespace rw::cli
