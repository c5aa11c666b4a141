# Data sets for the benchmarks: sourced by bench/run and bench/gui. Each data
# set's SQL lives here only. Everything is built set-based in the sqlite3 shell
# (recursive CTEs), deterministically: the same arguments give the same rows.
# Each gen_* writes a database and its spec and leaves no -wal file behind, so
# the database can be copied with cp.

# Days of the sales data set: 50 daily partitions. Days 1-30 are loaded in the
# targets, days 31-50 are not (the backfill). Day 10 was loaded with a bug.
SALES_DAYS=50
SALES_LOADED=30
SALES_BAD_DAY=2025-01-10
SALES_CLEAN_DAY=2025-01-03
SALES_BACKFILL_FROM=2025-01-31
SALES_BACKFILL_TO=2025-02-19

# The lateness distribution (seconds) of row i, as in the demo: ~90% within
# 2 minutes, ~8% 2-60 min, ~1.5% 1-2 h, ~0.5% 2 h to 3 days.
lateness_sql() { # expression over integer column $1
  local i=$1
  echo "CASE WHEN ($i * 7919) % 1000 < 900 THEN (($i * 104729) % 121) * (($i * 1299709) % 121) / 120
             WHEN ($i * 7919) % 1000 < 980 THEN 121 + ($i * 15485863) % 3480
             WHEN ($i * 7919) % 1000 < 995 THEN 3601 + ($i * 15485863) % 3600
             ELSE 7201 + (($i * 32452843) % 1000) * (($i * 32452843) % 1000) * 252000 / 1000000 END"
}

# A sales source of ROWS rows over DAYS daily partitions, 5% of each day being
# re-sent versions of earlier keys (a later updated_at, a different amount),
# with event and ingest timestamps (realistic lateness). Table name $3.
sales_source_sql() { # rows days table
  local rows=$1 days=$2 t=$3 per_day=$(( $1 / $2 )) keys=$(( $1 / $2 * 95 / 100 ))
  cat <<SQL
CREATE TABLE $t (order_id INTEGER, dt TEXT, customer_id INTEGER, amount REAL, status TEXT, updated_at TEXT,
                 event_ts TEXT, ingested_at TEXT);
WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < $per_day * $days - 1),
r AS (SELECT i, i / $per_day AS d, i % $per_day AS j,
             1735689600 + (i / $per_day) * 86400 + (i % $per_day) * 86400 / $per_day AS ts,
             $(lateness_sql i) AS lat FROM n)
INSERT INTO $t
SELECT CASE WHEN j < $keys THEN j ELSE j - $keys END,
       date(ts, 'unixepoch', 'start of day'),
       (i * 7919) % 50000, ((i * 104729) % 100000) / 100.0,
       CASE i % 3 WHEN 0 THEN 'paid' WHEN 1 THEN 'shipped' ELSE 'open' END,
       CASE WHEN j < $keys THEN strftime('%Y-%m-%dT%H:%M:%SZ', ts + lat, 'unixepoch')
            ELSE strftime('%Y-%m-%dT%H:%M:%SZ', ts + 86400 * 3, 'unixepoch') END,
       strftime('%Y-%m-%dT%H:%M:%SZ', ts, 'unixepoch'),
       strftime('%Y-%m-%dT%H:%M:%SZ', ts + lat, 'unixepoch')
FROM r;
CREATE INDEX ${t}_dt ON $t (dt);
SQL
}

# The deduped rows of a source: one per (dt, order_id), latest updated_at.
dedupe_sql() { # source where
  echo "SELECT order_id, dt, customer_id, amount, status, updated_at, event_ts, ingested_at FROM
  (SELECT *, ROW_NUMBER() OVER (PARTITION BY dt, order_id ORDER BY updated_at DESC) AS rn FROM $1 WHERE $2) WHERE rn = 1"
}

# The same on PostgreSQL, as one would write it there: DISTINCT ON keeps the
# first row of each (dt, order_id) in the ORDER BY (no ties on updated_at).
dedupe_sql_pg() { # source where
  echo "SELECT DISTINCT ON (dt, order_id) order_id, dt, customer_id, amount, status, updated_at, event_ts, ingested_at
  FROM $1 WHERE $2 ORDER BY dt, order_id, updated_at DESC"
}

# sales.db: source `src`, merge target `tgt` (dataset sales) and overwrite
# target `tgt_ow` (dataset sales_ow), both loaded for days 1-30, day 10 with
# every amount doubled.
gen_sales() { # db spec rows
  local db=$1 spec=$2 rows=$3 rw=${REWINDCTL:?}
  sqlite3 "$db" >/dev/null <<SQL
PRAGMA journal_mode=DELETE;
$(sales_source_sql "$rows" "$SALES_DAYS" src)
CREATE TABLE tgt AS $(dedupe_sql src "dt < date('2025-01-01', '+$SALES_LOADED days')");
UPDATE tgt SET amount = amount * 2 WHERE dt = '$SALES_BAD_DAY';
CREATE INDEX tgt_key ON tgt (dt, order_id);
CREATE TABLE tgt_ow AS SELECT * FROM tgt;
CREATE INDEX tgt_ow_key ON tgt_ow (dt, order_id);
SQL
  cat >"$spec" <<'JSON'
{"datasets": {
  "sales": {"source": "src", "target": "tgt", "partition_column": "dt", "key": ["order_id"], "order_by": "updated_at",
            "write": "merge", "event_time": "event_ts", "ingest_time": "ingested_at", "allowed_lateness": "2h"},
  "sales_ow": {"source": "src", "target": "tgt_ow", "partition_column": "dt", "key": ["order_id"], "order_by": "updated_at",
               "write": "overwrite_partition"}}}
JSON
  "$rw" datasets --db "$db" --spec "$spec" >/dev/null   # the control schema, outside any timing
}

# The sales data set in PostgreSQL, for `bench/run --pg`: the very rows of a
# sales.db made by gen_sales (COPY from the sqlite3 shell's CSV, so both engines
# hold the same rows), with the types SQLite's INTEGER / REAL / TEXT columns
# store (bigint, double precision, text), the same indexes, statistics
# gathered, autovacuum off on these tables (so no background vacuum lands in a
# timed run) and Rewind's control schema created. Target: an empty database.
gen_sales_pg() { # sqlite_db spec pg_url
  local db=$1 spec=$2 url=$3 rw=${REWINDCTL:?} t
  local psql=(psql -X -q -v ON_ERROR_STOP=1 "$url")
  "${psql[@]}" >/dev/null <<'SQL'
CREATE TABLE src (order_id bigint, dt text, customer_id bigint, amount double precision, status text, updated_at text,
                  event_ts text, ingested_at text);
CREATE TABLE tgt (LIKE src);
CREATE TABLE tgt_ow (LIKE src);
SQL
  for t in src tgt; do
    sqlite3 -bail -csv "$db" "SELECT * FROM $t" | "${psql[@]}" -c "\\copy $t FROM STDIN (FORMAT csv)" >/dev/null
  done
  "${psql[@]}" >/dev/null <<'SQL'
INSERT INTO tgt_ow SELECT * FROM tgt;
CREATE INDEX src_dt ON src (dt);
CREATE INDEX tgt_key ON tgt (dt, order_id);
CREATE INDEX tgt_ow_key ON tgt_ow (dt, order_id);
ALTER TABLE src SET (autovacuum_enabled = off);
ALTER TABLE tgt SET (autovacuum_enabled = off);
ALTER TABLE tgt_ow SET (autovacuum_enabled = off);
VACUUM ANALYZE src;
VACUUM ANALYZE tgt;
VACUUM ANALYZE tgt_ow;
SQL
  "$rw" datasets --db "$url" --spec "$spec" >/dev/null   # the control schema, outside any timing
  "${psql[@]}" -c "VACUUM ANALYZE" >/dev/null
  "${psql[@]}" -c "CHECKPOINT" >/dev/null 2>&1 || true   # superuser or pg_checkpoint only; a nicety
}

# What a day does to a loaded data set: 12 days change at the source (stale)
# and 5 days get duplicate keys in the target. Plain SQL, for sqlite3 and psql.
day_changes_sql() { # source target
  cat <<SQL
UPDATE $1 SET amount = amount + 1 WHERE dt IN (SELECT DISTINCT dt FROM $1 ORDER BY dt LIMIT 12 OFFSET 100) AND order_id % 10 = 0;
INSERT INTO $2 SELECT * FROM $2 WHERE dt IN (SELECT DISTINCT dt FROM $2 ORDER BY dt LIMIT 5 OFFSET 200) AND order_id % 50 = 0;
SQL
}

# year.db: 365 daily partitions (dataset year, ROWS source rows), loaded by a
# real run so every partition has a state; then 12 days change at the source
# (stale) and 5 days get duplicate keys in the target.
gen_year() { # db spec rows
  local db=$1 spec=$2 rows=$3 rw=${REWINDCTL:?}
  sqlite3 "$db" >/dev/null <<SQL
PRAGMA journal_mode=DELETE;
$(sales_source_sql "$rows" 365 ysrc)
SQL
  cat >"$spec" <<'JSON'
{"datasets": {"year": {"source": "ysrc", "target": "ytgt", "partition_column": "dt", "key": ["order_id"],
                       "order_by": "updated_at", "write": "merge"}}}
JSON
  "$rw" run --db "$db" --spec "$spec" --dataset year --execute --json >/dev/null
  sqlite3 "$db" >/dev/null <<SQL
$(day_changes_sql ysrc ytgt)
PRAGMA wal_checkpoint(TRUNCATE);
PRAGMA journal_mode=DELETE;
SQL
}

# The stream spec shared by the log and the DLQ data sets.
stream_spec() {
  cat <<'JSON'
{"streams": {"bench": {"log": "bench_log", "sink": "bench_events",
  "fields": {"order_id": "$.order_id", "customer_id": "$.customer_id", "amount": "$.amount", "currency": "$.currency", "event_time": "$.event_time"},
  "required": ["order_id", "amount"]}}}
JSON
}
# The sink as replay creates it, for the hand-written side.
SINK_DDL='CREATE TABLE IF NOT EXISTS bench_events (event_id TEXT PRIMARY KEY, order_id, customer_id, amount, currency, event_time)'

# log.db: EVENTS events in 8 partitions, ~120-byte JSON payloads, 0.1%
# malformed (half truncated, half without "amount"), 0.05% producer retries (an
# earlier event_id again), a unique index on (partition_id, log_offset).
gen_log() { # db spec events
  local db=$1 spec=$2 events=$3 rw=${REWINDCTL:?}
  sqlite3 "$db" >/dev/null <<SQL
PRAGMA journal_mode=DELETE;
CREATE TABLE bench_log (partition_id INTEGER, log_offset INTEGER, event_id TEXT, record_ts TEXT, payload TEXT);
WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < $events - 1)
INSERT INTO bench_log
SELECT i % 8, i / 8,
       printf('evt-%010d', (CASE WHEN i % 2000 = 1999 THEN i - 1000 ELSE i END * 2654435761) % 4294967296),
       strftime('%Y-%m-%dT%H:%M:%fZ', 1746511200 + i * 0.01, 'unixepoch'),
       CASE WHEN i % 1000 = 7 THEN '{"order_id": ' || i || ', "amount": '
            WHEN i % 1000 = 507 THEN json_object('order_id', i, 'currency', 'EUR')
            ELSE json_object('order_id', i, 'customer_id', i % 9973, 'amount', (i % 100000) / 100.0,
                             'currency', 'EUR', 'event_time', strftime('%Y-%m-%dT%H:%M:%SZ', 1746511200 + i / 100, 'unixepoch')) END
FROM n;
CREATE UNIQUE INDEX bench_log_offsets ON bench_log (partition_id, log_offset);
SQL
  stream_spec >"$spec"
  "$rw" streams --db "$db" --spec "$spec" >/dev/null
}

# dlq.db: RECORDS dead-lettered events of stream bench (missing "amount"),
# 95% since fixed (status fixed, amount set, a `fixed` history row), 5% still
# new and still invalid; the sink already holds 2 x RECORDS other events.
gen_dlq() { # db spec records
  local db=$1 spec=$2 records=$3 rw=${REWINDCTL:?}
  stream_spec >"$spec"
  sqlite3 "$db" >/dev/null <<SQL
PRAGMA journal_mode=DELETE;
CREATE TABLE bench_log (partition_id INTEGER, log_offset INTEGER, event_id TEXT, record_ts TEXT, payload TEXT);
SQL
  "$rw" streams --db "$db" --spec "$spec" >/dev/null   # the control schema: rewind_dlq and its history
  sqlite3 "$db" >/dev/null <<SQL
PRAGMA journal_mode=DELETE;
$SINK_DDL;
WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < 2 * $records - 1)
INSERT INTO bench_events SELECT printf('ok-%09d', i), i, i % 9973, (i % 100000) / 100.0, 'EUR', '2025-05-06T10:00:00Z' FROM n;
WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < $records - 1),
r AS (SELECT i, json_object('order_id', i, 'customer_id', i % 9973, 'currency', 'EUR',
                            'event_time', strftime('%Y-%m-%dT%H:%M:%SZ', 1746511200 + i / 10, 'unixepoch')) AS bad FROM n)
INSERT INTO rewind_dlq (dlq_id, source_kind, source_name, part, log_offset, event_id, record_key, error_class, error,
                        original_payload, payload, status, attempts, first_seen)
SELECT i + 1, 'stream', 'bench', CAST(i % 8 AS TEXT), i / 8, printf('dlq-%09d', i), printf('dlq-%09d', i), 'missing_field',
       'required field missing or null: amount (\$.amount)', CAST(bad AS BLOB),
       CAST(CASE WHEN i % 20 = 19 THEN bad ELSE json_set(bad, '\$.amount', (i % 1000) / 10.0) END AS BLOB),
       CASE WHEN i % 20 = 19 THEN 'new' ELSE 'fixed' END, 0,
       strftime('%Y-%m-%dT%H:%M:%fZ', 1746511200 + i * 0.01, 'unixepoch')
FROM r;
INSERT INTO rewind_dlq_history (dlq_id, at, os_user, action, from_status, to_status, reason, payload_after)
SELECT dlq_id, first_seen, 'bench', 'quarantined', NULL, 'new', 'replay 1 of group bench-loader: missing_field', original_payload
FROM rewind_dlq;
INSERT INTO rewind_dlq_history (dlq_id, at, os_user, action, from_status, to_status, reason, payload_before, payload_after)
SELECT dlq_id, '2025-05-07T09:00:00Z', 'bench', 'fixed', 'new', 'fixed', 'set \$.amount', original_payload, payload
FROM rewind_dlq WHERE status = 'fixed';
SQL
}

# days.db: DAYS daily partitions (10,000 in bench/run: 27 years) of ROWS
# source rows in `src` (dataset days, merge on order_id, latest updated_at),
# and an empty target `tgt` indexed on (dt, order_id): the backfill of every
# partition. gen_days_loaded then loads it with a real run (outside any
# timing) and changes it as a day's operation would (day_changes_sql: the
# preview's updates, the listing's stale days and duplicate keys).
DAYS_SPEC='{"datasets": {"days": {"source": "src", "target": "tgt", "partition_column": "dt", "key": ["order_id"],
                       "order_by": "updated_at", "write": "merge"}}}'
gen_days() { # db spec rows days
  local db=$1 spec=$2 rows=$3 days=$4 rw=${REWINDCTL:?}
  sqlite3 "$db" >/dev/null <<SQL
PRAGMA journal_mode=DELETE;
$(sales_source_sql "$rows" "$days" src)
CREATE TABLE tgt AS SELECT * FROM src WHERE 0;
CREATE INDEX tgt_key ON tgt (dt, order_id);
SQL
  echo "$DAYS_SPEC" >"$spec"
  "$rw" datasets --db "$db" --spec "$spec" >/dev/null   # the control schema, outside any timing
}
gen_days_loaded() { # days_db loaded_db spec
  local rw=${REWINDCTL:?}
  cp "$1" "$2"
  "$rw" run --db "$2" --spec "$3" --dataset days --execute --json >/dev/null
  sqlite3 "$2" >/dev/null <<SQL
$(day_changes_sql src tgt)
PRAGMA wal_checkpoint(TRUNCATE);
PRAGMA journal_mode=DELETE;
SQL
}
# The days data set on PostgreSQL, from gen_days' SQLite database (the same
# rows: CSV through \copy; the types SQLite's columns store; the same
# indexes; statistics gathered; autovacuum off). With "loaded", then loaded
# and changed as gen_days_loaded does, by a real run on PostgreSQL (its
# fingerprints are PostgreSQL's own).
gen_days_pg() { # days_db spec pg_url [loaded]
  local db=$1 spec=$2 url=$3 rw=${REWINDCTL:?}
  local psql=(psql -X -q -v ON_ERROR_STOP=1 "$url")
  "${psql[@]}" >/dev/null <<'SQL'
CREATE TABLE src (order_id bigint, dt text, customer_id bigint, amount double precision, status text, updated_at text,
                  event_ts text, ingested_at text);
CREATE TABLE tgt (LIKE src);
SQL
  sqlite3 -bail -csv "$db" "SELECT * FROM src" | "${psql[@]}" -c "\\copy src FROM STDIN (FORMAT csv)" >/dev/null
  "${psql[@]}" >/dev/null <<'SQL'
CREATE INDEX src_dt ON src (dt);
CREATE INDEX tgt_key ON tgt (dt, order_id);
ALTER TABLE src SET (autovacuum_enabled = off);
ALTER TABLE tgt SET (autovacuum_enabled = off);
VACUUM ANALYZE src;
SQL
  "$rw" datasets --db "$url" --spec "$spec" >/dev/null   # the control schema, outside any timing
  if [[ ${4:-} == loaded ]]; then
    "$rw" run --db "$url" --spec "$spec" --dataset days --execute --json >/dev/null
    day_changes_sql src tgt | "${psql[@]}" >/dev/null
  fi
  "${psql[@]}" -c "VACUUM ANALYZE" >/dev/null
}
