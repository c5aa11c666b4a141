# A throwaway Trino server with an Apache Iceberg catalog for the tests.
# Sourced by scripts/test, after scripts/pg.sh.
#
# rewind_trino_fetch: gets Trino's server tarball and its command-line client
# from Maven Central with Maven (scripts/trino/pom.xml: trino-server and
# trino-cli's executable jar of one release), unpacked once into a cache
# outside the clone under
# ${XDG_CACHE_HOME:-~/.cache}/rewind/trino-<version>-<pom hash> (the tarball
# is deleted once unpacked). rewind_trino_start: needs the throwaway
# PostgreSQL of rewind_pg_start, in which it makes a fresh database,
# iceberg_catalog, with the tables of Iceberg's JDBC catalog; writes a fresh temporary folder
# (etc/ with the server's configuration, the Iceberg catalog `iceberg` whose
# warehouse is warehouse/ on the local disk) and starts one server, a
# coordinator that is also its own worker, on 127.0.0.1 (a free port), with
# the Temurin JDK 25 of the machine (Trino 476 needs Java 24 or newer); waits
# until it answers a query, then creates the schema iceberg.rewind. Exports
#   REWIND_TEST_TRINO_URL  trino://rewind@127.0.0.1:PORT/iceberg/rewind
#   REWIND_TEST_TRINO_DIR  pid, start, server.log, console.log, etc/ and the
#                          warehouse of the server
#   REWIND_TEST_TRINO_CLI  Trino's own client on that server, as user rewind in
#                          iceberg.rewind:
#                          "$REWIND_TEST_TRINO_CLI" --output-format CSV --execute "SELECT ..."
# A server that cannot start returns 1 with the log line that says why.
# rewind_trino_stop stops the server and removes the folder; callers trap it
# on EXIT, before rewind_pg_stop, so the server stops even when a test fails.

# The Temurin JDK is no Debian package: it comes with the machine (Debian 12
# has no Java newer than 17).
REWIND_TRINO_PACKAGES=(maven curl postgresql-client)
REWIND_TRINO_SCRIPTS=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/trino
REWIND_TRINO_VERSION=$(sed -n 's:.*<trino.version>\(.*\)</trino.version>.*:\1:p' "$REWIND_TRINO_SCRIPTS/pom.xml")
REWIND_TRINO_DIR=

# A java of release 24 or newer: $REWIND_TRINO_JAVA, the machine's Temurin 25,
# or the newest JDK under /usr/lib/jvm that is new enough.
rewind_trino_java() {
  local java release
  for java in ${REWIND_TRINO_JAVA:-} /usr/lib/jvm/temurin-25-jdk-amd64/bin/java $(ls -d /usr/lib/jvm/*/bin/java 2>/dev/null | sort -rV); do
    [ -x "$java" ] || continue
    release=$(sed -n 's/^JAVA_VERSION="\([0-9]*\).*/\1/p' "$(dirname "$java")/../release" 2>/dev/null)
    [ "${release:-0}" -ge 24 ] && { echo "$java"; return 0; }
  done
  return 1
}

# The server and the client of the pinned release in the cache (fetched
# once); prints the folder: server/ (bin, lib, plugin) and trino-cli.jar.
rewind_trino_fetch() {
  local hash cache repo
  hash=$(sha256sum "$REWIND_TRINO_SCRIPTS/pom.xml" | cut -c1-12)
  cache=${REWIND_TRINO_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/rewind/trino-$REWIND_TRINO_VERSION-$hash}
  if [ ! -f "$cache/complete" ]; then
    echo "rewind: fetching Trino $REWIND_TRINO_VERSION (the server's tarball and the CLI: about 900 MB unpacked) from Maven Central into $cache" >&2
    rm -rf "$cache"
    mkdir -p "$cache"
    # A Maven repository of the fetch's own: the tarball is not kept twice,
    # in ~/.m2 and unpacked, and goes with it once unpacked.
    repo=$cache/repository
    if ! mvn -q -B -f "$REWIND_TRINO_SCRIPTS/pom.xml" -Dmaven.repo.local="$repo" dependency:resolve \
        >"$cache/mvn.log" 2>&1; then
      echo "rewind: Maven could not fetch Trino: $(grep -m1 -E 'ERROR' "$cache/mvn.log")" >&2
      return 1
    fi
    repo=$repo/io/trino
    if ! tar -xzf "$repo/trino-server/$REWIND_TRINO_VERSION/trino-server-$REWIND_TRINO_VERSION.tar.gz" -C "$cache" ||
       ! mv "$cache/trino-server-$REWIND_TRINO_VERSION" "$cache/server" ||
       ! mv "$repo/trino-cli/$REWIND_TRINO_VERSION/trino-cli-$REWIND_TRINO_VERSION-executable.jar" "$cache/trino-cli.jar"; then
      echo "rewind: Trino's tarball could not be unpacked into $cache" >&2
      return 1
    fi
    rm -rf "$cache/repository"
    touch "$cache/complete"
  fi
  echo "$cache"
}

rewind_trino_free_port() {
  local port
  for port in $(seq 18080 18180); do
    if ! (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
      echo "$port"
      return 0
    fi
  done
  return 1
}

# One statement over Trino's client protocol: POST /v1/statement, then each
# nextUri until the response has none. Prints the last response (the JSON of
# the query's end: its error, if any); fails when the statement failed.
# $1 is the server, http://127.0.0.1:PORT.
rewind_trino_query() {
  local server=$1 sql=$2 response next
  response=$(curl -sS --max-time 30 -H 'X-Trino-User: rewind' --data-binary "$sql" "$server/v1/statement") || return 1
  while next=$(printf '%s' "$response" | sed -n 's/.*"nextUri":"\([^"]*\)".*/\1/p') && [ -n "$next" ]; do
    response=$(curl -sS --max-time 30 -H 'X-Trino-User: rewind' "$next") || return 1
  done
  printf '%s\n' "$response"
  case $response in
    *'"error":{'*) return 1 ;;
    *'"stats":{'*) return 0 ;;
    *) return 1 ;;
  esac
}

rewind_trino_start() {
  # A second start replaces the first server: its catalog's database is
  # made anew below.
  rewind_trino_stop
  unset REWIND_TEST_TRINO_URL REWIND_TEST_TRINO_DIR REWIND_TEST_TRINO_CLI
  local started=$SECONDS cache java port pg pg_user pg_address server name
  # The server's heap: REWIND_TRINO_HEAP, whole gigabytes (2G by default).
  local heap=${REWIND_TRINO_HEAP:-2G}
  heap=${heap%G}
  case $heap in ''|*[!0-9]*|0) echo "rewind: REWIND_TRINO_HEAP must be whole gigabytes (2G), not ${REWIND_TRINO_HEAP}" >&2; return 1 ;; esac
  if [ -z "${REWIND_TEST_PG_URL:-}" ]; then
    echo "rewind: Trino's Iceberg catalog needs the throwaway PostgreSQL (rewind_pg_start): ${REWIND_TEST_PG_SKIP:-not started}" >&2
    return 1
  fi
  cache=$(rewind_trino_fetch) || return 1
  java=$(rewind_trino_java) || {
    echo "rewind: no Java 24 or newer to run Trino $REWIND_TRINO_VERSION with (looked for /usr/lib/jvm/temurin-25-jdk-amd64; set REWIND_TRINO_JAVA)" >&2
    return 1
  }
  # postgresql://postgres@127.0.0.1:PORT/postgres: the catalog's database
  # beside it, made anew (a second start in the same server starts empty),
  # with the catalog's two tables: Trino does not create them (Iceberg's
  # JdbcCatalog would, but Trino turns that off). Their DDL is Iceberg's own
  # (JdbcUtil, schema V1: iceberg_type for views).
  pg=${REWIND_TEST_PG_URL#postgresql://}
  pg_user=${pg%%@*}
  pg_address=${pg#*@}
  pg_address=${pg_address%%/*}
  if ! psql "$REWIND_TEST_PG_URL" -X -q -v ON_ERROR_STOP=1 \
      -c 'DROP DATABASE IF EXISTS iceberg_catalog WITH (FORCE)' -c 'CREATE DATABASE iceberg_catalog' >/dev/null 2>&1 ||
     ! psql "postgresql://$pg_user@$pg_address/iceberg_catalog" -X -q -v ON_ERROR_STOP=1 >/dev/null 2>&1 <<'EOF'
CREATE TABLE iceberg_tables (
  catalog_name VARCHAR(255) NOT NULL,
  table_namespace VARCHAR(255) NOT NULL,
  table_name VARCHAR(255) NOT NULL,
  metadata_location VARCHAR(1000),
  previous_metadata_location VARCHAR(1000),
  iceberg_type VARCHAR(5),
  PRIMARY KEY (catalog_name, table_namespace, table_name)
);
CREATE TABLE iceberg_namespace_properties (
  catalog_name VARCHAR(255) NOT NULL,
  namespace VARCHAR(255) NOT NULL,
  property_key VARCHAR(255),
  property_value VARCHAR(1000),
  PRIMARY KEY (catalog_name, namespace, property_key)
);
EOF
  then
    echo "rewind: could not create the database iceberg_catalog for Trino's Iceberg catalog in $REWIND_TEST_PG_URL" >&2
    return 1
  fi
  port=$(rewind_trino_free_port) || { echo "rewind: no free port in 18080-18180 for Trino" >&2; return 1; }
  REWIND_TRINO_DIR=$(mktemp -d "${TMPDIR:-/tmp}/rewind-trino.XXXXXX")
  mkdir -p "$REWIND_TRINO_DIR/etc/catalog" "$REWIND_TRINO_DIR/data" "$REWIND_TRINO_DIR/tmp" \
    "$REWIND_TRINO_DIR/warehouse" "$REWIND_TRINO_DIR/plugin"
  # Only the plugins the tests use are loaded: all 56 of the tarball take a
  # second longer to start and 180 MB more memory.
  for name in iceberg memory tpch; do
    ln -s "$cache/server/plugin/$name" "$REWIND_TRINO_DIR/plugin/$name"
  done
  cat >"$REWIND_TRINO_DIR/etc/node.properties" <<EOF
node.environment=rewind
node.id=rewind-test
node.data-dir=$REWIND_TRINO_DIR/data
node.bind-ip=127.0.0.1
node.internal-address=127.0.0.1
EOF
  # Trino's recommended flags (docs: installation/deployment) with a modest
  # heap: the machine's 2 cores and 24 GB are shared with PostgreSQL, the
  # Kafka cluster and the tests (REWIND_TRINO_HEAP above, for a bench of
  # larger tables). No heap dump on OOM: the folder is thrown away.
  cat >"$REWIND_TRINO_DIR/etc/jvm.config" <<EOF
-server
-Xmx${heap}G
-XX:+UseG1GC
-XX:G1HeapRegionSize=32M
-XX:+ExplicitGCInvokesConcurrent
-XX:+ExitOnOutOfMemoryError
-XX:-OmitStackTraceInFastThrow
-XX:ReservedCodeCacheSize=256M
-XX:PerMethodRecompilationCutoff=10000
-XX:PerBytecodeRecompilationCutoff=10000
-Djdk.attach.allowAttachSelf=true
-Djdk.nio.maxCachedBufferSize=2000000
-Dfile.encoding=UTF-8
-XX:+EnableDynamicAgentLoading
-Djava.io.tmpdir=$REWIND_TRINO_DIR/tmp
EOF
  # Query memory half the heap (at least 1 GB): well under the heap less
  # Trino's headroom (30 % of it).
  local query_memory=$(( heap / 2 > 1 ? heap / 2 : 1 ))
  cat >"$REWIND_TRINO_DIR/etc/config.properties" <<EOF
coordinator=true
node-scheduler.include-coordinator=true
http-server.http.port=$port
discovery.uri=http://127.0.0.1:$port
query.max-memory=${query_memory}GB
query.max-memory-per-node=${query_memory}GB
task.concurrency=2
catalog.config-dir=$REWIND_TRINO_DIR/etc/catalog
plugin.dir=$REWIND_TRINO_DIR/plugin
EOF
  # Iceberg's JDBC catalog in the throwaway PostgreSQL (trust: no password);
  # tables on the local disk under warehouse/ (local:/// is the folder).
  # Snapshots and orphan files may be expired at once, for the tests of
  # what a rewind can still reach.
  cat >"$REWIND_TRINO_DIR/etc/catalog/iceberg.properties" <<EOF
connector.name=iceberg
iceberg.catalog.type=jdbc
iceberg.jdbc-catalog.driver-class=org.postgresql.Driver
iceberg.jdbc-catalog.connection-url=jdbc:postgresql://$pg_address/iceberg_catalog
iceberg.jdbc-catalog.connection-user=$pg_user
iceberg.jdbc-catalog.catalog-name=rewind
iceberg.jdbc-catalog.default-warehouse-dir=local:///warehouse
fs.native-local.enabled=true
local.location=$REWIND_TRINO_DIR
iceberg.file-format=PARQUET
iceberg.format-version=2
iceberg.expire-snapshots.min-retention=0s
iceberg.remove-orphan-files.min-retention=0s
EOF
  echo "connector.name=memory" >"$REWIND_TRINO_DIR/etc/catalog/memory.properties"
  echo "connector.name=tpch" >"$REWIND_TRINO_DIR/etc/catalog/tpch.properties"
  # What `bin/launcher run` runs (476's launcher is a native program, no
  # Python; `launcher -v` prints the command): java on the tarball's lib/,
  # the node's properties as system properties. Started here, the pid is
  # java's own.
  cat >"$REWIND_TRINO_DIR/start" <<EOF
#!/bin/sh
# Starts the server in the background; its pid in $REWIND_TRINO_DIR/pid.
cd "$REWIND_TRINO_DIR/data" || exit 1
"$java" \$(grep -v '^#' "$REWIND_TRINO_DIR/etc/jvm.config") \\
  \$(sed 's/^/-D/' "$REWIND_TRINO_DIR/etc/node.properties") \\
  -Dconfig=$REWIND_TRINO_DIR/etc/config.properties \\
  -Dlog.output-file=$REWIND_TRINO_DIR/server.log -Dlog.enable-console=false \\
  -cp "$cache/server/lib/*" io.trino.server.TrinoServer >>"$REWIND_TRINO_DIR/console.log" 2>&1 &
echo \$! >"$REWIND_TRINO_DIR/pid"
EOF
  chmod +x "$REWIND_TRINO_DIR/start"
  cat >"$REWIND_TRINO_DIR/trino-cli" <<EOF
#!/bin/sh
exec "$java" -Xmx256m -XX:TieredStopAtLevel=1 -XX:+UseSerialGC -Djava.awt.headless=true \\
  --enable-native-access=ALL-UNNAMED -Dorg.jline.terminal.dumb=true \\
  -jar "$cache/trino-cli.jar" --server http://127.0.0.1:$port --user rewind --catalog iceberg --schema rewind \\
  --disable-auto-suggestion --no-progress --history-file=$REWIND_TRINO_DIR/cli-history "\$@"
EOF
  chmod +x "$REWIND_TRINO_DIR/trino-cli"
  "$REWIND_TRINO_DIR/start"
  server=http://127.0.0.1:$port
  if ! rewind_trino_wait "$server" 180; then
    local why state="did not answer within 180 s"
    kill -0 "$(cat "$REWIND_TRINO_DIR/pid")" 2>/dev/null || state="exited"
    # Trino's ERROR line and Guice's first numbered error under it (a bad
    # property, say), else what the JVM said before logging began.
    why=$(grep -h -m1 -E '[[:space:]]ERROR[[:space:]]' "$REWIND_TRINO_DIR/server.log" 2>/dev/null)
    [ -n "$why" ] && why="$why $(grep -h -m1 -E '^[0-9]+\) ' "$REWIND_TRINO_DIR/server.log")"
    [ -n "$why" ] || why=$(grep -h -m1 -E 'Exception|Error|Unrecognized|Invalid' "$REWIND_TRINO_DIR/console.log" 2>/dev/null)
    echo "rewind: Trino $state: ${why:-no error logged (logs in $REWIND_TRINO_DIR/server.log)}" >&2
    return 1
  fi
  if ! rewind_trino_query "$server" 'CREATE SCHEMA IF NOT EXISTS iceberg.rewind' >"$REWIND_TRINO_DIR/schema.json"; then
    echo "rewind: Trino could not create the schema iceberg.rewind: $(sed -n 's/.*"error":{"message":"\(\([^"\\]\|\\.\)*\)".*/\1/p' "$REWIND_TRINO_DIR/schema.json")" >&2
    return 1
  fi
  export REWIND_TEST_TRINO_URL="trino://rewind@127.0.0.1:$port/iceberg/rewind" \
    REWIND_TEST_TRINO_DIR=$REWIND_TRINO_DIR REWIND_TEST_TRINO_CLI=$REWIND_TRINO_DIR/trino-cli
  echo "rewind: Trino $REWIND_TRINO_VERSION at $REWIND_TEST_TRINO_URL (Iceberg catalog in PostgreSQL's iceberg_catalog, logs in $REWIND_TRINO_DIR), up in $((SECONDS - started))s" >&2
}

# Until the server says it has started and runs a query, or $2 s.
rewind_trino_wait() {
  local server=$1 deadline=$((SECONDS + $2))
  while [ $SECONDS -lt $deadline ]; do
    kill -0 "$(cat "$REWIND_TRINO_DIR/pid")" 2>/dev/null || return 1
    if curl -sf --max-time 5 "$server/v1/info" 2>/dev/null | grep -q '"starting":false' &&
        rewind_trino_query "$server" 'SELECT 1' >/dev/null 2>&1; then
      return 0
    fi
    sleep 1
  done
  return 1
}

rewind_trino_stop() {
  [ -n "$REWIND_TRINO_DIR" ] || return 0
  local pid
  # Every step may fail (the server already gone): none may stop the
  # caller's EXIT trap under set -e.
  pid=$(cat "$REWIND_TRINO_DIR/pid" 2>/dev/null) && kill "$pid" 2>/dev/null || true
  for _ in $(seq 1 30); do
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.5
  done
  [ -n "$pid" ] && kill -9 "$pid" 2>/dev/null || true
  rm -rf "$REWIND_TRINO_DIR" || true
  REWIND_TRINO_DIR=
}
