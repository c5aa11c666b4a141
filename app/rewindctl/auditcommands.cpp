// rewindctl audit, run-report.
#include "app/rewindctl/clisupport.h"
#include "core/batch/batchjson.h"
#include "core/batch/runreport.h"
#include "core/batch/runs.h"
#include "core/sql/audit.h"

#include <QStringBuilder>

namespace rw::cli {

namespace {

const QCommandLineOption kAuditLimit({QStringLiteral("limit")},
                                     QStringLiteral("At most N rows, newest first (default 100)."),
                                     QStringLiteral("N"), QStringLiteral("100"));
const QCommandLineOption
    kAuditAction({QStringLiteral("action")},
                 QStringLiteral("Only this action (e.g. preview, \"run started\")."),
                 QStringLiteral("A"));
const QCommandLineOption kAuditDataset({QStringLiteral("dataset")},
                                       QStringLiteral("Only rows about this dataset."),
                                       QStringLiteral("D"));
const QCommandLineOption
    kAuditVerify({QStringLiteral("verify")},
                 QStringLiteral("Walk the audit log's hash chain and recompute every hash; exit 3 "
                                "naming the first row changed, removed or inserted out of order."));
const QCommandLineOption
    kAuditHead({QStringLiteral("head")},
               QStringLiteral("Print the newest row's hash: kept elsewhere, it pins the log as it "
                              "is now (docs/security.md)."));
const QCommandLineOption kReportFormat({QStringLiteral("format")},
                                       QStringLiteral("md (default) or json."), QStringLiteral("F"),
                                       QStringLiteral("md"));

Json detailJson(const QString &text) {
    if (text.isEmpty())
        return nullptr;
    Json j = Json::parse(text.toStdString(), nullptr, false);
    return j.is_discarded() ? Json(s(text)) : j;
}

Status verifyAudit(Context &ctx, const Workspace &ws) {
    auto check = verifyAuditChain(ws.db.control());
    if (!check)
        return fail(check.error());
    if (ctx.json) {
        ctx.print({{"verified", check->verified},
                   {"rows", check->rows},
                   {"head", check->head.isEmpty() ? Json(nullptr) : Json(s(check->head))},
                   {"broken", check->broken ? Json{{"audit_id", check->broken->auditId},
                                                   {"why", s(check->broken->why)}}
                                            : Json(nullptr)}});
        ctx.reported = true;
    } else if (check->verified) {
        ctx.out << "The audit chain holds: " << thousands(check->rows) << " rows, head "
                << (check->head.isEmpty() ? QStringLiteral("(empty log)") : check->head) << ".\n";
    }
    if (check->broken)
        return fail(Error{Error::Code::CheckFailed,
                          QStringLiteral("the audit chain is broken at row %1: %2")
                              .arg(check->broken->auditId)
                              .arg(check->broken->why)});
    return {};
}

Status runAudit(Context &ctx) {
    const bool verify = ctx.parser.isSet(kAuditVerify);
    const bool head = ctx.parser.isSet(kAuditHead);
    if (verify && head)
        return badInput(QStringLiteral("--verify and --head: give one of them"));
    if ((verify || head) &&
        (ctx.given(QStringLiteral("action")) || ctx.given(QStringLiteral("dataset")) ||
         ctx.given(QStringLiteral("limit"))))
        return badInput(QStringLiteral("--%1 reads the whole log: --limit, --action and --dataset "
                                       "do not apply")
                            .arg(verify ? QStringLiteral("verify") : QStringLiteral("head")));
    if (verify || head) {
        auto ws = workspace(ctx, true);
        if (!ws)
            return fail(ws.error());
        if (verify)
            return verifyAudit(ctx, *ws);
        auto h = auditHead(ws->db.control());
        if (!h)
            return fail(h.error());
        if (ctx.json)
            ctx.print({{"audit_id", h->auditId == 0 ? Json(nullptr) : Json(h->auditId)},
                       {"head", h->hash.isEmpty() ? Json(nullptr) : Json(s(h->hash))}});
        else
            ctx.out << (h->auditId == 0 ? QStringLiteral("(empty log)")
                        : h->hash.isEmpty()
                            ? QStringLiteral(
                                  "(row %1, the newest, has no hash: run audit --verify)")
                                  .arg(h->auditId)
                            : h->hash)
                    << '\n';
        return {};
    }
    auto limit = intOption(ctx, kAuditLimit, 1, INT_MAX, QStringLiteral("a positive number"));
    if (!limit)
        return fail(limit.error());
    auto ws = workspace(ctx, true);
    if (!ws)
        return fail(ws.error());
    AuditFilter filter;
    filter.action = ctx.parser.value(kAuditAction);
    filter.dataset = ctx.parser.value(kAuditDataset);
    if (!filter.dataset.isEmpty())
        if (!ws->spec.dataset(filter.dataset)) // a broken dataset's history is still readable
            if (auto d = ws->spec.requireDataset(filter.dataset); !d)
                return fail(d.error());
    auto rows = listAudit(ws->db.control(), filter, *limit);
    if (!rows)
        return fail(rows.error());
    if (ctx.json) {
        Json list = Json::array();
        for (const AuditRow &r : *rows)
            list.push_back(
                {{"id", r.id},
                 {"at", s(r.at)},
                 {"os_user", s(r.osUser)},
                 {"action", s(r.action)},
                 {"dataset", r.dataset.isEmpty() ? Json(nullptr) : Json(s(r.dataset))},
                 {"stream", r.stream.isEmpty() ? Json(nullptr) : Json(s(r.stream))},
                 {"run_id", r.runId.isNull() ? Json(nullptr) : Json(r.runId.toLongLong())},
                 {"detail", detailJson(r.detail)}});
        ctx.print({{"audit", list}});
        return {};
    }
    if (rows->empty()) {
        ctx.out << "No audit rows.\n";
        return {};
    }
    TextTable table({QStringLiteral("ID"), QStringLiteral("AT"), QStringLiteral("USER"),
                     QStringLiteral("ACTION"), QStringLiteral("DATASET/STREAM"),
                     QStringLiteral("RUN"), QStringLiteral("DETAIL")},
                    {true, false, false, false, false, true, false});
    for (const AuditRow &r : *rows) {
        QString detail = r.detail;
        if (detail.size() > 80)
            detail = detail.left(77) % QStringLiteral("...");
        table.add({QString::number(r.id), r.at, r.osUser, r.action,
                   r.dataset.isEmpty() ? r.stream : r.dataset,
                   r.runId.isNull() ? QStringLiteral("-") : r.runId.toString(), detail});
    }
    table.print(ctx.out);
    return {};
}

Status runReport(Context &ctx) {
    auto runId = runIdOption(ctx, QStringLiteral("a run id"));
    if (!runId)
        return fail(runId.error());
    const qint64 id = *runId;
    const QString format = ctx.parser.value(kReportFormat);
    if (format != QLatin1String("md") && format != QLatin1String("json"))
        return badInput(QStringLiteral("--format \"%1\": expected md or json").arg(format));
    auto ws = workspace(ctx);
    if (!ws)
        return fail(ws.error());
    auto info = loadRun(ws->db.control(), id);
    if (!info)
        return fail(info.error());
    auto result = runResult(ws->db.control(), id);
    if (!result)
        return fail(result.error());
    if (ctx.json || format == QLatin1String("json")) {
        Json j = toJson(*result);
        j["os_user"] = s(info->osUser);
        j["host"] = s(info->host);
        ctx.print(j);
        return {};
    }
    ctx.out << runReportMarkdown(*info, *result);
    return {};
}

} // namespace

std::vector<Command> auditCommands() {
    return {
        {QStringLiteral("audit"),
         QStringLiteral(
             "The audit log, newest first: who previewed, ran, resumed, reset or replayed what."),
         withWorkspace({kAuditLimit, kAuditAction, kAuditDataset, kAuditVerify, kAuditHead}),
         runAudit},
        {QStringLiteral("run-report"),
         QStringLiteral(
             "A run's report for people (Markdown) or as JSON: what, by whom, counts, gates."),
         withWorkspace({kRun, kReportFormat}), runReport},
    };
}

} // namespace rw::cli
