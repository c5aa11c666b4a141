#!/usr/bin/env bash
# Replay throughput: `rewindctl replay --execute` against a hand-written
# INSERT ... SELECT json_extract(...) ... ON CONFLICT DO NOTHING in the sqlite3
# shell, on copies of the same log. Prints events/second for both.
#
#   bench/replay.sh [REWINDCTL] [EVENTS]
#
# REWINDCTL defaults to build/app/rewindctl/rewindctl (then build-*/), EVENTS to 2000000.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
rewindctl=${1:-}
if [[ -z "$rewindctl" ]]; then
  for candidate in "$root"/build/app/rewindctl/rewindctl "$root"/build-*/app/rewindctl/rewindctl; do
    [[ -x "$candidate" ]] && { rewindctl=$candidate; break; }
  done
fi
[[ -x "${rewindctl:-}" ]] || { echo "rewindctl not found; pass its path as the first argument" >&2; exit 2; }
events=${2:-2000000}
[[ -x /usr/bin/time ]] || { echo "/usr/bin/time is required (apt-get install time)" >&2; exit 2; }
command -v sqlite3 >/dev/null || { echo "the sqlite3 shell is required (apt-get install sqlite3)" >&2; exit 2; }

work=$(mktemp -d "${TMPDIR:-/tmp}/rewind-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT
echo "work dir: $work; $events events; $(nproc) cores; sqlite $(sqlite3 --version | cut -d' ' -f1)"

# The log: 8 partitions, random event ids, ~120-byte JSON payloads, 0.1% malformed
# (half truncated, half without "amount"), 0.05% producer retries (an earlier event_id again).
sqlite3 "$work/log.db" >/dev/null <<SQL
PRAGMA journal_mode=WAL;
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
cat > "$work/spec.json" <<'JSON'
{"streams": {"bench": {"log": "bench_log", "sink": "bench_events",
  "fields": {"order_id": "$.order_id", "customer_id": "$.customer_id", "amount": "$.amount", "currency": "$.currency", "event_time": "$.event_time"},
  "required": ["order_id", "amount"]}}}
JSON
# Create the control schema outside the timing.
"$rewindctl" streams --db "$work/log.db" --spec "$work/spec.json" >/dev/null
cp "$work/log.db" "$work/hand.db"

now() { date +%s.%N; }
rate() { awk -v n="$1" -v a="$2" -v b="$3" 'BEGIN { printf "%.0f", n / (b - a) }'; }

# 1. rewindctl replay --execute: batches of 50,000, each one transaction with DLQ, offsets and audit.
t0=$(now)
/usr/bin/time -f "%U %S" -o "$work/replay.cpu" "$rewindctl" replay --db "$work/log.db" --spec "$work/spec.json" --stream bench --group bench-loader --execute --json > "$work/replay.json"
t1=$(now)
consumed=$(sqlite3 "$work/log.db" "SELECT SUM(committed_offset) FROM rewind_offsets WHERE group_id = 'bench-loader'")
cpu=$(awk '{print $1 + $2}' "$work/replay.cpu")
echo "rewindctl replay:   $(rate "$consumed" "$t0" "$t1") events/s wall ($consumed events in $(awk -v a="$t0" -v b="$t1" 'BEGIN{printf "%.2f", b-a}') s), $(rate "$consumed" 0 "$cpu") events/s of CPU time ($cpu s)"
sed -n '1,12p' "$work/replay.json" | grep -E '^  "(consumed|inserted|duplicates|dead_lettered)"' | tr -d ' \n'; echo

# 2. The hand-written statement in the sqlite3 shell, one transaction, same sink shape.
t0=$(now)
/usr/bin/time -f "%U %S" -o "$work/hand.cpu" sqlite3 "$work/hand.db" <<'SQL'
PRAGMA synchronous=NORMAL;
CREATE TABLE hand_events (event_id TEXT PRIMARY KEY, order_id, customer_id, amount, currency, event_time);
INSERT INTO hand_events (event_id, order_id, customer_id, amount, currency, event_time)
SELECT event_id, json_extract(payload, '$.order_id'), json_extract(payload, '$.customer_id'), json_extract(payload, '$.amount'),
       json_extract(payload, '$.currency'), json_extract(payload, '$.event_time')
FROM bench_log
WHERE json_valid(payload) AND json_extract(payload, '$.order_id') IS NOT NULL AND json_extract(payload, '$.amount') IS NOT NULL
ON CONFLICT DO NOTHING;
SQL
t1=$(now)
cpu=$(awk '{print $1 + $2}' "$work/hand.cpu")
echo "sqlite3 INSERT…SELECT: $(rate "$events" "$t0" "$t1") events/s wall ($events events in $(awk -v a="$t0" -v b="$t1" 'BEGIN{printf "%.2f", b-a}') s), $(rate "$events" 0 "$cpu") events/s of CPU time ($cpu s)"
echo "(load average now: $(cut -d' ' -f1-3 /proc/loadavg); on a busy machine the CPU-time rates are the comparable ones)"

# Both sinks hold the same rows.
sqlite3 "$work/log.db" "ATTACH '$work/hand.db' AS h;
  SELECT CASE WHEN (SELECT COUNT(*) FROM bench_events) = (SELECT COUNT(*) FROM h.hand_events)
               AND NOT EXISTS (SELECT event_id, order_id, amount FROM bench_events EXCEPT SELECT event_id, order_id, amount FROM h.hand_events)
         THEN 'sinks match: ' || (SELECT COUNT(*) FROM bench_events) || ' rows' ELSE 'SINKS DIFFER' END;"
