// ONNX Runtime (npm onnxruntime-node, scripts/install_ort.sh) for the reference cross-checks:
// whether it can run here. Tests that need it skip with the returned reason.
#pragma once

#include <cstdlib>
#include <filesystem>
#include <string>

#include "tool_runner.hpp"

namespace npu::test {

/// Why ONNX Runtime cannot run here ("" when it can); `ort_dir` receives its folder
/// (env NPU_ORT_DIR, default SOURCE/.cache/ort).
inline std::string ort_missing(std::string& ort_dir) {
  namespace fs = std::filesystem;
  const char* env = std::getenv("NPU_ORT_DIR");
  ort_dir = env && *env ? env : std::string(NPU_SOURCE_DIR) + "/.cache/ort";
  if (run_shell("command -v node").status != 0) return "node is not installed (apt-get install nodejs npm)";
  for (const char* pkg : {"onnxruntime-node", "protobufjs"})
    if (!fs::exists(fs::path(ort_dir) / "node_modules" / pkg / "package.json"))
      return std::string("npm package ") + pkg + " is not in " + ort_dir + " (run: bash scripts/install_ort.sh)";
  if (!fs::exists("/usr/include/onnx/onnx.proto")) return "/usr/include/onnx/onnx.proto is absent (apt-get install libonnx-dev)";
  return "";
}

}  // namespace npu::test
