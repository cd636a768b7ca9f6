// fuse-attention (docs/compiler.md "fuse-attention"): softmax(Q K^T / sqrt(d) + mask) V runs as
// one FlashAttention-style layer. Its values equal the reference interpreter's on the unfused
// graph (streamed and resident K/V, partial blocks, causal, constant and absent masks, decode),
// its DDR bytes are the hand-derived ones, and the patterns it must not fuse are declined
// with their reason.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <random>

#include <fmt/format.h>
#include <cmath>
#include <limits>

#include "attention_test_util.hpp"
#include "functional_test_util.hpp"
#include "npu/compiler/quantize/calibration.hpp"
#include "npu/compiler/reference/reference_interpreter.hpp"
#include "npu/compiler/transforms/strategy.hpp"
#include "npu/hw/functional/ops.hpp"
#include "npu/hw/memory/backing_store.hpp"
#include "test_compile_graphs.hpp"
#include "random_cases.hpp"

namespace {

using namespace npu;
using compiler::testing::GraphBuilder;

using test::attention;
using test::Key;
using test::Mask;
using test::Sizes;

using test::attention_layers;
using test::compile_pinned;
using test::dma_bytes;

double error_of(const compiler::Graph& g, const std::string& strategy, std::uint64_t sram) {
  return test::attention_error(g, strategy, sram);
}

std::string declined_reason(const compiler::CompileResult& c) { return test::attention_reason(c); }

TEST(FuseAttention, ValuesEqualTheReferenceStreamedAndResidentWithPartialCausalBlocks) {
  // 200 = 128 + 72: a full and a partial block each way; the triangle tile serves block (0,0),
  // the partial crossing block (1,1) loads its own 72 x 72 tile, block (0,1) is skipped.
  const compiler::Graph g = attention({2, 200, 200, 64}, Mask::Causal);
  const HwConfig hw = test::fp32_hw(1u << 20);
  const compiler::CompileResult c = compiler::compile(g, hw, compiler::builtin_strategy("transformer"));
  ASSERT_EQ(attention_layers(c), 1u);
  EXPECT_EQ(c.lowered.layers.size(), 1u);  // the five nodes are one layer
  // 1 MiB holds every key block of a head; 192 KiB does not: K/V stream per query block.
  compiler::CompileOptions pinned;
  pinned.smaller_sram_plans = false;
  EXPECT_NE(c.report.layers.at(0).tile.find("K/V resident per head"), std::string::npos) << c.report.layers.at(0).tile;
  const compiler::CompileResult small =
      compiler::compile(g, test::fp32_hw(192u << 10), compiler::builtin_strategy("transformer"), pinned);
  EXPECT_NE(small.report.layers.at(0).tile.find("K/V streamed"), std::string::npos) << small.report.layers.at(0).tile;
  for (const char* s : {"none", "transformer", "depth-first"})
    for (const std::uint64_t sram : {std::uint64_t(1) << 20, std::uint64_t(192) << 10}) {
      SCOPED_TRACE(std::string(s) + " sram " + std::to_string(sram));
      EXPECT_LE(error_of(g, s, sram), 1e-5);
    }
}

TEST(FuseAttention, ConstantNonCausalMaskAndDecodeWithoutMaskFuseWithRightValues) {
  const compiler::Graph random_mask = attention({2, 40, 300, 8}, Mask::Random);
  const compiler::Graph decode = attention({3, 1, 300, 8}, Mask::None);
  for (const compiler::Graph* g : {&random_mask, &decode}) {
    const compiler::CompileResult c = compiler::compile(*g, test::fp32_hw(), compiler::builtin_strategy("transformer"));
    EXPECT_EQ(attention_layers(c), 1u);
    EXPECT_LE(error_of(*g, "transformer", 1u << 20), 1e-5);
  }
  // Decode (Sq = 1) streams the cache once: K^T and V are each read exactly once,
  // 3 heads x 8 x 300 x 4 B = 28800 B; Q 3 x 8 x 4 = 96 B; o written once, 96 B.
  const compiler::CompileResult c = compiler::compile(decode, test::fp32_hw(), compiler::builtin_strategy("transformer"));
  EXPECT_EQ(dma_bytes(c.program, isa::Opcode::Load, "kt"), 28800u);
  EXPECT_EQ(dma_bytes(c.program, isa::Opcode::Load, "v"), 28800u);
  EXPECT_EQ(dma_bytes(c.program, isa::Opcode::Load, "q"), 96u);
  EXPECT_EQ(dma_bytes(c.program, isa::Opcode::Store), 96u);
}

TEST(FuseAttention, DdrBytesAreTheHandDerivedOnes) {
  // H = 2, Sq = Sk = 256, d = 64, fp32, causal, 1 MiB SRAM: 128 x 128 blocks, K/V resident
  // per head (2 regions of 2 blocks x 128 x (64 + 64) x 4 B = 128 KiB each fit).
  //   Q, K^T, V read once: 3 x 2 x 256 x 64 x 4 B = 3 x 131072 B
  //   the causal triangle tile once (blocks (0,0) and (1,1) of both heads): 128 x 128 x 4 = 65536 B
  //   O written once: 131072 B. The scores (2 x 256 x 256 x 4 B = 524288 B) never reach DDR.
  const compiler::Graph g = attention({2, 256, 256, 64}, Mask::Causal);
  const compiler::CompileResult fused = compile_pinned(g, "transformer");
  EXPECT_EQ(dma_bytes(fused.program, isa::Opcode::Load), 3u * 131072u + 65536u);
  EXPECT_EQ(dma_bytes(fused.program, isa::Opcode::Load, "mask"), 65536u);
  EXPECT_EQ(dma_bytes(fused.program, isa::Opcode::Store), 131072u);
  // Unfused, each of the four passes over the scores writes them (4 x 524288 B) and the three
  // after the first and the P V MatMul read them (4 x 524288 B); the Add reads the whole mask
  // (256 x 256 x 4 = 262144 B) and the Div its scalar (4 B). Q, K^T, V and O move as fused.
  const compiler::CompileResult none = compile_pinned(g, "none");
  EXPECT_EQ(dma_bytes(none.program, isa::Opcode::Load), 3u * 131072u + 4u * 524288u + 262144u + 4u);
  EXPECT_EQ(dma_bytes(none.program, isa::Opcode::Store), 131072u + 4u * 524288u);
}

TEST(FuseAttention, DeclinesAComputedMaskAndASoftmaxOverAnotherAxisWithTheReason) {
  const compiler::CompileResult computed =
      compiler::compile(attention({1, 8, 8, 4}, Mask::Computed), test::fp32_hw(), compiler::builtin_strategy("transformer"));
  EXPECT_EQ(attention_layers(computed), 0u);
  EXPECT_NE(declined_reason(computed).find("mask_in is computed at run time"), std::string::npos)
      << declined_reason(computed);
  const compiler::CompileResult axis = compiler::compile(attention({1, 8, 8, 4}, Mask::Causal, 2), test::fp32_hw(),
                                                         compiler::builtin_strategy("transformer"));
  EXPECT_EQ(attention_layers(axis), 0u);
  EXPECT_NE(declined_reason(axis).find("Softmax along axis 2, not the last"), std::string::npos) << declined_reason(axis);
  // Declined, the graph still runs unfused with the right values.
  EXPECT_LE(error_of(attention({1, 8, 8, 4}, Mask::Computed), "transformer", 1u << 20), 1e-5);
}

TEST(FuseAttention, KReadThroughItsTransposeIsNeverWrittenTransposed) {
  // K^T = Transpose(k): the attention reads k's rows where they lie and transposes each key
  // block in SRAM (MOVE), so the Transpose is part of the layer and K^T never reaches DDR.
  // H = 2, Sk = 200, d = 16, fp32: k is 2 x 200 x 16 x 4 = 25600 B, read once (K/V resident).
  for (const Key key : {Key::Bhsd, Key::Bshd}) {
    const compiler::Graph g = attention({2, 200, 200, 16}, Mask::Causal, -1, key);
    const compiler::CompileResult c = compile_pinned(g, "transformer");
    ASSERT_EQ(attention_layers(c), 1u);
    EXPECT_EQ(c.lowered.layers.size(), 1u);
    const auto& covers = c.lowered.layers[0].covers;
    EXPECT_NE(std::find(covers.begin(), covers.end(), "k_transpose"), covers.end());
    EXPECT_EQ(dma_bytes(c.program, isa::Opcode::Load, "k"), 25600u);
    EXPECT_EQ(dma_bytes(c.program, isa::Opcode::Store), 2u * 200u * 16u * 4u);  // o only
    for (const char* s : {"none", "transformer"}) {
      EXPECT_LE(error_of(g, s, 1u << 20), 1e-5) << s;
    }
    EXPECT_LE(error_of(g, "transformer", 192u << 10), 1e-5);  // streamed K/V
  }
}

TEST(FuseAttention, AnImportedOnnxAttentionGoesToTheHostWithTheReason) {
  // ONNX's own Attention (opset 23) takes K untransposed and has no npu.attention mark: it is
  // not mistaken for a fused one, but runs on the host, saying why and what to do.
  GraphBuilder b("onnx_attention");
  b.add_tensor("o", {1, 2, 8, 4});
  b.node("attn", "Attention", {b.input("q", {1, 2, 8, 4}), b.input("k", {1, 2, 8, 4}), b.input("v", {1, 2, 8, 4})},
         {"o"});
  b.output(b.unary("relu", "Relu", "o"));  // an NPU layer after it, so the program is not empty
  const compiler::CompileResult c = compiler::compile(b.g, test::fp32_hw(), compiler::builtin_strategy("transformer"));
  ASSERT_EQ(c.lowered.host_nodes.size(), 1u);
  EXPECT_NE(c.lowered.host_nodes[0].reason.find("ONNX Attention (opset 23) has no NPU lowering"), std::string::npos)
      << c.lowered.host_nodes[0].reason;
}

TEST(FuseAttention, RandomAttentionsGiveTheUnfusedOutputs) {
  // Differential test (as RandomGraphsData for the CNN passes): seeded sizes (heads 1-3, Sq
  // 1-150, Sk Sq-300, d 4-32), masks (none, causal, random constant), K layouts, Div or Mul
  // scales and SRAM sizes (64 KiB to 1 MiB: small blocks, streamed and resident K/V). Every
  // one fuses, and transformer's output is within 1e-5 of none's.
  std::mt19937 rng(20261203);
  auto pick = [&rng](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  for (int seed = 0; seed < test::random_cases("NPU_RANDOM_ATTENTIONS", 60); ++seed) {
    const std::int64_t sq = pick(1, 150), sk = sq + pick(0, 150), d = std::int64_t(4) << pick(0, 3);
    const Sizes s{pick(1, 3), sq, sk, d};
    const Mask mask = std::array<Mask, 3>{Mask::None, Mask::Causal, Mask::Random}[std::size_t(pick(0, 2))];
    const Key key = std::array<Key, 3>{Key::Transposed, Key::Bhsd, Key::Bshd}[std::size_t(pick(0, 2))];
    const compiler::Graph g = attention(s, mask, -1, key, pick(0, 1) == 1);
    const std::uint64_t sram = std::array<std::uint64_t, 3>{64u << 10, 192u << 10, 1u << 20}[std::size_t(pick(0, 2))];
    const std::string where = fmt::format("case {}: heads {} Sq {} Sk {} d {} mask {} key {} sram {}", seed, s.heads,
                                          sq, sk, d, int(mask), int(key), sram);
    const HwConfig hw = test::fp32_hw(sram);
    const compiler::CompileResult c = compiler::compile(g, hw, compiler::builtin_strategy("transformer"));
    EXPECT_EQ(attention_layers(c), 1u) << where;
    std::string failure;
    EXPECT_LE(test::error_against_unfused(g, c, hw, unsigned(seed) + 1, failure), 1e-5) << failure << "\n" << where;
  }
}

TEST(FunctionalAct, SoftmaxOnlineOverTwoKeyBlocksEqualsTheSoftmaxOfTheRow) {
  // One row, keys [0, 0 | ln 4, 0] in two blocks, alpha 1. Block 1 (beta 1): m = 0, p = [1, 1],
  // l = 2, corr = e^-inf = 0. Block 2 (beta 0): m = ln 4, p = [1, 1/4], corr = e^(0 - ln 4) =
  // 1/4, l = 2 x 1/4 + 5/4 = 7/4. Weights [1/4, 1/4] (block 1 rescaled) and [1, 1/4] over
  // l = 7/4 give [1, 1, 4, 1] / 7: the softmax of the whole row.
  hw::BackingStore sram("SRAM", 4096, 256);
  isa::ActParams a;
  a.op = isa::ActOp::SoftmaxOnline;
  a.elems = 2;
  a.channels = 1;
  a.alpha = 1.0f;
  a.beta = 1.0f;
  a.out_addr = 64;
  a.param_addr = 128;
  sram.write_f32(0, {0.0f, 0.0f});
  hw::functional::act(a, sram);
  EXPECT_EQ(sram.read_f32(64, 2), (std::vector<float>{1.0f, 1.0f}));
  EXPECT_EQ(sram.read_f32(128, 3), (std::vector<float>{0.0f, 2.0f, 0.0f}));
  sram.write_f32(0, {std::log(4.0f), 0.0f});
  a.beta = 0.0f;
  hw::functional::act(a, sram);
  const std::vector<float> p = sram.read_f32(64, 2), st = sram.read_f32(128, 3);
  EXPECT_FLOAT_EQ(p[0], 1.0f);
  EXPECT_FLOAT_EQ(p[1], 0.25f);
  EXPECT_FLOAT_EQ(st[0], std::log(4.0f));
  EXPECT_FLOAT_EQ(st[1], 1.75f);
  EXPECT_FLOAT_EQ(st[2], 0.25f);
  // alpha scales the scores before the mask (res) is added: in 2, alpha 0.5, mask -inf on key 1:
  // x = [1, -inf]: p = [1, 0], l = 1.
  sram.write_f32(0, {2.0f, 2.0f});
  sram.write_f32(256, {0.0f, -std::numeric_limits<float>::infinity()});
  a.alpha = 0.5f;
  a.beta = 1.0f;
  a.has_residual = true;
  a.residual_addr = 256;
  hw::functional::act(a, sram);
  EXPECT_EQ(sram.read_f32(64, 2), (std::vector<float>{1.0f, 0.0f}));
  EXPECT_EQ(sram.read_f32(128, 3), (std::vector<float>{1.0f, 1.0f, 0.0f}));
}

}  // namespace
