#!/usr/bin/env bash
# Set up, build and run every test (ctest; each test case is its own process because
# SystemC elaborates once per process). Exits non-zero when any test fails.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
BUILD_DIR="${BUILD_DIR:-build}"
ctest --test-dir "$BUILD_DIR" --output-on-failure -j"$(nproc)" --timeout 600
