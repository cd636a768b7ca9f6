#!/usr/bin/env bash
# Counts the bad-input cases of the test suite per input area (issue 12 asks for >= 300).
#
# Counting rule: one case = one bad input whose rejection a test asserts, i.e.
#   - each `BadCase{` row of the table-driven files tests/*/bad_*_cases_test.cpp, and
#   - in every other test file, each line that asserts a rejection: a call of the error
#     helpers `error_of(` / `load_error(` / `expect_rejected(` (not their definitions and not
#     the "<no error>" checks of valid inputs), `EXPECT_THROW` / `ASSERT_THROW`, and a tool
#     run asserted to exit 1 (`status, 1)`).
# Area of a file, by name: config (hw_config, bad_config), assembly (assembly, check,
# bad_asm), onnx (onnx, lowering_errors, strategy, bad_onnx), traces (tests/ddr, bad_trace),
# topologies (scalesim, bad_topology), cli (cli, *_tool, experiment, bad_cli), other.
#
# Usage: scripts/count_bad_input_cases.sh [--min N]   (exit 1 when the total is below N)
set -euo pipefail
cd "$(dirname "$0")/.."
min=0
if [[ "${1:-}" == "--min" ]]; then min="$2"; fi

area_of() {
  case "$1" in
    *bad_config*|*hw_config*) echo config ;;
    *bad_asm*|*assembly*|*test_check*) echo assembly ;;
    *bad_onnx*|*onnx*|*lowering_errors*|*strategy*) echo onnx ;;
    *bad_trace*|tests/ddr/*) echo traces ;;
    *bad_topology*|*scalesim*) echo topologies ;;
    *bad_cli*|*cli*|*_tool*|*experiment*) echo cli ;;
    *) echo other ;;
  esac
}

declare -A count
total=0
while IFS= read -r f; do
  if [[ "$f" == */bad_*_cases_test.cpp ]]; then
    n=$(grep -c 'BadCase{' "$f" || true)
  else
    n=$(grep -E 'error_of\(|load_error\(|expect_rejected\(|EXPECT_THROW|ASSERT_THROW|status, 1\)' "$f" \
          | grep -vE '<no error>|std::string (error_of|load_error)\(|void expect_rejected\(' | wc -l || true)
  fi
  [[ "$n" -gt 0 ]] || continue
  a=$(area_of "$f")
  count[$a]=$(( ${count[$a]:-0} + n ))
  total=$(( total + n ))
done < <(find tests -name '*.cpp' | sort)

for a in config assembly onnx traces topologies cli other; do
  printf '%-11s %4d\n' "$a" "${count[$a]:-0}"
done
printf '%-11s %4d\n' total "$total"
if (( total < min )); then
  echo "count_bad_input_cases: $total bad-input cases, fewer than the required $min" >&2
  exit 1
fi
