#!/usr/bin/env bash
# Regenerates the tables and the SRAM plot of docs/results.md ("Current figures") in one
# command: every built-in strategy for ResNet-50, MobileNetV2 and YOLOv5s (zoo: the same
# layers as ../shared/models, checked by tests/compiler/test_zoo_onnx.cpp) on every preset
# in configs/, then the SRAM sweep of scripts/sweep_sram.yaml on the edge preset. Prints the
# markdown tables, the depth-first / residual and x-compulsory goal figures, and every
# violation of "depth-first no worse than residual" and of "latency and DDR bytes
# non-increasing as the SRAM grows"; exit status 1 if there is any.
# Usage: scripts/results_tables.sh [OUT_DIR] [PLOT.png]
#   env NPU (default ./build/npu), JOBS (default 2). Reruns reuse finished cells (same keys).
set -euo pipefail
OUT=${1:-build/results}
PLOT=${2:-$OUT/sram_sweep_edge.png}
NPU=${NPU:-./build/npu}
JOBS=${JOBS:-2}
mkdir -p "$OUT"
HWS=()
for f in configs/*.yaml; do HWS+=(--hw "$f"); done
"$NPU" experiment --model resnet50 --model mobilenet_v2 --model yolov5s "${HWS[@]}" --out "$OUT/presets" -j "$JOBS" > "$OUT/presets.log" 2>&1 || {
  tail -20 "$OUT/presets.log" >&2; exit 1; }
"$NPU" sweep scripts/sweep_sram.yaml --out "$OUT/sram" -j "$JOBS" > "$OUT/sram.log" 2>&1 || { tail -20 "$OUT/sram.log" >&2; exit 1; }
exec /usr/bin/python3 "$(dirname "$0")/results_tables.py" "$OUT/presets/summary.json" "$OUT/sram/summary.json" "$PLOT"
