#!/usr/bin/env bash
# End-to-end test of scripts/slurm/ on a real one-node Slurm cluster started on localhost.
#
# Usage: tests/slurm/slurm_localhost_test.sh NPU SOURCE_DIR      (ctest runs it; exit 77 = skip)
#
# Starts munged (own key and socket), slurmctld and slurmd (own slurm.conf, ports, state,
# spool and logs) in a temporary folder, submits a 4-cell sweep as a 3-task job array plus
# the dependent report job with scripts/slurm/submit_sweep.sh (tests/slurm/tiny_sweep.yaml),
# and checks:
#   1. every array task and the report job COMPLETED with exit code 0;
#   2. OUT/report/summary.csv is byte-identical to `npu report` of the same sweep run in one
#      local process. Byte-identical, not "equal after sorting": the report orders rows by
#      the sweep plan, not by which shard finished first, and prints every number the same
#      way, so the cluster run must reproduce it exactly (the project's determinism rule);
#      a different row order would be a bug worth failing on;
#   3. resume: after deleting one finished cell (a preempted task), submitting again runs
#      exactly that one cell (the other cells' run_summary.json are not rewritten) and the
#      report is again byte-identical.
# Stops every daemon it started (by pid) and removes the folder on exit, pass or fail;
# KEEP_TMP=1 keeps the folder. Needs root (slurmd launches jobs) and Debian's slurm-wlm and
# munge packages (.ci/run installs them); skips with a message otherwise.
set -euo pipefail

if [ $# -ne 2 ]; then echo "usage: $0 NPU SOURCE_DIR" >&2; exit 2; fi
npu="$(realpath "$1")" src="$(realpath "$2")"

skip() { echo "SKIP: $*"; exit 77; }
for tool in munged slurmctld slurmd sbatch scontrol sinfo scancel; do
  command -v "$tool" >/dev/null || skip "'$tool' not found: install Debian's slurm-wlm and munge (apt-get install slurm-wlm munge)"
done
[ "$(id -u)" -eq 0 ] || skip "needs root: slurmd must be able to launch jobs (SlurmdUser=root)"
command -v python3 >/dev/null || skip "python3 not found (used to pick free ports)"

tmp="$(mktemp -d /tmp/npu-slurm-test.XXXXXX)"
# munged insists that every folder above its socket is searchable by all.
chmod 755 "$tmp"
mkdir -p "$tmp"/{key,run,state,spool,log}
chmod 700 "$tmp/key"

pids=() job_ids=()
export SLURM_CONF="$tmp/slurm.conf"

dump_logs() {
  for f in "$tmp"/log/*.log "$tmp"/cluster/slurm/*.out; do
    [ -f "$f" ] || continue
    echo "----- $f (last 30 lines)"; tail -n 30 "$f"
  done
}
cleanup() {
  local rc=$?
  trap - EXIT
  if [ "$rc" -ne 0 ] && [ "$rc" -ne 77 ]; then dump_logs; fi
  [ ${#job_ids[@]} -eq 0 ] || timeout 10 scancel "${job_ids[@]}" >/dev/null 2>&1 || true
  # slurmctld and slurmd are pids 2 and 3 (munged is 1); shutdown stops both cleanly.
  [ ${#pids[@]} -lt 2 ] || timeout 10 scontrol shutdown >/dev/null 2>&1 || true
  for pid in ${pids[@]+"${pids[@]}"}; do kill "$pid" 2>/dev/null || true; done
  for _ in $(seq 50); do
    alive=0
    for pid in ${pids[@]+"${pids[@]}"}; do kill -0 "$pid" 2>/dev/null && alive=1; done
    [ "$alive" = 0 ] && break
    sleep 0.1
  done
  for pid in ${pids[@]+"${pids[@]}"}; do kill -9 "$pid" 2>/dev/null || true; done
  if [ "${KEEP_TMP:-0}" = 1 ]; then echo "kept $tmp"; else rm -rf "$tmp"; fi
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 143' TERM INT  # a ctest time-out or ^C still stops the daemons (via the EXIT trap)
fail() { echo "FAIL: $*" >&2; exit 1; }

# --- munge: a fresh key and a private socket --------------------------------------------
dd if=/dev/urandom of="$tmp/key/munge.key" bs=1024 count=1 status=none
chmod 400 "$tmp/key/munge.key"
munged -F --socket="$tmp/run/munge.sock" --key-file="$tmp/key/munge.key" \
  --log-file="$tmp/log/munged.log" --pid-file="$tmp/run/munged.pid" --seed-file="$tmp/key/munged.seed" \
  >>"$tmp/log/munged.log" 2>&1 &
pids+=($!)
for _ in $(seq 50); do [ -S "$tmp/run/munge.sock" ] && break; sleep 0.1; done
[ -S "$tmp/run/munge.sock" ] || fail "munged did not create its socket within 5 s"

# --- slurm.conf: one node, no cgroups, no accounting, everything under $tmp ---------------
read -r ctld_port slurmd_port < <(python3 -c '
import socket
socks = [socket.socket() for _ in range(2)]
for s in socks: s.bind(("127.0.0.1", 0))
print(*(s.getsockname()[1] for s in socks))')
cpus="$(nproc)"
cat >"$SLURM_CONF" <<CONF
ClusterName=npusimtest
SlurmctldHost=localhost
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$tmp/run/munge.sock
StateSaveLocation=$tmp/state
SlurmdSpoolDir=$tmp/spool
SlurmctldPidFile=$tmp/run/slurmctld.pid
SlurmdPidFile=$tmp/run/slurmd.pid
SlurmctldLogFile=$tmp/log/slurmctld.log
SlurmdLogFile=$tmp/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MpiDefault=none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
ReturnToService=2
NodeName=localhost NodeAddr=127.0.0.1 CPUs=$cpus State=UNKNOWN
PartitionName=debug Nodes=localhost Default=YES MaxTime=INFINITE State=UP
CONF

slurmctld -D -f "$SLURM_CONF" >>"$tmp/log/slurmctld.out" 2>&1 &
pids+=($!)
slurmd -D -N localhost -f "$SLURM_CONF" >>"$tmp/log/slurmd.out" 2>&1 &
pids+=($!)
state=""
for _ in $(seq 120); do
  state="$(sinfo -h -N -n localhost -o %T 2>/dev/null || true)"
  [ "$state" = idle ] && break
  sleep 0.25
done
[ "$state" = idle ] || fail "the node is not idle 30 s after starting slurmctld and slurmd (state '$state')"
echo "slurm up: node localhost idle with $cpus CPUs (ports $ctld_port, $slurmd_port)"

# --- the sweep: 2 configs x 1 model x 2 strategies = 4 cells (tests/slurm/tiny_sweep.yaml) ---
spec="$src/tests/slurm/tiny_sweep.yaml"
"$npu" sweep "$spec" --out "$tmp/local" -j 2 >"$tmp/log/local_sweep.log" 2>&1 \
  || fail "local sweep failed: $(tail -n 5 "$tmp/log/local_sweep.log")"
"$npu" report "$tmp/local" --out "$tmp/local/report" >"$tmp/log/local_report.log" 2>&1 \
  || fail "local report failed: $(tail -n 5 "$tmp/log/local_report.log")"
expected="$tmp/local/report/summary.csv"
ok_rows="$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "status") c = i; next } $c == "ok"' "$expected" | wc -l)"
[ "$ok_rows" -eq 4 ] || fail "the local report has $ok_rows ok rows, expected 4 (2 configs x 2 strategies): $expected"

# A setup file as a site's `module load` lines would be: every job must source it first
# (it reads an unset variable, as module scripts do, which the jobs' `set -u` must allow).
cat >"$tmp/setup.sh" <<'SETUP'
echo "npu-test setup sourced${NPU_TEST_UNSET_VARIABLE:+?}${NPU_TEST_UNSET_VARIABLE}"
SETUP

# Submits the sweep, waits for the report job, checks every job; sets array_id, report_id.
submit_and_wait() {
  local ids state
  ids="$("$src/scripts/slurm/submit_sweep.sh" "$spec" "$tmp/cluster" --shards 3 \
          --npu "$npu" --setup "$tmp/setup.sh" --parsable --time=5)" || fail "submit_sweep.sh failed"
  read -r array_id report_id <<<"$ids"
  job_ids+=("$array_id" "$report_id")
  echo "submitted array job $array_id (3 shards) and report job $report_id"
  for _ in $(seq 360); do
    state="$(scontrol show job -o "$report_id" | sed -n 's/.*JobState=\([A-Z_]*\).*/\1/p')"
    case "$state" in
      COMPLETED|FAILED|CANCELLED|TIMEOUT|NODE_FAIL|PREEMPTED|OUT_OF_MEMORY|BOOT_FAIL|DEADLINE) break ;;
    esac
    sleep 0.25
  done
  [ "$state" = COMPLETED ] || fail "report job $report_id ended in state '$state' (or not within 90 s)"
  # One line per array task: all three must have COMPLETED with exit code 0:0.
  local tasks done_ok
  tasks="$(scontrol show job -o "$array_id")"
  done_ok="$(grep -c 'JobState=COMPLETED .*ExitCode=0:0' <<<"$tasks" || true)"
  [ "$(wc -l <<<"$tasks")" -eq 3 ] && [ "$done_ok" -eq 3 ] \
    || fail "array job $array_id: expected 3 tasks COMPLETED with exit 0, got:"$'\n'"$tasks"
  for i in 0 1 2; do
    local log="$tmp/cluster/slurm/sweep_${array_id}_$i.out"
    grep -q "npu-sweep shard $i/3 " "$log" || fail "no log line of shard $i/3 in $log"
    grep -qx "npu-test setup sourced" "$log" || fail "shard $i did not source the --setup file ($log)"
  done
  grep -qx "npu-test setup sourced" "$tmp/cluster/slurm/report_$report_id.out" \
    || fail "the report job did not source the --setup file"
}

compare_reports() {
  local got="$tmp/cluster/report/summary.csv"
  [ -f "$got" ] || fail "the report job wrote no $got"
  cmp -s "$expected" "$got" || { diff "$expected" "$got" || true; fail "$got differs from the local run's $expected ($1)"; }
  echo "ok: $1: report summary.csv byte-identical to the local run ($(($(wc -l <"$got") - 1)) rows)"
  # The sweep's own DIR/summary.csv, rewritten by each shard under a lock: the last shard to
  # finish saw every cell, so it too equals the one-process run's.
  cmp -s "$tmp/local/summary.csv" "$tmp/cluster/summary.csv" \
    || { diff "$tmp/local/summary.csv" "$tmp/cluster/summary.csv" || true; fail "$tmp/cluster/summary.csv differs from the local run's ($1)"; }
}

submit_and_wait
compare_reports "first submission"

# --- resume: lose one finished cell, submit again, only that cell runs ---------------------
mapfile -t finished < <(find "$tmp/cluster" -name run_summary.json | sort)
[ "${#finished[@]}" -eq 4 ] || fail "expected 4 finished cells (run_summary.json) in $tmp/cluster, found ${#finished[@]}"
lost="$(dirname "${finished[1]}")"
rm -rf "$lost"
touch "$tmp/marker"
sleep 1  # mtime granularity: files written from now on are strictly newer than the marker
submit_and_wait
mapfile -t rerun < <(find "$tmp/cluster" -name run_summary.json -newer "$tmp/marker")
[ "${#rerun[@]}" -eq 1 ] && [ "$(dirname "${rerun[0]}")" = "$lost" ] \
  || fail "the re-submission should run only the lost cell $lost; it wrote: ${rerun[*]:-nothing}"
compare_reports "re-submission after losing one cell"
echo "PASS"
