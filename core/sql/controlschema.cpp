#include "core/sql/controlschema.h"

#include "core/sql/audit.h"

#include <QStringBuilder>

namespace rw::controlschema {

namespace {

// Step N brings the schema from version N-1 to N. Steps are append-only:
// never edit one that has shipped, add the next.
QStringList step(const SqlDialect &d, int version) {
    const QString id = d.autoIdColumn();
    const QString blob = d.blobType();
    const QString big = d.bigintType();
    const QString bytes =
        d.name() == QLatin1String("postgresql") ? QStringLiteral("BYTEA") : QStringLiteral("BLOB");
    switch (version) {
    case 1:
        return {
            QStringLiteral("CREATE TABLE rewind_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)"),
            // One row per run of run/resume/rollback/recover.
            QStringLiteral("CREATE TABLE rewind_runs (run_id ") % id %
                QStringLiteral(
                    ", dataset TEXT NOT NULL, kind TEXT NOT NULL, plan_id TEXT, mode TEXT,"
                    " status TEXT NOT NULL, started_at TEXT NOT NULL, finished_at TEXT,"
                    " os_user TEXT, scope_json TEXT, error TEXT)"),
            // A plan locks a run to what was previewed: scope and source fingerprint.
            QStringLiteral(
                "CREATE TABLE rewind_plans (plan_id TEXT PRIMARY KEY, dataset TEXT NOT NULL,"
                " created_at TEXT NOT NULL, scope_json TEXT NOT NULL,"
                " fingerprint TEXT NOT NULL, summary_json TEXT)"),
            // Per-partition checkpoint, written in the publish transaction.
            QStringLiteral("CREATE TABLE rewind_checkpoints (run_id ") % big %
                QStringLiteral(" NOT NULL REFERENCES rewind_runs(run_id), part TEXT NOT NULL,"
                               " part_is_null INTEGER NOT NULL DEFAULT 0, status TEXT NOT NULL,"
                               " committed_at TEXT, counts_json TEXT,"
                               " PRIMARY KEY (run_id, part, part_is_null))"),
            // What Rewind knows of each published partition. `source_sig` is
            // the source fingerprint at publish time; a different one today
            // makes the partition stale.
            QStringLiteral(
                "CREATE TABLE rewind_partition_state (dataset TEXT NOT NULL, part TEXT NOT NULL,"
                " part_is_null INTEGER NOT NULL DEFAULT 0, status TEXT NOT NULL,"
                " source_rows ") %
                big %
                QStringLiteral(
                    ", source_sig TEXT, published_at TEXT, finalized_at TEXT, last_run_id ") %
                big % QStringLiteral(", PRIMARY KEY (dataset, part, part_is_null))"),
            QStringLiteral("CREATE TABLE rewind_audit (audit_id ") % id %
                QStringLiteral(
                    ", at TEXT NOT NULL, os_user TEXT, action TEXT NOT NULL, dataset TEXT,"
                    " stream TEXT, run_id ") %
                big % QStringLiteral(", detail_json TEXT)"),
        };
    case 2:
        return {
            QStringLiteral(
                "CREATE TABLE rewind_offsets (stream TEXT NOT NULL, group_id TEXT NOT NULL,"
                " partition_id ") %
                big % QStringLiteral(" NOT NULL, committed_offset ") % big %
                QStringLiteral(" NOT NULL, updated_at TEXT NOT NULL,"
                               " PRIMARY KEY (stream, group_id, partition_id))"),
            QStringLiteral("CREATE TABLE rewind_dlq (dlq_id ") % id %
                QStringLiteral(", source_kind TEXT NOT NULL, source_name TEXT NOT NULL, part TEXT,"
                               " log_offset ") %
                big %
                QStringLiteral(", event_id TEXT, record_key TEXT, error_class TEXT NOT NULL,"
                               " error TEXT NOT NULL, original_payload ") %
                blob % QStringLiteral(", payload ") % blob %
                QStringLiteral(", status TEXT NOT NULL, attempts INTEGER NOT NULL DEFAULT 0,"
                               " first_seen TEXT NOT NULL, last_attempt_at TEXT)"),
            QStringLiteral("CREATE INDEX rewind_dlq_status ON rewind_dlq (status, error_class)"),
            QStringLiteral("CREATE TABLE rewind_dlq_history (history_id ") % id %
                QStringLiteral(", dlq_id ") % big %
                QStringLiteral(
                    " NOT NULL REFERENCES rewind_dlq(dlq_id), at TEXT NOT NULL, os_user TEXT,"
                    " action TEXT NOT NULL, from_status TEXT, to_status TEXT, reason TEXT,"
                    " payload_before ") %
                blob % QStringLiteral(", payload_after ") % blob % u')',
        };
    case 3:
        return {
            QStringLiteral(
                "CREATE TABLE rewind_frozen (dataset TEXT PRIMARY KEY, frozen_at TEXT NOT NULL,"
                " os_user TEXT, reason TEXT)"),
            QStringLiteral("CREATE INDEX rewind_audit_at ON rewind_audit (at)"),
        };
    case 4:
        return {
            // Who runs it (for telling a live run from an interrupted one) and its final result.
            QStringLiteral("ALTER TABLE rewind_runs ADD COLUMN pid ") % big,
            QStringLiteral("ALTER TABLE rewind_runs ADD COLUMN host TEXT"),
            QStringLiteral("ALTER TABLE rewind_runs ADD COLUMN result_json TEXT"),
            QStringLiteral("CREATE TABLE rewind_check_results (run_id ") % big %
                QStringLiteral(" NOT NULL, part TEXT NOT NULL, part_is_null INTEGER NOT NULL "
                               "DEFAULT 0, name TEXT NOT NULL,"
                               " passed INTEGER NOT NULL, detail TEXT, at TEXT NOT NULL)"),
            QStringLiteral(
                "CREATE INDEX rewind_check_results_run ON rewind_check_results (run_id)"),
        };
    case 5:
        return {
            // Stream replays: a running one (pid, host alive) blocks offset resets of its group.
            QStringLiteral("CREATE TABLE rewind_replays (replay_id ") % id %
                QStringLiteral(
                    ", stream TEXT NOT NULL, group_id TEXT NOT NULL, status TEXT NOT NULL,"
                    " started_at TEXT NOT NULL, finished_at TEXT, os_user TEXT, pid ") %
                big % QStringLiteral(", host TEXT, consumed ") % big %
                QStringLiteral(" NOT NULL DEFAULT 0, inserted ") % big %
                QStringLiteral(" NOT NULL DEFAULT 0, duplicates ") % big %
                QStringLiteral(" NOT NULL DEFAULT 0, dead_lettered ") % big %
                QStringLiteral(
                    " NOT NULL DEFAULT 0, batches INTEGER NOT NULL DEFAULT 0, error TEXT)"),
            QStringLiteral(
                "CREATE INDEX rewind_replays_group ON rewind_replays (stream, group_id, status)"),
            // A stream event re-read after a rewind is dead-lettered once.
            QStringLiteral("CREATE INDEX rewind_dlq_source ON rewind_dlq (source_kind, "
                           "source_name, part, log_offset)"),
        };
    case 6:
        return {
            // DLQ replay: the error of the last failed attempt (error_class/error keep the
            // capture's).
            QStringLiteral("ALTER TABLE rewind_dlq ADD COLUMN last_error_class TEXT"),
            QStringLiteral("ALTER TABLE rewind_dlq ADD COLUMN last_error TEXT"),
            QStringLiteral("CREATE INDEX rewind_dlq_history_record ON rewind_dlq_history (dlq_id, "
                           "history_id)"),
        };
    case 7:
        // The engine's own functions (PostgreSQL: rewind.epoch_ms; SQLite
        // registers its functions on every connection instead).
        return d.controlFunctions();
    case 8:
        // The DLQ page pages one error signature by dlq_id. PostgreSQL
        // computes a signature with five regexp_replace calls and cannot
        // estimate how many rows match one, so it scanned and sorted the
        // whole DLQ for each page (8 s on a million records); with this
        // index it walks the signature's rows in dlq_id order. SQLite needs
        // none (it walks dlq_id) and could not have it: its signature is a
        // function Rewind registers, which other tools reading the file lack.
        if (d.kind() != SqlDialect::Kind::Postgres)
            return {};
        return {QStringLiteral("CREATE INDEX rewind_dlq_signature ON rewind_dlq ((") %
                d.dlqSignature(QStringLiteral("error_class"), QStringLiteral("error")) %
                QStringLiteral("), dlq_id)")};
    case 9:
        // rewind.epoch_ms drops digits past the millisecond instead of
        // rounding them (09:59:59.9996 is before 10:00:00, as on SQLite).
        return d.controlFunctions();
    case 10:
        // rewind.epoch_ms reads text as SQLite does where they differed:
        // lower-case t and z, tabs and newlines around, no 24:00 or leap
        // second, offsets to +-15:59, digits past the millisecond dropped.
        return d.controlFunctions();
    case 11:
        return {
            // Kafka streams: the offset Rewind last knew the group to hold on
            // its cluster. A replay's batch moves rewind_offsets first; when
            // the cluster still holds cluster_offset (-1: nothing), the next
            // replay knows its commit there did not happen and catches it up.
            QStringLiteral("CREATE TABLE rewind_kafka_offsets (stream TEXT NOT NULL, group_id TEXT "
                           "NOT NULL, partition_id ") %
                big % QStringLiteral(" NOT NULL, cluster_offset ") % big %
                QStringLiteral(" NOT NULL, PRIMARY KEY (stream, group_id, partition_id))"),
            // A group's lag per partition each time its offsets are read
            // (bounded: the newest kLagRetention sample times per group stay).
            QStringLiteral("CREATE TABLE rewind_lag_samples (stream TEXT NOT NULL, group_id TEXT "
                           "NOT NULL, partition_id ") %
                big % QStringLiteral(" NOT NULL, sampled_ms ") % big %
                QStringLiteral(" NOT NULL, committed_offset ") % big %
                QStringLiteral(", log_end ") % big % QStringLiteral(" NOT NULL, lag ") % big %
                QStringLiteral(
                    " NOT NULL, PRIMARY KEY (stream, group_id, partition_id, sampled_ms))"),
        };
    case 12:
        return {
            // Kafka records in the DLQ: the key and headers byte for byte
            // (headers as a JSON array of [name, base64 value or null]), the
            // topic the record came from (its origin: a Kafka Connect
            // record's __connect.errors.topic, with part and log_offset its
            // partition and offset), and for a record imported from a
            // dead-letter topic where it was read there, imported once.
            // Raw bytes: BYTEA on PostgreSQL, where the payload columns are
            // TEXT. kafka_value holds a record's value only where the payload
            // column cannot hold it exactly (not UTF-8, or a NUL, on PostgreSQL).
            QStringLiteral("ALTER TABLE rewind_dlq ADD COLUMN kafka_topic TEXT"),
            QStringLiteral("ALTER TABLE rewind_dlq ADD COLUMN kafka_key ") % bytes,
            QStringLiteral("ALTER TABLE rewind_dlq ADD COLUMN kafka_value ") % bytes,
            QStringLiteral("ALTER TABLE rewind_dlq ADD COLUMN kafka_headers TEXT"),
            QStringLiteral("ALTER TABLE rewind_dlq ADD COLUMN dlq_topic TEXT"),
            QStringLiteral("ALTER TABLE rewind_dlq ADD COLUMN dlq_partition ") % big,
            QStringLiteral("ALTER TABLE rewind_dlq ADD COLUMN dlq_offset ") % big,
            // 'imported' (read from the topic) or 'published' (a record a
            // Kafka replay dead-lettered, produced there for other tools).
            QStringLiteral("ALTER TABLE rewind_dlq ADD COLUMN dlq_source TEXT"),
            QStringLiteral("CREATE UNIQUE INDEX rewind_dlq_topic_record ON rewind_dlq (dlq_topic, "
                           "dlq_partition, dlq_offset)"),
        };
    case 13: {
        // A freeze that holds in the database (recovery.h): triggers on a
        // frozen target refuse every writer but Rewind's. SQLite: Rewind's
        // write transactions hold a row in rewind_writer from BEGIN to COMMIT
        // (no other writer can run meanwhile, none ever sees it).
        // PostgreSQL: they SET LOCAL rewind.writer = 'on'; the trigger
        // function below refuses statements without it.
        QStringList out{QStringLiteral("CREATE TABLE rewind_writer (marker INTEGER)")};
        if (d.name() == QLatin1String("postgresql"))
            out << QStringLiteral(
                "CREATE OR REPLACE FUNCTION rewind.refuse_frozen_write() RETURNS trigger LANGUAGE "
                "plpgsql AS $fn$ "
                "BEGIN IF current_setting('rewind.writer', true) IS DISTINCT FROM 'on' THEN "
                "RAISE EXCEPTION '%', TG_ARGV[0] USING ERRCODE = "
                "'object_not_in_prerequisite_state'; END IF; RETURN NULL; END $fn$");
        return out;
    }
    case 14:
        return {
            // Schema changes a run applied to a dataset's target (on_schema_change):
            // partitions published before one hold NULL in its columns.
            QStringLiteral("CREATE TABLE rewind_schema_changes (dataset TEXT NOT NULL, run_id ") %
                big %
                QStringLiteral(" NOT NULL, applied_at TEXT NOT NULL, target TEXT NOT NULL, "
                               "added_json TEXT NOT NULL)"),
            QStringLiteral(
                "CREATE INDEX rewind_schema_changes_target ON rewind_schema_changes (target)"),
        };
    case 15:
        // The whole change (columns added, dropped, widened) as JSON.
        return {QStringLiteral("ALTER TABLE rewind_schema_changes ADD COLUMN change_json TEXT")};
    case 16:
        // Partitions a run published by partition swap (PostgreSQL), and
        // where the leaf it detached is kept (core/batch/swapstore.cpp).
        return {QStringLiteral("CREATE TABLE rewind_swaps (run_id ") % big %
                QStringLiteral(" NOT NULL, dataset TEXT NOT NULL, part TEXT NOT NULL, "
                               "part_is_null INTEGER NOT NULL, parent TEXT NOT NULL, leaf_schema "
                               "TEXT NOT NULL, leaf_name TEXT NOT NULL, bound TEXT NOT NULL, "
                               "check_sql TEXT NOT NULL, saved_table TEXT, indexes_json TEXT NOT "
                               "NULL, swapped_at TEXT NOT "
                               "NULL, PRIMARY KEY (run_id, dataset, part, part_is_null))")};
    case 17:
        // When a run's before-images were pruned (core/batch/prune.cpp):
        // such a run can no longer be rolled back.
        return {QStringLiteral("ALTER TABLE rewind_runs ADD COLUMN images_pruned_at TEXT")};
    case 18:
        // The freeze's trigger function serves row triggers too (a
        // partitioned target's, cloned onto its leaves): a row that passes
        // is kept (NEW, or OLD for a DELETE), where NULL would skip it.
        if (d.name() != QLatin1String("postgresql"))
            return {};
        return {QStringLiteral(
            "CREATE OR REPLACE FUNCTION rewind.refuse_frozen_write() RETURNS trigger LANGUAGE "
            "plpgsql AS $fn$ "
            "BEGIN IF current_setting('rewind.writer', true) IS DISTINCT FROM 'on' THEN "
            "RAISE EXCEPTION '%', TG_ARGV[0] USING ERRCODE = "
            "'object_not_in_prerequisite_state'; END IF; "
            "IF TG_LEVEL = 'ROW' THEN IF TG_OP = 'DELETE' THEN RETURN OLD; END IF; RETURN NEW; "
            "END IF; RETURN NULL; END $fn$")};
    case 19:
        // The audit log's hash chain (core/sql/audit.h): the rows
        // written so far are chained by chainAudit() in this step.
        return {QStringLiteral("ALTER TABLE rewind_audit ADD COLUMN prev_hash TEXT"),
                QStringLiteral("ALTER TABLE rewind_audit ADD COLUMN row_hash TEXT")};
    case 20:
        // The audit log is append-only: UPDATE and DELETE are refused by the
        // database (TRUNCATE too, on PostgreSQL). Its owner can still drop
        // the trigger; the chain shows what was done then.
        if (d.name() == QLatin1String("postgresql"))
            return {
                QStringLiteral(
                    "CREATE OR REPLACE FUNCTION rewind.refuse_audit_change() RETURNS trigger "
                    "LANGUAGE plpgsql AS $fn$ BEGIN RAISE EXCEPTION 'rewind_audit is "
                    "append-only: % refused', TG_OP USING ERRCODE = "
                    "'insufficient_privilege'; END $fn$"),
                QStringLiteral("CREATE TRIGGER rewind_audit_append_only BEFORE UPDATE OR DELETE "
                               "ON rewind_audit FOR EACH ROW EXECUTE FUNCTION "
                               "rewind.refuse_audit_change()"),
                QStringLiteral("CREATE TRIGGER rewind_audit_no_truncate BEFORE TRUNCATE ON "
                               "rewind_audit FOR EACH STATEMENT EXECUTE FUNCTION "
                               "rewind.refuse_audit_change()")};
        return {QStringLiteral("CREATE TRIGGER rewind_audit_no_update BEFORE UPDATE ON "
                               "rewind_audit BEGIN SELECT RAISE(ABORT, 'rewind_audit is "
                               "append-only: UPDATE refused'); END"),
                QStringLiteral("CREATE TRIGGER rewind_audit_no_delete BEFORE DELETE ON "
                               "rewind_audit BEGIN SELECT RAISE(ABORT, 'rewind_audit is "
                               "append-only: DELETE refused'); END")};
    default:
        return {};
    }
}

constexpr int kLatest = 20;

} // namespace

int latestVersion() {
    return kLatest;
}

bool isControlTable(const QString &name) {
    // rewind.rewind_runs names the same table on PostgreSQL.
    return name.startsWith(QLatin1String(kPrefix)) ||
           name.section(u'.', -1).startsWith(QLatin1String(kPrefix));
}

Result<int> currentVersion(const Database &db) {
    auto has = db.hasRelation(QStringLiteral("rewind_meta"));
    if (!has)
        return fail(has.error());
    if (!*has)
        return 0;
    auto value =
        db.scalar(QStringLiteral("SELECT value FROM rewind_meta WHERE key = 'schema_version'"));
    if (!value)
        return fail(value.error());
    bool ok = false;
    const int version = value->toString().toInt(&ok);
    if (!ok)
        return internalError(QStringLiteral("rewind_meta.schema_version is not a number: \"%1\"")
                                 .arg(value->toString()));
    return version;
}

namespace {

// PostgreSQL: whether this role may read Rewind's schema and, when it is
// behind, migrate it; refused naming what it lacks, before anything runs.
Status requireSchemaAccess(const Database &db, int targetVersion) {
    if (db.dialect().kind() != SqlDialect::Kind::Postgres)
        return {};
    auto q = db.exec(QStringLiteral(
        "SELECT n.oid IS NOT NULL, COALESCE(has_schema_privilege(n.oid, 'USAGE'), false), "
        "has_database_privilege(current_database(), 'CREATE'), COALESCE(pg_has_role(n.nspowner, "
        "'USAGE'), false), current_user, pg_get_userbyid(n.nspowner), current_database() "
        "FROM (SELECT 1) AS one LEFT JOIN pg_namespace AS n ON n.nspname = 'rewind'"));
    if (!q)
        return fail(q.error());
    if (!q->next())
        return {};
    const bool exists = q->value(0).toBool();
    const QString role = q->value(4).toString();
    if (exists && !q->value(1).toBool())
        return badInput(QStringLiteral("role %1 lacks USAGE on schema rewind, where Rewind keeps "
                                       "its runs, plans and audit log. The owner can grant it: "
                                       "GRANT USAGE ON SCHEMA rewind TO %1 (docs/security.md)")
                            .arg(role));
    if (!exists && !q->value(2).toBool())
        return badInput(QStringLiteral("Rewind's first open of database %1 creates its schema "
                                       "rewind, and role %2 lacks CREATE on the database. Open it "
                                       "once as its owner, or GRANT CREATE ON DATABASE %1 TO %2 "
                                       "(docs/security.md)")
                            .arg(q->value(6).toString(), role));
    if (exists && !q->value(3).toBool()) {
        auto current = currentVersion(db);
        if (!current)
            return fail(current.error());
        if (*current < targetVersion)
            return badInput(
                QStringLiteral("Rewind's schema in database %1 is at version %2 and this Rewind "
                               "needs %3; only its owner (%4) can bring it up to date, not role "
                               "%5: open the workspace once as %4 (docs/security.md)")
                    .arg(q->value(6).toString())
                    .arg(*current)
                    .arg(targetVersion)
                    .arg(q->value(5).toString(), role));
    }
    return {};
}

} // namespace

Status migrate(const Database &db, int targetVersion) {
    if (targetVersion < 0)
        targetVersion = kLatest;
    if (auto s = requireSchemaAccess(db, targetVersion); !s)
        return s;
    auto current = currentVersion(db);
    if (!current)
        return fail(current.error());
    if (*current > kLatest)
        return internalError(QStringLiteral("%1 was written by a newer Rewind (control schema "
                                            "version %2; this build knows up to %3)")
                                 .arg(db.url().display())
                                 .arg(*current)
                                 .arg(kLatest));
    for (int version = *current + 1; version <= targetVersion; ++version) {
        const Status applied = db.writeTransaction([&]() -> Status {
            // Re-check inside the write lock: another process may have migrated meanwhile.
            auto now = currentVersion(db);
            if (!now)
                return fail(now.error());
            if (*now >= version)
                return {};
            if (auto s = db.execAll(db.dialect().controlSchemaSetup()); !s)
                return s;
            if (auto s = db.execAll(step(db.dialect(), version)); !s)
                return s;
            if (version == 19)
                if (auto s = chainAudit(db); !s)
                    return s;
            if (auto r = db.exec(
                    QStringLiteral(
                        "INSERT INTO rewind_meta (key, value) VALUES ('schema_version', ?)") %
                        db.dialect().upsertSet({QStringLiteral("key")}, {QStringLiteral("value")}),
                    {QString::number(version)});
                !r)
                return fail(r.error());
            return {};
        });
        if (!applied)
            return applied;
    }
    return {};
}

} // namespace rw::controlschema
