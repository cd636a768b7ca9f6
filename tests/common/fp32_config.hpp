// The edge preset with an fp32 MAC array, written to a test's folder: the fp32 data path
// computes fp32 programs, and the functional tool tests run them.
#pragma once

#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include "tool_runner.hpp"

namespace npu::test {

/// Writes configs/PRESET.yaml (default edge-npu-ddr4) with `dtype: fp32` to DIR/edge-fp32.yaml
/// (DIR/PRESET-fp32.yaml for another preset); returns its path.
inline std::string fp32_config(const std::string& dir, const std::string& preset = "edge-npu-ddr4") {
  std::string y = read_file(std::string(NPU_SOURCE_DIR) + "/configs/" + preset + ".yaml");
  const std::size_t at = y.find("dtype: int8");
  EXPECT_NE(at, std::string::npos);
  y.replace(at, 11, "dtype: fp32");
  const std::string path = dir + "/" + (preset == "edge-npu-ddr4" ? std::string("edge") : preset) + "-fp32.yaml";
  std::ofstream(path) << y;
  return path;
}

}  // namespace npu::test
