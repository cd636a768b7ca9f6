// Depth-first stacks that assemble operands on chip by MOVE (docs/depth_first.md
// "Gathered operands"), executed with data: YOLOv5's C3 and SPPF blocks (a Concat of tiles the
// stack computes), a Concat with one piece from DDR (the PAN neck), and a skip tensor
// computed with the next conv's halo rows (MobileNetV2's inverted residual). Every strategy's
// program must give the fp32 reference interpreter's output (within 1e-5 of its largest
// value), and the depth-first program must really gather (so the test covers MOVE), with
// only the stack's last output written to DDR.
#include <gtest/gtest.h>

#include <algorithm>

#include "functional_test_util.hpp"
#include "npu/compiler/transforms/pass_manager.hpp"
#include "npu/compiler/quantize/calibration.hpp"
#include "npu/compiler/reference/reference_interpreter.hpp"
#include "npu/compiler/transforms/strategy.hpp"
#include "test_compile_graphs.hpp"

namespace {

using namespace npu;
using compiler::testing::c3_block;
using compiler::testing::GraphBuilder;

// C3: compiler::testing::c3_block (test_compile_graphs.hpp).
//
// SPPF: cv1 1x1, three 5x5 stride-1 MaxPools in a chain, Concat of all four along C, cv2 1x1.
compiler::Graph sppf_block_hw(std::int64_t hw) {
  GraphBuilder b("sppf");
  const std::string x = b.input("x", {1, 8, hw, hw});
  const std::string a = b.conv("cv1", x, 4, 1, 1, 0, 1, true);
  const std::string p1 = b.maxpool("m1", a, 5, 1, 2);
  const std::string p2 = b.maxpool("m2", p1, 5, 1, 2);
  const std::string p3 = b.maxpool("m3", p2, 5, 1, 2);
  b.output(b.conv("cv2", b.concat("cat", {a, p1, p2, p3}), 8, 1, 1, 0, 1, true));
  return b.g;
}
compiler::Graph sppf_block() { return sppf_block_hw(20); }
// The same at 14 x 14, for the one-band case (OneBandData): at 20 x 20 the DMA time estimate
// (docs/timing.md) makes 2 bands of 10 rows faster than one; at 14 x 14 one band is chosen
// (heights 8-24 tried by hand: one band at 10 and 14, 2-4 bands at 8, 12, 16, 20 and 24; the
// bands' extra descriptors and burst-straddling row runs against the shorter fill).
compiler::Graph sppf_block_14() { return sppf_block_hw(14); }

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

// PAN neck with nearest upsampling (YOLOv5's model.10 - model.13): t = conv1(x) at 12 x 12,
// u = Resize x2 (nearest, asymmetric + floor, as YOLOv5's export) to 24 x 24, Concat(u, s)
// with s = conv2(y) at 24 x 24, then a 3x3 conv3. In one stack, u's band rows start at the
// 3x3 conv's halo row (odd for every band but the first), so MOVEs copy a cut group of
// output rows as well as whole ones.
compiler::Graph pan_upsample() {
  GraphBuilder b("pan_up");
  const std::string x = b.input("x", {1, 6, 12, 12});
  const std::string y = b.input("y", {1, 3, 24, 24});
  const std::string t = b.unary("conv1.relu", "Relu", b.conv("conv1", x, 4, 1, 1, 0, 1, true));
  compiler::Tensor& scales = b.add_tensor("scales", {4}, true);
  scales.float_data = {1, 1, 2, 2};
  b.add_tensor("u", {1, 4, 24, 24});
  compiler::Node& r = b.node("resize", "Resize", {t, "", "scales"}, {"u"});
  r.attrs["mode"] = std::string("nearest");
  r.attrs["coordinate_transformation_mode"] = std::string("asymmetric");
  r.attrs["nearest_mode"] = std::string("floor");
  const std::string s2 = b.unary("conv2.relu", "Relu", b.conv("conv2", y, 4, 1, 1, 0, 1, true));
  b.output(b.conv("conv3", b.concat("cat", {"u", s2}), 6, 3, 1, 1, 1, true));
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

// Three of the blocks with SRAM for whole tensors (Case::sram, 4 MiB) and the default DDR (fast
// enough that band pipelining does not pay; SPPF at 14 x 14, sppf_block_14): one stack of one band, whose buffers (LOADed
// inputs, gathered Concats, shared inputs, stored and on-chip tiles, weights) are placed by
// lifetime in stack layers and reuse each other's bytes (docs/depth_first.md "SRAM layout";
// the layout itself is derived by hand in test_depth_first_streamed_weights_data.cpp). fp32
// gives the reference; int8 is bit-exact with the integer reference.
class OneBandData : public ::testing::TestWithParam<Case> {};

TEST_P(OneBandData, OneBandStackGivesTheReference) {
  const Case& cs = GetParam();
  const compiler::Graph g = cs.make();
  HwConfig hw = test::fp32_hw(cs.sram);
  const compiler::RefTensorMap in = compiler::generate_calibration(g, 7, 1).at(0);
  const compiler::RefTensorMap ref = compiler::run_reference(g, in);
  std::map<std::string, std::vector<float>> inputs;
  for (const auto& [name, t] : in) inputs[name] = t.f;
  const std::string out = g.outputs.at(0);
  const compiler::CompileResult c = compiler::compile(g, hw, compiler::builtin_strategy("depth-first"));
  ASSERT_EQ(c.stacks.size(), 1u) << compiler::format_explain(c.decisions);
  ASSERT_EQ(c.stacks[0].bands, 1) << compiler::format_explain(c.decisions);
  const auto r = test::run_forked(c, hw, inputs, true);
  ASSERT_TRUE(r.ok) << r.error;
  ASSERT_EQ(r.outputs.count(out), 1u);
  EXPECT_LE(test::rel_err(r.outputs.at(out), test::to_double(ref.at(out).f)), 1e-5);
  const test::Int8DepthFirst q = test::int8_depth_first(g, cs.sram);
  ASSERT_FALSE(q.c.stacks.empty()) << compiler::format_explain(q.c.decisions);
  EXPECT_EQ(q.c.stacks[0].bands, 1) << compiler::format_explain(q.c.decisions);
  EXPECT_EQ(q.status(), "bit-exact");
}

// The upsampling joins the stack: conv1 -> resize -> conv3 (with conv2 gathered), the
// upsampled tensor never reaches DDR (no STORE of layer "resize"; its 4 x 24 x 24 elements
// would be 2304 x 4 B), and its MOVEs include cut groups (rank 4: the rows of one input row a
// band starts in the middle of) as well as whole ones (rank 5). fp32 values are the
// reference's (above); int8 programs stay bit-exact with the integer reference.
TEST(DepthFirstUpsample, TheUpsampledTensorStaysOnChip) {
  const compiler::Graph g = pan_upsample();
  HwConfig hw = test::fp32_hw(40 * 1024);
  hw.ddr.data_rate_mtps = 400;
  const compiler::CompileResult c = compiler::compile(g, hw, compiler::builtin_strategy("depth-first"));
  ASSERT_EQ(c.stacks.size(), 1u) << compiler::format_explain(c.decisions);
  const auto& layers = c.stacks[0].layers;
  EXPECT_NE(std::find(layers.begin(), layers.end(), "resize"), layers.end()) << compiler::format_explain(c.decisions);
  int cut = 0, whole = 0;
  for (const auto& i : c.program.instructions) {
    if (i.layer != "resize") continue;
    EXPECT_NE(i.op, isa::Opcode::Store);
    EXPECT_NE(i.op, isa::Opcode::Load);  // its input is conv1's tile
    if (i.op != isa::Opcode::Move) continue;
    const auto& m = std::get<isa::MoveParams>(i.params);
    (m.rank == 4 ? cut : whole) += 1;
  }
  EXPECT_GT(cut, 0);
  EXPECT_GT(whole, 0);
  const test::Int8DepthFirst q = test::int8_depth_first(g, 16 * 1024);
  bool stacked = false;
  for (const auto& sm : q.c.stacks)
    stacked = stacked || std::find(sm.layers.begin(), sm.layers.end(), "resize") != sm.layers.end();
  EXPECT_TRUE(stacked) << compiler::format_explain(q.c.decisions);
  EXPECT_EQ(q.status(), "bit-exact");
}

INSTANTIATE_TEST_SUITE_P(Blocks, GatherData,
                         ::testing::Values(Case{"c3", c3_block, 48 * 1024}, Case{"sppf", sppf_block, 64 * 1024},
                                           Case{"neck", neck_concat, 32 * 1024},
                                           Case{"pan_upsample", pan_upsample, 40 * 1024},
                                           Case{"inverted_residual", compiler::testing::inverted_residuals, 256 * 1024}),
                         [](const ::testing::TestParamInfo<Case>& i) { return std::string(i.param.name); });

INSTANTIATE_TEST_SUITE_P(Blocks, OneBandData,
                         ::testing::Values(Case{"c3", c3_block, 4 << 20}, Case{"sppf", sppf_block_14, 4 << 20},
                                           Case{"pan_upsample", pan_upsample, 4 << 20}),
                         [](const ::testing::TestParamInfo<Case>& i) { return std::string(i.param.name); });

}  // namespace
