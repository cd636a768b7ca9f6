#!/usr/bin/env bash
# Real torchvision exports through the simulator (docs/results.md, "Real torchvision
# exports"): exports each model with ../shared/models/export_torchvision.py (unless the file
# is already in EXPORT_DIR), runs one experiment over all of them on the edge preset with
# none, conv-bn, conv-bn-act and residual, and prints the Markdown table of the docs.
# Usage: bash scripts/torchvision_results.sh EXPORT_DIR OUT_DIR [VARIANT OPSET]   (default bn 13)
# Needs Debian's python3-torch, python3-torchvision, python3-onnx (exports take seconds to
# minutes each; vgg16_bn is 553 MB) and a built ./build/npu.
set -euo pipefail
cd "$(dirname "$0")/.."
exports="${1:?usage: torchvision_results.sh EXPORT_DIR OUT_DIR [VARIANT OPSET]}"
out="${2:?usage: torchvision_results.sh EXPORT_DIR OUT_DIR [VARIANT OPSET]}"
variant="${3:-bn}"
opset="${4:-13}"
models=(resnet18 resnet34 resnet101 vgg16_bn googlenet squeezenet1_1 densenet121 inception_v3 mnasnet1_0
        shufflenet_v2_x1_0 mobilenet_v2 mobilenet_v3_large efficientnet_b0 regnet_y_400mf convnext_tiny
        vit_b_16 swin_t deeplabv3_mobilenet_v3_large fcn_resnet50 lraspp_mobilenet_v3_large
        ssdlite320_mobilenet_v3_large fasterrcnn_mobilenet_v3_large_320_fpn transformer_enc lstm)
mkdir -p "$exports"
args=()
for m in "${models[@]}"; do
  f="$exports/$m-$variant-op$opset.onnx"
  [ -f "$f" ] || /usr/bin/python3 ../shared/models/export_torchvision.py "$m" "$variant" "$opset" "$exports" > /dev/null
  [ -f "$f" ] && args+=(--model "$f")
done
./build/npu experiment "${args[@]}" --hw configs/edge-npu-ddr4.yaml --strategies none,conv-bn,conv-bn-act,residual \
  --out "$out" -j "$(nproc)" > "$out.log" 2>&1 || true
/usr/bin/python3 - "$out/summary.csv" <<'PY'
import csv, sys
by = {}
for r in csv.DictReader(open(sys.argv[1])):
    by.setdefault(r["model"], {})[r["strategy"]] = r
print("| model | host nodes | host MAC % | DDR MB none | conv-bn | conv-bn-act | residual | saved (residual) | latency ms none -> residual | MAC util % (residual) |")
print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
for m, d in by.items():
    rows = [d.get(s) for s in ("none", "conv-bn", "conv-bn-act", "residual")]
    if any(r is None or r["status"] != "ok" for r in rows):
        bad = next(r for r in rows if r is None or r["status"] != "ok")
        print(f"| {m} | failed: {bad['error'] if bad else 'missing'} |||||||||")
        continue
    n, b, a, r = rows
    mb = lambda x: float(x["ddr_total_mb"])
    print(f"| {m} | {r['host_nodes']} | {float(r['host_mac_pct']):.2f} | {mb(n):.2f} | {mb(b):.2f} | {mb(a):.2f} | "
          f"{mb(r):.2f} | {float(r['ddr_saved_pct']):.1f} % | {float(n['latency_ms']):.3f} -> {float(r['latency_ms']):.3f} | "
          f"{100 * float(r['mac_utilisation']):.1f} |")
PY
