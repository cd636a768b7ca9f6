// Depth-first stacks whose weights are re-loaded by every band (StackSummary::weights_streamed,
// docs/depth_first.md "Weights"): when the stack's weights together do not fit the SRAM but
// two of its largest layer's do, each layer's weights are loaded before each band's compute
// into one of two alternating slots. Checked by structure (the stack streams, and each conv's
// weights are LOADed once per band: the count derived from the plan's band count), and by
// values: fp32 equals the reference interpreter, int8 is bit-exact with the integer reference.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>

#include "functional_test_util.hpp"
#include "npu/compiler/transforms/pass_manager.hpp"
#include "npu/compiler/quantize/calibration.hpp"
#include "npu/compiler/reference/reference_interpreter.hpp"
#include "npu/compiler/transforms/strategy.hpp"
#include "test_compile_graphs.hpp"

namespace {

using namespace npu;
using compiler::testing::GraphBuilder;

// x [1,C,H,H] -> 4 x (3x3 conv C -> C, pad 1, bias, Relu). C = 32, H = 8 in fp32: 9216
// weights a conv (36,864 B, plus a 128 B bias), 147,968 B for the four; activations 2048
// elements (8 KiB).
compiler::Graph conv_chain(std::int64_t c, std::int64_t h = 8) {
  GraphBuilder b("chain");
  std::string t = b.input("x", {1, c, h, h});
  for (int i = 0; i < 4; ++i) {
    const std::string n = "conv" + std::to_string(i);
    t = b.unary(n + ".relu", "Relu", b.conv(n, t, int(c), 3, 1, 1, 1, true));
  }
  b.output(t);
  return b.g;
}

// The edge preset with its DDR4 bank groups in the lowest address bits (rochrabacobg): a
// sequential stream alternates bank groups, column commands tCCD_S apart, so one weight LOAD
// arrives at the 25.6 GB/s peak (isa::sequential_stream_gbps) instead of the 12.2 GB/s of the
// preset's rochrababgco. The stacks below are sized for weight loads at that rate.
constexpr const char* kBankGroupsLowest = "rochrabacobg";

HwConfig streaming_hw(std::uint64_t sram) {
  HwConfig hw = test::fp32_hw(sram);
  hw.ddr.address_mapping = kBankGroupsLowest;
  return hw;
}

// Each conv of a streamed stack loads its weights once per band it computes in (recompute:
// every band), so the LOADs of its weight tensor number the stack's bands.
void expect_weights_per_band(const compiler::CompileResult& c, const compiler::StackSummary& st) {
  std::map<std::string, int> loads;
  for (const auto& in : c.program.instructions)
    if (in.op == isa::Opcode::Load && in.tensor.find(".weight") != std::string::npos) loads[in.layer] += 1;
  int convs = 0;
  for (const auto& l : st.layers)
    if (l.rfind("conv", 0) == 0) {
      ++convs;
      EXPECT_EQ(loads[l], st.bands) << l;
    }
  EXPECT_GE(convs, 2);
}

// The program's output equals the fp32 reference interpreter's (within 1e-5 of its largest value).
void expect_reference(const compiler::Graph& g, const HwConfig& hw, const compiler::CompileResult& c) {
  const compiler::RefTensorMap in = compiler::generate_calibration(g, 7, 1).at(0);
  const compiler::RefTensorMap ref = compiler::run_reference(g, in);
  const auto r = test::run_forked(c, hw, {{"x", in.at("x").f}}, true);
  ASSERT_TRUE(r.ok) << r.error;
  const std::string out = g.outputs.at(0);
  EXPECT_LE(test::rel_err(r.outputs.at(out), test::to_double(ref.at(out).f)), 1e-5);
}

// The single stack of `c`, which streams its weights.
const compiler::StackSummary& streamed_stack(const compiler::CompileResult& c) {
  EXPECT_EQ(c.stacks.size(), 1u) << compiler::format_explain(c.decisions);
  EXPECT_TRUE(!c.stacks.empty() && c.stacks[0].weights_streamed) << compiler::format_explain(c.decisions);
  static const compiler::StackSummary none;
  return c.stacks.empty() ? none : c.stacks[0];
}

TEST(DepthFirstStreamedWeights, Fp32ReloadsPerBandAndGivesTheReference) {
  const compiler::Graph g = conv_chain(32);
  // 128 KiB: the four convs' 147,968 B of weights do not fit; two slots of one conv's (2 x
  // 36,992 B) and the 8-row band tiles do, so one stack takes all four convs.
  const HwConfig hw = streaming_hw(128 * 1024);
  const compiler::CompileResult c = compiler::compile(g, hw, compiler::builtin_strategy("depth-first"));
  const compiler::StackSummary& st = streamed_stack(c);
  EXPECT_EQ(st.layers.size(), 4u);  // the Relus are fused: four conv layers
  // One band (8 rows): each conv's weights and bias load once, the input once, the output
  // once: 4 x (36,864 + 128) + 2 x 8,192 = 164,352 B (every run a whole number of 64 B bursts).
  EXPECT_EQ(st.bands, 1);
  EXPECT_EQ(st.ddr_bytes, 4u * (36864u + 128u) + 2u * 8192u);
  // One band: every buffer is placed by its lifetime in stack layers (first fit, largest
  // first, ties in buffer order: weights, x, outputs). Where it fits, conv k's weights (36,992
  // B with the bias) live [k-2, k] (weights_ahead 2: they load while convs k-2 and k-1
  // compute), the input x [0, 0], conv k's 8 KiB output [k, k+1] (the last one [3, 3]):
  // w0 [0, 0] at 0, w1 [0, 1] at 36,992, w2 [0, 2] at 73,984, w3 [1, 3] at 0 (w0 is dead); x
  // at 110,976; out0 [0, 1] at 119,168 (above everything live in layer 0); out1 [1, 2] at
  // 110,976 (x is dead); out2 [2, 3] at 36,992 (w1 is dead); out3 [3, 3] at 45,184: 127,360 B
  // of the 131,072.
  EXPECT_EQ(st.weights_ahead, 2);
  EXPECT_EQ(st.sram_bytes, 127360u);
  {
    // At 96 KiB that does not fit, and the weights live [k-1, k] (weights_ahead 1): w0 at 0,
    // w1 at 36,992, w2 at 0 (w0 is dead), w3 at 36,992; x at 73,984; out0 at 82,176; out1 at
    // 73,984 (x is dead); out2 at 82,176 (out0 is dead); out3 at 0 (only w3 and out2 live):
    // 90,368 B.
    const compiler::CompileResult c96 =
        compiler::compile(g, streaming_hw(96 * 1024), compiler::builtin_strategy("depth-first"));
    const compiler::StackSummary& s96 = streamed_stack(c96);
    EXPECT_EQ(s96.bands, 1);
    EXPECT_EQ(s96.weights_ahead, 1);
    EXPECT_EQ(s96.sram_bytes, 90368u);
  }
  expect_weights_per_band(c, st);
  // The compile report's per-layer `weights` column says so for each layer of the stack.
  int streamed = 0;
  for (const auto& l : c.report.layers) streamed += l.stack == st.id && l.weights == "streamed";
  EXPECT_EQ(streamed, 4);
  expect_reference(g, hw, c);
}

// Several bands: C = 16, H = 64 in fp32 at 448 KiB (one band of whole 256 KiB tensors does
// not fit, nor all four convs' weights side by side with the bands the planner picks). With
// overlap: recompute, each band recomputes the halo: output rows
// [lo, hi) of band height R read
// input rows [max(lo - 4, 0), min(hi + 4, 64)) (4 layers x 1 row). DDR: bands x 4 x (9,216 +
// 64) B of weights + those input rows x 16 x 64 x 4 B + 64 x 16 x 64 x 4 B of output.
TEST(DepthFirstStreamedWeights, Fp32SeveralBandsReloadEveryLayerPerBand) {
  const compiler::Graph g = conv_chain(16, 64);
  const HwConfig hw = streaming_hw(448 * 1024);
  compiler::Strategy strategy = compiler::builtin_strategy("depth-first");
  strategy.overlap = compiler::OverlapPolicy::Recompute;
  const compiler::CompileResult c = compiler::compile(g, hw, strategy);
  const compiler::StackSummary& st = streamed_stack(c);
  ASSERT_GE(st.bands, 2) << compiler::format_explain(c.decisions);
  ASSERT_EQ(st.overlap, compiler::OverlapMode::Recompute);
  std::uint64_t in_rows = 0;
  for (int lo = 0; lo < 64; lo += st.band_rows) in_rows += std::min(lo + st.band_rows + 4, 64) - std::max(lo - 4, 0);
  EXPECT_EQ(st.ddr_bytes, std::uint64_t(st.bands) * 4u * (9216u + 64u) + in_rows * 16u * 64u * 4u + 64u * 16u * 64u * 4u);
  expect_weights_per_band(c, st);
  expect_reference(g, hw, c);
}

// int8, one band (C = 64, H = 8 at 112 KiB: 4 x 36,864 B of weights do not fit side by side;
// each conv's weights take SRAM only from the previous conv's compute to their own) and
// several bands (C = 16, H = 64 at 176 KiB, weights in two slots): bit-exact with the
// integer reference. The second case's four 2,304-B weight sets would fit side by side, so
// streaming them is the planner's time choice, not forced: with the DMA time estimate
// (docs/timing.md) it keeps them resident at 208 KiB (the size this case used before) and
// streams them, in 5 bands, at 176 KiB (sizes 40-240 KiB tried by hand; 176 is the one where
// the estimate prefers streaming with several bands). The checks below do not depend on the
// size: the weight LOADs per band follow from the plan's own band count.
TEST(DepthFirstStreamedWeights, Int8IsBitExact) {
  struct Case {
    std::int64_t c, h;
    std::uint64_t sram;
    bool several_bands;
  };
  for (const Case& k : {Case{64, 8, 112 * 1024, false}, Case{16, 64, 176 * 1024, true}}) {
    SCOPED_TRACE("C " + std::to_string(k.c) + ", H " + std::to_string(k.h));
    const test::Int8DepthFirst q = test::int8_depth_first(conv_chain(k.c, k.h), k.sram, 0, kBankGroupsLowest);
    const compiler::CompileResult& c = q.c;
    ASSERT_EQ(c.stacks.size(), 1u) << compiler::format_explain(c.decisions);
    ASSERT_TRUE(c.stacks[0].weights_streamed) << compiler::format_explain(c.decisions);
    if (k.several_bands) EXPECT_GE(c.stacks[0].bands, 2);
    else EXPECT_EQ(c.stacks[0].bands, 1);
    expect_weights_per_band(c, c.stacks[0]);
    EXPECT_EQ(q.status(), "bit-exact");
  }
}

// Weight groups (stack_plan.hpp, weight_group_channels): a streamed conv whose weights exceed
// TilingOptions::weight_group_bytes (256 KiB by default; less here, so that the small chains
// above have groups) is computed in output-channel groups, each after its own weights' LOAD, so
// the array starts on the first group while the rest arrive. Groups = min(8, ceil(bytes /
// group bytes)), channels per group ceil(c_out / groups) rounded up to the 32-wide array.
//
// CONV instructions and weight LOADs (DDR offset from the layer's first, bytes) of `layer`.
struct Groups {
  int convs = 0;
  std::vector<std::pair<std::uint64_t, std::uint64_t>> loads;
};
Groups groups_of(const compiler::CompileResult& c, const std::string& layer) {
  Groups g;
  std::uint64_t first = 0;
  for (const auto& in : c.program.instructions) {
    if (in.layer != layer) continue;
    if (in.op == isa::Opcode::Conv) ++g.convs;
    if (in.op == isa::Opcode::Load && in.tensor.find(".weight") != std::string::npos) {
      const auto& d = std::get<isa::DmaDesc>(in.params);
      if (g.loads.empty()) first = d.ddr_addr;
      g.loads.push_back({d.ddr_addr - first, d.bytes()});
    }
  }
  return g;
}

TEST(DepthFirstStreamedWeights, Fp32WeightGroupsGiveTheReference) {
  // The one-band chain of the first test with C = 64 at 384 KiB: a conv's weights are 64 x 64 x
  // 9 x 4 = 147,456 B, the four do not fit beside the tiles, two slots do. With 64 KiB groups:
  // ceil(147,456 / 65,536) = 3 groups of ceil(64 / 3) = 22 -> 32 channels, i.e. two CONVs of
  // 32 channels, after LOADs of 32 x 576 x 4 = 73,728 B at offsets 0 and 73,728.
  const compiler::Graph g = conv_chain(64);
  const HwConfig hw = streaming_hw(384 * 1024);
  compiler::CompileOptions o;
  o.tiling.weight_group_bytes = 64 * 1024;
  const compiler::CompileResult c = compiler::compile(g, hw, compiler::builtin_strategy("depth-first"), o);
  const compiler::StackSummary& st = streamed_stack(c);
  ASSERT_EQ(st.bands, 1) << compiler::format_explain(c.decisions);
  const std::vector<std::pair<std::uint64_t, std::uint64_t>> want{{0, 73728}, {73728, 73728}};
  for (const std::string& l : st.layers) {
    SCOPED_TRACE(l);
    const Groups gr = groups_of(c, l);
    EXPECT_EQ(gr.convs, 2);
    EXPECT_EQ(gr.loads, want);
  }
  // --explain says so, per layer.
  EXPECT_NE(compiler::format_explain(c.decisions)
                .find("weights loaded and computed in output-channel groups: conv0 (2 groups of 32 channels)"),
            std::string::npos)
      << compiler::format_explain(c.decisions);
  expect_reference(g, hw, c);
}

TEST(DepthFirstStreamedWeights, Int8WeightGroupsAreBitExact) {
  // The int8 one-band case above (C = 64, H = 8 at 112 KiB) with 16 KiB groups: a conv's
  // 36,864 B in ceil(36,864 / 16,384) = 3 groups of 22 -> 32 channels, i.e. two CONVs of 32
  // channels (bias and requantisation pairs from entry 32 for the second), after LOADs of
  // 32 x 576 = 18,432 B at offsets 0 and 18,432.
  test::Int8DepthFirst q = test::int8_depth_first(conv_chain(64), 112 * 1024, 0, kBankGroupsLowest);
  compiler::CompileOptions o;
  o.tiling.weight_group_bytes = 16 * 1024;
  q.c = compiler::compile(q.qg, q.hw, compiler::builtin_strategy("depth-first"), o);
  const compiler::CompileResult& c = q.c;
  ASSERT_EQ(c.stacks.size(), 1u) << compiler::format_explain(c.decisions);
  ASSERT_TRUE(c.stacks[0].weights_streamed) << compiler::format_explain(c.decisions);
  ASSERT_EQ(c.stacks[0].bands, 1);
  const std::vector<std::pair<std::uint64_t, std::uint64_t>> want{{0, 18432}, {18432, 18432}};
  for (const std::string& l : c.stacks[0].layers) {
    SCOPED_TRACE(l);
    const Groups gr = groups_of(c, l);
    EXPECT_EQ(gr.convs, 2);
    EXPECT_EQ(gr.loads, want);
  }
  EXPECT_EQ(q.status(), "bit-exact");
}

}  // namespace
