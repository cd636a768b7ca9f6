#!/usr/bin/env bash
# The no-cluster recipe of docs/cluster.md: shards of one `npu sweep` run side by side by GNU
# parallel into one folder, then `npu report`. Checks that the merged report is
# byte-identical to the same sweep run in one process (rows follow the sweep plan, not the
# order the shards finished in; see slurm_localhost_test.sh), and that running the recipe
# again runs no cell (every run_summary.json is left as it was).
#
# Usage: tests/slurm/parallel_shards_test.sh NPU SOURCE_DIR     (ctest runs it; exit 77 = skip)
set -euo pipefail
if [ $# -ne 2 ]; then echo "usage: $0 NPU SOURCE_DIR" >&2; exit 2; fi
npu="$(realpath "$1")" src="$(realpath "$2")"

skip() { echo "SKIP: $*"; exit 77; }
command -v parallel >/dev/null || skip "GNU parallel not found (apt-get install parallel)"

tmp="$(mktemp -d /tmp/npu-parallel-test.XXXXXX)"
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
spec="$src/tests/slurm/tiny_sweep.yaml"  # 4 cells

"$npu" sweep "$spec" --out "$tmp/local" -j 2 >"$tmp/local_sweep.log" 2>&1 \
  || fail "local sweep failed: $(tail -n 5 "$tmp/local_sweep.log")"
"$npu" report "$tmp/local" --out "$tmp/local/report" >/dev/null || fail "local report failed"

# The documented recipe, N = 3 shards over 2 job slots.
recipe() {
  parallel --will-cite -j 2 "$npu" sweep "$spec" --out "$tmp/par" --shard {}/3 ::: $(seq 0 2) \
    >"$tmp/parallel.log" 2>&1 || fail "parallel: a shard failed: $(tail -n 5 "$tmp/parallel.log")"
  "$npu" report "$tmp/par" --out "$tmp/par/report" >/dev/null || fail "npu report of the shards failed"
  cmp -s "$tmp/local/report/summary.csv" "$tmp/par/report/summary.csv" || {
    diff "$tmp/local/report/summary.csv" "$tmp/par/report/summary.csv" || true
    fail "the merged shards' summary.csv differs from the one-process run's ($1)"
  }
  cmp -s "$tmp/local/summary.csv" "$tmp/par/summary.csv" \
    || fail "the sweep folder's own summary.csv (written by the last shard) differs from one process ($1)"
  echo "ok: $1: summary.csv of 3 shards under GNU parallel is byte-identical to one process"
}
recipe "first run"

mapfile -t finished < <(find "$tmp/par" -name run_summary.json)
[ "${#finished[@]}" -eq 4 ] || fail "expected 4 finished cells (run_summary.json), found ${#finished[@]}"
touch "$tmp/marker"
sleep 1  # mtime granularity: anything rewritten from now on is strictly newer
recipe "second run"
rerun="$(find "$tmp/par" -name run_summary.json -newer "$tmp/marker")"
[ -z "$rerun" ] || fail "the second run should skip every finished cell; it rewrote: $rerun"
echo "PASS"
