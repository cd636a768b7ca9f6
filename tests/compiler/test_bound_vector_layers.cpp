// layers.csv's `bound` counted only the MAC array as compute: YOLOv5s's SPPF MaxPools kept the
// activation unit busy 80,008 cycles against about 25,000 of DMA and were called memory-bound
// (new-user finding). The activation unit is a compute unit too, as in the compile report's hint.
#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include "test_onnx_util.hpp"
#include "tool_runner.hpp"

namespace {

using npu::test::OnnxModel;

TEST(BoundOfVectorLayers, AMaxPoolThatKeepsTheActivationUnitBusyIsComputeBound) {
  // SPPF's pool: 5x5 MaxPool, stride 1, pad 2, on [1, 64, 20, 20]. The activation unit (32 lanes
  // on the edge preset) compares 64 x 20 x 20 outputs x 25 window values: 20,000 cycles at
  // least. The DMA moves 25,600 B in and 25,600 B out (int8): 2,000 cycles at the DDR4-3200 x64
  // peak of 25.6 GB/s, so even at a third of the peak the pool waits on the activation unit.
  OnnxModel m(13);
  m.input("x", {1, 64, 20, 20});
  auto& pool = m.node("MaxPool", "pool", {"x"}, {"y"});
  OnnxModel::attr_ints(pool, "kernel_shape", {5, 5});
  OnnxModel::attr_ints(pool, "pads", {2, 2, 2, 2});
  OnnxModel::attr_ints(pool, "strides", {1, 1});
  m.output("y");
  const std::string dir = npu::test::fresh_dir("bound-vector");
  std::ofstream(dir + "/pool.onnx", std::ios::binary) << m.bytes();
  const auto r = npu::test::run_npu({"simulate", "--model", dir + "/pool.onnx", "--hw", "configs/edge-npu-ddr4.yaml",
                                     "--strategy", "none", "--out", dir + "/run", "-q"});
  ASSERT_EQ(r.status, 0) << r.output;
  const auto run = npu::test::read_json(dir + "/run/run.json");
  ASSERT_EQ(run.at("layers").size(), 1u);
  const auto& layer = run.at("layers").at(0);
  EXPECT_EQ(layer.at("mac_busy_cycles").get<long>(), 0);
  EXPECT_GE(layer.at("act_busy_cycles").get<long>(), 20000);
  EXPECT_LT(layer.at("dma_busy_cycles").get<long>(), 20000);
  EXPECT_EQ(layer.at("bound").get<std::string>(), "compute");
}

}  // namespace
