// Helpers shared by the fused-attention tests (test_attention_data.cpp, test_attention_gqa_data.cpp):
// build attention graphs as torch exports write them (GQA's head repeat included), compile and
// run them with data against the reference interpreter, count the program's DMA bytes per
// tensor, find fuse-attention's decisions.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include "functional_test_util.hpp"
#include "pass_test_util.hpp"
#include "npu/compiler/quantize/calibration.hpp"
#include "npu/compiler/reference/reference_interpreter.hpp"
#include "npu/compiler/transforms/strategy.hpp"
#include "test_compile_graphs.hpp"

namespace npu::test {

enum class Mask { None, Causal, Random, Computed };

// How K^T reaches the MatMul: a graph input, Transpose(k [1,H,Sk,d], perm 0,1,3,2) (Llama), or
// Transpose(k [1,Sk,H,d], perm 0,2,3,1) (GPT-2's heads split from the projection's rows).
enum class Key { Transposed, Bhsd, Bshd };

// How grouped-query attention (Sizes::group > 0) repeats k and v [1, H/g, Sk, d] to H heads:
//   Head            HF Llama's repeat_kv as torch exports it: Unsqueeze(axes [2]) -> Expand
//                   [1, Hkv, g, Sk, d] -> Reshape [1, H, Sk, d] (query head h reads KV head h / g)
//   BroadcastShape  the same with Expand's shape [1, 1, g, 1, 1] (broadcasts to the same)
//   InferredTarget  the same with the Reshape's target [0, -1, Sk, d]
//   Tile            Unsqueeze(axes [1]) -> Expand [1, g, Hkv, Sk, d] -> Reshape: head h reads
//                   KV head h % Hkv, no head repeat (must not be read as one)
//   ExpandAlsoOutput Head, and the repeated v is a graph output too (the copy must be written)
enum class Repeat { Head, BroadcastShape, InferredTarget, Tile, ExpandAlsoOutput };

struct Sizes {
  std::int64_t heads, sq, sk, d;
  std::int64_t group = 0;  // 0: k, v have Q's heads; g > 0: H / g KV heads repeated g times
  Repeat repeat = Repeat::Head;
};

// x [1, Hkv, Sk, d] repeated to [1, Hkv g, Sk, d] as `how` says; returns the repeated tensor.
inline std::string repeat_heads(compiler::testing::GraphBuilder& b, const std::string& x, const Sizes& s) {
  const std::int64_t g = s.group, hkv = s.heads / g;
  const bool tile = s.repeat == Repeat::Tile;
  const std::string u = x + "_unsqueeze", e = x + "_expand", r = x + "_rep";
  b.add_tensor(u, tile ? std::vector<std::int64_t>{1, 1, hkv, s.sk, s.d} : std::vector<std::int64_t>{1, hkv, 1, s.sk, s.d});
  b.node(u, "Unsqueeze", {x, b.ints(u + ".axes", {tile ? 1 : 2})}, {u});
  const std::vector<std::int64_t> e_shape =
      tile ? std::vector<std::int64_t>{1, g, hkv, s.sk, s.d} : std::vector<std::int64_t>{1, hkv, g, s.sk, s.d};
  b.add_tensor(e, e_shape);
  b.node(e, "Expand",
         {u, b.ints(e + ".shape", s.repeat == Repeat::BroadcastShape ? std::vector<std::int64_t>{1, 1, g, 1, 1} : e_shape)},
         {e});
  b.add_tensor(r, {1, s.heads, s.sk, s.d});
  b.node(r, "Reshape",
         {e, b.ints(r + ".shape", s.repeat == Repeat::InferredTarget ? std::vector<std::int64_t>{0, -1, s.sk, s.d}
                                                                     : std::vector<std::int64_t>{1, s.heads, s.sk, s.d})},
         {r});
  return r;
}

// q [1,H,Sq,d] x kt [1,H,d,Sk] -> Div sqrt(d) -> Add mask [1,1,Sq,Sk] -> Softmax(axis) -> x v [1,H,Sk,d].
// Causal: 0 where key j <= query i + (Sk - Sq), -inf above (as torch exports write it). With
// s.group > 0, k and v are inputs of H / g heads repeated (repeat_heads) and K^T is
// Transpose(k repeated, perm 0,1,3,2) whatever `key` says.
inline compiler::Graph attention(Sizes s, Mask mask, std::int64_t softmax_axis = -1, Key key = Key::Transposed,
                                 bool scale_by_mul = false) {
  compiler::testing::GraphBuilder b("attention");
  const std::int64_t kv_heads = s.group > 0 ? s.heads / s.group : s.heads;
  if (s.group > 0) key = Key::Bhsd;
  const std::string q = b.input("q", {1, s.heads, s.sq, s.d});
  std::string kt = "kt";
  if (key == Key::Transposed) {
    b.input("kt", {1, s.heads, s.d, s.sk});
  } else {
    const bool bhsd = key == Key::Bhsd;
    std::string k = b.input("k", bhsd ? std::vector<std::int64_t>{1, kv_heads, s.sk, s.d}
                                      : std::vector<std::int64_t>{1, s.sk, s.heads, s.d});
    if (s.group > 0) k = repeat_heads(b, k, s);
    b.add_tensor(kt, {1, s.heads, s.d, s.sk});
    b.node("k_transpose", "Transpose", {k}, {kt}).attrs["perm"] =
        bhsd ? std::vector<std::int64_t>{0, 1, 3, 2} : std::vector<std::int64_t>{0, 2, 3, 1};
  }
  std::string v = b.input("v", {1, kv_heads, s.sk, s.d});
  if (s.group > 0) v = repeat_heads(b, v, s);
  if (s.group > 0 && s.repeat == Repeat::ExpandAlsoOutput) b.output(v);
  b.add_tensor("scores", {1, s.heads, s.sq, s.sk});
  b.node("qk", "MatMul", {q, kt}, {"scores"});
  std::string x = scale_by_mul ? b.binary("scale", "Mul", "scores", b.scalar("inv_sqrt_d", 1.0f / std::sqrt(float(s.d))))
                               : b.binary("scale", "Div", "scores", b.scalar("sqrt_d", std::sqrt(float(s.d))));
  if (mask == Mask::Causal || mask == Mask::Random) {
    b.constant("mask", {1, 1, s.sq, s.sk}, -2.0f, 2.0f);
    if (mask == Mask::Causal) {
      auto& m = b.g.tensors.at("mask").float_data;
      for (std::int64_t i = 0; i < s.sq; ++i)
        for (std::int64_t j = 0; j < s.sk; ++j)
          m[std::size_t(i * s.sk + j)] = j <= i + (s.sk - s.sq) ? 0.0f : -std::numeric_limits<float>::infinity();
    }
    x = b.binary("add_mask", "Add", x, "mask");
  } else if (mask == Mask::Computed) {
    x = b.binary("add_mask", "Add", x, b.input("mask_in", {1, 1, s.sq, s.sk}));
  }
  const std::string p = b.unary("softmax", "Softmax", x);
  b.g.nodes.back().attrs["axis"] = softmax_axis;
  b.add_tensor("o", {1, s.heads, s.sq, s.d});
  b.node("pv", "MatMul", {p, v}, {"o"});
  b.output("o");
  return b.g;
}

/// Runs `g` compiled under `strategy` (fp32, `sram` bytes) with seeded inputs and returns the
/// max relative error of its output "o" against the reference interpreter (1 when it fails).
inline double attention_error(const compiler::Graph& g, const std::string& strategy, std::uint64_t sram) {
  const HwConfig hw = fp32_hw(sram);
  const compiler::RefTensorMap in = compiler::generate_calibration(g, 1, 7).at(0);
  const compiler::RefTensorMap ref = compiler::run_reference(g, in);
  const compiler::CompileResult c = compiler::compile(g, hw, compiler::builtin_strategy(strategy));
  std::map<std::string, std::vector<float>> inputs;
  for (const std::string& name : g.inputs) inputs[name] = in.at(name).f;
  const auto r = run_forked(c, hw, inputs, true);
  if (!r.ok) ADD_FAILURE() << r.error;
  if (!r.ok || !r.outputs.count("o")) return 1.0;
  return rel_err(r.outputs.at("o"), to_double(ref.at("o").f));
}

/// Differential run: `fused` (compiled for `hw`) and `g` compiled under "none" with 2 MiB (its
/// mask Add keeps the whole broadcast mask in SRAM; values do not depend on the SRAM size) on
/// inputs seeded by `seed`; the max relative error of fused's "o" against none's, or 1 with
/// `failure` set when either fails to run.
inline double error_against_unfused(const compiler::Graph& g, const compiler::CompileResult& fused, const HwConfig& hw,
                                    unsigned seed, std::string& failure) {
  const compiler::RefTensorMap in = compiler::generate_calibration(g, seed, 1).at(0);
  std::map<std::string, std::vector<float>> inputs;
  for (const std::string& name : g.inputs) inputs[name] = in.at(name).f;
  const auto f = run_forked(fused, hw, inputs, true);
  const HwConfig big = fp32_hw(2u << 20);
  const auto plain = run_forked(compiler::compile(g, big, compiler::builtin_strategy("none")), big, inputs, true);
  if (!f.ok || !plain.ok) {
    failure = f.error + plain.error;
    return 1.0;
  }
  return rel_err(f.outputs.at("o"), to_double(plain.outputs.at("o")));
}

/// Compiled for the configured SRAM alone (no smaller-SRAM plan), so the block sizes follow from it.
inline compiler::CompileResult compile_pinned(const compiler::Graph& g, const std::string& strategy,
                                              std::uint64_t sram = 1u << 20) {
  compiler::CompileOptions o;
  o.smaller_sram_plans = false;
  return compiler::compile(g, fp32_hw(sram), compiler::builtin_strategy(strategy), o);
}

inline std::size_t attention_layers(const compiler::CompileResult& c) {
  std::size_t n = 0;
  for (const auto& L : c.lowered.layers) n += L.kind == compiler::LayerKind::Attention;
  return n;
}

/// fuse-attention's first reason: of a decline (`declined`), or the note of a fusion.
inline std::string attention_reason(const compiler::CompileResult& c, bool declined = true) {
  for (const auto& d : c.decisions)
    if (d.pass == "fuse-attention" &&
        d.outcome == (declined ? compiler::DecisionOutcome::Declined : compiler::DecisionOutcome::Applied))
      return d.reason;
  return "";
}

}  // namespace npu::test
