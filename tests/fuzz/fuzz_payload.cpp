// Fuzzes the payload path with untrusted bytes, as they arrive from a stream
// log or from an operator's fix:
//   stream replay (valid events to the sink, invalid ones dead-lettered),
//   show (bytes kept byte for byte), list (error signatures in SQL and C++),
//   fix by JSON path (an input starting with '$' supplies PATH=VALUE on its
//   first line, the rest is the payload) and by whole payload (nlohmann and
//   SQLite's json_valid), validate (dry-run replay) and replay of a stream
//   record and of a dataset record (merged into its target by key).
// Must hold for every input:
// - no crash, no sanitizer report, no exception escaping;
// - each event lands exactly once: in the sink, or in the DLQ;
// - the DLQ keeps the bytes as given;
// - a refused fix is BadInput and changes nothing; nothing is Internal.
#include "core/dlq/dlq.h"
#include "core/sql/database.h"
#include "core/streams/replay.h"
#include "core/workspace/workspace.h"
#include "tests/fuzz/fuzzsupport.h"

#include <QByteArray>
#include <QDir>
#include <QFile>
#include <cstddef>
#include <cstdint>

using namespace rw;

namespace {

// Never destroyed: its connection must not outlive the QCoreApplication at exit.
Workspace *g_ws = nullptr;
qint64 g_offset = 0;

const QByteArray kSpec = R"({
  "datasets": {"orders_daily": {"source": "orders", "target": "orders_out", "key": ["id"],
    "checks": [{"type": "not_null", "columns": ["amount"], "on_fail": "quarantine"}]}},
  "streams": {"ev": {"log": "ev_log", "sink": "ev_sink",
    "fields": {"order_id": "$.order_id", "amount": "$.amount", "note": "$.note"}, "required": ["order_id", "amount"]}}
})";

const Database &db() {
    return g_ws->db;
}

QVariant scalar(const QString &sql, const QVariantList &binds = {}) {
    auto v = db().scalar(sql, binds);
    if (!v)
        fuzzsupport::violated("query failed", v.error().message);
    return *v;
}

template <typename T> T ok(Result<T> r, const char *what) {
    if (!r)
        fuzzsupport::violated(what, r.error().message);
    return std::move(*r);
}

void okOrBadInput(const Error &e, const char *what) {
    if (e.code != Error::Code::BadInput || e.message.trimmed().isEmpty())
        fuzzsupport::violated(what, QStringLiteral("not a clean BadInput: ") + e.message);
}

QString dlqState(qint64 a, qint64 b) {
    return scalar(QStringLiteral(
                      "SELECT group_concat(dlq_id || status || attempts || hex(payload), ',') || "
                      "(SELECT COUNT(*) FROM rewind_dlq_history WHERE dlq_id IN (?, ?)) FROM "
                      "rewind_dlq WHERE dlq_id IN (?, ?)"),
                  {a, b, a, b})
        .toString();
}

} // namespace

extern "C" int LLVMFuzzerInitialize(int *argc, char ***argv) {
    fuzzsupport::init(argc, argv);
    const QDir dir(fuzzsupport::scratchDir());
    const QString dbPath = dir.filePath(QStringLiteral("payload.db"));
    {
        auto created = Database::open(dbPath, Database::OpenMode::CreateIfMissing);
        if (!created)
            fuzzsupport::violated("cannot create the database", created.error().message);
        if (auto s = created->execAll({
                QStringLiteral("CREATE TABLE orders (id INTEGER PRIMARY KEY, amount REAL)"),
                QStringLiteral("CREATE TABLE orders_out (id INTEGER PRIMARY KEY, amount REAL)"),
                QStringLiteral("CREATE TABLE ev_log (partition_id INTEGER, log_offset INTEGER, "
                               "event_id TEXT, record_ts TEXT, payload TEXT)"),
            });
            !s)
            fuzzsupport::violated("cannot create the tables", s.error().message);
    }
    QFile spec(dir.filePath(QStringLiteral("spec.json")));
    if (!spec.open(QIODevice::WriteOnly) || spec.write(kSpec) != kSpec.size())
        fuzzsupport::violated("cannot write the spec");
    spec.close();
    auto ws = openWorkspace(dbPath, spec.fileName());
    if (!ws)
        fuzzsupport::violated("cannot open the workspace", ws.error().message);
    g_ws = new Workspace(std::move(*ws));
    // A scratch database on a RAM disk: durability is not what is fuzzed here.
    (void)db().exec(QStringLiteral("PRAGMA synchronous = OFF"));
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size) {
    const QByteArray input(reinterpret_cast<const char *>(data), qsizetype(size));
    QByteArray payload = input;
    std::pair<QString, QString> set{QStringLiteral("$.amount"), QStringLiteral("12.5")};
    if (input.startsWith('$')) {
        const qsizetype newline = input.indexOf('\n');
        const QString line = QString::fromUtf8(input.left(newline < 0 ? input.size() : newline));
        const qsizetype eq = line.indexOf(u'=');
        set = {line.left(eq < 0 ? line.size() : eq), eq < 0 ? QString() : line.mid(eq + 1)};
        payload = newline < 0 ? QByteArray("") : input.mid(newline + 1);
    }
    const QString eventId = QStringLiteral("e%1").arg(++g_offset);

    // 1. A stream event: into the sink or the DLQ, exactly once.
    if (auto s = db().exec(
            QStringLiteral("INSERT INTO ev_log VALUES (0, ?, ?, '2025-05-06T10:00:00Z', ?)"),
            {g_offset, eventId, payload});
        !s)
        fuzzsupport::violated("insert into the log", s.error().message);
    ReplayOptions replayOptions;
    replayOptions.execute = true;
    const ReplayResult replayed = ok(
        replay(db(), *g_ws->spec.stream(QStringLiteral("ev")), QStringLiteral("g"), replayOptions),
        "replay");
    if (replayed.consumed != 1 || replayed.inserted + replayed.deadLettered != 1)
        fuzzsupport::violated("replay did not place the event exactly once");
    const qint64 inSink =
        scalar(QStringLiteral("SELECT COUNT(*) FROM ev_sink WHERE event_id = ?"), {eventId})
            .toLongLong();
    const QVariant streamId =
        scalar(QStringLiteral(
                   "SELECT dlq_id FROM rewind_dlq WHERE source_kind = 'stream' AND event_id = ?"),
               {eventId});
    if (inSink + (streamId.isNull() ? 0 : 1) != 1)
        fuzzsupport::violated("the event is not in exactly one of sink and DLQ");
    (void)errorSignature(QStringLiteral("invalid_json"), QString::fromUtf8(payload));

    // 2. A dataset record quarantined with this payload (as a not_null check does).
    if (auto s = db().exec(
            QStringLiteral(
                "INSERT INTO rewind_dlq (source_kind, source_name, part, record_key, error_class, "
                "error, original_payload, "
                "payload, status, attempts, first_seen) VALUES ('dataset', 'orders_daily', NULL, "
                "?, 'not_null', "
                "'NULL in amount (check not_null)', ?, ?, 'new', 0, '2025-05-06T10:00:00.000Z')"),
            {QStringLiteral("{\"id\": %1}").arg(g_offset), payload, payload});
        !s)
        fuzzsupport::violated("insert into the DLQ", s.error().message);
    const qint64 datasetId =
        scalar(QStringLiteral("SELECT MAX(dlq_id) FROM rewind_dlq")).toLongLong();
    const qint64 otherId = streamId.isNull() ? datasetId : streamId.toLongLong();

    DlqSelection both;
    both.ids = {datasetId};
    if (otherId != datasetId)
        both.ids << otherId;
    const DlqListResult listed = ok(listDlq(db(), both, 10), "list");
    if (listed.total != both.ids.size())
        fuzzsupport::violated("list lost a record");
    for (qint64 id : std::as_const(both.ids)) {
        const DlqDetail shown = ok(showDlq(db(), id), "show");
        if (!shown.payload || *shown.payload != payload || !shown.originalPayload ||
            *shown.originalPayload != payload)
            fuzzsupport::violated("the DLQ did not keep the payload byte for byte");
    }

    // 3. Fix by JSON path, then by whole payload.
    DlqFixRequest fix;
    fix.selection = both;
    fix.sets = {set};
    fix.execute = true;
    const QString before = dlqState(datasetId, otherId);
    if (auto fixed = fixDlq(db(), fix); !fixed) {
        okOrBadInput(fixed.error(), "fix --set");
        if (dlqState(datasetId, otherId) != before)
            fuzzsupport::violated("a refused fix --set changed the DLQ");
    }
    DlqFixRequest replace;
    replace.selection.ids = {datasetId};
    replace.payload = payload;
    replace.execute = true;
    const QString beforeReplace = dlqState(datasetId, otherId);
    if (auto fixed = fixDlq(db(), replace); !fixed) {
        okOrBadInput(fixed.error(), "fix --payload-file");
        if (dlqState(datasetId, otherId) != beforeReplace)
            fuzzsupport::violated("a refused fix --payload-file changed the DLQ");
    }

    // 4. Validate, then replay: every selected record ends replayed or failed, none is deleted.
    DlqReplayOptions validate;
    const DlqReplayResult checked = ok(replayDlq(db(), g_ws->spec, both, validate), "validate");
    DlqReplayOptions run;
    run.execute = true;
    const DlqReplayResult ran = ok(replayDlq(db(), g_ws->spec, both, run), "replay dlq");
    if (ran.replayed != checked.replayed || ran.failed != checked.failed)
        fuzzsupport::violated("replay disagreed with its own validation");
    const qint64 settled = scalar(QStringLiteral("SELECT COUNT(*) FROM rewind_dlq WHERE dlq_id IN "
                                                 "(?, ?) AND status IN ('replayed', 'failed')"),
                                  {datasetId, otherId})
                               .toLongLong();
    if (settled != both.ids.size())
        fuzzsupport::violated("a replayed record is neither replayed nor failed");
    return 0;
}
