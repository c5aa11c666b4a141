#pragma once

#include "core/sql/database.h"

#include <vector>

namespace rw {

// The audit log: the one writer of rewind_audit (scripts/check-layout refuses
// a write from anywhere else) and its reader.

// The operating-system user, for audit rows (core/workspace/workspace.cpp).
QString osUser();

// Appends one row to the audit log. Call inside the transaction of the
// change it records.
Status writeAudit(const Database &db, const QString &action, const QString &dataset,
                  const QString &stream, const QVariant &runId, const QString &detailJson);
// One row per detail, as writeAudit each (a chunk's publishes), in one statement.
Status writeAudits(const Database &db, const QString &action, const QString &dataset,
                   const QVariant &runId, const QStringList &detailJsons);

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
