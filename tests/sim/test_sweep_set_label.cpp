// A sweep's config names carry its `set` values (docs/sweep.md "Cells"): two sweeps that differ
// only in a `set` value named their configs alike, so their rows looked the same in a merged
// report.
#include <gtest/gtest.h>

#include "npu/hw_config/hw_config.hpp"
#include "npu/sim/experiment/sweep_spec.hpp"

namespace {

std::vector<npu::sim::ConfigCell> configs(const std::string& set) {
  return npu::sim::plan_configs(npu::sim::parse_sweep_spec(
      "base: edge-npu-ddr4\nmodels: [resnet18]\nstrategies: [none]\n" + set + "axes: {sram.capacity: [1MiB]}\n",
      "spec.yaml", NPU_SOURCE_DIR));
}

TEST(SweepSetLabel, SetValuesAreInTheConfigName) {
  const auto a = configs("set: {ddr.address_mapping: rorabacobgch}\n");
  const auto b = configs("set: {ddr.address_mapping: rochrababgco}\n");
  ASSERT_EQ(a.size(), 1u);
  ASSERT_EQ(b.size(), 1u);
  EXPECT_EQ(a[0].hw_name, "edge-npu-ddr4__address_mapping-rorabacobgch__capacity-1MiB");
  EXPECT_EQ(b[0].hw_name, "edge-npu-ddr4__address_mapping-rochrababgco__capacity-1MiB");
  EXPECT_EQ(npu::parse_hw_config(a[0].config_yaml).npu.name, a[0].hw_name);
  // Without set, the name is the axes' alone, as before.
  EXPECT_EQ(configs("")[0].hw_name, "edge-npu-ddr4__capacity-1MiB");
}

TEST(SweepSetLabel, ASetKeyEndingLikeAnAxisIsNamedInFull) {
  // ddr.rows (set) and mac_array.rows (axis) both end in "rows": both labels are whole paths.
  const auto c = npu::sim::plan_configs(npu::sim::parse_sweep_spec(
      "base: edge-npu-ddr4\nmodels: [resnet18]\nstrategies: [none]\nset: {ddr.rows: 32768}\n"
      "axes: {mac_array.rows: [16]}\n",
      "spec.yaml", NPU_SOURCE_DIR));
  ASSERT_EQ(c.size(), 1u);
  EXPECT_EQ(c[0].hw_name, "edge-npu-ddr4__ddr.rows-32768__mac_array.rows-16");
}

}  // namespace
