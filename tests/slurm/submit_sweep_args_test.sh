#!/usr/bin/env bash
# scripts/slurm/submit_sweep.sh without a cluster: a stand-in `sbatch` first on PATH records
# each call's arguments, so the exact job-array and report submissions are checked, and the
# wrapper's errors for bad input are checked (exit status 2 and the message).
#
# Usage: tests/slurm/submit_sweep_args_test.sh SOURCE_DIR      (ctest: submit_sweep_args)
set -euo pipefail
if [ $# -ne 1 ]; then echo "usage: $0 SOURCE_DIR" >&2; exit 2; fi
src="$(realpath "$1")"
submit="$src/scripts/slurm/submit_sweep.sh"
tmp="$(mktemp -d /tmp/npu-submit-test.XXXXXX)"
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

# sbatch stand-in: call k writes its arguments one per line to calls/k and prints a job id
# as `sbatch --parsable` does: "101" for the first call, "102;cluster1" (federation form) for
# the second. STUB_REFUSE=k makes call k fail like a refused submission.
mkdir -p "$tmp/bin" "$tmp/calls"
cat >"$tmp/bin/sbatch" <<'STUB'
#!/usr/bin/env bash
dir="$(dirname "$0")/../calls"
k=$(($(ls "$dir" | wc -l) + 1))
printf '%s\n' "$@" >"$dir/$k"
if [ "${STUB_REFUSE:-0}" = "$k" ]; then echo "sbatch: error: Batch job submission failed: Invalid account" >&2; exit 1; fi
[ "$k" = 1 ] && echo 101 || echo "102;cluster1"
STUB
chmod +x "$tmp/bin/sbatch"
printf '#!/bin/sh\n' >"$tmp/npu" && chmod +x "$tmp/npu"
printf 'models: [x]\n' >"$tmp/spec.yaml"
printf 'module load gcc\n' >"$tmp/setup.sh"

# --- a good submission --------------------------------------------------------------------
out="$(cd "$tmp" && PATH="$tmp/bin:$PATH" "$submit" spec.yaml sweep --shards 8 --max-running 2 --npu ./npu \
        --setup setup.sh --retry-failed -p debug --time=10 --parsable)" || fail "good submission failed"
[ "$out" = "101 102" ] || fail "--parsable should print '101 102' (cluster suffix stripped), got '$out'"
[ -d "$tmp/sweep/slurm" ] || fail "OUT/slurm (the log folder) was not created"
expected_array="--parsable
--array=0-7%2
--output=$tmp/sweep/slurm/sweep_%A_%a.out
-p
debug
--time=10
$src/scripts/slurm/sweep_array.sbatch
$tmp/npu
$tmp/spec.yaml
$tmp/sweep
8
$tmp/setup.sh
--retry-failed"
[ "$(cat "$tmp/calls/1")" = "$expected_array" ] \
  || { diff <(echo "$expected_array") "$tmp/calls/1" || true; fail "array submission arguments differ"; }
expected_report="--parsable
--dependency=afterany:101
--output=$tmp/sweep/slurm/report_%j.out
-p
debug
--time=10
$src/scripts/slurm/sweep_report.sbatch
$tmp/npu
$tmp/sweep
$tmp/setup.sh"
[ "$(cat "$tmp/calls/2")" = "$expected_report" ] \
  || { diff <(echo "$expected_report") "$tmp/calls/2" || true; fail "report submission arguments differ"; }
echo "ok: array 0-7%2 and afterany report submitted with absolute paths and pass-through options"

# Default human-readable output and default shard count (4): array 0-3.
rm -f "$tmp"/calls/*
out="$(cd "$tmp" && PATH="$tmp/bin:$PATH" "$submit" spec.yaml sweep --npu ./npu)"
grep -qx -- "--array=0-3" "$tmp/calls/1" || fail "default --shards should be 4 (array 0-3)"
grep -q "^array job 101: 4 shard(s) of $tmp/spec.yaml into $tmp/sweep" <<<"$out" || fail "unexpected output: $out"
grep -q "^report job 102: runs after the array ends" <<<"$out" || fail "unexpected output: $out"
echo "ok: default output and 4 shards"

# The report submission refused: exit 1, the array id and the command to submit it by hand.
rm -f "$tmp"/calls/*
set +e
err="$(cd "$tmp" && STUB_REFUSE=2 PATH="$tmp/bin:$PATH" "$submit" spec.yaml sweep --npu ./npu 2>&1 >/dev/null)"
rc=$?
set -e
[ "$rc" -eq 1 ] || fail "a refused report job should exit 1, got $rc"
grep -q "the array job 101 is submitted but sbatch refused the report job" <<<"$err" || fail "message: $err"
grep -q "sbatch --dependency=afterany:101 " <<<"$err" || fail "no by-hand command in: $err"
echo "ok: refused report job named with the command to submit it by hand"

# --- bad input: exit 2 and a message naming the problem -----------------------------------
expect_error() {  # expect_error "message part" args...
  local want="$1" rc err
  shift
  rm -f "$tmp"/calls/*
  set +e
  err="$(cd "$tmp" && PATH="$tmp/bin:$PATH" "$submit" "$@" 2>&1 >/dev/null)"
  rc=$?
  set -e
  [ "$rc" -eq 2 ] || fail "'$*' should exit 2, got $rc ($err)"
  grep -qF -- "$want" <<<"$err" || fail "'$*': expected '$want' in: $err"
  [ -z "$(ls "$tmp/calls")" ] || fail "'$*' submitted a job despite the error"
}
expect_error "expected SPEC and OUT"
expect_error "SPEC and OUT come first" --shards 4 spec.yaml
expect_error "--shards '0' is not a positive integer" spec.yaml sweep --shards 0 --npu ./npu
expect_error "--shards 'x' is not a positive integer" spec.yaml sweep --shards=x --npu ./npu
expect_error "--shards needs a value" spec.yaml sweep --npu ./npu --shards
expect_error "--max-running '-1' is not a positive integer" spec.yaml sweep --max-running -1 --npu ./npu
expect_error "sbatch option '--array=0-3' is set by submit_sweep.sh" spec.yaml sweep --array=0-3
expect_error "sbatch option '-d' is set by submit_sweep.sh" spec.yaml sweep -d afterok:1
expect_error "sbatch option '--output' is set by submit_sweep.sh" spec.yaml sweep --output x
expect_error "sweep spec 'nothing.yaml' does not exist" nothing.yaml sweep --npu ./npu
expect_error "npu binary 'spec.yaml' is not an executable file" spec.yaml sweep --npu spec.yaml
expect_error "setup file 'nosetup.sh' does not exist" spec.yaml sweep --npu ./npu --setup nosetup.sh
echo "ok: 12 kinds of bad input refused with exit 2 before any submission"
echo "PASS"
