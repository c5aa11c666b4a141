# dbt for the tests and benchmarks, in a virtual environment of its own.
# Sourced by scripts/test. Rewind does not depend on Python: dbt is a tool it
# calls when the user has one (rewindctl init --dbt PROJECT_DIR).
#
# rewind_dbt_install: creates the virtual environment from the pinned
# scripts/dbt/requirements.txt (dbt-core, dbt-postgres and their
# dependencies) with the first python3 on PATH, cached outside the clone under
# ${XDG_CACHE_HOME:-~/.cache}/rewind/dbt-<requirements hash>-py<version>
# (made once: about 30 s from PyPI), and exports
#   REWIND_TEST_DBT  its dbt executable.
# A venv that cannot be made returns 1 naming pip's error; the dbt suites then
# fail under scripts/test (REWIND_TEST_DBT_REQUIRED=1), never skip.

# Debian's venv module, for when the first python3 on PATH is Debian's own.
REWIND_DBT_PACKAGES=(python3-venv)
REWIND_DBT_SCRIPTS=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/dbt

rewind_dbt_install() {
  local python hash version venv
  python=${REWIND_DBT_PYTHON:-$(command -v python3)}
  hash=$(sha256sum "$REWIND_DBT_SCRIPTS/requirements.txt" | cut -c1-12)
  version=$("$python" -c 'import sys; print("%d.%d" % sys.version_info[:2])')
  venv=${REWIND_DBT_VENV:-${XDG_CACHE_HOME:-$HOME/.cache}/rewind/dbt-$hash-py$version}
  if [ ! -f "$venv/complete" ]; then
    # A venv's scripts name its own path: it is made where it stays.
    echo "rewind: installing dbt (scripts/dbt/requirements.txt) into $venv" >&2
    rm -rf "$venv"
    mkdir -p "$(dirname "$venv")"
    if ! "$python" -m venv "$venv" >"$venv.log" 2>&1 ||
       ! "$venv/bin/pip" install --disable-pip-version-check --no-input -q \
         -r "$REWIND_DBT_SCRIPTS/requirements.txt" >>"$venv.log" 2>&1; then
      echo "rewind: dbt could not be installed: $(grep -m1 -E 'ERROR|Error' "$venv.log")" >&2
      return 1
    fi
    touch "$venv/complete"
  fi
  export REWIND_TEST_DBT=$venv/bin/dbt
  # No telemetry from the tests' runs.
  export DBT_SEND_ANONYMOUS_USAGE_STATS=false
}
