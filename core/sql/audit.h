#pragma once

#include "core/sql/database.h"

#include <optional>
#include <vector>

namespace rw {

// The audit log: the one writer of rewind_audit (scripts/check-layout refuses
// a write from anywhere else) and its reader.

// The operating-system user, for audit rows.
QString osUser();

// Appends one row to the audit log. Call inside the transaction of the
// change it records.
Status writeAudit(const Database &db, const QString &action, const QString &dataset,
                  const QString &stream, const QVariant &runId, const QString &detailJson);
// One row per detail, as writeAudit each (a chunk's publishes), in one statement.
Status writeAudits(const Database &db, const QString &action, const QString &dataset,
                   const QVariant &runId, const QStringList &detailJsons);

// The hash chain (control schema 19). Each row carries prev_hash, the
// row_hash of the row before it (NULL for the first), and row_hash, the hex
// SHA-256 of prev_hash, a newline and the row's canonical content: the
// compact JSON array [at, os_user, action, dataset, stream, run_id,
// detail_json], an empty text as null. Changing, removing or inserting a row
// breaks the chain at that row or the next; rewriting the whole chain from a
// row on does not, unless the head was kept elsewhere (docs/security.md).
QString auditRowHash(const QString &prevHash, const QVariant &at, const QVariant &osUser,
                     const QVariant &action, const QVariant &dataset, const QVariant &stream,
                     const QVariant &runId, const QVariant &detail);

// Hashes every row in audit_id order, as written before the chain existed.
// For the schema step that adds the chain; call inside its transaction.
Status chainAudit(const Database &db);

struct AuditHead {
    qint64 auditId = 0; // 0: the log is empty
    QString hash;
};
Result<AuditHead> auditHead(const Database &db);

struct AuditChainCheck {
    bool verified = false;
    qint64 rows = 0;
    qint64 headId = 0; // the newest row's audit_id (0: the log is empty)
    QString head;      // the newest row's stored hash
    struct Break {
        qint64 auditId = 0;
        QString why;
    };
    std::optional<Break> broken; // the first row where the chain does not hold
    // Whether every hash was recomputed by this check (else only the rows
    // from an earlier check's head on: see verifyAuditChain).
    bool full = true;
};
// Walks the whole log oldest first and recomputes every hash. With `since`
// (an earlier check that held), only from its head row on: that row must be
// there with the hash it had then and its content, and the rows after it
// must chain to it. A change to a row before that head is found only by a
// full check (the console's Audit page re-checks new rows on each refresh
// and everything on demand). One row in memory at a time.
Result<AuditChainCheck> verifyAuditChain(const Database &db,
                                         const AuditChainCheck *since = nullptr);

// One row of the audit log (rewind_audit), as written by writeAudit().
struct AuditRow {
    qint64 id = 0;
    QString at; // UTC text as stored
    QString osUser;
    QString action;  // preview, run started, publish, run succeeded, ...
    QString dataset; // empty when the action is about a stream
    QString stream;  // empty when the action is about a dataset
    QVariant runId;  // null when no run is involved
    QString detail;  // JSON text as stored (may be empty)
};

// Narrows listAudit(); empty fields match everything.
struct AuditFilter {
    QString dataset;
    QString action;
    QString stream;
    qint64 runId = 0; // 0: any run
};

// The audit log, newest first, at most `limit` rows (limit <= 0: no limit).
// Reads only; runs on the calling thread's connection.
Result<std::vector<AuditRow>> listAudit(const Database &db, const AuditFilter &filter = {},
                                        int limit = 1000);

} // namespace rw
