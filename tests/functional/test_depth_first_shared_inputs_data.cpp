// Depth-first stacks whose layers read the same DDR tensor (docs/depth_first.md "Shared
// inputs"): YOLOv5's C3 block, where cv1 and cv2 both read the block's input, and its PAN
// neck, where two 1x1 convs read one Concat with a piece from DDR. The tensor is LOADed once
// per band, the union of its readers' rows, instead of once per reader; a reader of fewer rows
// gets them by MOVE. Checked: the LOADs and their bytes against a hand count, and the values
// against the fp32 reference interpreter (1e-5 of the largest value) and, in int8, the integer
// reference (bit-exact).
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

// C3 (compiler::testing::c3_block): cv1 and cv2 both read the block input x [1, 8, 24, 24].
//
// PAN neck into a C3 (YOLOv5's model.18 - model.20): t = conv1(x) [1, 4, 24, 24] leaves the
// chip (a broadcasting Mul, which no stack takes, reads it); v = conv2(u) 3x3; the C3's two
// 1x1 convs conv3 and conv4 both read Concat(v, t); conv3 -> conv5 (1x1), Concat(conv5,
// conv4) -> conv6. In the stack, v is MOVEd and t LOADed once for both readers.
compiler::Graph neck_two_readers() {
  GraphBuilder b("neck2");
  const std::string x = b.input("x", {1, 6, 24, 24});
  const std::string t = b.conv("conv1", x, 4, 3, 1, 1, 1, true);
  const std::string u = b.binary("scale", "Mul", t, b.constant("gain", {1, 4, 1, 1}, 0.5f, 1.5f));
  const std::string v = b.unary("conv2.relu", "Relu", b.conv("conv2", u, 4, 3, 1, 1, 1, true));
  const std::string cat = b.concat("cat", {v, t});
  const std::string y1 = b.unary("conv3.relu", "Relu", b.conv("conv3", cat, 4, 1, 1, 0, 1, true));
  const std::string y2 = b.unary("conv5.relu", "Relu", b.conv("conv5", y1, 4, 1, 1, 0, 1, true));
  const std::string y3 = b.unary("conv4.relu", "Relu", b.conv("conv4", cat, 4, 1, 1, 0, 1, true));
  b.output(b.conv("conv6", b.concat("cat2", {y2, y3}), 6, 1, 1, 0, 1, true));
  return b.g;
}

bool is_param(const std::string& tensor) {
  auto ends = [&](const std::string& s) {
    return tensor.size() >= s.size() && tensor.compare(tensor.size() - s.size(), s.size(), s) == 0;
  };
  return ends(".weight") || ends(".bias");
}

const compiler::StackSummary* stack_with(const compiler::CompileResult& c, const std::vector<std::string>& layers) {
  for (const auto& s : c.stacks) {
    bool all = true;
    for (const auto& l : layers) all = all && std::find(s.layers.begin(), s.layers.end(), l) != s.layers.end();
    if (all) return &s;
  }
  return nullptr;
}

HwConfig slow_fp32(std::uint64_t sram) {
  HwConfig hw = test::fp32_hw(sram);
  hw.ddr.data_rate_mtps = 400;  // 3.2 GB/s: memory-bound, so stacking the block is the fastest plan
  return hw;
}

void expect_reference(const compiler::Graph& g, const compiler::CompileResult& c, const HwConfig& hw) {
  const compiler::RefTensorMap in = compiler::generate_calibration(g, 7, 1).at(0);
  const compiler::RefTensorMap ref = compiler::run_reference(g, in);
  std::map<std::string, std::vector<float>> inputs;
  for (const auto& [name, t] : in) inputs[name] = t.f;
  const std::string out = g.outputs.at(0);
  const auto r = test::run_forked(c, hw, inputs, true);
  ASSERT_TRUE(r.ok) << r.error;
  ASSERT_EQ(r.outputs.count(out), 1u);
  EXPECT_LE(test::rel_err(r.outputs.at(out), test::to_double(ref.at(out).f)), 1e-5);
}

// C3: x is LOADed once per band. Band b of cv3's output is rows [bR, min((b+1)R, 24)) = [lo,
// hi); cv3, the Concat and m.add read the same rows, m.cv2 (3x3, pad 1) reads m.cv1's rows
// [lo-1, hi+1] clipped to [0, 24), so cv1 computes (and reads x at) those rows, while cv2
// reads x at [lo, hi). One LOAD per band of the union [max(lo-1, 0), min(hi+1, 24)) x 24
// columns x 8 channels x 4 B; cv2's rows are MOVEd from that tile.
TEST(DepthFirstSharedInputs, C3BlockLoadsItsInputOncePerBand) {
  const compiler::Graph g = c3_block();
  const HwConfig hw = slow_fp32(48 * 1024);
  compiler::Strategy recompute = compiler::builtin_strategy("depth-first");
  recompute.overlap = compiler::OverlapPolicy::Recompute;  // the rows above: every band reads its halo
  const compiler::CompileResult c = compiler::compile(g, hw, recompute);
  const compiler::StackSummary* st = stack_with(c, {"cv1", "cv2", "cv3"});
  ASSERT_NE(st, nullptr) << compiler::format_explain(c.decisions);
  ASSERT_GT(st->bands, 1);
  EXPECT_EQ(st->shared_loads, std::vector<std::string>{"x (2 readers)"}) << compiler::format_explain(c.decisions);
  std::uint64_t want = 0;
  for (int b = 0; b < st->bands; ++b) {
    const int lo = b * st->band_rows, hi = std::min(24, (b + 1) * st->band_rows);
    want += std::uint64_t(std::min(hi + 1, 24) - std::max(lo - 1, 0)) * 24 * 8 * 4;
  }
  int loads = 0;
  std::uint64_t bytes = 0;
  for (const auto& i : c.program.instructions) {
    if (i.op != isa::Opcode::Load || i.tensor != "x") continue;
    ++loads;
    bytes += std::get<isa::DmaDesc>(i.params).bytes();
  }
  EXPECT_EQ(loads, st->bands);
  EXPECT_EQ(bytes, want);
  expect_reference(g, c, hw);
}

// Neck: conv3 and conv4 gather Concat(v, t); both are 1x1 convs whose readers are 1x1, so
// both read the band's rows of t, and t's LOADs cover it exactly once: 4 channels x 24 x 24
// x 4 B = 9,216 B in `bands` LOADs (18,432 B if each reader loaded its own).
TEST(DepthFirstSharedInputs, TwoReadersOfAConcatLoadItsDdrPieceOnce) {
  const compiler::Graph g = neck_two_readers();
  const HwConfig hw = slow_fp32(32 * 1024);
  const compiler::CompileResult c = compiler::compile(g, hw, compiler::builtin_strategy("depth-first"));
  const compiler::StackSummary* st = stack_with(c, {"conv3", "conv4"});
  ASSERT_NE(st, nullptr) << compiler::format_explain(c.decisions);
  ASSERT_GT(st->bands, 1) << compiler::format_explain(c.decisions);
  ASSERT_EQ(st->shared_loads.size(), 1u) << compiler::format_explain(c.decisions);
  EXPECT_NE(st->shared_loads[0].find("(2 readers)"), std::string::npos);
  int loads = 0;
  std::uint64_t bytes = 0;
  for (const auto& i : c.program.instructions) {
    if (i.op != isa::Opcode::Load || (i.layer != "conv3" && i.layer != "conv4") || is_param(i.tensor)) continue;
    ++loads;
    bytes += std::get<isa::DmaDesc>(i.params).bytes();
  }
  EXPECT_EQ(loads, st->bands);
  EXPECT_EQ(bytes, 4u * 24 * 24 * 4);
  expect_reference(g, c, hw);
}

// int8: the shared tiles and the MOVEs out of them keep the program bit-exact with the
// integer reference (edge preset, SRAM cut so that the block runs in several bands).
TEST(DepthFirstSharedInputs, Int8IsBitExact) {
  for (auto make : {c3_block, neck_two_readers}) {
    const compiler::Graph g = make();
    SCOPED_TRACE(g.name);
    const test::Int8DepthFirst q = test::int8_depth_first(g, 12 * 1024, 400);
    bool shared = false;
    for (const auto& s : q.c.stacks) shared = shared || (!s.shared_loads.empty() && s.bands > 1);
    EXPECT_TRUE(shared) << compiler::format_explain(q.c.decisions);
    EXPECT_EQ(q.status(), "bit-exact");
  }
}

}  // namespace
