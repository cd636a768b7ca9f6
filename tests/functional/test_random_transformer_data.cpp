// Differential testing of the transformer fusions by values (issue 30: "the random-graph
// differential tests generate attention, norm and GLU subgraphs too"). Each seed builds one
// pre-norm decoder block as torch exports write it, with its choices drawn at random:
//   x [1, S, D] -> norm1 -> Q, K, V projections (MatMul, Reshape, Transpose; K and V with
//   H / g heads, repeated by Unsqueeze -> Expand -> Reshape when g > 1) -> Q K^T -> Div or Mul
//   by a constant -> causal mask Add (or none) -> Softmax -> P V -> heads merged -> output
//   projection -> + x -> norm2 -> MLP (GELU, tanh GELU decomposed, or SwiGLU with SiLU as
//   x * Sigmoid(x)) -> + residual,
// the norms RMSNorm decomposed (Pow or Mul form, epsilon inside the root), LayerNormalization,
// or none. The ONNX import passes run first (recognise-*: the decomposed forms become single
// nodes, as on a file). Every graph runs under none, transformer and depth-first with data;
// each must equal the reference interpreter within 1e-4 relative (max |err| / max |ref|). A
// difference names the seed and the choices.
// NPU_RANDOM_BLOCKS=N runs seeds 1..N (default 60).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <limits>
#include <random>

#include "functional_test_util.hpp"
#include "npu/compiler/quantize/calibration.hpp"
#include "npu/compiler/reference/reference_interpreter.hpp"
#include "npu/compiler/transforms/pass_manager.hpp"
#include "npu/compiler/transforms/strategy.hpp"
#include "test_compile_graphs.hpp"
#include "random_cases.hpp"

namespace {

using namespace npu;
using compiler::testing::GraphBuilder;
using Shape = std::vector<std::int64_t>;

struct Block {
  std::int64_t s, d, heads, group, f;
  int norm, mlp;  // norm: 0 none, 1 RMSNorm (Pow), 2 RMSNorm (Mul), 3 LayerNormalization; mlp: 0 Gelu, 1 tanh decomposed, 2 SwiGLU
  bool causal, scale_mul;
  std::string describe() const {
    static const char* norms[] = {"none", "rmsnorm-pow", "rmsnorm-mul", "layernorm"};
    static const char* mlps[] = {"gelu", "gelu-tanh-decomposed", "swiglu"};
    return "S " + std::to_string(s) + " D " + std::to_string(d) + " heads " + std::to_string(heads) + " group " +
           std::to_string(group) + " F " + std::to_string(f) + " norm " + norms[norm] + " mlp " + mlps[mlp] +
           (causal ? " causal" : " no mask") + (scale_mul ? " scale Mul" : " scale Div");
  }
};

class BlockBuilder {
 public:
  BlockBuilder(const Block& k, std::uint32_t seed) : k_(k), b_("block_" + std::to_string(seed)) { b_.rng.seed(seed); }

  compiler::Graph make() {
    const std::string x = b_.input("x", {1, k_.s, k_.d});
    const std::string h1 = b_.binary("res1", "Add", x, linear("o_proj", attention(norm("norm1", x)), k_.d));
    b_.output(b_.binary("res2", "Add", h1, mlp(norm("norm2", h1))));
    return b_.g;
  }

 private:
  std::string t(const std::string& name, Shape shape) {
    b_.add_tensor(name, std::move(shape));
    return name;
  }
  std::string linear(const std::string& name, const std::string& x, std::int64_t n) {
    const float r = 1.0f / std::sqrt(float(b_.shape(x).back()));
    Shape out = b_.shape(x);
    out.back() = n;
    b_.node(name, "MatMul", {x, b_.constant(name + ".w", {b_.shape(x).back(), n}, -r, r)}, {t(name + ".out", out)});
    return name + ".out";
  }
  std::string norm(const std::string& name, const std::string& x) {
    if (k_.norm == 0) return x;
    const std::string gamma = b_.constant(name + ".weight", {k_.d}, 0.5f, 1.5f);
    if (k_.norm == 3) {
      b_.node(name, "LayerNormalization", {x, gamma, b_.constant(name + ".bias", {k_.d}, -0.2f, 0.2f)},
              {t(name + ".out", b_.shape(x))}).attrs["axis"] = std::int64_t{-1};
      return name + ".out";
    }
    const std::string sq = k_.norm == 1 ? b_.binary(name + ".pow", "Pow", x, b_.scalar(name + ".two", 2.0f))
                                        : b_.binary(name + ".sq", "Mul", x, x);
    b_.node(name + ".mean", "ReduceMean", {sq, b_.ints(name + ".axes", {-1})}, {t(name + ".ms", {1, k_.s, 1})});
    const std::string var = b_.binary(name + ".eps", "Add", name + ".ms", b_.scalar(name + ".e", 1e-5f));
    const std::string rms = b_.unary(name + ".sqrt", "Sqrt", var);
    const std::string inv = t(name + ".inv.out", {1, k_.s, 1});
    b_.node(name + ".inv", "Div", {b_.scalar(name + ".one", 1.0f), rms}, {inv});
    return b_.binary(name + ".gamma", "Mul", b_.binary(name + ".scale", "Mul", x, inv), gamma);
  }
  // [1, S, n*dh] -> [1, n, S, dh]
  std::string heads(const std::string& name, const std::string& x, std::int64_t n) {
    const std::int64_t dh = k_.d / k_.heads;
    b_.node(name + ".split", "Reshape", {x, b_.ints(name + ".shape", {1, k_.s, n, dh})}, {t(name + ".r", {1, k_.s, n, dh})});
    b_.node(name + ".t", "Transpose", {name + ".r"}, {t(name + ".h", {1, n, k_.s, dh})}).attrs["perm"] = Shape{0, 2, 1, 3};
    return name + ".h";
  }
  std::string repeat(const std::string& x) {
    if (k_.group == 1) return x;
    const std::int64_t hkv = k_.heads / k_.group, dh = k_.d / k_.heads;
    b_.node(x + ".u", "Unsqueeze", {x, b_.ints(x + ".uaxes", {2})}, {t(x + ".un", {1, hkv, 1, k_.s, dh})});
    b_.node(x + ".e", "Expand", {x + ".un", b_.ints(x + ".eshape", {1, hkv, k_.group, k_.s, dh})},
            {t(x + ".ex", {1, hkv, k_.group, k_.s, dh})});
    b_.node(x + ".rs", "Reshape", {x + ".ex", b_.ints(x + ".rshape", {1, k_.heads, k_.s, dh})},
            {t(x + ".rep", {1, k_.heads, k_.s, dh})});
    return x + ".rep";
  }
  std::string attention(const std::string& x) {
    const std::int64_t hkv = k_.heads / k_.group, dh = k_.d / k_.heads, s = k_.s;
    const std::string q = heads("q", linear("q_proj", x, k_.d), k_.heads);
    const std::string kr = repeat(heads("k", linear("k_proj", x, hkv * dh), hkv));
    const std::string v = repeat(heads("v", linear("v_proj", x, hkv * dh), hkv));
    b_.node("kt", "Transpose", {kr}, {t("kt.out", {1, k_.heads, dh, s})}).attrs["perm"] = Shape{0, 1, 3, 2};
    b_.node("qk", "MatMul", {q, "kt.out"}, {t("scores", {1, k_.heads, s, s})});
    std::string z = k_.scale_mul ? b_.binary("scale", "Mul", "scores", b_.scalar("inv", 1.0f / std::sqrt(float(dh))))
                                 : b_.binary("scale", "Div", "scores", b_.scalar("sqrt_d", std::sqrt(float(dh))));
    if (k_.causal) {
      b_.constant("mask", {1, 1, s, s}, 0.0f, 0.0f);
      auto& m = b_.g.tensors.at("mask").float_data;
      for (std::int64_t i = 0; i < s; ++i)
        for (std::int64_t j = i + 1; j < s; ++j) m[std::size_t(i * s + j)] = -std::numeric_limits<float>::infinity();
      z = b_.binary("add_mask", "Add", z, "mask");
    }
    b_.unary("softmax", "Softmax", z);
    b_.g.nodes.back().attrs["axis"] = std::int64_t{-1};
    b_.node("pv", "MatMul", {"softmax.out", v}, {t("o", {1, k_.heads, s, dh})});
    b_.node("o.t", "Transpose", {"o"}, {t("o.bshd", {1, s, k_.heads, dh})}).attrs["perm"] = Shape{0, 2, 1, 3};
    b_.node("o.merge", "Reshape", {"o.bshd", b_.ints("o.shape", {1, s, k_.d})}, {t("o.merged", {1, s, k_.d})});
    return "o.merged";
  }
  std::string mlp(const std::string& x) {
    if (k_.mlp == 2)
      return linear("down", b_.binary("glu", "Mul", b_.silu("act", linear("gate", x, k_.f)), linear("up", x, k_.f)), k_.d);
    const std::string u = linear("fc", x, k_.f);
    std::string a;
    if (k_.mlp == 0) {
      a = b_.unary("gelu", "Gelu", u);
    } else {  // 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))
      const std::string c = b_.binary("g.cube", "Mul", b_.binary("g.sq", "Mul", u, u), u);
      const std::string in = b_.binary("g.in", "Add", u, b_.binary("g.c", "Mul", c, b_.scalar("g.k", 0.044715f)));
      const std::string th = b_.unary("g.tanh", "Tanh", b_.binary("g.s", "Mul", in, b_.scalar("g.r", 0.7978845608f)));
      a = b_.binary("g.half", "Mul", b_.binary("g.x", "Mul", u, b_.binary("g.one", "Add", th, b_.scalar("g.1", 1.0f))),
                    b_.scalar("g.h", 0.5f));
    }
    return linear("proj", a, k_.d);
  }

  Block k_;
  GraphBuilder b_;
};

Block draw(std::uint32_t seed) {
  std::mt19937 r(seed);
  auto pick = [&](std::vector<std::int64_t> v) { return v[std::size_t(r() % v.size())]; };
  Block k;
  k.s = pick({1, 5, 33, 130});
  k.d = pick({16, 32});
  k.heads = pick({1, 2, 4});
  k.group = k.heads == 1 ? 1 : pick({1, 2});
  k.f = pick({24, 64});
  k.norm = int(r() % 4);
  k.mlp = int(r() % 3);
  k.causal = k.s > 1 && r() % 3 != 0;
  k.scale_mul = r() % 2 == 0;
  return k;
}

// What the fused strategies must have fused: the attention into one layer (its K/V repeat read
// through), the norms recognised into one node each and that node into the prologue of the
// projections reading it (fuse-norm-prologue: no norm layer is left), SwiGLU's gate and up GEMMs
// into one dual GEMM (fuse-swiglu: the Mul in its epilogue, the gate computed into SRAM).
void expect_fused(const compiler::CompileResult& c, const Block& k) {
  int attention = 0, expands = 0, reductions = 0, gate_muls = 0, norms = 0, prologues = 0, duals = 0;
  for (const auto& L : c.lowered.layers) {
    attention += L.kind == compiler::LayerKind::Attention;
    expands += L.op_type == "Expand";
    reductions += L.op_type == "ReduceMean";
    gate_muls += L.residual_mul;
    duals += !L.glu_gate.empty();
    norms += L.op_type == "RMSNormalization" || L.op_type == "LayerNormalization";
    prologues += L.prologue != isa::ActOp::None;
  }
  EXPECT_EQ(norms, 0);
  // norm1 -> Q, K and V projections; norm2 -> the fc projection, or SwiGLU's dual GEMM.
  EXPECT_EQ(prologues, k.norm == 0 ? 0 : 4);
  EXPECT_EQ(attention, 1);
  EXPECT_EQ(expands, 0);
  EXPECT_EQ(reductions, 0);
  EXPECT_EQ(gate_muls, 0);
  EXPECT_EQ(duals, k.mlp == 2 ? 1 : 0);
}

int block_count() {
  return test::random_cases("NPU_RANDOM_BLOCKS", 60);
}

TEST(RandomTransformerBlocks, EveryStrategyEqualsTheReference) {
  const HwConfig hw = test::fp32_hw(256 * 1024);
  for (int n = 0; n < block_count(); ++n) {
    const std::uint32_t seed = std::uint32_t(n + 1);
    const Block k = draw(seed);
    SCOPED_TRACE("seed " + std::to_string(seed) + ": " + k.describe());
    compiler::Graph g = BlockBuilder(k, seed).make();
    compiler::run_import_passes(g, compiler::onnx_import_passes(), "random block");
    const compiler::RefTensorMap in = compiler::generate_calibration(g, 1, seed).at(0);
    const compiler::RefTensorMap ref = compiler::run_reference(g, in);
    const std::string& out = g.outputs.at(0);
    for (const char* s : {"none", "transformer", "depth-first"}) {
      const compiler::CompileResult c = compiler::compile(g, hw, compiler::builtin_strategy(s));
      const auto r = test::run_forked(c, hw, {{"x", in.at("x").f}}, true);
      ASSERT_TRUE(r.ok) << s << ": " << r.error;
      if (std::string(s) != "none") expect_fused(c, k);
      ASSERT_EQ(r.outputs.count(out), 1u) << s;
      EXPECT_LE(test::rel_err(r.outputs.at(out), test::to_double(ref.at(out).f)), 1e-4) << s;
    }
  }
}

}  // namespace
