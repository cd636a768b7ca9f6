#!/usr/bin/env bash
# Builds (if needed) and runs the libFuzzer targets of tests/fuzz, one after another, each
# for SECONDS (default 60) or, with FUZZ_RUNS=N, until N inputs have run. Fails loudly on the
# first crash, leak, sanitizer report, time-out (> 10 s on one input) or unexpected exception,
# printing the saved input and the command that reproduces it. docs/validation.md, "Fuzzing".
# Usage: bash scripts/fuzz.sh [SECONDS] [TARGET...]   (env BUILD_DIR, default build-asan)
#        bash scripts/fuzz.sh ci [TARGET...]
# `ci` is the deterministic short run CI does: seed 1, a fixed number of inputs per target
# (about 30 s each on an idle 2-core machine), starting from the seeds alone in a fresh
# corpus folder, so a local `fuzz.sh ci` runs exactly the inputs CI will run.
# Env: FUZZ_RUNS=N (run N inputs instead of SECONDS), FUZZ_SEED=N (libFuzzer -seed).
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
summary=()
for t in "${TARGETS[@]}"; do
  corpus="$FUZZ_DIR/corpus/$t" artifacts="$FUZZ_DIR/artifacts/$t/" log="$FUZZ_DIR/$t.log"
  [ "$CI_MODE" = 1 ] && corpus="$FUZZ_DIR/corpus-ci/$t" && rm -rf "$corpus"
  mkdir -p "$corpus" "$artifacts"
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
  # TMPDIR: the trace targets' scratch file (one per process).
  if ! TMPDIR="$FUZZ_DIR" "$FUZZ_DIR/$t" "${limit[@]}" -max_len=$max_len -timeout=10 -rss_limit_mb=2560 -print_final_stats=1 \
      -artifact_prefix="$artifacts" "$corpus" "$FUZZ_DIR/seeds/$t" >"$log" 2>&1; then
    tail -n 60 "$log"
    echo "fuzz: FAILED: $t found a problem; saved input(s): $(ls "$artifacts")" >&2
    echo "fuzz: reproduce with: $FUZZ_DIR/$t $artifacts<file>" >&2
    exit 1
  fi
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
  rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log")
  summary+=("$(printf '%-24s %12s runs %8s exec/s' "$t" "$runs" "$rate")")
done
printf 'fuzz: %s\n' "${summary[@]}"
echo "fuzz: ${#TARGETS[@]} passed, 0 failed"
