#!/usr/bin/env bash
# Stream replay against a hand-written INSERT ... SELECT: now part of bench/run,
# which this calls.
#
#   bench/replay.sh [REWINDCTL] [EVENTS]     (default: the build's rewindctl, 2000000 events)
set -euo pipefail
args=(--only replay)
[[ -n ${1:-} ]] && args+=(--rewindctl "$1")
BENCH_LOG_EVENTS=${2:-2000000} exec "$(dirname "$0")/run" "${args[@]}"
