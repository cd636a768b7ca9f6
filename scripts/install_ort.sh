#!/usr/bin/env bash
# Installs ONNX Runtime for Node.js (npm onnxruntime-node, CPU runtime bundled) and
# protobufjs into .cache/ort (or $NPU_ORT_DIR): the independent reference that
# scripts/ort_reference.js runs (docs/functional.md, "Reference interpreter").
# --ignore-scripts skips onnxruntime-node's install script, which downloads GPU libraries
# (unreachable offline, and not needed for the CPU runtime). Idempotent; exits 0 quietly when
# both packages are there. Needs node and npm (Debian: apt-get install nodejs npm).
set -euo pipefail
cd "$(dirname "$0")/.."
ORT_DIR="${NPU_ORT_DIR:-.cache/ort}"
ORT_VERSION=1.30.0
PROTOBUFJS_VERSION=8.8.1
if [ -f "$ORT_DIR/node_modules/onnxruntime-node/package.json" ] && [ -f "$ORT_DIR/node_modules/protobufjs/package.json" ] &&
   grep -q "\"version\": \"$ORT_VERSION\"" "$ORT_DIR/node_modules/onnxruntime-node/package.json"; then
  exit 0
fi
if ! command -v npm >/dev/null; then
  echo "install_ort: npm not found (apt-get install nodejs npm); ONNX Runtime cross-checks will be skipped" >&2
  exit 1
fi
mkdir -p "$ORT_DIR"
echo "install_ort: npm install onnxruntime-node@$ORT_VERSION protobufjs@$PROTOBUFJS_VERSION into $ORT_DIR"
npm install --prefix "$ORT_DIR" --ignore-scripts --no-audit --no-fund --no-save --loglevel=error \
  "onnxruntime-node@$ORT_VERSION" "protobufjs@$PROTOBUFJS_VERSION" >/dev/null
