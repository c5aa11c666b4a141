#pragma once

#include "core/sql/database.h"

#include <vector>

namespace rw {

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
