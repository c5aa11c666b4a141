# A throwaway Apache Kafka cluster for the tests and benchmarks. Sourced by
# scripts/test and bench/kafka.
#
# rewind_kafka_start: gathers Kafka's jars from Maven Central with Maven
# (scripts/kafka/pom.xml: kafka_2.13 and kafka-tools of one release, and an
# slf4j binding), cached outside the clone under
# ${XDG_CACHE_HOME:-~/.cache}/rewind/kafka-<version>-<pom hash>; formats KRaft
# storage for three nodes in a fresh temporary folder and starts them, each a
# combined broker and controller on 127.0.0.1 (free ports), replication
# factor 3 and min.insync.replicas=2 for every topic; waits until all three
# brokers answer and a consumer group's coordinator is ready. Exports
#   REWIND_TEST_KAFKA_BOOTSTRAP  the three brokers, host:port,...
#   REWIND_TEST_KAFKA_DIR        nodeN/{pid,start,server.log,port} for each node:
#                                a test kills a broker by its pid and starts it
#                                again with `start`
#   REWIND_TEST_KAFKA_BIN        Kafka's own tools from the same jars:
#                                kafka-consumer-groups, kafka-topics,
#                                kafka-console-consumer, kafka-console-producer,
#                                kafka-delete-records, kafka-get-offsets,
#                                kafka-transactions, kafka-metadata-quorum
# A cluster that cannot start returns 1 with the log line that says why (the
# caller fails: the Kafka suites never skip for want of a cluster under
# scripts/test). rewind_kafka_stop stops every node and removes the folder;
# callers trap it on EXIT so the cluster stops even when a test fails.

REWIND_KAFKA_PACKAGES=(openjdk-17-jre-headless maven)
REWIND_KAFKA_SCRIPTS=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/kafka
REWIND_KAFKA_VERSION=$(sed -n 's:.*<kafka.version>\(.*\)</kafka.version>.*:\1:p' "$REWIND_KAFKA_SCRIPTS/pom.xml")
REWIND_KAFKA_DIR=

rewind_kafka_java() {
  if [ -x /usr/lib/jvm/java-17-openjdk-amd64/bin/java ]; then
    echo /usr/lib/jvm/java-17-openjdk-amd64/bin/java
  else
    command -v java
  fi
}

# The jars of the pinned release in the cache (fetched once); prints the folder.
rewind_kafka_fetch() {
  local hash cache
  hash=$(sha256sum "$REWIND_KAFKA_SCRIPTS/pom.xml" | cut -c1-12)
  cache=${REWIND_KAFKA_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/rewind/kafka-$REWIND_KAFKA_VERSION-$hash}
  if [ ! -f "$cache/complete" ]; then
    echo "rewind: fetching Apache Kafka $REWIND_KAFKA_VERSION's jars from Maven Central into $cache" >&2
    rm -rf "$cache"
    mkdir -p "$cache"
    if ! mvn -q -B -f "$REWIND_KAFKA_SCRIPTS/pom.xml" dependency:copy-dependencies \
        -DoutputDirectory="$cache/libs" >"$cache/mvn.log" 2>&1; then
      echo "rewind: Maven could not fetch Kafka's jars: $(grep -m1 -E 'ERROR' "$cache/mvn.log")" >&2
      return 1
    fi
    touch "$cache/complete"
  fi
  echo "$cache"
}

rewind_kafka_free_ports() {
  # $1 ports, free now, from 19092 on.
  local want=$1 port found=()
  for port in $(seq 19092 19400); do
    if ! (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
      found+=("$port")
      [ ${#found[@]} -eq "$want" ] && { echo "${found[@]}"; return 0; }
    fi
  done
  return 1
}

# The wrappers of Kafka's tools, the java of the cluster on the jars of the cluster.
rewind_kafka_tools() {
  local dir=$1 java=$2 libs=$3 name class
  mkdir -p "$dir/bin"
  while read -r name class; do
    cat >"$dir/bin/$name" <<EOF
#!/bin/sh
exec "$java" -Xmx256m -XX:TieredStopAtLevel=1 -XX:+UseSerialGC -Djava.awt.headless=true \\
  -Dlog4j.configuration=file:$REWIND_KAFKA_SCRIPTS/log4j.properties -Dkafka.log.file=$dir/tools.log \\
  -cp "$libs/*" $class "\$@"
EOF
    chmod +x "$dir/bin/$name"
  done <<'EOF'
kafka-consumer-groups org.apache.kafka.tools.consumer.group.ConsumerGroupCommand
kafka-topics org.apache.kafka.tools.TopicCommand
kafka-console-consumer org.apache.kafka.tools.consumer.ConsoleConsumer
kafka-console-producer kafka.tools.ConsoleProducer
kafka-delete-records org.apache.kafka.tools.DeleteRecordsCommand
kafka-get-offsets org.apache.kafka.tools.GetOffsetShell
kafka-transactions org.apache.kafka.tools.TransactionsCommand
kafka-metadata-quorum org.apache.kafka.tools.MetadataQuorumCommand
kafka-storage kafka.tools.StorageTool
EOF
}

rewind_kafka_start() {
  unset REWIND_TEST_KAFKA_BOOTSTRAP REWIND_TEST_KAFKA_DIR REWIND_TEST_KAFKA_BIN
  local started=$SECONDS cache java libs ports voters bootstrap id node cluster_id pid formats=()
  cache=$(rewind_kafka_fetch) || return 1
  java=$(rewind_kafka_java) || { echo "rewind: no java to run Kafka with" >&2; return 1; }
  libs=$cache/libs
  REWIND_KAFKA_DIR=$(mktemp -d "${TMPDIR:-/tmp}/rewind-kafka.XXXXXX")
  # Six ports: a client listener and a controller listener per node.
  read -r -a ports <<<"$(rewind_kafka_free_ports 6)" || { echo "rewind: no free ports for Kafka" >&2; return 1; }
  voters=
  bootstrap=
  for id in 1 2 3; do
    voters+="${voters:+,}$id@127.0.0.1:${ports[$((id + 2))]}"
    bootstrap+="${bootstrap:+,}127.0.0.1:${ports[$((id - 1))]}"
  done
  # A random UUID as Kafka writes one (URL-safe base64), never starting with
  # '-': kafka-storage would read such an id as an option and refuse it.
  cluster_id=-
  while [ "${cluster_id#-}" != "$cluster_id" ]; do
    cluster_id=$(head -c 16 /dev/urandom | base64 | tr '+/' '-_' | tr -d '=')
  done
  rewind_kafka_tools "$REWIND_KAFKA_DIR" "$java" "$libs"
  for id in 1 2 3; do
    node=$REWIND_KAFKA_DIR/node$id
    mkdir -p "$node/data"
    echo "${ports[$((id - 1))]}" >"$node/port"
    cat >"$node/server.properties" <<EOF
process.roles=broker,controller
node.id=$id
controller.quorum.voters=$voters
listeners=PLAINTEXT://127.0.0.1:${ports[$((id - 1))]},CONTROLLER://127.0.0.1:${ports[$((id + 2))]}
advertised.listeners=PLAINTEXT://127.0.0.1:${ports[$((id - 1))]}
controller.listener.names=CONTROLLER
inter.broker.listener.name=PLAINTEXT
listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT
log.dirs=$node/data
num.partitions=1
default.replication.factor=3
min.insync.replicas=2
offsets.topic.replication.factor=3
offsets.topic.num.partitions=10
transaction.state.log.replication.factor=3
transaction.state.log.min.isr=2
transaction.state.log.num.partitions=10
group.initial.rebalance.delay.ms=0
# A killed broker leaves the ISR and its leaderships within seconds, not 30.
broker.session.timeout.ms=6000
broker.heartbeat.interval.ms=1000
replica.lag.time.max.ms=8000
# No retention by time: the tests' records carry timestamps of 2025 (the
# cleaner would delete them at once), and nothing here lives long.
log.retention.ms=-1
# The log cleaner looks often: the tests' compacted topics compact in seconds.
log.cleaner.backoff.ms=1000
log.retention.check.interval.ms=5000
EOF
    cat >"$node/start" <<EOF
#!/bin/sh
# Starts node $id in the background; its pid in $node/pid.
cd "$node" || exit 1
"$java" -Xms256m -Xmx1g -XX:+UseG1GC -XX:MaxGCPauseMillis=20 -XX:+ExitOnOutOfMemoryError -Djava.awt.headless=true \\
  -Dlog4j.configuration=file:$REWIND_KAFKA_SCRIPTS/log4j.properties -Dkafka.log.file=$node/server.log \\
  -cp "$libs/*" kafka.Kafka "$node/server.properties" >>"$node/console.log" 2>&1 &
echo \$! >"$node/pid"
EOF
    chmod +x "$node/start"
    "$REWIND_KAFKA_DIR/bin/kafka-storage" format -t "$cluster_id" -c "$node/server.properties" \
      >"$node/format.log" 2>&1 &
    formats+=($!)
  done
  # Each format's own status: a bare `wait` returns 0 whatever they did.
  for pid in "${formats[@]}"; do
    if ! wait "$pid"; then
      echo "rewind: formatting Kafka's storage failed: $(grep -h -m1 -iE 'error|exception' "$REWIND_KAFKA_DIR"/node*/format.log | head -n 1)" >&2
      return 1
    fi
  done
  for id in 1 2 3; do "$REWIND_KAFKA_DIR/node$id/start"; done
  if ! rewind_kafka_wait "$bootstrap" 120; then
    local why
    # The fatal line and the exception under it (the cause is on the second).
    why=$(grep -h -m1 -A1 -E '\] (ERROR|FATAL) |^Exception|Error:' "$REWIND_KAFKA_DIR"/node*/server.log "$REWIND_KAFKA_DIR"/node*/console.log 2>/dev/null | head -n 2 | tr '\n' ' ')
    echo "rewind: the Kafka cluster did not start (waited up to 120 s): ${why:-no error logged} (logs in $REWIND_KAFKA_DIR/node*/server.log)" >&2
    return 1
  fi
  export REWIND_TEST_KAFKA_BOOTSTRAP=$bootstrap REWIND_TEST_KAFKA_DIR=$REWIND_KAFKA_DIR REWIND_TEST_KAFKA_BIN=$REWIND_KAFKA_DIR/bin
  echo "rewind: Apache Kafka $REWIND_KAFKA_VERSION, three nodes at $bootstrap (logs in $REWIND_KAFKA_DIR), up in $((SECONDS - started))s" >&2
}

# Until every node is a broker in the metadata and a group's coordinator
# answers (the first FindCoordinator creates __consumer_offsets), or $2 s.
rewind_kafka_wait() {
  local bootstrap=$1 deadline=$((SECONDS + $2)) id
  while [ $SECONDS -lt $deadline ]; do
    for id in 1 2 3; do
      kill -0 "$(cat "$REWIND_KAFKA_DIR/node$id/pid")" 2>/dev/null || return 1
    done
    if [ "$(kcat -b "$bootstrap" -L -m 5 2>/dev/null | grep -c 'broker [0-9] at')" = 3 ] &&
        "$REWIND_KAFKA_DIR/bin/kafka-consumer-groups" --bootstrap-server "$bootstrap" --describe \
          --group rewind-warmup --timeout 5000 >/dev/null 2>&1; then
      return 0
    fi
    sleep 1
  done
  return 1
}

rewind_kafka_stop() {
  [ -n "$REWIND_KAFKA_DIR" ] || return 0
  local id pid
  # Every step may fail (a node already gone): none may stop the others,
  # nor the caller's EXIT trap under set -e.
  for id in 1 2 3; do
    pid=$(cat "$REWIND_KAFKA_DIR/node$id/pid" 2>/dev/null) && kill "$pid" 2>/dev/null || true
  done
  for _ in $(seq 1 30); do
    pid=
    for id in 1 2 3; do
      kill -0 "$(cat "$REWIND_KAFKA_DIR/node$id/pid" 2>/dev/null)" 2>/dev/null && pid=1 || true
    done
    [ -z "$pid" ] && break
    sleep 0.5
  done
  for id in 1 2 3; do
    pid=$(cat "$REWIND_KAFKA_DIR/node$id/pid" 2>/dev/null) && kill -9 "$pid" 2>/dev/null || true
  done
  rm -rf "$REWIND_KAFKA_DIR" || true
  REWIND_KAFKA_DIR=
}
