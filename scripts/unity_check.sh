#!/usr/bin/env bash
# Shows every file-local name that two source files of one target define (two `kEdge`s, two
# `fail`s): the unity build (CMakeLists.txt, NPU_UNITY_BUILD) compiles a target's files in
# batches of 12 that shift when a file is added, so such a pair breaks the build only once
# the two land in one batch. This configures a scratch build whose batch is the whole target
# and runs the compiler's syntax check on each (a few minutes on 2 cores, nothing is built).
# Usage: bash scripts/unity_check.sh [BUILD_DIR]   (default /tmp/npu-unity-check; exit 1 on a clash)
set -euo pipefail
cd "$(dirname "$0")/.."
dir="${1:-/tmp/npu-unity-check}"
cmake -S . -B "$dir" -G Ninja -DNPU_UNITY_BATCH=0 -DNPU_BUILD_BENCHMARKS=OFF >/dev/null
# The generated sources the batches include (embedded presets, the pass registrations).
generated=$(grep -ho "#include \"$dir/[^\"]*\"" "$dir"/*/CMakeFiles/*/Unity/*.cxx "$dir"/*/*/CMakeFiles/*/Unity/*.cxx 2>/dev/null |
  sed "s|#include \"$dir/||; s|\"\$||" | sort -u)
[ -z "$generated" ] || ninja -C "$dir" $generated >/dev/null
python3 - "$dir" <<'PY'
import json, shlex, subprocess, sys, concurrent.futures as cf, os
cc = json.load(open(os.path.join(sys.argv[1], "compile_commands.json")))
units = [e for e in cc if "/Unity/" in e["file"]]
def check(e):
    args = shlex.split(e["command"])
    if args[0].endswith("ccache"): args = args[1:]
    i = args.index("-o"); del args[i:i + 2]
    args = [a for a in args if a != "-c"] + ["-fsyntax-only", "-w"]
    r = subprocess.run(args, cwd=e["directory"], capture_output=True, text=True)
    return [l for l in r.stderr.splitlines() if " error: " in l]
with cf.ThreadPoolExecutor(os.cpu_count() or 2) as ex:
    errors = [l for errs in ex.map(check, units) for l in errs]
for l in errors: print(l)
print(f"unity_check: {len(units)} targets checked, {len(errors)} error lines")
sys.exit(1 if errors else 0)
PY
