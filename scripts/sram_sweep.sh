#!/usr/bin/env bash
# SRAM-size sweep (issue 11): simulate MODELS x SRAM sizes x strategies on one hardware
# config, one `npu simulate` process per cell (-j1 style), and print latency and DDR bytes
# per cell plus whether both are non-increasing as the SRAM grows.
# Usage: scripts/sram_sweep.sh [HW.yaml] [OUT_DIR] [MODELS...]
#   env SIZES (KiB list), STRATEGIES override the defaults.
set -euo pipefail
HW=${1:-configs/edge-npu-ddr4.yaml}
OUT=${2:-build/sram_sweep}
shift 2 || true
MODELS=("$@")
[ ${#MODELS[@]} -gt 0 ] || MODELS=(resnet50 mobilenet_v2 yolov5s)
SIZES=${SIZES:-"128 256 512 1024 2048 4096 8192"}
STRATEGIES=${STRATEGIES:-"none conv-bn conv-act conv-bn-act residual"}
NPU=${NPU:-./build/npu}
mkdir -p "$OUT"
for kib in $SIZES; do
  # Same config with only the SRAM capacity changed (the bank count stays).
  sed -E "s/^(  capacity:)[^#]*(#.*)?$/\1 ${kib} KiB/" "$HW" > "$OUT/hw_${kib}k.yaml"
  grep -q "capacity: ${kib} KiB" "$OUT/hw_${kib}k.yaml" || { echo "could not set sram capacity in $HW" >&2; exit 1; }
done
printf "%-14s %-12s %8s %14s %14s\n" model strategy sram_kib latency_ms ddr_bytes
status=0
for m in "${MODELS[@]}"; do
  for s in $STRATEGIES; do
    prev_ms=""; prev_b=""
    for kib in $SIZES; do
      d="$OUT/$(basename "$m" .onnx)_${s}_${kib}k"
      "$NPU" simulate --model "$m" --hw "$OUT/hw_${kib}k.yaml" --strategy "$s" --out "$d" --quiet
      read -r ms bytes < <(python3 -c "import json,sys; j=json.load(open('$d/run_summary.json')); print(j['latency_ms'], j['ddr_read_bytes']+j['ddr_write_bytes'])")
      flag=""
      if [ -n "$prev_ms" ]; then
        python3 -c "import sys; sys.exit(0 if $ms <= $prev_ms else 1)" || { flag="$flag LATENCY-UP"; status=1; }
        [ "$bytes" -le "$prev_b" ] || { flag="$flag BYTES-UP"; status=1; }
      fi
      printf "%-14s %-12s %8s %14s %14s%s\n" "$(basename "$m" .onnx)" "$s" "$kib" "$ms" "$bytes" "$flag"
      prev_ms=$ms; prev_b=$bytes
    done
  done
done
exit $status
