#!/usr/bin/env bash
# Benchmark: `rewindctl lag` (one pass, the rewind_lateness aggregate: a hash
# map of counts per distinct lateness, no sort) against a hand-written GROUP BY
# in the sqlite3 shell, over N events (default 5,000,000).
#
#   bench/lag.sh [REWINDCTL] [ROWS]
#
# REWINDCTL defaults to $REWINDCTL, then build/app/rewindctl/rewindctl.
# Needs the sqlite3 shell (apt-get install sqlite3). Prints rows/s for both.
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
rewindctl="${1:-${REWINDCTL:-$here/../build/app/rewindctl/rewindctl}}"
rows="${2:-5000000}"
command -v sqlite3 >/dev/null || { echo "lag.sh: the sqlite3 shell is missing (apt-get install sqlite3)" >&2; exit 2; }
[ -x "$rewindctl" ] || { echo "lag.sh: no rewindctl at $rewindctl" >&2; exit 2; }

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
db="$work/bench.db"
spec="$work/bench.json"

# Events over 14 days, ISO-8601 text with a Z. Lateness as in the demo:
# ~90% 0-120 s, ~8% 2-60 min, ~1.5% 1-2 h, ~0.5% 2 h to 3 days.
echo "building $rows events with the sqlite3 shell..."
sqlite3 "$db" <<SQL
CREATE TABLE raw_events (event_id TEXT, dt TEXT, event_ts TEXT, ingested_at TEXT, value REAL);
CREATE TABLE events (event_id TEXT, dt TEXT, event_ts TEXT, ingested_at TEXT, value REAL);
INSERT INTO raw_events
SELECT printf('ev-%09d', n), date(ts, 'unixepoch'),
       strftime('%Y-%m-%dT%H:%M:%SZ', ts, 'unixepoch'), strftime('%Y-%m-%dT%H:%M:%SZ', ts + lat, 'unixepoch'), n % 100
FROM (SELECT value AS n,
             1746057600 + (value * 14 * 86400 / $rows) AS ts,
             CASE WHEN (value * 7919) % 1000 < 900 THEN ((value * 104729) % 121) * ((value * 1299709) % 121) / 120
                  WHEN (value * 7919) % 1000 < 980 THEN 121 + (value * 15485863) % 3480
                  WHEN (value * 7919) % 1000 < 995 THEN 3601 + (value * 15485863) % 3600
                  ELSE 7201 + ((value * 32452843) % 1000) * ((value * 32452843) % 1000) * 252000 / 1000000 END AS lat
      FROM generate_series(0, $rows - 1));
SQL
cat >"$spec" <<JSON
{"datasets": {"events": {"source": "raw_events", "target": "events", "partition_column": "dt", "key": ["event_id"],
  "order_by": "ingested_at", "event_time": "event_ts", "ingest_time": "ingested_at", "allowed_lateness": "2h"}}}
JSON
# Open once so the control schema exists before timing.
"$rewindctl" datasets --db "$db" --spec "$spec" >/dev/null

# Best of 3 runs of "$@": "wall cpu" seconds (cpu = user + sys of the process).
best() {
    local best_wall="" best_cpu="" TIMEFORMAT='%R %U %S'
    for _ in 1 2 3; do
        local t
        t=$( { time "$@" >/dev/null; } 2>&1 )
        read -r wall usr sys <<<"$t"
        best_wall=$(awk -v a="$wall" -v b="${best_wall:-999999}" 'BEGIN { print (a < b ? a : b) }')
        best_cpu=$(awk -v a="$usr" -v s="$sys" -v b="${best_cpu:-999999}" 'BEGIN { c = a + s; print (c < b ? c : b) }')
    done
    echo "$best_wall $best_cpu"
}

groupby="SELECT unixepoch(ingested_at) - unixepoch(event_ts) AS lateness_s, COUNT(*) FROM raw_events GROUP BY lateness_s"
read -r w_rewind c_rewind <<<"$(best "$rewindctl" lag --db "$db" --spec "$spec" --dataset events --json)"
read -r w_shell c_shell <<<"$(best sqlite3 "$db" "$groupby;")"

"$rewindctl" lag --db "$db" --spec "$spec" --dataset events --json >"$work/lag.json"
count=$(sed -n 's/^  "count": \([0-9]*\),$/\1/p' "$work/lag.json")
distinct=$(sqlite3 "$db" "SELECT COUNT(*) FROM ($groupby)")
[ "$count" = "$rows" ] || { echo "lag.sh: rewindctl lag counted $count events, expected $rows" >&2; exit 1; }

awk -v n="$rows" -v d="$distinct" -v wa="$w_rewind" -v ca="$c_rewind" -v wb="$w_shell" -v cb="$c_shell" 'BEGIN {
    printf "events: %d, distinct lateness values: %d; best of 3, whole process (load average: %s)\n", n, d, "'"$(cut -d' ' -f1 /proc/loadavg)"'"
    printf "%-58s %7s %14s %7s %14s\n", "", "wall s", "rows/s (wall)", "cpu s", "rows/s (cpu)"
    printf "%-58s %7.3f %14.0f %7.3f %14.0f\n", "rewindctl lag (percentiles, histogram, partitions, advice)", wa, n / wa, ca, n / ca
    printf "%-58s %7.3f %14.0f %7.3f %14.0f\n", "sqlite3 shell GROUP BY (counts per lateness only)", wb, n / wb, cb, n / cb
}'
