#!/usr/bin/env bash
# Times `npu ddr run` against DRAMSim3 on the same validation traces (issue 29's target:
# the DDR trace mode at least 10x faster on every pattern), side by side on this machine.
#
# Usage: bash scripts/dramsim3_speed.sh [N]
#   N  requests per trace (default 1000000); the five `npu ddr gen` patterns (seq-read,
#      seq-write, random-read, mixed, mixed-skew) x the two mappings of docs/validation.md
#      (rochrababgco, rochracobabg) on the ddr4-3200 preset = DRAMSim3's
#      DDR4_8Gb_x8_3200.ini (address_mapping edited for the second mapping).
#   env NPU=path/to/npu (default build/npu); DRAMSIM3_DIR=a DRAMsim3 checkout whose
#       build/dramsim3main exists (default: clone https://github.com/umd-memsys/DRAMsim3 and
#       build it in a temporary folder, removed on exit; never inside this repository).
# Each simulator runs RUNS times per trace (env RUNS, default 3; the figure is the median) for
# the same number of DRAM cycles (DRAMSim3 is given the tCK count `npu ddr run` reports as
# elapsed); the figure is user + system CPU seconds of the whole process (trace parsing
# included), so a loaded machine distorts it less than wall time. One run a figure moved by
# about 10 % from one call of the script to the next.
# Exit status: 0 after printing the table; 1 when npu or DRAMSim3 is missing or a run fails.
set -euo pipefail
cd "$(dirname "$0")/.."
n="${1:-1000000}"
NPU="${NPU:-build/npu}"
runs="${RUNS:-3}"
[[ "$runs" =~ ^[1-9][0-9]*$ ]] || { echo "dramsim3_speed: error: RUNS='$runs' is not a positive integer; fix: RUNS=3" >&2; exit 1; }
[ -x "$NPU" ] || { echo "dramsim3_speed: error: no npu tool at $NPU; fix: build it (ninja -C build npu) or set NPU=path" >&2; exit 1; }
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
ds="${DRAMSIM3_DIR:-}"
if [ -z "$ds" ]; then
  ds="$work/DRAMsim3"
  git clone -q --depth 1 https://github.com/umd-memsys/DRAMsim3 "$ds" ||
    { echo "dramsim3_speed: error: cannot clone DRAMsim3; fix: set DRAMSIM3_DIR to a built checkout" >&2; exit 1; }
  cmake -S "$ds" -B "$ds/build" -DCMAKE_BUILD_TYPE=Release >/dev/null && cmake --build "$ds/build" --target dramsim3main -j2 >/dev/null
fi
main="$ds/build/dramsim3main"
[ -x "$main" ] || { echo "dramsim3_speed: error: no $main; fix: build DRAMsim3 (cmake, target dramsim3main)" >&2; exit 1; }
# The median over $runs runs of the command's user + system CPU seconds; its output stays in $work/out.
cpu() {
  local i
  : >"$work/times"
  for ((i = 0; i < runs; ++i)); do
    /usr/bin/time -f "%U %S" -o "$work/t" "$@" >"$work/out" 2>&1 || { cat "$work/out" >&2; exit 1; }
    awk '{printf "%.3f\n", $1 + $2}' "$work/t" >>"$work/times"
  done
  sort -n "$work/times" | awk '{ v[NR] = $1 } END { printf "%.3f", NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}
mkdir -p "$work/ds3out"  # DRAMSim3 writes its stats files into the current folder when -o does not exist
printf "| pattern | mapping | requests | DRAM cycles | npu CPU s | DRAMSim3 CPU s | DRAMSim3 / npu |\n|---|---|---:|---:|---:|---:|---:|\n"
for mapping in rochrababgco rochracobabg; do
  sed "s/^address_mapping = .*/address_mapping = $mapping/" "$ds/configs/DDR4_8Gb_x8_3200.ini" > "$work/ddr4.ini"
  for p in seq-read seq-write random-read mixed mixed-skew; do
    "$NPU" ddr gen "$p" --preset ddr4-3200 -n "$n" -o "$work/$p.trace" --format dramsim3 >/dev/null
    ours=$(cpu "$NPU" ddr run --preset ddr4-3200 --mapping "$mapping" --trace "$work/$p.trace")
    cycles=$(sed -n 's/^elapsed *\([0-9]*\) tCK.*/\1/p' "$work/out")
    theirs=$(cpu "$main" "$work/ddr4.ini" -c "$cycles" -t "$work/$p.trace" -o "$work/ds3out")
    printf "| %s | %s | %s | %s | %s | %s | %s |\n" "$p" "$mapping" "$n" "$cycles" "$ours" "$theirs" \
      "$(awk -v a="$theirs" -v b="$ours" 'BEGIN { printf "%.1fx", a / b }')"
  done
done
