// A larger SRAM must not give a much slower network (docs/compiler.md "Input-channel split"):
// a small ResNet-like block simulated on the edge preset (int8, 32 x 32 array) at every size
// of the ladder 16 KiB .. 1 MiB. Before the split competed by time, at 32-48 KiB its 3x3 convs
// took one output channel per tile (1 of 32 columns) and ran several times slower than at 16 KiB.
#include <gtest/gtest.h>

#include <cstdio>
#include <string>

#include "functional_test_util.hpp"

namespace {

using namespace npu;
using compiler::testing::GraphBuilder;

// x [1, 256, 14, 14] -> two 3x3 convs 256 -> 256 (pad 1) with Relu, a residual Add: the shape
// of ResNet-18's layer3 block.
compiler::Graph layer3_block() {
  GraphBuilder b("layer3");
  const std::string x = b.input("x", {1, 256, 14, 14});
  const std::string a = b.unary("r1", "Relu", b.conv("c1", x, 256, 3, 1, 1, 1, true));
  const std::string c = b.conv("c2", a, 256, 3, 1, 1, 1, true);
  b.output(b.unary("r2", "Relu", b.binary("add", "Add", c, x)));
  return b.g;
}

TEST(SramLadderLatency, SimulatedCyclesDoNotRiseAsTheSramGrows) {
  const compiler::Graph g = layer3_block();
  HwConfig hw = load_hw_config(std::string(NPU_SOURCE_DIR) + "/configs/edge-npu-ddr4.yaml");
  std::uint64_t prev = 0;
  std::uint64_t prev_kib = 0;
  for (std::uint64_t kib : {16, 32, 48, 64, 96, 128, 256, 1024}) {
    SCOPED_TRACE(std::to_string(kib) + " KiB");
    hw.sram.capacity_bytes = kib * 1024;
    const compiler::CompileResult c = compiler::compile(g, hw, compiler::builtin_strategy("none"));
    const test::ForkedRun r = test::run_forked(c, hw, {}, false);
    ASSERT_TRUE(r.ok) << r.error;
    // Non-increasing up to 5 %: the split is taken only when estimated 1.25x faster, so where
    // its estimate is close a larger SRAM's whole-input-channel tile can simulate a little
    // slower (measured 2026-12-05: 368,195 cycles at 128 KiB, split, against 385,662 at 256 KiB,
    // 32-channel tiles, +4.7 %); the regression this guards against was 5-14x.
    if (prev > 0) {
      EXPECT_LE(double(r.total_cycles), 1.05 * double(prev)) << "vs " << prev_kib << " KiB: " << prev;
    }
    std::printf("%llu KiB: %llu cycles\n", (unsigned long long)kib, (unsigned long long)r.total_cycles);
    prev = r.total_cycles;
    prev_kib = kib;
  }
}

}  // namespace
