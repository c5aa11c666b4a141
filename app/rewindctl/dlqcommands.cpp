// rewindctl dlq list, show, fix, validate, replay, discard, import.
#include "app/rewindctl/clisupport.h"
#include "core/dlq/dlq.h"
#include "core/dlq/kafkadlq.h"

#include <QFile>
#include <QStringBuilder>
#include <QStringDecoder>
#include <unistd.h>

namespace rw::cli {

namespace {

const QCommandLineOption kId({QStringLiteral("id")}, QStringLiteral("DLQ record id (repeatable)."),
                             QStringLiteral("ID"));
const QCommandLineOption kStatus({QStringLiteral("status")},
                                 QStringLiteral("Status: ") % enumNames<DlqStatus>() %
                                     QStringLiteral(" (repeatable, or comma-separated)."),
                                 QStringLiteral("S"));
const QCommandLineOption
    kErrorClass({QStringLiteral("error-class")},
                QStringLiteral("Error class, like invalid_json, missing_field, bad_value, "
                               "not_null, references (repeatable)."),
                QStringLiteral("C"));
const QCommandLineOption
    kSource({QStringLiteral("source")},
            QStringLiteral("Source: NAME, stream:NAME or dataset:NAME (repeatable)."),
            QStringLiteral("SRC"));
const QCommandLineOption
    kSince({QStringLiteral("since")},
           QStringLiteral("First seen at or after T (ISO-8601 or epoch seconds)."),
           QStringLiteral("T"));
const QCommandLineOption kUntil({QStringLiteral("until")}, QStringLiteral("First seen before T."),
                                QStringLiteral("T"));
const QCommandLineOption kSignature({QStringLiteral("signature")},
                                    QStringLiteral("Error signature, as dlq list shows it."),
                                    QStringLiteral("SIG"));
const QCommandLineOption kLimit({QStringLiteral("limit")},
                                QStringLiteral("At most N records in the output (default 100)."),
                                QStringLiteral("N"), QStringLiteral("100"));
const QCommandLineOption
    kSet({QStringLiteral("set")},
         QStringLiteral("JSONPATH=VALUE: set a path in the payload; VALUE is read as JSON when it "
                        "parses, else as a string (repeatable)."),
         QStringLiteral("PATH=VALUE"));
const QCommandLineOption kPayloadFile(
    {QStringLiteral("payload-file")},
    QStringLiteral("Replace the payload of one record with this file's bytes (must be JSON)."),
    QStringLiteral("F"));
const QCommandLineOption kReason({QStringLiteral("reason")},
                                 QStringLiteral("Why: kept in the record's history."),
                                 QStringLiteral("TEXT"));
const QCommandLineOption kBatchSize({QStringLiteral("batch-size")},
                                    QStringLiteral("Records per transaction (default 500)."),
                                    QStringLiteral("N"), QStringLiteral("500"));
const QCommandLineOption
    kMaxPerSecond({QStringLiteral("max-per-second")},
                  QStringLiteral("Velocity: replay at most R records per second."),
                  QStringLiteral("R"));
const QCommandLineOption
    kToTopic({QStringLiteral("to-topic")},
             QStringLiteral("Produce the records to Kafka instead of the sink: to TOPIC, or "
                            "without it to each record's original topic."),
             QStringLiteral("TOPIC"));
const QCommandLineOption
    kImportStream({QStringLiteral("stream")},
                  QStringLiteral("The Kafka stream whose kafka.dlq_topic to import."),
                  QStringLiteral("S"));
const QCommandLineOption kImportBatch({QStringLiteral("batch-size")},
                                      QStringLiteral("Records per transaction (default 5000)."),
                                      QStringLiteral("N"), QStringLiteral("5000"));
const QCommandLineOption
    kPayloadOut({QStringLiteral("payload-out")},
                QStringLiteral("Write the current payload's bytes to this file."),
                QStringLiteral("F"));
const QCommandLineOption
    kOriginalOut({QStringLiteral("original-out")},
                 QStringLiteral("Write the original payload's bytes to this file."),
                 QStringLiteral("F"));

void selectionOptions(QCommandLineParser &p) {
    workspaceOptions(p);
    p.addOptions({kId, kStatus, kErrorClass, kSource, kSince, kUntil, kSignature});
}

QStringList listValues(const Context &ctx, const QCommandLineOption &o) {
    QStringList out;
    for (const QString &v : ctx.parser.values(o))
        for (const QString &part : v.split(u',', Qt::SkipEmptyParts))
            out << part.trimmed();
    return out;
}

Result<DlqSelection> selection(const Context &ctx) {
    DlqSelection s;
    for (const QString &text : ctx.parser.values(kId)) {
        bool ok = false;
        const qint64 id = text.toLongLong(&ok);
        if (!ok || id <= 0)
            return badInput(
                QStringLiteral("--id \"%1\": expected a record id (a positive number)").arg(text));
        s.ids << id;
    }
    s.statuses = listValues(ctx, kStatus);
    s.errorClasses = listValues(ctx, kErrorClass);
    s.sources = listValues(ctx, kSource);
    s.since = ctx.parser.value(kSince);
    s.until = ctx.parser.value(kUntil);
    s.signature = ctx.parser.value(kSignature);
    return s;
}

bool validUtf8(const QByteArray &bytes) {
    QStringDecoder decoder(QStringDecoder::Utf8, QStringDecoder::Flag::Stateless);
    const QString text = decoder.decode(bytes); // EncodedData converts only when assigned
    Q_UNUSED(text);
    return !decoder.hasError();
}

// Bytes in JSON: text when they are UTF-8; otherwise null plus NAME_base64.
void putBytes(Json &o, const std::string &name, const std::optional<QByteArray> &bytes) {
    if (!bytes) {
        o[name] = nullptr;
        return;
    }
    if (validUtf8(*bytes)) {
        o[name] = bytes->toStdString();
        return;
    }
    o[name] = nullptr;
    o[name + "_base64"] = bytes->toBase64().toStdString();
}

QString shown(const std::optional<QByteArray> &bytes, int max = 0) {
    if (!bytes)
        return QStringLiteral("(null)");
    if (!validUtf8(*bytes))
        return QStringLiteral("(%1 bytes, not UTF-8; base64) ").arg(bytes->size()) %
               QString::fromLatin1(bytes->left(max > 0 ? max : bytes->size()).toBase64());
    const QString text = QString::fromUtf8(*bytes);
    return max > 0 && text.size() > max
               ? QString(text.left(max) % QStringLiteral("… (") % thousands(bytes->size()) %
                         QStringLiteral(" bytes)"))
               : text;
}

Json keyJson(const std::optional<QString> &key) {
    if (!key)
        return nullptr;
    Json parsed = Json::parse(key->toStdString(), nullptr, false);
    return parsed.is_discarded() ? Json(s(*key)) : parsed;
}

Json recordJson(const DlqRecord &r) {
    return {{"id", r.id},
            {"source", s(r.source())},
            {"source_kind", s(r.sourceKind)},
            {"source_name", s(r.sourceName)},
            {"partition", nullable(r.partition)},
            {"offset", r.offset ? Json(*r.offset) : Json(nullptr)},
            {"event_id", nullable(r.eventId)},
            {"key", keyJson(r.key)},
            {"error_class", s(r.errorClass)},
            {"error", s(r.error)},
            {"signature", s(r.signature)},
            {"status", s(enumName(r.status))},
            {"attempts", r.attempts},
            {"first_seen", s(r.firstSeen)},
            {"last_attempt_at", nullable(r.lastAttemptAt)},
            {"last_error_class", nullable(r.lastErrorClass)},
            {"last_error", nullable(r.lastError)},
            {"original_bytes", r.originalBytes},
            {"payload_bytes", r.payloadBytes},
            {"payload_changed", r.payloadChanged}};
}

QString where(const DlqRecord &r) {
    QString w = r.partition.value_or(QStringLiteral("-"));
    if (r.offset)
        w += u'@' % QString::number(*r.offset);
    return w;
}

Json statusCounts(const std::vector<std::pair<DlqStatus, qint64>> &counts) {
    Json o = Json::object();
    for (const auto &[status, n] : counts)
        o[s(enumName(status))] = n;
    return o;
}

Status runList(Context &ctx) {
    auto sel = selection(ctx);
    if (!sel)
        return fail(sel.error());
    auto limit = intOption(ctx, kLimit, 1, 1000000);
    if (!limit)
        return fail(limit.error());
    auto ws = workspace(ctx);
    if (!ws)
        return fail(ws.error());
    auto r = listDlq(ws->db, *sel, *limit);
    if (!r)
        return fail(r.error());
    if (ctx.json) {
        Json records = Json::array();
        for (const auto &rec : r->records)
            records.push_back(recordJson(rec));
        Json groups = Json::array();
        for (const auto &g : r->groups)
            groups.push_back({{"error_class", s(g.errorClass)},
                              {"signature", s(g.signature)},
                              {"example", s(g.example)},
                              {"count", g.count},
                              {"by_status", statusCounts(g.byStatus)}});
        ctx.print({{"total", r->total},
                   {"by_status", statusCounts(r->byStatus)},
                   {"records", records},
                   {"groups", groups}});
        return {};
    }
    if (r->total == 0) { // no table of headings over nothing
        ctx.out << "0 records.\n";
        return {};
    }
    TextTable table({QStringLiteral("ID"), QStringLiteral("SOURCE"), QStringLiteral("WHERE"),
                     QStringLiteral("EVENT/KEY"), QStringLiteral("CLASS"), QStringLiteral("STATUS"),
                     QStringLiteral("ATTEMPTS"), QStringLiteral("FIRST SEEN"),
                     QStringLiteral("ERROR")},
                    {true, false, false, false, false, false, true, false, false});
    for (const auto &rec : r->records)
        table.add({QString::number(rec.id), rec.source(), where(rec),
                   rec.eventId.value_or(rec.key.value_or(QString())), rec.errorClass,
                   enumName(rec.status), QString::number(rec.attempts), rec.firstSeen,
                   (rec.lastError ? *rec.lastError : rec.error).left(80)});
    table.print(ctx.out);
    ctx.out << '\n' << thousands(r->total) << (r->total == 1 ? " record" : " records");
    if (qint64(r->records.size()) < r->total)
        ctx.out << " (first " << r->records.size() << " shown; --limit N)";
    QStringList counts;
    for (const auto &[status, n] : r->byStatus)
        counts << enumName(status) % u' ' % thousands(n);
    ctx.out << (counts.isEmpty()
                    ? QString()
                    : QString(QStringLiteral(": ") % counts.join(QStringLiteral(", "))))
            << "\n\nBy error signature:\n";
    TextTable groups(
        {QStringLiteral("COUNT"), QStringLiteral("SIGNATURE"), QStringLiteral("STATUSES")},
        {true, false, false});
    for (const auto &g : r->groups) {
        QStringList st;
        for (const auto &[status, n] : g.byStatus)
            st << enumName(status) % u' ' % thousands(n);
        groups.add({thousands(g.count), g.signature, st.join(QStringLiteral(", "))});
    }
    groups.print(ctx.out);
    return {};
}

Status writeBytes(const QString &path, const std::optional<QByteArray> &bytes) {
    QFile f(path);
    if (!f.open(QIODevice::WriteOnly | QIODevice::Truncate))
        return badInput(QStringLiteral("cannot write %1: %2").arg(path, f.errorString()));
    if (bytes && f.write(*bytes) != bytes->size())
        return internalError(QStringLiteral("cannot write %1: %2").arg(path, f.errorString()));
    return {};
}

Status runShow(Context &ctx) {
    bool ok = false;
    const qint64 id = ctx.parser.value(kId).toLongLong(&ok);
    if (ctx.parser.values(kId).size() != 1 || !ok)
        return badInput(
            QStringLiteral("give exactly one --id ID (a record id, see rewindctl dlq list)"));
    auto ws = workspace(ctx);
    if (!ws)
        return fail(ws.error());
    auto d = showDlq(ws->db, id);
    if (!d)
        return fail(d.error());
    if (ctx.given(QStringLiteral("payload-out")))
        if (auto w = writeBytes(ctx.parser.value(kPayloadOut), d->payload); !w)
            return w;
    if (ctx.given(QStringLiteral("original-out")))
        if (auto w = writeBytes(ctx.parser.value(kOriginalOut), d->originalPayload); !w)
            return w;
    if (ctx.json) {
        Json doc = recordJson(d->record);
        putBytes(doc, "original_payload", d->originalPayload);
        putBytes(doc, "payload", d->payload);
        Json history = Json::array();
        for (const auto &h : d->history) {
            Json e = {{"at", s(h.at)},
                      {"os_user", s(h.osUser)},
                      {"action", s(h.action)},
                      {"from_status", nullable(h.fromStatus)},
                      {"to_status", nullable(h.toStatus)},
                      {"reason", nullable(h.reason)}};
            putBytes(e, "payload_before", h.payloadBefore);
            putBytes(e, "payload_after", h.payloadAfter);
            history.push_back(std::move(e));
        }
        doc["history"] = std::move(history);
        if (d->kafka) {
            const DlqKafkaRecord &k = *d->kafka;
            Json kafka = {{"topic", s(k.topic)},
                          {"partition",
                           d->record.partition ? Json(d->record.partition->toLongLong()) : Json()},
                          {"offset", d->record.offset ? Json(*d->record.offset) : Json()},
                          {"dlq_topic", nullable(k.dlqTopic)},
                          {"dlq_partition", k.dlqPartition >= 0 ? Json(k.dlqPartition) : Json()},
                          {"dlq_offset", k.dlqOffset >= 0 ? Json(k.dlqOffset) : Json()}};
            putBytes(kafka, "key", k.key);
            Json headers = Json::array();
            for (const auto &[name, value] : k.headers) {
                Json hdr = {{"name", s(name)}};
                putBytes(hdr, "value", value);
                headers.push_back(std::move(hdr));
            }
            kafka["headers"] = std::move(headers);
            doc["kafka"] = std::move(kafka);
        }
        ctx.print({{"record", doc}});
        return {};
    }
    const DlqRecord &r = d->record;
    ctx.out << "Record " << r.id << ": " << enumName(r.status) << ", " << r.attempts
            << " attempts\n"
            << "  source     " << r.source() << "  " << where(r) << '\n'
            << "  event/key  " << r.eventId.value_or(r.key.value_or(QStringLiteral("-"))) << '\n'
            << "  error      " << r.errorClass << ": " << r.error << '\n';
    if (r.lastError)
        ctx.out << "  last error " << r.lastErrorClass.value_or(QString()) << ": " << *r.lastError
                << '\n';
    ctx.out << "  first seen " << r.firstSeen << '\n';
    if (d->kafka) {
        const DlqKafkaRecord &k = *d->kafka;
        ctx.out << "  kafka      " << k.topic << " [" << r.partition.value_or(QStringLiteral("?"))
                << "] @" << (r.offset ? QString::number(*r.offset) : QStringLiteral("?"));
        if (k.dlqTopic)
            ctx.out << ", imported from " << *k.dlqTopic << " [" << k.dlqPartition << "] @"
                    << k.dlqOffset;
        ctx.out << "\n  key        " << (k.key ? shown(k.key, 200) : QStringLiteral("(none)"))
                << '\n';
        for (const auto &[name, value] : k.headers)
            ctx.out << "  header     " << name << " = "
                    << (value ? shown(value, 200) : QStringLiteral("(null)")) << '\n';
    }
    ctx.out << "\nOriginal payload (" << thousands(r.originalBytes) << " bytes):\n  "
            << shown(d->originalPayload, 2000) << '\n';
    if (r.payloadChanged)
        ctx.out << "\nCurrent payload (" << thousands(r.payloadBytes) << " bytes):\n  "
                << shown(d->payload, 2000) << '\n';
    ctx.out << "\nHistory:\n";
    for (const auto &h : d->history) {
        ctx.out << "  " << h.at << "  " << h.osUser << "  " << h.action << "  "
                << h.fromStatus.value_or(QStringLiteral("-")) << " -> "
                << h.toStatus.value_or(QStringLiteral("-"));
        if (h.reason)
            ctx.out << "  " << *h.reason;
        ctx.out << '\n';
    }
    return {};
}

Json changeJson(const DlqChange &c) {
    Json o = {{"id", c.id}};
    putBytes(o, "before", c.before);
    putBytes(o, "after", c.after);
    return o;
}

Status runFix(Context &ctx) {
    auto sel = selection(ctx);
    if (!sel)
        return fail(sel.error());
    DlqFixRequest request;
    request.selection = *sel;
    request.reason = ctx.parser.value(kReason);
    request.execute = ctx.given(QStringLiteral("execute"));
    for (const QString &set : ctx.parser.values(kSet)) {
        const qsizetype eq = set.indexOf(u'=');
        if (eq <= 0)
            return badInput(
                QStringLiteral("--set \"%1\": expected JSONPATH=VALUE, like $.amount=12.5")
                    .arg(set));
        request.sets.emplace_back(set.left(eq), set.mid(eq + 1));
    }
    if (ctx.given(QStringLiteral("payload-file"))) {
        QFile f(ctx.parser.value(kPayloadFile));
        if (!f.open(QIODevice::ReadOnly))
            return badInput(
                QStringLiteral("--payload-file %1: %2").arg(f.fileName(), f.errorString()));
        request.payload = f.readAll();
    }
    auto ws = workspace(ctx);
    if (!ws)
        return fail(ws.error());
    auto r = fixDlq(ws->db, request);
    if (!r)
        return fail(r.error());
    if (ctx.json) {
        Json samples = Json::array();
        for (const auto &c : r->samples)
            samples.push_back(changeJson(c));
        ctx.print({{"executed", r->executed},
                   {"selected", r->selected},
                   {"changed", r->changed},
                   {"fixed", r->executed ? r->selected : 0},
                   {"samples", samples}});
        return {};
    }
    ctx.out << (r->executed ? "Fixed " : "Would fix ") << thousands(r->selected) << " records ("
            << thousands(r->changed) << " payloads change).\n";
    for (const auto &c : r->samples)
        ctx.out << "\n  " << c.id << " before: " << shown(c.before, 300) << "\n  " << c.id
                << " after:  " << shown(c.after, 300) << '\n';
    if (!r->executed)
        ctx.out << "\nDry run: nothing changed. Add --execute to apply.\n";
    return {};
}

Json replayJson(const DlqReplayResult &r) {
    Json records = Json::array();
    for (const auto &v : r.records)
        records.push_back({{"id", v.id},
                           {"source", s(v.source)},
                           {"status", s(enumName(v.status))},
                           {"valid", v.valid},
                           {"already_landed", v.alreadyLanded},
                           {"error_class", v.valid ? Json(nullptr) : Json(s(v.errorClass))},
                           {"error", v.valid ? Json(nullptr) : Json(s(v.error))}});
    Json failures = Json::object();
    for (const auto &[c, n] : r.failuresByClass)
        failures[s(c)] = n;
    return {{"executed", r.executed},
            {"status", s(enumName(r.status))},
            {"selected", r.selected},
            {"replayed", r.replayed},
            {"failed", r.failed},
            {"skipped", r.skipped},
            {"already_landed", r.alreadyLanded},
            {"inserted", r.inserted},
            {"updated", r.updated},
            {"batches", r.batches},
            {"seconds", r.seconds},
            {"per_second", r.seconds > 0 ? (r.replayed + r.failed) / r.seconds : 0.0},
            {"failures_by_class", failures},
            {"records", records}};
}

Status runReplayOrValidate(Context &ctx, bool validateOnly) {
    auto sel = selection(ctx);
    if (!sel)
        return fail(sel.error());
    DlqReplayOptions o;
    o.execute = !validateOnly && ctx.given(QStringLiteral("execute"));
    auto batch = intOption(ctx, kBatchSize, 1, 1000000);
    if (!batch)
        return fail(batch.error());
    o.batchSize = *batch;
    auto limit = intOption(ctx, kLimit, 1, 1000000);
    if (!limit)
        return fail(limit.error());
    o.maxRecords = *limit;
    if (!validateOnly && ctx.given(QStringLiteral("max-per-second"))) {
        bool ok = false;
        const double rate = ctx.parser.value(kMaxPerSecond).toDouble(&ok);
        if (!ok || !(rate > 0))
            return badInput(QStringLiteral("--max-per-second \"%1\": expected a positive number")
                                .arg(ctx.parser.value(kMaxPerSecond)));
        o.maxPerSecond = rate;
    }
    if (!ctx.json && ::isatty(STDERR_FILENO)) {
        QTextStream *err = &ctx.err;
        o.progress = [err](const DlqReplayProgress &p) {
            *err << "\r\033[K[batch " << p.batchesDone << "] " << thousands(p.processed) << '/'
                 << thousands(p.selected) << " records, " << thousands(p.replayed) << " replayed, "
                 << thousands(p.failed) << " failed";
            err->flush();
        };
    }
    auto ws = workspace(ctx);
    if (!ws)
        return fail(ws.error());
    auto r = replayDlq(ws->db, ws->spec, *sel, o);
    if (!r)
        return fail(r.error());
    if (ctx.json) {
        Json doc = replayJson(*r);
        if (validateOnly) {
            doc.erase("executed");
            doc.erase("status");
            doc["valid"] = r->replayed;
            doc["invalid"] = r->failed;
        }
        ctx.print(doc);
        return {};
    }
    if (o.progress)
        ctx.err << "\r\033[K";
    TextTable table({QStringLiteral("ID"), QStringLiteral("SOURCE"), QStringLiteral("STATUS"),
                     QStringLiteral("VERDICT"), QStringLiteral("WHY")},
                    {true, false, false, false, false});
    for (const auto &v : r->records)
        table.add({QString::number(v.id), v.source, enumName(v.status),
                   v.valid ? (v.alreadyLanded ? QStringLiteral("ok (already landed)")
                                              : QStringLiteral("ok"))
                           : QStringLiteral("fails"),
                   v.valid ? QString() : QString(v.errorClass % QStringLiteral(": ") % v.error)});
    table.print(ctx.out);
    const char *verb = r->executed ? "replayed" : "would replay";
    ctx.out << '\n'
            << thousands(r->selected) << " selected: " << thousands(r->replayed) << ' ' << verb
            << " (" << thousands(r->alreadyLanded) << " already landed), " << thousands(r->failed)
            << (r->executed ? " failed" : " would fail") << ", " << thousands(r->skipped)
            << " skipped (replayed or discarded)\n";
    if (r->executed)
        ctx.out << thousands(r->inserted) << " rows inserted, " << thousands(r->updated)
                << " updated, in " << r->batches << (r->batches == 1 ? " batch, " : " batches, ")
                << QString::number(r->seconds, 'f', 1) << " s (" << enumName(r->status) << ")\n";
    else if (!validateOnly)
        ctx.out << "\nDry run: nothing changed. Add --execute to replay.\n";
    return {};
}

Status runValidate(Context &ctx) {
    return runReplayOrValidate(ctx, true);
}

// dlq replay --to-topic [TOPIC]: produce to Kafka.
Status runRedrive(Context &ctx) {
    auto sel = selection(ctx);
    if (!sel)
        return fail(sel.error());
    DlqProduceOptions o;
    o.execute = ctx.given(QStringLiteral("execute"));
    o.topic = ctx.parser.value(kToTopic).trimmed();
    auto batch = intOption(ctx, kBatchSize, 1, 1000000);
    if (!batch)
        return fail(batch.error());
    o.batchSize = *batch;
    if (ctx.given(QStringLiteral("max-per-second"))) {
        bool ok = false;
        const double rate = ctx.parser.value(kMaxPerSecond).toDouble(&ok);
        if (!ok || !(rate > 0))
            return badInput(QStringLiteral("--max-per-second \"%1\": expected a positive number")
                                .arg(ctx.parser.value(kMaxPerSecond)));
        o.maxPerSecond = rate;
    }
    if (!ctx.json && ::isatty(STDERR_FILENO)) {
        QTextStream *err = &ctx.err;
        o.progress = [err](const DlqProduceProgress &p) {
            *err << "\r\033[K[batch " << p.batchesDone << "] " << thousands(p.produced) << '/'
                 << thousands(p.selected) << " produced, " << thousands(p.failed) << " failed";
            err->flush();
        };
    }
    auto ws = workspace(ctx);
    if (!ws)
        return fail(ws.error());
    auto r = produceDlq(ws->db, ws->spec, *sel, o);
    if (!r)
        return fail(r.error());
    if (ctx.json) {
        Json topics = Json::object();
        for (const auto &[topic, n] : r->byTopic)
            topics[s(topic)] = n;
        Json records = Json::array();
        for (const DlqProduced &p : r->records) {
            Json one = {{"id", p.id}, {"topic", s(p.topic)}};
            if (p.partition >= 0) {
                one["partition"] = p.partition;
                one["offset"] = p.offset;
            } else if (!p.error.isEmpty()) {
                one["error"] = s(p.error);
            }
            records.push_back(one);
        }
        ctx.print({{"executed", r->executed},
                   {"status", r->cancelled  ? "cancelled"
                              : r->executed ? "succeeded"
                                            : "dry_run"},
                   {"selected", r->selected},
                   {"replayed", r->produced},
                   {"failed", r->failed},
                   {"skipped", r->skipped},
                   {"batches", r->batches},
                   {"topics", topics},
                   {"records", records}});
        return {};
    }
    if (o.progress)
        ctx.err << "\r\033[K";
    TextTable table({QStringLiteral("TOPIC"), QStringLiteral("RECORDS")}, {false, true});
    for (const auto &[topic, n] : r->byTopic)
        table.add({topic, thousands(n)});
    table.print(ctx.out);
    ctx.out << '\n'
            << thousands(r->selected) << " selected: " << thousands(r->produced)
            << (r->executed ? " produced and acknowledged" : " would be produced") << ", "
            << thousands(r->failed) << " refused by the broker, " << thousands(r->skipped)
            << " skipped (replayed or discarded)\n";
    if (!r->executed)
        ctx.out << "\nDry run: nothing produced. Add --execute to produce.\n";
    return {};
}

Status runReplay(Context &ctx) {
    return ctx.parser.isSet(kToTopic) ? runRedrive(ctx) : runReplayOrValidate(ctx, false);
}

Status runImport(Context &ctx) {
    if (!ctx.parser.isSet(kImportStream) || ctx.parser.value(kImportStream).isEmpty())
        return badInput(QStringLiteral(
            "dlq import needs --stream S: the Kafka stream whose kafka.dlq_topic to read"));
    DlqImportOptions o;
    o.execute = ctx.given(QStringLiteral("execute"));
    auto batch = intOption(ctx, kImportBatch, 1, 1000000);
    if (!batch)
        return fail(batch.error());
    o.batchSize = *batch;
    if (!ctx.json && ::isatty(STDERR_FILENO)) {
        QTextStream *err = &ctx.err;
        o.progress = [err](const DlqImportProgress &p) {
            *err << "\r\033[K" << thousands(p.read) << '/' << thousands(p.total) << " records read";
            err->flush();
        };
    }
    auto ws = workspace(ctx);
    if (!ws)
        return fail(ws.error());
    auto stream = ws->spec.requireStream(ctx.parser.value(kImportStream));
    if (!stream)
        return fail(stream.error());
    auto r = importDlqTopic(ws->db, **stream, o);
    if (!r)
        return fail(r.error());
    if (ctx.json) {
        Json parts = Json::array();
        for (const DlqImportPartition &p : r->partitions)
            parts.push_back({{"partition", p.partition}, {"from", p.from}, {"to", p.to}});
        ctx.print({{"stream", s(r->stream)},
                   {"topic", s(r->topic)},
                   {"executed", r->executed},
                   {"imported", r->imported},
                   {"already_imported", r->alreadyImported},
                   {"partitions", parts}});
        return {};
    }
    if (o.progress)
        ctx.err << "\r\033[K";
    ctx.out << "stream " << r->stream << ", dead-letter topic " << r->topic << "\n\n";
    TextTable table({QStringLiteral("PARTITION"), QStringLiteral("FROM"), QStringLiteral("TO")},
                    {true, true, true});
    for (const DlqImportPartition &p : r->partitions)
        table.add({QString::number(p.partition), thousands(p.from), thousands(p.to)});
    table.print(ctx.out);
    ctx.out << '\n'
            << thousands(r->imported) << (r->executed ? " records imported" : " records to read")
            << ", " << thousands(r->alreadyImported) << " imported before"
            << (r->cancelled ? " (cancelled)" : "") << '\n';
    if (!r->executed)
        ctx.out << "\nDry run: nothing imported. Add --execute to import.\n";
    return {};
}

Status runDiscard(Context &ctx) {
    auto sel = selection(ctx);
    if (!sel)
        return fail(sel.error());
    auto ws = workspace(ctx);
    if (!ws)
        return fail(ws.error());
    auto r =
        discardDlq(ws->db, *sel, ctx.parser.value(kReason), ctx.given(QStringLiteral("execute")));
    if (!r)
        return fail(r.error());
    if (ctx.json) {
        Json ids = Json::array();
        for (qint64 id : r->ids)
            ids.push_back(id);
        ctx.print({{"executed", r->executed},
                   {"selected", r->selected},
                   {"discarded", r->executed ? r->selected : 0},
                   {"ids", ids}});
        return {};
    }
    QStringList ids;
    for (qint64 id : r->ids)
        ids << QString::number(id);
    ctx.out << (r->executed ? "Discarded " : "Would discard ") << thousands(r->selected)
            << " records: " << ids.join(QStringLiteral(", "))
            << (r->selected > r->ids.size() ? QStringLiteral(", …") : QString()) << '\n';
    if (!r->executed)
        ctx.out << "Dry run: nothing changed. Add --execute to apply.\n";
    return {};
}

} // namespace

std::vector<Command> dlqCommands() {
    return {
        {QStringLiteral("dlq list"),
         QStringLiteral("Dead-letter records by status, error class, source and time; groups by "
                        "error signature."),
         [](QCommandLineParser &p) {
             selectionOptions(p);
             p.addOption(kLimit);
         },
         runList},
        {QStringLiteral("dlq show"),
         QStringLiteral("One dead-letter record: original and current payload, full history."),
         withWorkspace({kId, kPayloadOut, kOriginalOut}), runShow},
        {QStringLiteral("dlq fix"),
         QStringLiteral(
             "Edit payloads (--set JSONPATH=VALUE or --payload-file); status becomes fixed."),
         [](QCommandLineParser &p) {
             selectionOptions(p);
             p.addOptions({kSet, kPayloadFile, kReason, kExecute});
         },
         runFix},
        {QStringLiteral("dlq validate"),
         QStringLiteral("Run replay's checks on a selection and say which would pass and why not. "
                        "Changes nothing."),
         [](QCommandLineParser &p) {
             selectionOptions(p);
             p.addOptions({kBatchSize, kLimit});
         },
         runValidate},
        {QStringLiteral("dlq replay"),
         QStringLiteral(
             "Re-ingest fixed records in batches, idempotently, with an optional velocity limit."),
         [](QCommandLineParser &p) {
             selectionOptions(p);
             p.addOptions({kBatchSize, kMaxPerSecond, kLimit, kToTopic, kExecute});
         },
         runReplay,
         {QStringLiteral("--to-topic")}},
        {QStringLiteral("dlq import"),
         QStringLiteral("Import a Kafka stream's dead-letter topic (kafka.dlq_topic, e.g. a Kafka "
                        "Connect DLQ) into the DLQ."),
         [](QCommandLineParser &p) {
             workspaceOptions(p);
             p.addOptions({kImportStream, kImportBatch, kExecute});
         },
         runImport},
        {QStringLiteral("dlq discard"),
         QStringLiteral(
             "Mark records discarded, with a reason. They are kept, with their history."),
         [](QCommandLineParser &p) {
             selectionOptions(p);
             p.addOptions({kReason, kExecute});
         },
         runDiscard},
    };
}

} // namespace rw::cli
