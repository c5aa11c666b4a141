# A throwaway PostgreSQL 15 server for the tests. Sourced by scripts/test.
#
# rewind_pg_start: initdb into a fresh temporary folder (as the unprivileged
# `postgres` user when run as root: initdb refuses root), listen on 127.0.0.1
# only, on a free port, trust authentication for local connections (but for
# the members of rewind_pw, who must give a password); exports
# REWIND_TEST_PG_URL. rewind_pg_stop: stops it and removes the folder. Callers
# set `trap rewind_pg_stop EXIT` so the server stops even when a test fails.
# When the server cannot start, REWIND_TEST_PG_URL stays unset and
# REWIND_TEST_PG_SKIP says why; the PostgreSQL tests then report as skipped.

REWIND_PG_PACKAGES=(postgresql-15 postgresql-15-partman)
REWIND_PG_BIN=${REWIND_PG_BIN:-/usr/lib/postgresql/15/bin}
REWIND_PG_DIR=

rewind_pg_free_port() {
  local port
  for port in $(seq 54320 54400); do
    if ! (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
      echo "$port"
      return 0
    fi
  done
  return 1
}

rewind_pg_start() {
  unset REWIND_TEST_PG_URL
  export REWIND_TEST_PG_SKIP="PostgreSQL could not start"
  if [ ! -x "$REWIND_PG_BIN/initdb" ]; then
    REWIND_TEST_PG_SKIP="no PostgreSQL 15 server binaries in $REWIND_PG_BIN"
    echo "rewind: $REWIND_TEST_PG_SKIP; PostgreSQL tests will be skipped" >&2
    return 0
  fi
  local as=() port
  if [ "$(id -u)" -eq 0 ]; then
    if ! id postgres >/dev/null 2>&1; then
      REWIND_TEST_PG_SKIP="running as root and no unprivileged postgres user for initdb"
      echo "rewind: $REWIND_TEST_PG_SKIP; PostgreSQL tests will be skipped" >&2
      return 0
    fi
    as=(runuser -u postgres --)
  fi
  REWIND_PG_DIR=$(mktemp -d "${TMPDIR:-/tmp}/rewind-pg.XXXXXX")
  chmod 755 "$REWIND_PG_DIR"
  [ ${#as[@]} -gt 0 ] && chown postgres: "$REWIND_PG_DIR"
  port=$(rewind_pg_free_port) || { REWIND_TEST_PG_SKIP="no free port in 54320-54400"; return 0; }
  if ! "${as[@]}" "$REWIND_PG_BIN/initdb" -D "$REWIND_PG_DIR/data" -U postgres --auth=trust -E UTF8 --locale=C.UTF-8 \
      >"$REWIND_PG_DIR/initdb.log" 2>&1; then
    REWIND_TEST_PG_SKIP="initdb failed: $(tail -n 3 "$REWIND_PG_DIR/initdb.log" | tr '\n' ' ')"
    echo "rewind: $REWIND_TEST_PG_SKIP; PostgreSQL tests will be skipped" >&2
    return 0
  fi
  # The members of one role must give a password (SCRAM), over TCP and the
  # socket alike: the tests of libpq's password sources and of the console's
  # prompt (tst_credentials, tst_secrets, tst_keyring) log in as such members,
  # one per suite. Every other role is trusted.
  "${as[@]}" sed -i '1i host all +rewind_pw all scram-sha-256\nlocal all +rewind_pw scram-sha-256' "$REWIND_PG_DIR/data/pg_hba.conf"
  # Throwaway data: no fsync (the tests do not pull the plug); enough
  # connections for the parallel suites.
  if ! "${as[@]}" "$REWIND_PG_BIN/pg_ctl" -D "$REWIND_PG_DIR/data" -l "$REWIND_PG_DIR/server.log" -w -t 60 \
      -o "-c listen_addresses=127.0.0.1 -c port=$port -c unix_socket_directories=$REWIND_PG_DIR -c fsync=off -c max_connections=200" \
      start >/dev/null 2>&1; then
    REWIND_TEST_PG_SKIP="the server did not start: $(tail -n 3 "$REWIND_PG_DIR/server.log" 2>/dev/null | tr '\n' ' ')"
    echo "rewind: $REWIND_TEST_PG_SKIP; PostgreSQL tests will be skipped" >&2
    return 0
  fi
  export REWIND_TEST_PG_URL="postgresql://postgres@127.0.0.1:$port/postgres"
  unset REWIND_TEST_PG_SKIP
  echo "rewind: throwaway PostgreSQL at $REWIND_TEST_PG_URL (data in $REWIND_PG_DIR)" >&2
}

rewind_pg_stop() {
  [ -n "$REWIND_PG_DIR" ] || return 0
  local as=()
  [ "$(id -u)" -eq 0 ] && as=(runuser -u postgres --)
  "${as[@]}" "$REWIND_PG_BIN/pg_ctl" -D "$REWIND_PG_DIR/data" -m immediate -w stop >/dev/null 2>&1 || true
  rm -rf "$REWIND_PG_DIR"
  REWIND_PG_DIR=
}
