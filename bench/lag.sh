#!/usr/bin/env bash
# `rewindctl lag` against a hand-written GROUP BY: now part of bench/run, which
# this calls.
#
#   bench/lag.sh [REWINDCTL] [ROWS]          (default: the build's rewindctl, 5000000 rows)
set -euo pipefail
args=(--only lag --sizes "${2:-5000000}")
[[ -n ${1:-} ]] && args+=(--rewindctl "$1")
exec "$(dirname "$0")/run" "${args[@]}"
