#!/usr/bin/env bash
# Records SHA-256 digests of what a compile + simulation produces (the .npuasm program,
# run_summary.json without its wall-clock seconds, layers.csv and compile_report.csv) for the zoo networks and the
# ../shared/models/*.onnx exports, under the six strategies on the four presets. Run it
# before and after a refactor that must not change behaviour; the two files must be equal.
#
# Usage: bash scripts/behaviour_digests.sh OUT_FILE [--check BASELINE]
#   env NPU=path/to/npu (default build/npu), JOBS (default nproc), MODELS (space-separated
#   override of the model list), SHARED (default ../shared), HWS (space-separated configs;
#   default the four presets below: the Gemmini presets, configs/gemmini-*.yaml, run only what
#   fits a 64-256 KiB scratchpad with all input channels per tile, so they are not in the set).
# Exit status: 0 when every cell ran (and with --check, every digest matches), 1 otherwise;
# a failing cell is recorded as "FAILED" with its exit code, never skipped.
set -euo pipefail
cd "$(dirname "$0")/.."
out="${1:?usage: behaviour_digests.sh OUT_FILE [--check BASELINE]}"
baseline=""
if [ "${2:-}" = "--check" ]; then baseline="${3:?--check needs a baseline file}"; fi
NPU="${NPU:-build/npu}"
SHARED="${SHARED:-../shared}"
JOBS="${JOBS:-$(nproc)}"
[ -x "$NPU" ] || { echo "behaviour_digests: no npu tool at $NPU (build first: bash scripts/setup.sh)" >&2; exit 1; }
if [ -z "${MODELS:-}" ]; then
  MODELS="resnet50 mobilenet_v2 yolov5s"
  for m in "$SHARED"/models/*.onnx; do [ -f "$m" ] && MODELS="$MODELS $m"; done
fi
STRATEGIES="none conv-bn conv-act conv-bn-act residual depth-first"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# one_cell MODEL HW STRATEGY: prints "model hw strategy file digest" lines for one run.
one_cell() {
  local model="$1" hw="$2" strategy="$3" dir rc=0
  dir="$work/$(basename "$model" .onnx)-$(basename "$hw" .yaml)-$strategy"
  "$NPU" simulate --model "$model" --hw "$hw" --strategy "$strategy" --out "$dir" -q \
    >"$dir.log" 2>&1 || rc=$?
  local tag
  tag="$(basename "$model") $(basename "$hw" .yaml) $strategy"
  if [ "$rc" -ne 0 ]; then echo "$tag run FAILED:$rc"; return; fi
  for f in program.npuasm run_summary.json layers.csv compile_report.csv; do
    # run_summary.json's wall_s is the host's wall-clock time of the run, not a result.
    echo "$tag $f $(grep -v '^  "wall_s":' "$dir/$f" | sha256sum | cut -c1-64)"
  done
}
export -f one_cell
export NPU work

cells="$work/cells"
for model in $MODELS; do
  for hw in ${HWS:-configs/edge-npu-ddr4.yaml configs/hbm2-npu.yaml configs/mobile-npu-lpddr4.yaml configs/tpu-v1-like.yaml}; do
    for s in $STRATEGIES; do echo "$model $hw $s"; done
  done
done >"$cells"
echo "behaviour_digests: $(wc -l <"$cells") cells on $JOBS jobs with $NPU" >&2
xargs -P "$JOBS" -L 1 bash -c 'one_cell "$0" "$1" "$2"' <"$cells" | LC_ALL=C sort >"$out"
status=0
if grep -q FAILED "$out"; then
  echo "behaviour_digests: failed cells:" >&2; grep FAILED "$out" >&2; status=1
fi
if [ -n "$baseline" ]; then
  if diff -u "$baseline" "$out" >&2; then
    echo "behaviour_digests: $(wc -l <"$out") digests identical to $baseline" >&2
  else
    echo "behaviour_digests: digests differ from $baseline (lines above)" >&2; status=1
  fi
fi
exit $status
