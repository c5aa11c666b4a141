#!/usr/bin/env bash
# Batch core against hand-written SQL on the same data (issue 3).
#
#   bench/batch.sh [ROWS]      (default 2,000,000 source rows in 20 daily partitions, 5% duplicates)
#
# Builds the warehouse with the sqlite3 shell, then times, alternating the two and
# keeping the best of RUNS (default 5) of wall and of CPU time:
#   - a one-partition `rewindctl run --execute` on the bad day (every row's amount
#     differs: 95% of the partition is updated) against a hand-written dedupe +
#     UPDATE ... FROM + INSERT ... WHERE NOT EXISTS in one transaction;
#   - the same on a clean day (nothing changes);
#   - `rewindctl preview` of one partition against a hand-written diff query.
# Rewind's figures include process start, spec validation, the plan, gates (none
# here), checkpoint, before-images and audit rows: everything an operator gets.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
rows=${1:-2000000}
build=${REWIND_BUILD:-$root/build}
rewindctl=$build/app/rewindctl/rewindctl
command -v sqlite3 >/dev/null || { echo "bench: installing sqlite3" >&2; apt-get install -y -qq sqlite3 >/dev/null; }
[ -x "$rewindctl" ] || { echo "bench: build first (scripts/test or cmake --build build)" >&2; exit 1; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
per_day=$((rows / 20))
keys=$((per_day * 95 / 100))

echo "building $rows source rows in 20 partitions ($keys keys a day, 5% re-sent versions)..." >&2
sqlite3 "$work/base.db" <<SQL
PRAGMA journal_mode=WAL;
CREATE TABLE src (order_id INTEGER, dt TEXT, customer_id INTEGER, amount REAL, status TEXT, updated_at TEXT);
WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < $rows - 1)
INSERT INTO src
SELECT CASE WHEN i % $per_day < $keys THEN i % $per_day ELSE (i % $per_day) - $keys END,
       date('2025-01-01', '+' || (i / $per_day) || ' days'),
       (i * 7919) % 50000, ((i * 104729) % 100000) / 100.0,
       CASE i % 3 WHEN 0 THEN 'paid' WHEN 1 THEN 'shipped' ELSE 'open' END,
       CASE WHEN i % $per_day < $keys THEN '2025-02-01T00:00:00Z' ELSE '2025-02-02T00:00:00Z' END
FROM n;
CREATE INDEX src_dt ON src (dt);
CREATE TABLE tgt AS SELECT order_id, dt, customer_id, amount, status, updated_at FROM
  (SELECT *, ROW_NUMBER() OVER (PARTITION BY dt, order_id ORDER BY updated_at DESC) AS rn FROM src) WHERE rn = 1;
UPDATE tgt SET amount = amount * 2 WHERE dt = '2025-01-10';
CREATE INDEX tgt_key ON tgt (dt, order_id);
SQL
cat > "$work/spec.json" <<'JSON'
{"datasets": {"sales": {"source": "src", "target": "tgt", "partition_column": "dt",
  "key": ["order_id"], "order_by": "updated_at", "write": "merge"}}}
JSON
"$rewindctl" datasets --db "$work/base.db" --spec "$work/spec.json" >/dev/null   # control schema in place

best() { sort -n | head -1; }

hand_run() { # db day
  sqlite3 "$1" <<SQL >/dev/null
BEGIN IMMEDIATE;
CREATE TEMP TABLE s AS SELECT order_id, dt, customer_id, amount, status, updated_at FROM
  (SELECT *, ROW_NUMBER() OVER (PARTITION BY order_id ORDER BY updated_at DESC) AS rn FROM src WHERE dt = '$2') WHERE rn = 1;
CREATE INDEX temp.s_key ON s (order_id);
UPDATE tgt SET customer_id = s.customer_id, amount = s.amount, status = s.status, updated_at = s.updated_at
  FROM s WHERE tgt.dt = '$2' AND tgt.order_id = s.order_id
  AND NOT (tgt.customer_id IS s.customer_id AND tgt.amount IS s.amount AND tgt.status IS s.status AND tgt.updated_at IS s.updated_at);
INSERT INTO tgt SELECT * FROM s WHERE NOT EXISTS (SELECT 1 FROM tgt t WHERE t.dt = '$2' AND t.order_id = s.order_id);
COMMIT;
SQL
}

hand_diff() { # db day
  sqlite3 "$1" <<SQL >/dev/null
WITH s AS (SELECT * FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY order_id ORDER BY updated_at DESC) AS rn FROM src WHERE dt = '$2') WHERE rn = 1)
SELECT SUM(t.order_id IS NULL),
       SUM(t.order_id IS NOT NULL AND NOT (t.customer_id IS s.customer_id AND t.amount IS s.amount AND t.status IS s.status AND t.updated_at IS s.updated_at))
FROM s LEFT JOIN tgt t ON t.dt = '$2' AND t.order_id = s.order_id;
SQL
}

export -f hand_run hand_diff
fresh() { rm -f "$work/run.db"*; sqlite3 "$work/base.db" ".backup '$work/run.db'"; }

# Times one command once on a fresh copy: "wall cpu", cpu being user + system
# time of the process tree (steadier than wall time on a shared machine).
once() {
  fresh
  local out; out=$(/usr/bin/time -f '%e %U %S' bash -c '"$@" >/dev/null 2>&1' _ "$@" 2>&1 | tail -1)
  read -r w u s <<<"$out"
  echo "$w $(echo "$u + $s" | bc -l)"
}
best2() { # "wall cpu" lines -> best wall, best cpu
  awk 'NR == 1 || $1 < w { w = $1 } NR == 1 || $2 < c { c = $2 } END { print w, c }'
}
# Alternates Rewind and the hand-written SQL ${RUNS:-5} times; sets r and h.
pair() { # rewind-command... -- hand-command...
  local a=() b=() seen=0
  for x in "$@"; do
    if [ "$x" = -- ]; then seen=1; elif [ $seen = 0 ]; then a+=("$x"); else b+=("$x"); fi
  done
  local ra="" hb=""
  for _ in $(seq "${RUNS:-5}"); do
    ra+="$(once "${a[@]}")"$'\n'
    hb+="$(once "${b[@]}")"$'\n'
  done
  r=$(printf '%s' "$ra" | best2); h=$(printf '%s' "$hb" | best2)
}

command -v bc >/dev/null || apt-get install -y -qq bc >/dev/null
ws=(--db "$work/run.db" --spec "$work/spec.json")
row() { # label "wall cpu" "wall cpu"
  read -r rw rc <<<"$2"; read -r hw hc <<<"$3"
  printf '%-40s %8.3f %8.3f %6.2fx   %8.3f %8.3f %6.2fx\n' "$1" "$rw" "$hw" "$(echo "$rw / $hw" | bc -l)" \
    "$rc" "$hc" "$(echo "$rc / $hc" | bc -l)"
}
printf '%-40s %8s %8s %7s   %8s %8s %7s\n' "operation (best of ${RUNS:-5}, seconds)" "wall rw" "by hand" "ratio" "cpu rw" "by hand" "ratio"
for day in 2025-01-10 2025-01-03; do
  pair "$rewindctl" run "${ws[@]}" --dataset sales --partition "$day" --execute -- hand_run "$work/run.db" "$day"
  kind=$([ "$day" = 2025-01-10 ] && echo "bad day, 95% updated" || echo "clean day, no change")
  row "run one partition ($kind)" "$r" "$h"
done
pair "$rewindctl" preview "${ws[@]}" --dataset sales --partition 2025-01-10 -- hand_diff "$work/run.db" 2025-01-10
row "preview one partition (diff)" "$r" "$h"
