#!/usr/bin/env bash
# Submit an `npu sweep` to Slurm: a job array with one shard per task, and a report job that
# runs after the whole array has ended (docs/cluster.md).
#
# Usage: scripts/slurm/submit_sweep.sh SPEC OUT [--shards N] [--max-running M] [--npu PATH]
#          [--setup FILE] [--retry-failed] [--parsable] [SBATCH OPTION ...] [-- SBATCH OPTION ...]
#   SPEC            the sweep spec YAML (docs/sweep.md)
#   OUT             the sweep folder; must be on a filesystem every compute node sees
#   --shards N      array size: task i runs `npu sweep SPEC --out OUT --shard i/N` (default 4)
#   --max-running M at most M array tasks at once (sbatch --array=0-(N-1)%M)
#   --npu PATH      the npu binary (default: build/npu of this checkout, else `npu` on PATH)
#   --setup FILE    shell file every job sources first (e.g. `module load` lines)
#   --retry-failed  run cells that failed before again (npu sweep --retry-failed)
#   --parsable      print only "ARRAY_JOB_ID REPORT_JOB_ID"
#   anything else   passed to both sbatch calls unchanged: -p/--partition, -A/--account,
#                   -t/--time, -c/--cpus-per-task (each task then runs -j that many cells),
#                   --mem-per-cpu, --qos, --no-requeue, ...
# Logs: OUT/slurm/sweep_<array job>_<task>.out and OUT/slurm/report_<job>.out.
# The report is written to OUT/report/summary.{csv,json,md}.
# Re-running the same command after a preemption, a time-out or a crash runs only the cells
# that are not finished yet (the finished ones are in OUT and skipped).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
prog="submit_sweep.sh"

usage() { sed -n '5,21p' "$0" | sed 's/^# \{0,1\}//'; }
die() { echo "$prog: error: $1" >&2; [ $# -gt 1 ] && echo "  $2" >&2; exit 2; }

if [ $# -ge 1 ] && { [ "$1" = -h ] || [ "$1" = --help ]; }; then usage; exit 0; fi
[ $# -ge 2 ] || die "expected SPEC and OUT" "usage: $prog SPEC OUT [--shards N] [sbatch options]"
spec="$1" out="$2"
shift 2
case "$spec$out" in -*) die "SPEC and OUT come first, before options (got '$spec' '$out')";; esac

shards=4 max_running="" npu="" setup="" parsable=0
sweep_opts=()
pass=()
is_int() { [[ "$1" =~ ^[0-9]+$ ]] && [ "$1" -ge 1 ]; }
need_value() { [ $# -ge 2 ] || die "$1 needs a value"; }
while [ $# -gt 0 ]; do
  case "$1" in
    --shards) need_value "$@"; shards="$2"; shift 2 ;;
    --shards=*) shards="${1#*=}"; shift ;;
    --max-running) need_value "$@"; max_running="$2"; shift 2 ;;
    --max-running=*) max_running="${1#*=}"; shift ;;
    --npu) need_value "$@"; npu="$2"; shift 2 ;;
    --npu=*) npu="${1#*=}"; shift ;;
    --setup) need_value "$@"; setup="$2"; shift 2 ;;
    --setup=*) setup="${1#*=}"; shift ;;
    --retry-failed) sweep_opts+=(--retry-failed); shift ;;
    --parsable) parsable=1; shift ;;
    -h|--help) usage; exit 0 ;;
    --) shift; pass+=("$@"); break ;;
    -a|--array|--array=*|-d|--dependency|--dependency=*|-o|--output|--output=*|-e|--error|--error=*|--wrap|--wrap=*)
      die "sbatch option '$1' is set by $prog" \
          "the array is 0..N-1 (--shards N, --max-running M), the report depends on it, logs go to OUT/slurm/" ;;
    *) pass+=("$1"); shift ;;
  esac
done
is_int "$shards" || die "--shards '$shards' is not a positive integer" "e.g. --shards 16"
[ -z "$max_running" ] || is_int "$max_running" || die "--max-running '$max_running' is not a positive integer"

command -v sbatch >/dev/null || die "sbatch not found on PATH" \
  "run this on a Slurm login node (e.g. after 'module load slurm'), or use GNU parallel (docs/cluster.md)"
[ -f "$spec" ] || die "sweep spec '$spec' does not exist or is not a file"
spec="$(realpath "$spec")"
out="$(realpath -m "$out")"

if [ -z "$npu" ]; then
  if [ -x "$here/../../build/npu" ]; then npu="$here/../../build/npu"
  else npu="$(command -v npu || true)"; fi
  [ -n "$npu" ] || die "no npu binary: neither build/npu of this checkout nor 'npu' on PATH" \
    "build it (bash scripts/setup.sh) or pass --npu PATH"
fi
[ -x "$npu" ] && [ -f "$npu" ] || die "npu binary '$npu' is not an executable file" "pass --npu PATH"
npu="$(realpath "$npu")"
if [ -n "$setup" ]; then
  [ -f "$setup" ] || die "setup file '$setup' does not exist or is not a file"
  setup="$(realpath "$setup")"
fi

mkdir -p "$out/slurm" || die "cannot create '$out/slurm'" "OUT must be writable (and shared by every node)"

array_range="0-$((shards - 1))${max_running:+%$max_running}"
array_id="$(sbatch --parsable --array="$array_range" --output="$out/slurm/sweep_%A_%a.out" \
  ${pass[@]+"${pass[@]}"} "$here/sweep_array.sbatch" "$npu" "$spec" "$out" "$shards" "$setup" ${sweep_opts[@]+"${sweep_opts[@]}"})" \
  || die "sbatch refused the array job (its message is above)"
array_id="${array_id%%;*}"  # --parsable prints "id" or "id;cluster"

if ! report_id="$(sbatch --parsable --dependency="afterany:$array_id" --output="$out/slurm/report_%j.out" \
    ${pass[@]+"${pass[@]}"} "$here/sweep_report.sbatch" "$npu" "$out" "$setup")"; then
  echo "$prog: error: the array job $array_id is submitted but sbatch refused the report job" >&2
  echo "  submit it by hand: sbatch --dependency=afterany:$array_id --output='$out/slurm/report_%j.out' $here/sweep_report.sbatch '$npu' '$out' '$setup'" >&2
  exit 1
fi
report_id="${report_id%%;*}"

if [ "$parsable" = 1 ]; then
  echo "$array_id $report_id"
else
  echo "array job $array_id: $shards shard(s) of $spec into $out (logs $out/slurm/)"
  echo "report job $report_id: runs after the array ends; writes $out/report/summary.csv"
fi
