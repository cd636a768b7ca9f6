#!/usr/bin/env bash
# Profiles a named workload with perf and prints its top functions (self time), so that a
# profile in docs/performance.md can be reproduced.
#
# Usage: bash scripts/profile.sh WORKLOAD [TOP]
#   WORKLOAD  stream    64 LOADs of 4 MiB from one weight tensor (256 MiB of sequential DDR
#                       reads), `npu run` on configs/hbm2-npu.yaml
#             resnet50  `npu simulate --model resnet50 --hw configs/edge-npu-ddr4.yaml
#                       --strategy residual` (compile + simulate)
#             ddr-random `npu ddr run` of 200000 random-read requests on the ddr4-3200 preset
#   TOP       number of functions printed (default 25)
#   env NPU=path/to/npu (default build/npu; a RelWithDebInfo build gives symbol names),
#       PERF (default perf), FREQ (sampling rate, default 2000), KEEP=DIR (keep perf.data there)
# Exit status: 0 after printing the profile; 1 for an unknown workload, a missing npu or perf.
set -euo pipefail
cd "$(dirname "$0")/.."
workload="${1:-}"
top="${2:-25}"
NPU="${NPU:-build/npu}"
PERF="${PERF:-perf}"
FREQ="${FREQ:-2000}"
usage="usage: profile.sh WORKLOAD [TOP]  (WORKLOAD: stream, resnet50 or ddr-random)"
[ -n "$workload" ] || { printf "profile.sh: error: no workload given\n  %s\n" "$usage" >&2; exit 1; }
case "$workload" in
  stream | resnet50 | ddr-random) ;;
  *) printf 'profile.sh: error: unknown workload "%s"\n  %s\n' "$workload" "$usage" >&2; exit 1 ;;
esac
[ -x "$NPU" ] || { printf "profile.sh: error: no npu tool at %s\n  fix: build it (ninja -C build npu) or set NPU=path\n" "$NPU" >&2; exit 1; }
command -v "$PERF" >/dev/null || { printf "profile.sh: error: %s not found\n  fix: install linux-perf or set PERF=path\n" "$PERF" >&2; exit 1; }
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
case "$workload" in
  stream)
    python3 - "$work/stream.npuasm" <<'PY'
import sys
n, sz = 64, 4 << 20
L = [".npuasm 1", ".program name=stream strategy=none dtype=int8", f".tensor w kind=weight ddr=0x0 bytes={n*sz}"]
for i in range(n):
    L.append(f"LOAD layer=l{i%8} tensor=w ddr={hex(i*sz)} sram=0x0 extent={sz}")
open(sys.argv[1], "w").write("\n".join(L) + "\n")
PY
    cmd=("$NPU" run "$work/stream.npuasm" --hw configs/hbm2-npu.yaml --out "$work/o") ;;
  resnet50)
    cmd=("$NPU" simulate --model resnet50 --hw configs/edge-npu-ddr4.yaml --strategy residual --out "$work/o") ;;
  ddr-random)
    "$NPU" ddr gen random-read --preset ddr4-3200 -n 200000 -o "$work/random.trace" >/dev/null
    cmd=("$NPU" ddr run --preset ddr4-3200 --trace "$work/random.trace") ;;
esac
data="$work/perf.data"
echo "profile.sh: ${cmd[*]}" >&2
start=$(date +%s.%N)
"$PERF" record -q -o "$data" -F "$FREQ" -g -- "${cmd[@]}" >/dev/null
end=$(date +%s.%N)
echo "profile.sh: $(python3 -c "print(f'{$end - $start:.2f}')") s wall under perf" >&2
"$PERF" report -i "$data" --no-children --stdio -g none --percent-limit 0.3 2>/dev/null |
  grep -v '^#' | grep -v '^$' | head -n "$top"
if [ -n "${KEEP:-}" ]; then mkdir -p "$KEEP" && cp "$data" "$KEEP/perf.data"; fi
