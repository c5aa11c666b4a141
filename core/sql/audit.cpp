#include "core/sql/audit.h"

#include "core/sql/timejson.h"

#include <QCryptographicHash>
#include <QStringBuilder>
#include <nlohmann/json.hpp>
#include <pwd.h>
#include <unistd.h>

namespace rw {

using Json = nlohmann::json;

namespace {

// A run_id as read back: a number, or null (engines differ in its type).
QVariant runIdOf(const QVariant &v) {
    return v.isNull() ? QVariant() : QVariant(v.toLongLong());
}

} // namespace

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
        r.runId = runIdOf(q->value(6));
        r.detail = q->value(7).toString();
        out.push_back(std::move(r));
    }
    return out;
}

QString osUser() {
    QString user = qEnvironmentVariable("USER");
    if (user.isEmpty())
        user = qEnvironmentVariable("USERNAME");
    if (user.isEmpty()) {
        if (const passwd *entry = ::getpwuid(::geteuid()))
            user = QString::fromLocal8Bit(entry->pw_name);
    }
    return user.isEmpty() ? QStringLiteral("unknown") : user;
}

namespace {

Json textOrNull(const QVariant &v) {
    const QString text = v.toString();
    return v.isNull() || text.isEmpty() ? Json(nullptr) : Json(text.toStdString());
}

// One row as it is written: the values bound, in column order.
struct Pending {
    QVariant at, osUser, action, dataset, stream, runId, detail;
    QVariantList binds(const QString &prev, const QString &hash) const {
        return {at,     osUser, action, dataset,
                stream, runId,  detail, prev.isEmpty() ? QVariant() : QVariant(prev),
                hash};
    }
};

QVariant nullIfEmpty(const QString &text) {
    return text.isEmpty() ? QVariant() : QVariant(text);
}

constexpr auto kColumns = "at, os_user, action, dataset, stream, run_id, detail_json";

// Appends rows at the head of the chain. Inside a write transaction, whose
// writers are serialised (BEGIN IMMEDIATE on SQLite, the writers' advisory
// lock on PostgreSQL): the head read here is still the head at COMMIT.
Status appendRows(const Database &db, std::vector<Pending> rows) {
    if (!db.inWriteTransaction())
        return db.writeTransaction([&] { return appendRows(db, std::move(rows)); });
    auto head = db.exec(QStringLiteral("SELECT ") % TimeJson::of(db.dialect()).nowUtcText() %
                        QStringLiteral(", (SELECT row_hash FROM rewind_audit ORDER BY audit_id "
                                       "DESC LIMIT 1)"));
    if (!head)
        return fail(head.error());
    if (!head->next())
        return internalError(QStringLiteral("the audit log's head could not be read"));
    const QString at = head->value(0).toString();
    QString prev = head->value(1).toString();
    QVariantList binds;
    binds.reserve(int(rows.size()) * 9);
    for (Pending &row : rows) {
        row.at = at;
        const QString hash = auditRowHash(prev, row.at, row.osUser, row.action, row.dataset,
                                          row.stream, row.runId, row.detail);
        binds << row.binds(prev, hash);
        prev = hash;
    }
    return db.execRows(QStringLiteral("INSERT INTO rewind_audit (") % QLatin1String(kColumns) %
                           QStringLiteral(", prev_hash, row_hash) VALUES "),
                       QStringLiteral("(?, ?, ?, ?, ?, ?, ?, ?, ?)"), 9, binds);
}

} // namespace

QString auditRowHash(const QString &prevHash, const QVariant &at, const QVariant &osUser,
                     const QVariant &action, const QVariant &dataset, const QVariant &stream,
                     const QVariant &runId, const QVariant &detail) {
    const Json content =
        Json::array({textOrNull(at), textOrNull(osUser), textOrNull(action), textOrNull(dataset),
                     textOrNull(stream), runId.isNull() ? Json(nullptr) : Json(runId.toLongLong()),
                     textOrNull(detail)});
    QCryptographicHash sha(QCryptographicHash::Sha256);
    sha.addData(prevHash.toLatin1());
    sha.addData(QByteArrayView("\n"));
    sha.addData(
        QByteArray::fromStdString(content.dump(-1, ' ', false, Json::error_handler_t::replace)));
    return QString::fromLatin1(sha.result().toHex());
}

Status writeAudit(const Database &db, const QString &action, const QString &dataset,
                  const QString &stream, const QVariant &runId, const QString &detailJson) {
    return appendRows(db, {Pending{QVariant(), osUser(), action, nullIfEmpty(dataset),
                                   nullIfEmpty(stream), runId, nullIfEmpty(detailJson)}});
}

Status writeAudits(const Database &db, const QString &action, const QString &dataset,
                   const QVariant &runId, const QStringList &detailJsons) {
    if (detailJsons.isEmpty())
        return {};
    std::vector<Pending> rows;
    rows.reserve(detailJsons.size());
    const QString user = osUser();
    for (const QString &detail : detailJsons)
        rows.push_back(Pending{QVariant(), user, action, nullIfEmpty(dataset), QVariant(), runId,
                               nullIfEmpty(detail)});
    return appendRows(db, std::move(rows));
}

Status chainAudit(const Database &db) {
    // The rows written before the chain existed, oldest first: each gets the
    // hash of the one before it. Runs once, in the schema step that adds the
    // columns (before the append-only trigger). Staged a page at a time, so
    // a log of millions is never held at once, then one UPDATE.
    constexpr int kPage = 5000;
    const QString stage = QStringLiteral("rewind_audit_chain");
    if (auto s = db.execAll({QStringLiteral("CREATE TEMPORARY TABLE ") % stage %
                             QStringLiteral(" (audit_id BIGINT PRIMARY KEY, prev_hash TEXT, "
                                            "row_hash TEXT NOT NULL)")});
        !s)
        return s;
    QString prev;
    qint64 last = 0;
    for (;;) {
        auto q = db.exec(QStringLiteral("SELECT audit_id, ") % QLatin1String(kColumns) %
                             QStringLiteral(" FROM rewind_audit WHERE audit_id > ? ORDER BY "
                                            "audit_id LIMIT ?"),
                         {last, kPage});
        if (!q)
            return fail(q.error());
        QVariantList binds;
        while (q->next()) {
            last = q->value(0).toLongLong();
            const QString hash =
                auditRowHash(prev, q->value(1), q->value(2), q->value(3), q->value(4), q->value(5),
                             runIdOf(q->value(6)), q->value(7));
            binds << last << (prev.isEmpty() ? QVariant() : QVariant(prev)) << hash;
            prev = hash;
        }
        q->finish();
        if (binds.isEmpty())
            break;
        if (auto s = db.execRows(QStringLiteral("INSERT INTO ") % stage %
                                     QStringLiteral(" (audit_id, prev_hash, row_hash) VALUES "),
                                 QStringLiteral("(?, ?, ?)"), 3, binds);
            !s)
            return s;
    }
    return db.execAll(
        {QStringLiteral("UPDATE rewind_audit SET prev_hash = (SELECT c.prev_hash FROM ") % stage %
             QStringLiteral(" AS c WHERE c.audit_id = rewind_audit.audit_id), row_hash = (SELECT "
                            "c.row_hash FROM ") %
             stage % QStringLiteral(" AS c WHERE c.audit_id = rewind_audit.audit_id)"),
         QStringLiteral("DROP TABLE ") % stage});
}

Result<AuditHead> auditHead(const Database &db) {
    auto q = db.exec(QStringLiteral("SELECT audit_id, row_hash FROM rewind_audit ORDER BY "
                                    "audit_id DESC LIMIT 1"));
    if (!q)
        return fail(q.error());
    AuditHead head;
    if (q->next()) {
        head.auditId = q->value(0).toLongLong();
        head.hash = q->value(1).toString();
    }
    return head;
}

Result<AuditChainCheck> verifyAuditChain(const Database &db, const AuditChainCheck *since) {
    const bool fromMark = since && since->verified && since->headId > 0;
    auto q = db.exec(QStringLiteral("SELECT audit_id, ") % QLatin1String(kColumns) %
                         QStringLiteral(", prev_hash, row_hash FROM rewind_audit") %
                         (fromMark ? QStringLiteral(" WHERE audit_id >= ?") : QString()) %
                         QStringLiteral(" ORDER BY audit_id"),
                     fromMark ? QVariantList{since->headId} : QVariantList{});
    if (!q)
        return fail(q.error());
    AuditChainCheck check;
    check.full = !fromMark;
    const auto broke = [&](qint64 id, const QString &why) {
        if (!check.broken)
            check.broken = AuditChainCheck::Break{id, why};
    };
    QString prev;
    qint64 prevId = 0;
    while (q->next()) {
        const qint64 id = q->value(0).toLongLong();
        const QString stored = q->value(9).toString();
        const QString storedPrev = q->value(8).toString();
        const QString hash =
            auditRowHash(storedPrev, q->value(1), q->value(2), q->value(3), q->value(4),
                         q->value(5), runIdOf(q->value(6)), q->value(7));
        if (fromMark && prevId == 0) {
            // The earlier check's head: still there, as it was then.
            check.rows = since->rows;
            if (id != since->headId)
                broke(since->headId, QStringLiteral("it was removed since the chain was last "
                                                    "checked"));
            else if (stored != since->head || hash != stored)
                broke(id, QStringLiteral("it was changed since the chain was last checked"));
            prev = stored;
            prevId = id;
            if (id == since->headId)
                continue;
        }
        ++check.rows;
        QString why;
        if (stored.isEmpty())
            why = QStringLiteral("it has no hash: written outside Rewind, after the chain began");
        else if (hash != stored)
            why = QStringLiteral("its content does not match its hash: the row was changed "
                                 "after it was written");
        else if (storedPrev != prev)
            why = prevId == 0
                      ? QStringLiteral("it chains to %1, but it is the first row: the rows "
                                       "before it were removed")
                            .arg(storedPrev.left(12))
                      : QStringLiteral("it chains to %1, not to row %2 (%3): row %2 was changed "
                                       "and hashed again, a row between them was removed, or "
                                       "this row was inserted out of order")
                            .arg(storedPrev.isEmpty() ? QStringLiteral("nothing")
                                                      : storedPrev.left(12))
                            .arg(prevId)
                            .arg(prev.left(12));
        if (!why.isEmpty())
            broke(id, why);
        prev = stored;
        prevId = id;
    }
    if (fromMark && prevId == 0) { // the head and everything after it are gone
        check.rows = since->rows;
        broke(since->headId, QStringLiteral("it was removed since the chain was last checked"));
    }
    check.head = prev;
    check.headId = prevId;
    check.verified = !check.broken.has_value();
    return check;
}

} // namespace rw
