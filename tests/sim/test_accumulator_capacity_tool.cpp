// A too-small accumulator.capacity is named as such (task harden): it was reported as an SRAM
// problem ("cannot fit even one minimal tile in SRAM ... increase sram.capacity to at least
// 2048 bytes", with sram.capacity already 65536).
#include <gtest/gtest.h>

#include <string>

#include "bad_input_cases.hpp"
#include "tool_runner.hpp"

namespace {

TEST(AccumulatorCapacityTool, TooSmallAccumulatorNamesTheKeyTheNeedAndTheFix) {
  // gemmini-8x8 with a 32-byte accumulator. tiny_convnet's first conv (layer1.conv, 3x3, pad 1,
  // stride 1 on the 1x3x32x32 input) has output rows of 32 values; its smallest tile holds one
  // output channel x one row of int32 partial sums: 1 x 32 x 4 = 128 bytes > 32.
  const std::string dir = npu::test::fresh_dir("acc-capacity");
  std::string yaml = npu::test::read_file(std::string(NPU_SOURCE_DIR) + "/configs/gemmini-8x8.yaml");
  const std::string from = "  capacity: 16 KiB           # [GT] accumulator";
  const std::size_t at = yaml.find(from);
  ASSERT_NE(at, std::string::npos);
  yaml.replace(at, from.size(), "  capacity: 32");
  const std::string cfg = dir + "/acc32.yaml";
  npu::test::write_bytes(cfg, yaml);
  const auto r = npu::test::run_npu({"compile", "tests/data/tiny_convnet.onnx", "--hw", cfg, "--strategy", "none",
                                     "-o", dir + "/p.npuasm"});
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_NE(r.output.find(cfg + ": error: layer 'layer1.conv' (Conv) cannot fit even one minimal tile in the "
                                "accumulator: its partial sums need 128 bytes (one output channel x one output row of "
                                "32 values x 4 bytes), accumulator.capacity is 32 bytes\n  fix: increase "
                                "accumulator.capacity to at least 128 bytes"),
            std::string::npos)
      << r.output;
  EXPECT_EQ(r.output.find("sram.capacity"), std::string::npos) << r.output;
}

}  // namespace
