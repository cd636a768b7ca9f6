#!/usr/bin/env bash
# Set up and build npu-sim on Debian 12: installs missing Debian packages (idempotent,
# quiet when everything is there), configures with CMake + Ninja, builds into ./build.
# Usage: bash scripts/setup.sh [extra cmake args...]   (env BUILD_DIR overrides ./build)
set -euo pipefail
cd "$(dirname "$0")/.."

PACKAGES=(build-essential cmake ninja-build pkg-config
  libsystemc-dev libyaml-cpp-dev libfmt-dev libcli11-dev nlohmann-json3-dev
  libonnx-dev libprotobuf-dev protobuf-compiler libonnx-testdata
  libgtest-dev libgmock-dev libbenchmark-dev
  python3 python3-matplotlib python3-pandas graphviz zlib1g-dev)

missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  SUDO=""
  [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# ONNX Runtime (npm onnxruntime-node) as the independent reference of the functional checks
# (docs/functional.md); only where node/npm are installed (.ci/run installs them). Tests that
# need it skip with a message when it is absent, so a failure here is not fatal.
if command -v npm >/dev/null; then
  bash scripts/install_ort.sh || echo "setup: note: ONNX Runtime (npm) not installed; its cross-check tests will skip"
fi

BUILD_DIR="${BUILD_DIR:-build}"
if [ ! -f "$BUILD_DIR/build.ninja" ]; then
  . scripts/cmake_launcher.sh
  cmake -S . -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo "${NPU_CMAKE_LAUNCHER[@]}" "$@" >/dev/null
fi
# --quiet: ninja prints only warnings and errors.
cmake --build "$BUILD_DIR" -- --quiet -j"$(nproc)"

