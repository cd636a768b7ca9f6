#!/usr/bin/env bash
# Fusion savings versus DDR bandwidth and SRAM size (docs/results.md, "Where the published
# ranges hold"). Derives variants of the edge preset (1, 2, 4, 8 DDR4-3200 channels =
# 25.6 ... 204.8 GB/s; 256 KiB, 1 MiB, 4 MiB SRAM), then runs one experiment over them.
# Usage: bash scripts/sweep_fusion.sh OUT_DIR [-j N]      (after scripts/setup.sh)
set -euo pipefail
cd "$(dirname "$0")/.."
out="${1:?usage: sweep_fusion.sh OUT_DIR [-j N]}"
shift
mkdir -p "$out/configs"
hw_args=()
for ch in 1 2 4 8; do
  for sram in "256 KiB" "1 MiB" "4 MiB"; do
    tag="edge-ch${ch}-sram${sram// /}"
    sed -e "s/^  channels: 1 /  channels: ${ch} /" -e "s/^  capacity: 1 MiB /  capacity: ${sram} /" \
      -e "s/^  name: .*/  name: ${tag}/" \
      -e "s/address_mapping: rochrababgco/address_mapping: rorabacobgch/" configs/edge-npu-ddr4.yaml > "$out/configs/${tag}.yaml"
    ./build/npu config check "$out/configs/${tag}.yaml" > /dev/null
    hw_args+=(--hw "$out/configs/${tag}.yaml")
  done
done
./build/npu experiment --model resnet50 --model mobilenet_v2 --model yolov5s "${hw_args[@]}" \
  --strategies none,conv-bn,conv-bn-act,residual --out "$out/results" "$@"
