// Depth-first stacks that assemble operands on chip by MOVE (docs/depth_first.md
// "Gathered operands"), executed with data: YOLOv5's C3 and SPPF blocks (a Concat of tiles the
// stack computes), a Concat with one piece from DDR (the PAN neck), and a skip tensor
// computed with the next conv's halo rows (MobileNetV2's inverted residual). Every strategy's
// program must give the fp32 reference interpreter's output (within 1e-5 of its largest
// value), and the depth-first program must really gather (so the test covers MOVE), with
// only the stack's last output written to DDR.
#include <gtest/gtest.h>

#include "functional_test_util.hpp"
#include "npu/compiler/pass_manager.hpp"
#include "npu/compiler/quantize/calibration.hpp"
#include "npu/compiler/reference_interpreter.hpp"
#include "npu/compiler/strategy.hpp"
#include "test_compile_graphs.hpp"

namespace {

using namespace npu;
using compiler::testing::GraphBuilder;

// C3 (YOLOv5 v7.0 common.py): cv1 1x1 -> bottleneck (1x1, 3x3, + cv1's output); cv2 1x1 of the
// block input; Concat(bottleneck, cv2) along C -> cv3 1x1.
compiler::Graph c3_block() {
  GraphBuilder b("c3");
  const std::string x = b.input("x", {1, 8, 24, 24});
  const std::string a = b.unary("cv1.relu", "Relu", b.conv("cv1", x, 4, 1, 1, 0, 1, true));
  const std::string m1 = b.unary("m.cv1.relu", "Relu", b.conv("m.cv1", a, 4, 1, 1, 0, 1, true));
  const std::string m2 = b.unary("m.cv2.relu", "Relu", b.conv("m.cv2", m1, 4, 3, 1, 1, 1, true));
  const std::string m = b.binary("m.add", "Add", m2, a);
  const std::string c = b.unary("cv2.relu", "Relu", b.conv("cv2", x, 4, 1, 1, 0, 1, true));
  const std::string cat = b.concat("cat", {m, c});
  b.output(b.unary("cv3.relu", "Relu", b.conv("cv3", cat, 8, 1, 1, 0, 1, true)));
  return b.g;
}

// SPPF: cv1 1x1, three 5x5 stride-1 MaxPools in a chain, Concat of all four along C, cv2 1x1.
compiler::Graph sppf_block() {
  GraphBuilder b("sppf");
  const std::string x = b.input("x", {1, 8, 20, 20});
  const std::string a = b.conv("cv1", x, 4, 1, 1, 0, 1, true);
  const std::string p1 = b.maxpool("m1", a, 5, 1, 2);
  const std::string p2 = b.maxpool("m2", p1, 5, 1, 2);
  const std::string p3 = b.maxpool("m3", p2, 5, 1, 2);
  b.output(b.conv("cv2", b.concat("cat", {a, p1, p2, p3}), 8, 1, 1, 0, 1, true));
  return b.g;
}

// PAN neck: t = conv1(x) leaves the chip (a broadcasting Mul, which no stack takes, reads it);
// the stack conv2 (3x3) -> conv3 reads Concat(conv2's output, t): one piece MOVEd, one LOADed.
compiler::Graph neck_concat() {
  GraphBuilder b("neck");
  const std::string x = b.input("x", {1, 6, 24, 24});
  const std::string t = b.conv("conv1", x, 4, 3, 1, 1, 1, true);
  const std::string u = b.binary("scale", "Mul", t, b.constant("gain", {1, 4, 1, 1}, 0.5f, 1.5f));
  const std::string v = b.unary("conv2.relu", "Relu", b.conv("conv2", u, 4, 3, 1, 1, 1, true));
  b.output(b.conv("conv3", b.concat("cat", {v, t}), 6, 1, 1, 0, 1, true));
  return b.g;
}

struct Case {
  const char* name;
  compiler::Graph (*make)();
  std::uint64_t sram;  // small enough for several bands
};

class GatherData : public ::testing::TestWithParam<Case> {};

TEST_P(GatherData, EveryStrategyGivesTheReferenceAndDepthFirstGathersOnChip) {
  const Case& cs = GetParam();
  const compiler::Graph g = cs.make();
  HwConfig hw = test::fp32_hw(cs.sram);
  hw.ddr.data_rate_mtps = 400;  // 3.2 GB/s: memory-bound, so one stack over the block is the fastest plan
  const compiler::RefTensorMap in = compiler::generate_calibration(g, 7, 1).at(0);
  const compiler::RefTensorMap ref = compiler::run_reference(g, in);
  std::map<std::string, std::vector<float>> inputs;
  for (const auto& [name, t] : in) inputs[name] = t.f;
  const std::string out = g.outputs.at(0);
  for (const std::string& s : compiler::builtin_strategy_names()) {
    SCOPED_TRACE("strategy " + s);
    const compiler::CompileResult c = compiler::compile(g, hw, compiler::builtin_strategy(s));
    if (s == "depth-first") {
      // One stack holds the whole block; it gathers at least one operand by MOVE and writes
      // only the graph output to DDR.
      ASSERT_EQ(c.stacks.size(), 1u) << compiler::format_explain(c.decisions);
      const compiler::StackSummary& st = c.stacks[0];
      EXPECT_GT(st.bands, 1) << compiler::format_explain(c.decisions);
      EXPECT_FALSE(st.gathered.empty()) << compiler::format_explain(c.decisions);
      EXPECT_EQ(st.stored, std::vector<std::string>{out});
      int moves = 0;
      for (const auto& i : c.program.instructions) moves += i.op == isa::Opcode::Move;
      EXPECT_GT(moves, 0);
    }
    const auto r = test::run_forked(c, hw, inputs, true);
    ASSERT_TRUE(r.ok) << r.error;
    ASSERT_EQ(r.outputs.count(out), 1u);
    EXPECT_LE(test::rel_err(r.outputs.at(out), test::to_double(ref.at(out).f)), 1e-5);
  }
}

// The same blocks with the overlap rows cached instead of recomputed (strategy file key
// `overlap: cache`): every stack caches, no layer computes a row twice (recompute MACs 0), and
// the output is the reference's.
TEST_P(GatherData, CachedOverlapGivesTheReference) {
  const Case& cs = GetParam();
  const compiler::Graph g = cs.make();
  HwConfig hw = test::fp32_hw(cs.sram);
  hw.ddr.data_rate_mtps = 400;
  const compiler::RefTensorMap in = compiler::generate_calibration(g, 7, 1).at(0);
  const compiler::RefTensorMap ref = compiler::run_reference(g, in);
  std::map<std::string, std::vector<float>> inputs;
  for (const auto& [name, t] : in) inputs[name] = t.f;
  const std::string out = g.outputs.at(0);
  const compiler::Strategy st = compiler::parse_strategy_yaml(
      "name: df-cache\npasses: [fold-batchnorm, fuse-bias, fuse-activation, fuse-residual, fuse-layers]\n"
      "overlap: cache\n");
  const compiler::CompileResult c = compiler::compile(g, hw, st);
  ASSERT_GE(c.stacks.size(), 1u) << compiler::format_explain(c.decisions);
  for (const auto& s : c.stacks) {
    EXPECT_EQ(s.overlap, compiler::OverlapMode::Cache);
    EXPECT_EQ(s.recompute_macs, 0u) << compiler::format_explain(c.decisions);
  }
  const auto r = test::run_forked(c, hw, inputs, true);
  ASSERT_TRUE(r.ok) << r.error;
  ASSERT_EQ(r.outputs.count(out), 1u);
  EXPECT_LE(test::rel_err(r.outputs.at(out), test::to_double(ref.at(out).f)), 1e-5);
}

INSTANTIATE_TEST_SUITE_P(Blocks, GatherData,
                         ::testing::Values(Case{"c3", c3_block, 48 * 1024}, Case{"sppf", sppf_block, 64 * 1024},
                                           Case{"neck", neck_concat, 32 * 1024},
                                           Case{"inverted_residual", compiler::testing::inverted_residuals, 256 * 1024}),
                         [](const ::testing::TestParamInfo<Case>& i) { return std::string(i.param.name); });

}  // namespace
