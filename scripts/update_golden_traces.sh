#!/usr/bin/env bash
# Regenerates the golden sample traces in traces/tiny_convnet/ from the tiny test network.
# Run after a deliberate change to the timing models or the compiler, then review the diff
# (git diff --stat traces/) before committing. Usage: bash scripts/update_golden_traces.sh
set -euo pipefail
cd "$(dirname "$0")/.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
./build/npu simulate --model tests/data/tiny_convnet.onnx --hw configs/edge-npu-ddr4.yaml \
  --strategy conv-bn-act --out "$tmp" --trace ddr,timeline,vcd --quiet
for f in ddr.csv ddr.trace timeline.json waves.vcd; do cp "$tmp/$f" traces/tiny_convnet/; done
ls -l traces/tiny_convnet
