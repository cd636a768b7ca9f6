// fuse-attention's "views, not copies" (docs/compiler.md "fuse-attention"): torch exports split
// heads as Reshape [B, S, H, d] -> Transpose(0,2,1,3) for Q, K and V and merge them after P V
// with Transpose(0,2,1,3). The fused attention reads Q's and V's rows and writes O's rows where
// they lie in the [B, S, H, d] tensors (strided DMA), so those Transposes are absorbed. Values
// equal the reference interpreter's on the unfused graph (random sizes, partial blocks,
// causal, decode, GQA, streamed and resident K/V), the bytes are the hand-derived ones, and
// Transposes that must stay layers do, saying why.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <random>

#include <fmt/format.h>

#include "attention_test_util.hpp"
#include "random_cases.hpp"

namespace {

using namespace npu;
using compiler::testing::GraphBuilder;
using test::attention_layers;
using test::compile_pinned;
using test::dma_bytes;
using test::Sizes;

struct Views {
  bool q = true, v = true, o = true;
  bool causal = true;
  bool v_also_output = false;  // the transposed V is a graph output too (a KV cache)
};

// x [1, S, H, d] -> Transpose(0,2,1,3) -> [1, H, S, d], named `name`.
std::string split(GraphBuilder& b, const std::string& x, const std::string& name, std::int64_t s, std::int64_t h,
                  std::int64_t d) {
  b.add_tensor(name, {1, h, s, d});
  b.node(name + "_split", "Transpose", {x}, {name}).attrs["perm"] = std::vector<std::int64_t>{0, 2, 1, 3};
  return name;
}

// GPT-2's attention as torch exports it: xq [1, Sq, H, d], xk [1, Sk, H, d] and xv [1, Sk, Hkv, d]
// split into heads (K^T = Transpose(xk, 0,2,3,1); under GQA (s.group > 0) K = Transpose(xk,
// 0,2,1,3) -> head repeat -> Transpose(0,1,3,2), V split then repeated, as zoo llama's
// split_heads then repeat_kv), Div sqrt(d), causal mask, Softmax, P V, merged by
// Transpose(0,2,1,3) into the output "o" [1, Sq, H, d]. `w` says which of Q, V, O are split or
// merged by a Transpose (else Q [1, H, Sq, d] / V [1, Hkv, Sk, d] inputs, O the output as it is).
compiler::Graph split_attention(const Sizes& s, const Views& w) {
  GraphBuilder b("split_attention");
  const std::int64_t hkv = s.group > 0 ? s.heads / s.group : s.heads;
  const std::string q = w.q ? split(b, b.input("xq", {1, s.sq, s.heads, s.d}), "q", s.sq, s.heads, s.d)
                            : b.input("q", {1, s.heads, s.sq, s.d});
  const std::string xk = b.input("xk", {1, s.sk, hkv, s.d});
  std::string k = xk;
  std::vector<std::int64_t> key_perm{0, 2, 3, 1};
  if (s.group > 0) {
    k = test::repeat_heads(b, split(b, xk, "k", s.sk, hkv, s.d), s);
    key_perm = {0, 1, 3, 2};
  }
  b.add_tensor("kt", {1, s.heads, s.d, s.sk});
  b.node("k_transpose", "Transpose", {k}, {"kt"}).attrs["perm"] = key_perm;
  std::string v = w.v ? split(b, b.input("xv", {1, s.sk, hkv, s.d}), "v", s.sk, hkv, s.d)
                      : b.input("v", {1, hkv, s.sk, s.d});
  if (w.v_also_output) b.output(v);
  if (s.group > 0) v = test::repeat_heads(b, v, s);
  b.add_tensor("scores", {1, s.heads, s.sq, s.sk});
  b.node("qk", "MatMul", {q, "kt"}, {"scores"});
  std::string x = b.binary("scale", "Div", "scores", b.scalar("sqrt_d", std::sqrt(float(s.d))));
  if (w.causal) {
    b.constant("mask", {1, 1, s.sq, s.sk}, 0.0f, 0.0f);
    auto& m = b.g.tensors.at("mask").float_data;
    for (std::int64_t i = 0; i < s.sq; ++i)
      for (std::int64_t j = 0; j < s.sk; ++j)
        m[std::size_t(i * s.sk + j)] = j <= i + (s.sk - s.sq) ? 0.0f : -std::numeric_limits<float>::infinity();
    x = b.binary("add_mask", "Add", x, "mask");
  }
  const std::string p = b.unary("softmax", "Softmax", x);
  b.g.nodes.back().attrs["axis"] = std::int64_t(-1);
  const std::string o = w.o ? "o_heads" : "o";
  b.add_tensor(o, {1, s.heads, s.sq, s.d});
  b.node("pv", "MatMul", {p, v}, {o});
  if (w.o) {
    b.add_tensor("o", {1, s.sq, s.heads, s.d});
    b.node("o_merge", "Transpose", {o}, {"o"}).attrs["perm"] = std::vector<std::int64_t>{0, 2, 1, 3};
  }
  b.output("o");
  return b.g;
}

bool attention_covers(const compiler::CompileResult& c, const std::string& node) {
  for (const auto& L : c.lowered.layers)
    if (std::find(L.covers.begin(), L.covers.end(), node) != L.covers.end()) return L.kind == compiler::LayerKind::Attention;
  return false;
}

TEST(FuseAttentionViews, HeadTransposesAreAbsorbedAndTheirBytesGoneToTheByte) {
  // H = 2, Sq = Sk = 256, d = 64, fp32, causal, 1 MiB SRAM: as FuseAttention.DdrBytesAreThe-
  // HandDerivedOnes, 128 x 128 blocks, K/V resident per head. Fused, Q, K, V are read once
  // (3 x 2 x 256 x 64 x 4 B = 3 x 131072 B, now as 256 B rows 512 B apart in xq, xk, xv), the
  // causal triangle tile once (128 x 128 x 4 = 65536 B) and O written once (131072 B, into
  // "o" [1, 256, 2, 64]): the attention's bytes are unchanged and it is the only layer.
  const compiler::Graph g = split_attention({2, 256, 256, 64}, {});
  const compiler::CompileResult fused = compile_pinned(g, "transformer");
  ASSERT_EQ(attention_layers(fused), 1u);
  EXPECT_EQ(fused.lowered.layers.size(), 1u);
  for (const char* t : {"q_split", "v_split", "o_merge", "k_transpose"}) EXPECT_TRUE(attention_covers(fused, t)) << t;
  EXPECT_EQ(dma_bytes(fused.program, isa::Opcode::Load), 3u * 131072u + 65536u);
  for (const char* t : {"xq", "xk", "xv"}) EXPECT_EQ(dma_bytes(fused.program, isa::Opcode::Load, t), 131072u) << t;
  EXPECT_EQ(dma_bytes(fused.program, isa::Opcode::Store), 131072u);
  EXPECT_EQ(dma_bytes(fused.program, isa::Opcode::Store, "o"), 131072u);
  // Without the views the Q, V and O Transposes are layout layers, each reading and writing
  // its 131072 B tensor: 3 x 131072 B more read and 3 x 131072 B more written.
  compiler::CompileOptions o;
  o.smaller_sram_plans = false;
  const compiler::CompileResult plain = compiler::compile(g, test::fp32_hw(1u << 20), compiler::builtin_strategy("none"), o);
  std::uint64_t layout_read = 0, layout_write = 0;
  for (const auto& L : plain.report.layers)
    if (L.op == "Transpose" && L.layer != "k_transpose") layout_read += L.planned_read_bytes, layout_write += L.planned_write_bytes;
  EXPECT_EQ(layout_read, 3u * 131072u);
  EXPECT_EQ(layout_write, 3u * 131072u);
}

TEST(FuseAttentionViews, ExplainNamesTheViewsAndWhyATransposeStays) {
  const compiler::CompileResult c = compile_pinned(split_attention({2, 16, 16, 8}, {}), "transformer");
  const std::string note = test::attention_reason(c, false);
  EXPECT_NE(note.find("views of the head Transposes: Q (q_split), V (v_split), O (o_merge)"), std::string::npos) << note;
  // The transposed V is also a graph output (a KV cache): the Transpose must write it, and
  // the attention reads V as written.
  Views cache;
  cache.v_also_output = true;
  const compiler::CompileResult kept = compile_pinned(split_attention({2, 16, 16, 8}, cache), "transformer");
  const std::string why = test::attention_reason(kept, false);
  EXPECT_NE(why.find("head Transpose kept: v_split: v is a graph output"), std::string::npos) << why;
  EXPECT_FALSE(attention_covers(kept, "v_split"));
  EXPECT_TRUE(attention_covers(kept, "q_split"));
  EXPECT_LE(test::attention_error(split_attention({2, 16, 16, 8}, cache), "transformer", 1u << 20), 1e-5);
}

TEST(FuseAttentionViews, DecodeAndGqaReadThroughTheViewsWithRightValues) {
  // Decode (Sq = 1): the query heads of a KV group stack as rows (no mask row depends on the
  // query), their rows contiguous in xq [1, 1, H, d]; GQA g = 2 and 4, causal prefill and decode.
  for (const Sizes& s : {Sizes{4, 1, 300, 16}, Sizes{4, 1, 300, 16, 2}, Sizes{8, 1, 77, 8, 4}, Sizes{4, 150, 150, 16, 2},
                         Sizes{4, 100, 180, 8, 4}})
    for (const std::uint64_t sram : {std::uint64_t(64) << 10, std::uint64_t(1) << 20}) {
      SCOPED_TRACE(fmt::format("H {} Sq {} Sk {} d {} g {} sram {}", s.heads, s.sq, s.sk, s.d, s.group, sram));
      const compiler::Graph g = split_attention(s, {});
      const compiler::CompileResult c = compile_pinned(g, "transformer", sram);
      ASSERT_EQ(attention_layers(c), 1u);
      for (const char* t : {"q_split", "v_split", "o_merge"}) EXPECT_TRUE(attention_covers(c, t)) << t;
      EXPECT_LE(test::attention_error(g, "transformer", sram), 1e-5);
    }
}

TEST(FuseAttentionViews, RandomSplitAttentionsGiveTheUnfusedOutputs) {
  // Seeded sizes (heads 1-4, Sq 1-150, Sk Sq-300, d 4-32, GQA g 1 or 2 when heads allow),
  // causal or not, any subset of the Q, V, O views, SRAM 64 KiB to 1 MiB: every one fuses and
  // transformer's output is within 1e-5 of none's.
  std::mt19937 rng(20261204);
  auto pick = [&rng](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  for (int seed = 0; seed < test::random_cases("NPU_RANDOM_ATTENTIONS", 40); ++seed) {
    const std::int64_t heads = pick(1, 4), sq = pick(1, 150), sk = sq + pick(0, 150), d = std::int64_t(4) << pick(0, 3);
    Sizes s{heads, sq, sk, d};
    if (heads % 2 == 0 && pick(0, 1) == 1) s.group = 2;
    Views w;
    w.q = pick(0, 1) == 1, w.v = pick(0, 1) == 1, w.o = pick(0, 1) == 1, w.causal = pick(0, 1) == 1;
    const std::uint64_t sram = std::array<std::uint64_t, 3>{64u << 10, 192u << 10, 1u << 20}[std::size_t(pick(0, 2))];
    const std::string where = fmt::format("case {}: heads {} Sq {} Sk {} d {} g {} views q{} v{} o{} causal {} sram {}",
                                          seed, heads, sq, sk, d, s.group, w.q, w.v, w.o, w.causal, sram);
    const compiler::Graph g = split_attention(s, w);
    const HwConfig hw = test::fp32_hw(sram);
    const compiler::CompileResult c = compiler::compile(g, hw, compiler::builtin_strategy("transformer"));
    EXPECT_EQ(attention_layers(c), 1u) << where;
    std::string failure;
    EXPECT_LE(test::error_against_unfused(g, c, hw, unsigned(seed) + 1, failure), 1e-5) << failure << "\n" << where;
  }
}

}  // namespace
