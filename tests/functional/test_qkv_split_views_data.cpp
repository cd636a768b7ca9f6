// The QKV split as views (docs/compiler.md "fuse-attention", lowering_table.hpp composed_views):
// GPT-2 exports its attention as one projection qkv [1, S, 3 H d] -> Split(axis -1) ->
// Reshape [1, S, H, d] per part -> Transpose (Q's head split, K^T, and the present K and V
// that are graph outputs: the KV cache). The Split is computed by no layer: the fused attention
// reads Q's and K's rows in qkv with qkv's row stride (3 H d), and the present K and V
// Transposes read their parts of qkv by MOVE. Bytes are the hand-derived ones, values equal
// the reference interpreter's, and a Split whose part has another reader stays a layer.
#include <gtest/gtest.h>

#include <algorithm>
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

struct Qkv {
  std::int64_t heads, s, d, k;  // heads, tokens, head size, model width (x [1, s, k])
  bool causal = true;
  bool q_also_output = false;  // Q's flat part is a graph output too: the Split must write it
};

// x [1, S, K] x W [K, 3 H d] -> qkv -> Split -> Reshape [1, S, H, d] x 3 -> attention as GPT-2
// exports it: Q = Transpose(q, 0,2,1,3), K^T = Transpose(k, 0,2,3,1), present K and V =
// Transpose(k / v, 0,2,1,3) graph outputs, V read from the present V; P V merged into
// o [1, S, H, d] by Transpose(0,2,1,3).
compiler::Graph gpt2_attention(const Qkv& c) {
  GraphBuilder b("qkv_split");
  const std::int64_t w = c.heads * c.d;
  const std::string x = b.input("x", {1, c.s, c.k});
  b.add_tensor("qkv", {1, c.s, 3 * w});
  b.node("c_attn", "MatMul", {x, b.constant("w_attn", {c.k, 3 * w}, -0.5f, 0.5f)}, {"qkv"});
  const char* part[3] = {"q", "k", "v"};
  for (const char* p : part) b.add_tensor(std::string(p) + "_flat", {1, c.s, w});
  b.node("split", "Split", {"qkv", b.ints("split_sizes", {w, w, w})}, {"q_flat", "k_flat", "v_flat"}).attrs["axis"] =
      std::int64_t(-1);
  if (c.q_also_output) b.output("q_flat");
  for (const char* p : part) {
    const std::string name = std::string(p) + "_heads";
    b.add_tensor(name, {1, c.s, c.heads, c.d});
    b.node(std::string(p) + "_reshape", "Reshape", {std::string(p) + "_flat", b.ints(name + ".shape", {1, c.s, c.heads, c.d})},
           {name});
  }
  auto transpose = [&](const std::string& name, const std::string& in, std::vector<std::int64_t> perm,
                       std::vector<std::int64_t> shape) {
    b.add_tensor(name, std::move(shape));
    b.node(name + "_t", "Transpose", {in}, {name}).attrs["perm"] = std::move(perm);
    return name;
  };
  const std::string q = transpose("q", "q_heads", {0, 2, 1, 3}, {1, c.heads, c.s, c.d});
  const std::string kt = transpose("kt", "k_heads", {0, 2, 3, 1}, {1, c.heads, c.d, c.s});
  b.output(transpose("present_k", "k_heads", {0, 2, 1, 3}, {1, c.heads, c.s, c.d}));
  const std::string v = transpose("present_v", "v_heads", {0, 2, 1, 3}, {1, c.heads, c.s, c.d});
  b.output(v);
  b.add_tensor("scores", {1, c.heads, c.s, c.s});
  b.node("qk", "MatMul", {q, kt}, {"scores"});
  std::string s = b.binary("scale", "Div", "scores", b.scalar("sqrt_d", std::sqrt(float(c.d))));
  if (c.causal) {
    b.constant("mask", {1, 1, c.s, c.s}, 0.0f, 0.0f);
    auto& m = b.g.tensors.at("mask").float_data;
    for (std::int64_t i = 0; i < c.s; ++i)
      for (std::int64_t j = i + 1; j < c.s; ++j) m[std::size_t(i * c.s + j)] = -std::numeric_limits<float>::infinity();
    s = b.binary("add_mask", "Add", s, "mask");
  }
  const std::string p = b.unary("softmax", "Softmax", s);
  b.g.nodes.back().attrs["axis"] = std::int64_t(-1);
  b.add_tensor("o_heads", {1, c.heads, c.s, c.d});
  b.node("pv", "MatMul", {p, v}, {"o_heads"});
  transpose("o", "o_heads", {0, 2, 1, 3}, {1, c.s, c.heads, c.d});
  b.output("o");
  return b.g;
}

bool has_layer_covering(const compiler::CompileResult& c, const std::string& node, compiler::LayerKind kind) {
  for (const auto& L : c.lowered.layers)
    if (L.kind == kind && std::find(L.covers.begin(), L.covers.end(), node) != L.covers.end()) return true;
  return false;
}

bool has_split_layer(const compiler::CompileResult& c) {
  return std::any_of(c.lowered.layers.begin(), c.lowered.layers.end(), [](const auto& L) { return L.op_type == "Split"; });
}

TEST(QkvSplitViews, TheSplitIsNoLayerAndItsBytesAreGoneToTheByte) {
  // H = 2, S = 256, d = 64, K = 64, fp32, causal, 1 MiB SRAM. Each part of qkv is
  // 256 x 128 x 4 = 131072 B. With the views, qkv is read four times a part's worth: Q and K
  // by the attention (as 256 B rows 1536 B apart: qkv's row is 3 x 128 x 4 B), K and V by the
  // present K and V Transposes; nothing reads or writes q_flat, k_flat, v_flat.
  const compiler::Graph g = gpt2_attention({2, 256, 64, 64});
  const compiler::CompileResult fused = compile_pinned(g, "transformer");
  ASSERT_EQ(attention_layers(fused), 1u);
  EXPECT_FALSE(has_split_layer(fused));
  EXPECT_EQ(dma_bytes(fused.program, isa::Opcode::Load, "qkv"), 4u * 131072u);
  for (const char* t : {"q_flat", "k_flat", "v_flat", "q_heads", "k_heads", "v_heads"})
    EXPECT_EQ(dma_bytes(fused.program, isa::Opcode::Load, t) + dma_bytes(fused.program, isa::Opcode::Store, t), 0u) << t;
  EXPECT_TRUE(has_layer_covering(fused, "split", compiler::LayerKind::Attention));
  for (const auto& L : fused.lowered.layers)  // Q and K both read through the Split: covered once
    EXPECT_LE(std::count(L.covers.begin(), L.covers.end(), "split"), 1) << L.name;
  EXPECT_TRUE(has_layer_covering(fused, "q_reshape", compiler::LayerKind::Attention));
  // --explain names the composed Split and the layers that read qkv through it.
  const std::string composed = test::pass_decisions(fused, "compose-views", compiler::DecisionOutcome::Applied);
  const auto line = composed.find("split: a strided view computed by no layer: ");
  ASSERT_NE(line, std::string::npos) << composed;
  const std::string split_line = composed.substr(line, composed.find('\n', line) - line);
  for (const char* reader : {"present_k_t", "present_v_t", "softmax"})
    EXPECT_NE(split_line.find(reader), std::string::npos) << split_line;
  // The attention's compulsory reads stay Q, K and V once (3 x 131072 B), not all of qkv per
  // part it reads: the causal mask is skipped, not read (compile_report.cpp).
  for (const auto& r : fused.report.layers) {
    if (r.kind == "attention") {
      EXPECT_EQ(r.compulsory_read_bytes, 3u * 131072u);
    }
  }
  // Q's rows in qkv: 64 elements (256 B) each, 1536 B apart.
  bool strided_q = false;
  for (const isa::Instruction& in : fused.program.instructions)
    if (in.op == isa::Opcode::Load && in.tensor == "qkv" && in.layer == "softmax") {
      const auto& dma = std::get<isa::DmaDesc>(in.params);
      strided_q = strided_q || (dma.extent[1] > 1 && dma.ddr_stride_bytes[0] == 1536u && dma.extent[0] == 64u);
    }
  EXPECT_TRUE(strided_q);
  // Before the views (a Split of a Reshape's input was a layer), the Split read qkv and wrote
  // its three parts: 3 x 131072 B more read and 3 x 131072 B more written. The stored
  // bytes now are the present K and V and o: 3 x 131072 B besides qkv's 393216.
  EXPECT_EQ(dma_bytes(fused.program, isa::Opcode::Store), 393216u + 3u * 131072u);
}

TEST(QkvSplitViews, ValuesEqualTheReferenceUnderEveryStrategy) {
  for (const Qkv& c : {Qkv{2, 256, 64, 64}, Qkv{3, 77, 16, 40, false}, Qkv{4, 1, 8, 32}})
    for (const char* strategy : {"none", "transformer", "depth-first"})
      for (const std::uint64_t sram : {std::uint64_t(64) << 10, std::uint64_t(1) << 20}) {
        SCOPED_TRACE(fmt::format("H {} S {} d {} K {} {} sram {}", c.heads, c.s, c.d, c.k, strategy, sram));
        const compiler::Graph g = gpt2_attention(c);
        EXPECT_FALSE(has_split_layer(compile_pinned(g, strategy, sram)));
        EXPECT_LE(test::attention_error(g, strategy, sram), 1e-5);
      }
}

TEST(QkvSplitViews, APartWithAnotherReaderKeepsTheSplitAndItsValues) {
  // q_flat is a graph output too: the Split must write it, so it stays a layer (all three
  // parts: one layer per output), and the attention reads Q as written.
  Qkv c{2, 64, 16, 32};
  c.q_also_output = true;
  const compiler::Graph g = gpt2_attention(c);
  const compiler::CompileResult r = compile_pinned(g, "transformer");
  EXPECT_TRUE(has_split_layer(r));
  EXPECT_GT(dma_bytes(r.program, isa::Opcode::Store, "q_flat"), 0u);
  EXPECT_LE(test::attention_error(g, "transformer", 1u << 20), 1e-5);
}

TEST(QkvSplitViews, RandomSizesGiveTheUnfusedOutputs) {
  // Seeded sizes (heads 1-4, S 1-150, d 4-32, K 8-64), causal or not, SRAM 64 KiB to 1 MiB:
  // transformer's output is within 1e-5 of none's.
  std::mt19937 rng(20261205);
  auto pick = [&rng](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  for (int seed = 0; seed < test::random_cases("NPU_RANDOM_ATTENTIONS", 12); ++seed) {
    Qkv c{pick(1, 4), pick(1, 150), std::int64_t(4) << pick(0, 3), std::int64_t(8) << pick(0, 3), pick(0, 1) == 1};
    const std::uint64_t sram = pick(0, 1) == 1 ? std::uint64_t(64) << 10 : std::uint64_t(1) << 20;
    const std::string where =
        fmt::format("case {}: H {} S {} d {} K {} causal {} sram {}", seed, c.heads, c.s, c.d, c.k, c.causal, sram);
    const compiler::Graph g = gpt2_attention(c);
    const HwConfig hw = test::fp32_hw(sram);
    const compiler::CompileResult r = compiler::compile(g, hw, compiler::builtin_strategy("transformer"));
    EXPECT_FALSE(has_split_layer(r)) << where;
    std::string failure;
    EXPECT_LE(test::error_against_unfused(g, r, hw, unsigned(seed) + 1, failure), 1e-5) << failure << "\n" << where;
  }
}

}  // namespace
