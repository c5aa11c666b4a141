#include "core/workspace/audit.h"

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

} // namespace rw
