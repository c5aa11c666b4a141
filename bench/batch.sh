#!/usr/bin/env bash
# One-partition run (merge, overwrite) and preview against hand-written SQL:
# now part of bench/run, which this calls (data and SQL live in bench/data.sh
# and bench/run).
#
#   bench/batch.sh [ROWS]      (default 2000000 source rows; RUNS=N runs each, default 5)
set -euo pipefail
exec "$(dirname "$0")/run" --only merge,overwrite,preview --sizes "${1:-2000000}" --runs "${RUNS:-5}"
