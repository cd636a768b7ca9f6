// The four DDR-backed hw presets as a gtest parameter list, and their test-name form
// (gtest names take no '-'): shared by the suites that run one case per preset.
#pragma once

#include <string>

#include <gtest/gtest.h>

namespace npu::test {

/// configs/NAME.yaml for each DDR standard the presets cover (DDR4, LPDDR4, DDR3, HBM2).
inline auto four_presets() {
  return ::testing::Values("edge-npu-ddr4", "mobile-npu-lpddr4", "tpu-v1-like", "hbm2-npu");
}

/// "edge-npu-ddr4" -> "edge_npu_ddr4": a preset name as a gtest parameter name.
inline std::string preset_test_name(const ::testing::TestParamInfo<std::string>& info) {
  std::string n = info.param;
  for (char& c : n)
    if (c == '-') c = '_';
  return n;
}

}  // namespace npu::test
