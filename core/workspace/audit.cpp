#include "core/workspace/audit.h"

#include "core/sql/timejson.h"

#include <QStringBuilder>

namespace rw {

Result<std::vector<AuditRow>> listAudit(const Database &db, const AuditFilter &filter, int limit) {
    QStringList where;
    QVariantList binds;
    if (!filter.dataset.isEmpty()) {
        where << QStringLiteral("dataset = ?");
        binds << filter.dataset;
    }
    if (!filter.action.isEmpty()) {
        where << QStringLiteral("action = ?");
        binds << filter.action;
    }
    if (!filter.stream.isEmpty()) {
        where << QStringLiteral("stream = ?");
        binds << filter.stream;
    }
    if (filter.runId > 0) {
        where << QStringLiteral("run_id = ?");
        binds << filter.runId;
    }
    QString sql = QStringLiteral("SELECT audit_id, at, os_user, action, dataset, stream, run_id, "
                                 "detail_json FROM rewind_audit");
    if (!where.isEmpty())
        sql += QStringLiteral(" WHERE ") % where.join(QStringLiteral(" AND "));
    // audit_id grows with time; it also orders rows written in the same second.
    sql += QStringLiteral(" ORDER BY audit_id DESC");
    if (limit > 0) {
        sql += QStringLiteral(" LIMIT ?");
        binds << limit;
    }
    auto q = db.exec(sql, binds);
    if (!q)
        return fail(q.error());
    std::vector<AuditRow> out;
    while (q->next()) {
        AuditRow r;
        r.id = q->value(0).toLongLong();
        r.at = q->value(1).toString();
        r.osUser = q->value(2).toString();
        r.action = q->value(3).toString();
        r.dataset = q->value(4).toString();
        r.stream = q->value(5).toString();
        r.runId = q->value(6).isNull() ? QVariant() : QVariant(q->value(6).toLongLong());
        r.detail = q->value(7).toString();
        out.push_back(std::move(r));
    }
    return out;
}

Status writeAudit(const Database &db, const QString &action, const QString &dataset,
                  const QString &stream, const QVariant &runId, const QString &detailJson) {
    auto r =
        db.exec(QStringLiteral("INSERT INTO rewind_audit (at, os_user, action, dataset, "
                               "stream, run_id, detail_json) VALUES (") %
                    TimeJson::of(db.dialect()).nowUtcText() % QStringLiteral(", ?, ?, ?, ?, ?, ?)"),
                {osUser(), action, dataset.isEmpty() ? QVariant() : QVariant(dataset),
                 stream.isEmpty() ? QVariant() : QVariant(stream), runId, detailJson});
    if (!r)
        return fail(r.error());
    return {};
}

Status writeAudits(const Database &db, const QString &action, const QString &dataset,
                   const QVariant &runId, const QStringList &detailJsons) {
    QVariantList binds;
    binds.reserve(detailJsons.size() * 5);
    const QString user = osUser();
    for (const QString &detail : detailJsons)
        binds << user << action << (dataset.isEmpty() ? QVariant() : QVariant(dataset)) << runId
              << detail;
    return db.execRows(QStringLiteral("INSERT INTO rewind_audit (at, os_user, action, dataset, "
                                      "stream, run_id, detail_json) VALUES "),
                       u'(' % TimeJson::of(db.dialect()).nowUtcText() %
                           QStringLiteral(", ?, ?, ?, NULL, ?, ?)"),
                       5, binds);
}

} // namespace rw
