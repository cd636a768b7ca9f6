#!/usr/bin/env bash
# Builds (if needed) and runs the libFuzzer targets of tests/fuzz, FUZZ_JOBS at a time (default
# one per core), each for SECONDS (default 60) or, with FUZZ_RUNS=N, until N inputs have run.
# Fails loudly on a crash, leak, sanitizer report, time-out (> 10 s on one input) or unexpected exception,
# printing the saved input and the command that reproduces it. docs/validation.md, "Fuzzing".
# Usage: bash scripts/fuzz.sh [SECONDS] [TARGET...]   (env BUILD_DIR, default build-asan)
#        bash scripts/fuzz.sh ci [TARGET...]
# `ci` is the deterministic short run CI does: seed 1, a fixed number of inputs per target
# (about 30 s each on an idle 2-core machine), starting from the seeds alone in a fresh
# corpus folder, so a local `fuzz.sh ci` runs exactly the inputs CI will run.
# Env: FUZZ_RUNS=N (run N inputs instead of SECONDS), FUZZ_SEED=N (libFuzzer -seed),
#      FUZZ_JOBS=N (targets run at once).
set -euo pipefail
cd "$(dirname "$0")/.."
SECONDS_EACH="${1:-60}"
shift || true
CI_MODE=0
if [ "$SECONDS_EACH" = ci ]; then
  CI_MODE=1
  SECONDS_EACH=0
fi
# Inputs per target in ci mode (rates on an idle 2-core machine: docs/validation.md).
ci_runs() {
  case "$1" in
    fuzz_scalesim_config) echo 300000 ;;
    fuzz_dramsim3_trace | fuzz_ramulator_trace | fuzz_scalesim_topology) echo 30000 ;;
    *) echo 50000 ;;
  esac
}
BUILD_DIR="${BUILD_DIR:-build-asan}"
TARGETS=("$@")
[ ${#TARGETS[@]} -gt 0 ] || TARGETS=(fuzz_hw_config fuzz_npuasm fuzz_dramsim3_trace fuzz_ramulator_trace
  fuzz_scalesim_topology fuzz_scalesim_config fuzz_onnx)

if [ ! -f "$BUILD_DIR/build.ninja" ]; then
  . scripts/cmake_launcher.sh
  CC=clang-14 CXX=clang++-14 cmake -S . -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo "${NPU_CMAKE_LAUNCHER[@]}" \
    -DNPU_FUZZ=ON -DNPU_BUILD_BENCHMARKS=OFF >/dev/null
fi
cmake --build "$BUILD_DIR" --target "${TARGETS[@]}" -- --quiet -j"$(nproc)"

export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
FUZZ_DIR="$BUILD_DIR/tests/fuzz"
# run_target T: one target's run; its summary line goes to $FUZZ_DIR/T.summary. Exit 1 on a finding.
run_target() {
  local t="$1" corpus artifacts log max_len runs rate limit
  corpus="$FUZZ_DIR/corpus/$t" artifacts="$FUZZ_DIR/artifacts/$t/" log="$FUZZ_DIR/$t.log"
  [ "$CI_MODE" = 1 ] && corpus="$FUZZ_DIR/corpus-ci/$t" && rm -rf "$corpus"
  mkdir -p "$corpus" "$artifacts"
  rm -f "$FUZZ_DIR/$t.summary"
  # Longest input: the trace and CSV readers are line by line, so 2 KiB (dozens of lines)
  # reaches every state and keeps runs fast; the seeds are read up to that length.
  case "$t" in
    fuzz_onnx) max_len=16384 ;; fuzz_hw_config | fuzz_npuasm) max_len=4096 ;; *) max_len=2048 ;;
  esac
  limit=(-max_total_time="$SECONDS_EACH")
  [ -n "${FUZZ_RUNS:-}" ] && limit=(-runs="$FUZZ_RUNS" -max_total_time="${FUZZ_MAX_TIME:-86400}")
  [ "$CI_MODE" = 1 ] && limit=(-runs="$(ci_runs "$t")" -seed=1)
  [ -n "${FUZZ_SEED:-}" ] && limit+=(-seed="$FUZZ_SEED")
  echo "fuzz: $t ${limit[*]}"
  # New inputs go to the first folder (the growing corpus); the seeds are only read.
  # TMPDIR: the trace targets' scratch file (one per process: its name holds the pid).
  if ! TMPDIR="$FUZZ_DIR" "$FUZZ_DIR/$t" "${limit[@]}" -max_len=$max_len -timeout=10 -rss_limit_mb=2560 -print_final_stats=1 \
      -artifact_prefix="$artifacts" "$corpus" "$FUZZ_DIR/seeds/$t" >"$log" 2>&1; then
    tail -n 60 "$log"
    echo "fuzz: FAILED: $t found a problem; saved input(s): $(ls "$artifacts")" >&2
    echo "fuzz: reproduce with: $FUZZ_DIR/$t $artifacts<file>" >&2
    return 1
  fi
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
  rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log")
  printf '%-24s %12s runs %8s exec/s\n' "$t" "$runs" "$rate" >"$FUZZ_DIR/$t.summary"
}
# Targets run FUZZ_JOBS at a time (default: one per core). Each is its own process with its own
# seed, input count and corpus folder, so in ci mode the inputs, and the verdict, do not depend
# on how many run at once; the exec/s figures do (they share the cores).
FUZZ_JOBS="${FUZZ_JOBS:-$(nproc)}"
failed=0 running=0
for t in "${TARGETS[@]}"; do
  if [ "$running" -ge "$FUZZ_JOBS" ]; then
    wait -n || failed=$((failed + 1))
    running=$((running - 1))
  fi
  run_target "$t" &
  running=$((running + 1))
done
while [ "$running" -gt 0 ]; do
  wait -n || failed=$((failed + 1))
  running=$((running - 1))
done
summary=()
for t in "${TARGETS[@]}"; do
  [ -f "$FUZZ_DIR/$t.summary" ] && summary+=("$(cat "$FUZZ_DIR/$t.summary")")
done
if [ "$failed" -gt 0 ]; then
  printf 'fuzz: %s\n' "${summary[@]}"
  echo "fuzz: $failed of ${#TARGETS[@]} targets FAILED (above: each one's log tail and saved input)" >&2
  exit 1
fi
printf 'fuzz: %s\n' "${summary[@]}"
echo "fuzz: ${#TARGETS[@]} passed, 0 failed"
