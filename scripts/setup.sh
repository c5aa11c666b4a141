# Shared by scripts/test and scripts/run: install what is missing, configure, build.
# Sourced, not executed.

REWIND_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
REWIND_BUILD=${REWIND_BUILD:-$REWIND_ROOT/build}

REWIND_PACKAGES=(
  build-essential cmake ninja-build pkg-config
  qt6-base-dev qt6-charts-dev libqt6opengl6-dev libqt6sql6-sqlite libqt6sql6-psql libgl-dev
  nlohmann-json3-dev librdkafka-dev qtkeychain-qt6-dev xvfb xauth fonts-dejavu-core
)
# Only scripts/test needs these: the validators of resources/ (desktop entry,
# AppStream metainfo), kcat and python3-kafka, the independent Kafka
# clients the Kafka tests check Rewind's results with, and zsh, which runs
# the zsh completion script in tst_cli, clang-format, which
# scripts/check-format runs, and python3-jsonschema, which checks the test
# dbt manifests against dbt's published schemas (tst_dbtschemas), and
# gnome-keyring with dbus-run-session (dbus-daemon), the Secret Service the
# keyring test stores a password in (tst_keyring), and secret-tool
# (libsecret-tools), the independent client it reads the password back with.
REWIND_CHECK_PACKAGES=(desktop-file-utils appstream kcat python3-kafka python3-jsonschema zsh clang-format gnome-keyring dbus-daemon dbus-x11 libsecret-tools)
# Only scripts/test needs these: clang 16 for the libFuzzer targets (Debian
# 12's default clang 14 cannot compile std::expected); libclang-rt-16-dev
# holds libFuzzer and clang's sanitizer runtimes; llvm-16 the symbolizer that
# puts file:line into sanitizer reports. The sanitizer build uses gcc, whose
# libasan/libubsan come with build-essential.
REWIND_FUZZ_PACKAGES=(clang-16 libclang-rt-16-dev llvm-16)
REWIND_SYMBOLIZER=/usr/lib/llvm-16/bin/llvm-symbolizer
rewind_symbolizer_env() {
  [ -x "$REWIND_SYMBOLIZER" ] && export ASAN_SYMBOLIZER_PATH=$REWIND_SYMBOLIZER
  return 0
}

# Installs REWIND_PACKAGES and any packages named as arguments.
rewind_install_packages() {
  local missing=()
  for p in "${REWIND_PACKAGES[@]}" "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  echo "rewind: installing ${missing[*]}" >&2
  local sudo=()
  [ "$(id -u)" -ne 0 ] && sudo=(sudo)
  "${sudo[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

rewind_build() {
  local generator=()
  command -v ninja >/dev/null && generator=(-G Ninja)
  [ -f "$REWIND_BUILD/CMakeCache.txt" ] && generator=()  # keep the generator an existing build dir was made with
  # -g1: line tables and function names (backtraces with file and line), not
  # the full debug info of -g, which took a quarter of each compile (replay.cpp
  # 21.6 s -> 15.9 s) in a CI that builds everything from scratch.
  cmake -S "$REWIND_ROOT" -B "$REWIND_BUILD" "${generator[@]}" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O2 -g1 -DNDEBUG" -DREWIND_BUILD_GUI=ON >/dev/null
  cmake --build "$REWIND_BUILD" --parallel "$(nproc)"
}

# One clang 16 tree for the sanitizers and the fuzzers: everything built with
# ASan + UBSan and libFuzzer's coverage hooks (REWIND_FUZZ), the tests at -O1.
# The fuzz targets need clang; one tree for both instead of a GCC one for the
# tests and a clang one for the fuzzers saves a whole build of core (about 11
# of CI's minutes).
rewind_sanitize_configure() {
  local dir=$1 generator=()
  command -v ninja >/dev/null && generator=(-G Ninja)
  [ -f "$dir/CMakeCache.txt" ] && generator=()
  CC=clang-16 CXX=clang++-16 cmake -S "$REWIND_ROOT" -B "$dir" "${generator[@]}" -DCMAKE_BUILD_TYPE=Debug \
    "-DCMAKE_CXX_FLAGS_DEBUG=-O1 -g1" -DREWIND_BUILD_GUI=OFF -DREWIND_FUZZ=ON >/dev/null
}

rewind_sanitize() {
  local dir=${REWIND_SANITIZE_BUILD:-$REWIND_ROOT/build-sanitize}
  rewind_sanitize_configure "$dir"
  cmake --build "$dir" --parallel "$(nproc)"
  (
    cd "$dir"
    rewind_symbolizer_env
    export ASAN_OPTIONS=detect_leaks=1:check_initialization_order=1:strict_init_order=1:detect_stack_use_after_return=0
    export LSAN_OPTIONS=suppressions=$REWIND_ROOT/tests/lsan.supp:print_suppressions=0
    export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
    # The SQLite suites only: the _pg twins run mostly the same C++ (the
    # dialect differs in the SQL text it writes) and run, unsanitized, in the
    # main build; under the sanitizers they doubled the stage (tst_crash_pg
    # alone took 228 s of 726 s here) and took CI past 45 minutes.
    # REWIND_SANITIZE_PG=1 runs them too. tst_kafkaresets neither: its time
    # is Kafka's own kafka-consumer-groups (a JVM per case, about 100 s), its
    # C++ (the reset plan) is tst_offsets', which runs here. Nor
    # tst_kafkafaults: it runs alone (it kills brokers), 150 s of waiting on
    # brokers restarting while the other core idles, and its error paths
    # (an unreachable cluster, a refused commit) are tst_kafka's and
    # tst_kafkabroker's, which run here. REWIND_SANITIZE_ALL=1 runs both.
    local skip=(-E '_pg$|^tst_kafkaresets$|^tst_kafkafaults$')
    [ "${REWIND_SANITIZE_PG:-0}" = 1 ] && skip=(-E '^tst_kafkaresets$|^tst_kafkafaults$')
    [ "${REWIND_SANITIZE_ALL:-0}" = 1 ] && skip=()
    ctest --output-on-failure --parallel "$(nproc)" "${skip[@]}" "$@"
  )
}

# libFuzzer targets (tests/fuzz), in the sanitizer tree, each run for
# REWIND_FUZZ_SECONDS (30) over a copy of its seed corpus. A crash,
# sanitizer report, leak or hang fails the stage; the input is printed
# (base64) and kept in $dir/fuzz-artifacts. Skipped with REWIND_SKIP_FUZZ=1.
rewind_fuzz() {
  local dir=${REWIND_SANITIZE_BUILD:-$REWIND_ROOT/build-sanitize}
  local seconds=${REWIND_FUZZ_SECONDS:-30}
  rewind_sanitize_configure "$dir"
  cmake --build "$dir" --parallel "$(nproc)" --target fuzz_spec fuzz_payload fuzz_offsetcsv fuzz_kafka
  local scratch failed=0 target
  rewind_symbolizer_env
  scratch=$(mktemp -d "${TMPDIR:-/tmp}/rewind-fuzz.XXXXXX")
  rm -rf "$dir/fuzz-artifacts"
  mkdir -p "$dir/fuzz-artifacts"
  for target in spec payload offsetcsv kafka; do
    local corpus="$scratch/corpus-$target" log="$dir/fuzz-artifacts/fuzz_$target.log"
    mkdir -p "$corpus"
    cp "$REWIND_ROOT/tests/fuzz/corpus/$target/"* "$corpus/"
    echo "rewind: fuzz_$target for ${seconds}s" >&2
    if ! REWIND_FUZZ_SCRATCH=$scratch ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
        "$dir/tests/fuzz/fuzz_$target" -max_total_time="$seconds" -timeout=20 -rss_limit_mb=4096 -print_final_stats=1 \
        -artifact_prefix="$dir/fuzz-artifacts/fuzz_$target-" "$corpus" >"$log" 2>&1; then
      failed=1
      echo "rewind: fuzz_$target FAILED; the end of its log ($log):" >&2
      tail -n 80 "$log" >&2
      local artifact
      for artifact in $(grep -o "Test unit written to [^ ]*" "$log" | sed 's/Test unit written to //'); do
        echo "rewind: input $artifact (base64):" >&2
        base64 "$artifact" | head -c 20000 >&2
        echo >&2
      done
    else
      grep -E "^(Done|stat::number_of_executed_units|stat::peak_rss_mb)|INFO: (seed corpus|-max_total_time)" "$log" >&2 || true
      echo "rewind: fuzz_$target: no crash" >&2
    fi
  done
  rm -rf "$scratch"
  return $failed
}
