// fuse-attention on grouped-query attention (docs/compiler.md "fuse-attention"): the head
// repeat (Unsqueeze, Expand, Reshape) on K and V is absorbed and each KV head is read for its
// group of query heads. Values equal the reference interpreter's on the unfused graph (g = 1,
// 2, 4, causal and not, decode, streamed and resident K/V), DDR bytes are the hand-derived
// ones, and repeats that are not proven head repeats are read expanded, saying why.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <random>

#include <fmt/format.h>

#include "attention_test_util.hpp"
#include "random_cases.hpp"

namespace {

using namespace npu;
using test::attention;
using test::attention_layers;
using test::compile_pinned;
using test::dma_bytes;
using test::Mask;
using test::Repeat;
using test::Sizes;

bool covers(const compiler::CompileResult& c, const std::string& node) {
  for (const auto& L : c.lowered.layers)
    if (std::find(L.covers.begin(), L.covers.end(), node) != L.covers.end()) return L.kind == compiler::LayerKind::Attention;
  return false;
}

const std::string& tile_of(const compiler::CompileResult& c) {
  for (const auto& L : c.report.layers)
    if (L.op == "Attention") return L.tile;
  static const std::string none;
  return none;
}

TEST(FuseAttentionGqa, ReadsEachKvHeadOnceForItsGroupToTheByte) {
  // H = 4 query heads, g = 2 (Hkv = 2), Sq = Sk = 256, d = 64, fp32, causal, 1 MiB SRAM:
  // 128 x 128 blocks, K/V resident per KV head and shared by its 2 query heads.
  //   Q read once: 4 x 256 x 64 x 4 B = 262144 B
  //   k, v read once per KV head: 2 x 256 x 64 x 4 B = 131072 B each (not the 262144 B of
  //   the repeated copies, which are never written)
  //   the causal triangle tile once: 128 x 128 x 4 = 65536 B; O written once: 262144 B.
  const compiler::Graph g = attention({4, 256, 256, 64, 2}, Mask::Causal);
  const compiler::CompileResult c = compile_pinned(g, "transformer");
  ASSERT_EQ(attention_layers(c), 1u);
  EXPECT_EQ(c.lowered.layers.size(), 1u);  // the repeats of k and v are part of the layer
  for (const char* n : {"k_unsqueeze", "k_expand", "k_rep", "v_unsqueeze", "v_expand", "v_rep"}) EXPECT_TRUE(covers(c, n)) << n;
  EXPECT_EQ(dma_bytes(c.program, isa::Opcode::Load, "q"), 262144u);
  EXPECT_EQ(dma_bytes(c.program, isa::Opcode::Load, "k"), 131072u);
  EXPECT_EQ(dma_bytes(c.program, isa::Opcode::Load, "v"), 131072u);
  EXPECT_EQ(dma_bytes(c.program, isa::Opcode::Load), 262144u + 2u * 131072u + 65536u);
  EXPECT_EQ(dma_bytes(c.program, isa::Opcode::Store), 262144u);
  EXPECT_NE(tile_of(c).find("resident per KV head"), std::string::npos) << tile_of(c);
  EXPECT_NE(test::attention_reason(c, false).find("GQA: 2 KV heads read for groups of 2 query heads"), std::string::npos)
      << test::attention_reason(c, false);
  EXPECT_LE(test::attention_error(g, "transformer", 1u << 20), 1e-5);
}

TEST(FuseAttentionGqa, DecodeStacksTheGroupsQueriesAndReadsTheCacheOnce) {
  // Decode: H = 8, g = 4 (Hkv = 2), Sq = 1, Sk = 300, d = 8, no mask. A group's 4 query rows
  // are one 4-row query block against its KV head, so the cache streams once:
  // k, v 2 x 300 x 8 x 4 B = 19200 B each; Q 8 x 8 x 4 = 256 B; O written once, 256 B.
  const compiler::Graph g = attention({8, 1, 300, 8, 4}, Mask::None);
  const compiler::CompileResult c = compile_pinned(g, "transformer");
  ASSERT_EQ(attention_layers(c), 1u);
  EXPECT_EQ(dma_bytes(c.program, isa::Opcode::Load, "k"), 19200u);
  EXPECT_EQ(dma_bytes(c.program, isa::Opcode::Load, "v"), 19200u);
  EXPECT_EQ(dma_bytes(c.program, isa::Opcode::Load, "q"), 256u);
  EXPECT_EQ(dma_bytes(c.program, isa::Opcode::Store), 256u);
  EXPECT_NE(tile_of(c).find("4 query heads stacked as rows"), std::string::npos) << tile_of(c);
  // A causal decode step (Sq = 1 sees every key) stacks too; both give the reference's values.
  const compiler::Graph causal = attention({8, 1, 300, 8, 4}, Mask::Causal);
  EXPECT_EQ(dma_bytes(compile_pinned(causal, "transformer").program, isa::Opcode::Load, "k"), 19200u);
  for (const compiler::Graph* x : {&g, &causal})
    for (const char* s : {"none", "transformer"}) EXPECT_LE(test::attention_error(*x, s, 1u << 20), 1e-5) << s;
}

TEST(FuseAttentionGqa, StreamedKvBlocksServeTheGroupsQueryHeadsInTurn) {
  // H = 4, g = 2 (Hkv = 2), Sq = Sk = 512, d = 64, fp32, causal, 768 KiB SRAM: a KV head's
  // 4 blocks (2 x 4 x 128 x 128 x 4 B = 512 KiB for two regions) do not fit beside the rest,
  // so K/V stream in 128-key blocks, each used by the KV head's 2 query heads in turn.
  //   query block qb (0..3) reads key blocks 0..qb (the rest are past the diagonal): 1 + 2 + 3
  //   + 4 = 10 blocks per KV head of 128 x 64 x 4 B = 32768 B each for k and for v:
  //   2 KV heads x 10 x 32768 = 655360 B each (per query head it would be twice that)
  //   Q 4 x 512 x 64 x 4 = 524288 B, the causal triangle tile once 128 x 128 x 4 = 65536 B,
  //   O written once 524288 B.
  const compiler::Graph g = attention({4, 512, 512, 64, 2}, Mask::Causal);
  const compiler::CompileResult c = compile_pinned(g, "transformer", 768u << 10);
  ASSERT_EQ(attention_layers(c), 1u);
  EXPECT_NE(tile_of(c).find("128q x 128k blocks"), std::string::npos) << tile_of(c);
  EXPECT_NE(tile_of(c).find("streamed, each block used by its KV head's 2 query heads in turn"), std::string::npos)
      << tile_of(c);
  EXPECT_EQ(dma_bytes(c.program, isa::Opcode::Load, "k"), 655360u);
  EXPECT_EQ(dma_bytes(c.program, isa::Opcode::Load, "v"), 655360u);
  EXPECT_EQ(dma_bytes(c.program, isa::Opcode::Load), 524288u + 2u * 655360u + 65536u);
  EXPECT_EQ(dma_bytes(c.program, isa::Opcode::Store), 524288u);
  EXPECT_LE(test::attention_error(g, "transformer", 768u << 10), 1e-5);
  // A smaller case with partial blocks (200 = 128 + 72) streamed in 192 KiB keeps the values.
  EXPECT_LE(test::attention_error(attention({4, 200, 200, 64, 2}, Mask::Causal), "transformer", 192u << 10), 1e-5);
}

TEST(FuseAttentionGqa, RepeatsProvenByValueAreAbsorbedOthersAreReadExpandedWithTheReason) {
  // An Expand shape that broadcasts ([1, 1, g, 1, 1]) and a Reshape target with 0 and -1 are
  // the same head repeat: absorbed.
  for (const Repeat r : {Repeat::BroadcastShape, Repeat::InferredTarget}) {
    const compiler::Graph g = attention({4, 40, 60, 8, 2, r}, Mask::Causal);
    const compiler::CompileResult c = compile_pinned(g, "transformer");
    EXPECT_TRUE(covers(c, "k_expand") && covers(c, "v_expand")) << int(r);
    EXPECT_LE(test::attention_error(g, "transformer", 1u << 20), 1e-5) << int(r);
  }
  // Unsqueeze at axis 1 then Expand [1, g, Hkv, ...] tiles the heads (head h reads KV head
  // h % Hkv, not h / g): the attention fuses but reads the expanded copies, and says why.
  const compiler::Graph tile = attention({4, 40, 60, 8, 2, Repeat::Tile}, Mask::Causal);
  const compiler::CompileResult t = compile_pinned(tile, "transformer");
  EXPECT_EQ(attention_layers(t), 1u);
  EXPECT_FALSE(covers(t, "k_expand"));
  EXPECT_NE(test::attention_reason(t, false).find("k_unsqueeze does not insert a unit axis at 2"), std::string::npos)
      << test::attention_reason(t, false);
  EXPECT_LE(test::attention_error(tile, "transformer", 1u << 20), 1e-5);
  // The repeated v is also a graph output: the copy must be written, so it is kept and read.
  const compiler::Graph out = attention({4, 40, 60, 8, 2, Repeat::ExpandAlsoOutput}, Mask::None);
  const compiler::CompileResult o = compile_pinned(out, "transformer");
  EXPECT_FALSE(covers(o, "v_expand"));
  EXPECT_NE(test::attention_reason(o, false).find("V: v_rep has other readers"), std::string::npos)
      << test::attention_reason(o, false);
  EXPECT_LE(test::attention_error(out, "transformer", 1u << 20), 1e-5);
}

TEST(FuseAttentionGqa, RandomGroupedAttentionsGiveTheUnfusedOutputs) {
  // Differential test: seeded groups g in {1, 2, 4} of 1-2 KV heads, Sq 1-100 (1: decode),
  // Sk Sq-250, d 4-32, causal or no mask, SRAM 64 KiB to 1 MiB (streamed and resident K/V).
  // Every one fuses with its repeats absorbed, and transformer's output is within 1e-5 of none's.
  std::mt19937 rng(20261204);
  auto pick = [&rng](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  for (int seed = 0; seed < test::random_cases("NPU_RANDOM_ATTENTIONS", 36); ++seed) {
    const std::int64_t group = std::int64_t(1) << pick(0, 2), sq = pick(0, 2) == 0 ? 1 : pick(1, 100);
    const Sizes s{group * pick(1, 2), sq, sq + pick(0, 150), std::int64_t(4) << pick(0, 3), group};
    const Mask mask = pick(0, 1) == 1 ? Mask::Causal : Mask::None;
    const std::uint64_t sram = std::array<std::uint64_t, 3>{64u << 10, 192u << 10, 1u << 20}[std::size_t(pick(0, 2))];
    const std::string where = fmt::format("case {}: heads {} g {} Sq {} Sk {} d {} mask {} sram {}", seed, s.heads,
                                          group, s.sq, s.sk, s.d, int(mask), sram);
    const compiler::Graph g = attention(s, mask);
    const HwConfig hw = test::fp32_hw(sram);
    const compiler::CompileResult c = compiler::compile(g, hw, compiler::builtin_strategy("transformer"));
    EXPECT_TRUE(covers(c, "k_expand") && covers(c, "v_expand")) << where;
    std::string failure;
    EXPECT_LE(test::error_against_unfused(g, c, hw, unsigned(seed) + 1, failure), 1e-5) << failure << "\n" << where;
  }
}

}  // namespace
