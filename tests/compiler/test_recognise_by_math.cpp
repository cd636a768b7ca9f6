// Canonicalisation by math (issue 30, item 1): activations recognised by the function their
// element-wise subgraph computes (recognise_activations.hpp), RMSNorm and LayerNorm by the
// factor 1/sqrt(mean + eps) (recognise_rmsnorm.hpp, recognise_layernorm.hpp, norm_factor.hpp).
// Each form is a small hand-built graph; the recognised graph's fp32 outputs (reference
// interpreter) equal the unrecognised graph's within 1e-5 of the largest output, and the
// node counts before and after are those of the form (written beside each case).
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "npu/compiler/driver/compiler.hpp"
#include "npu/compiler/reference/reference_interpreter.hpp"
#include "npu/compiler/transforms/canonicalize/recognise_activations.hpp"
#include "npu/compiler/transforms/canonicalize/recognise_layernorm.hpp"
#include "npu/compiler/transforms/canonicalize/recognise_rmsnorm.hpp"
#include "npu/compiler/transforms/strategy.hpp"
#include "test_compile_graphs.hpp"

namespace npu::compiler {
namespace {

using testing::edge_like_hw;
using testing::GraphBuilder;

constexpr std::int64_t kRows = 4, kD = 64;

/// x [1, 4, 64] holding 256 values evenly spaced over [-8, 8] (both tails of every activation).
RefTensorMap spread_input(const Graph& g) {
  RefTensor x;
  x.shape = g.tensors.at(g.inputs[0]).shape;
  const std::int64_t n = x.elements();
  for (std::int64_t i = 0; i < n; ++i) x.f.push_back(float(-8.0 + 16.0 * double(i) / double(n - 1)));
  return {{g.inputs[0], x}};
}

/// The recognised graph computes what the original computes: max |a - b| <= 1e-5 (1 + max |b|).
void expect_same_outputs(const Graph& original, const Graph& recognised) {
  const RefTensorMap in = spread_input(original);
  const RefTensorMap a = run_reference(original, in), b = run_reference(recognised, in);
  for (const std::string& y : original.outputs) {
    const TensorDiff d = compare_tensors(b.at(y), a.at(y));
    EXPECT_LE(d.max_abs, 1e-5 * (1.0 + d.max_ref)) << y;
  }
}

struct Chain {
  GraphBuilder b{"chain"};
  std::string x;
  Chain() { x = b.input("x", {1, kRows, kD}); }
  std::string s(const std::string& name, float v) { return b.scalar(name, v); }
  std::string op(const std::string& name, const std::string& type, std::vector<std::string> ins) {
    const std::string out = name + ".out";
    b.add_tensor(out, {1, kRows, kD});
    b.node(name, type, std::move(ins), {out});
    return out;
  }
};

/// Runs recognise-activations on a copy of c's graph (output y); expects `after` nodes, the
/// last of type `op`, and the same outputs. Returns the recognised graph.
Graph recognised_as(Chain& c, const std::string& y, std::size_t before, std::size_t after, const std::string& op) {
  c.b.output(y);
  EXPECT_EQ(c.b.g.nodes.size(), before);
  Graph r = c.b.g;
  std::vector<Decision> d;
  EXPECT_EQ(recognise_activations(r, &d), 1);
  EXPECT_EQ(r.nodes.size(), after);
  EXPECT_EQ(r.nodes.back().op_type, op);
  EXPECT_EQ(r.nodes.back().outputs[0], y);
  EXPECT_FALSE(d.empty());
  expect_same_outputs(c.b.g, r);
  return r;
}

/// `recognise` on a copy of g rewrites nothing, and says why in one declined decision.
void expect_declined(const Graph& g, int (*recognise)(Graph&, std::vector<Decision>*), const std::string& why) {
  Graph r = g;
  std::vector<Decision> d;
  EXPECT_EQ(recognise(r, &d), 0);
  EXPECT_EQ(r.nodes.size(), g.nodes.size());
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0].outcome, DecisionOutcome::Declined);
  EXPECT_NE(d[0].reason.find(why), std::string::npos) << d[0].reason;
}

TEST(RecogniseByMath, TanhGeluAsGpt2ExportsIt) {
  // 0.5 * x * (1 + tanh(sqrt(2/pi) * (x + 0.044715 * x*x*x))), constants first as torch wrote
  // them (gpt2_tiny: Mul, Mul, Mul, Add, Mul, Tanh, Add, Mul, Mul = 9 nodes -> 1).
  Chain c;
  const std::string x2 = c.op("mul", "Mul", {c.x, c.x});
  const std::string x3 = c.op("mul1", "Mul", {c.x, x2});
  const std::string k = c.op("mul2", "Mul", {c.s("c044", 0.044715f), x3});
  const std::string inner = c.op("add2", "Add", {c.x, k});
  const std::string z = c.op("mul3", "Mul", {c.s("csq", 0.7978845834732056f), inner});
  const std::string t = c.op("tanh", "Tanh", {z});
  const std::string a = c.op("add3", "Add", {c.s("c1", 1.0f), t});
  const std::string m = c.op("mul4", "Mul", {c.x, a});
  const std::string y = c.op("mul5", "Mul", {c.s("c05", 0.5f), m});
  const Graph r = recognised_as(c, y, 9, 1, "Gelu");
  EXPECT_EQ(r.nodes[0].attr_string("approximate", "none"), "tanh");
  EXPECT_EQ(r.nodes[0].name, "mul");  // named after the subgraph's first node
}

TEST(RecogniseByMath, TanhGeluWithPowAndDivInAnotherOrder) {
  // x^3 as Pow(x, 3), sqrt(2/pi) as Div by its inverse 1.2533141, the 0.5 applied to x first:
  // (x * 0.5) * (tanh((x + x^3 * 0.044715) / 1.2533141) + 1): 8 nodes -> 1.
  Chain c;
  const std::string x3 = c.op("pow", "Pow", {c.x, c.s("three", 3.0f)});
  const std::string k = c.op("k", "Mul", {x3, c.s("c044", 0.044715f)});
  const std::string inner = c.op("inner", "Add", {k, c.x});
  const std::string z = c.op("z", "Div", {inner, c.s("inv", 1.2533141373155f)});
  const std::string t = c.op("tanh", "Tanh", {z});
  const std::string a = c.op("plus1", "Add", {t, c.s("c1", 1.0f)});
  const std::string h = c.op("half", "Mul", {c.x, c.s("c05", 0.5f)});
  const std::string y = c.op("y", "Mul", {a, h});
  EXPECT_EQ(recognised_as(c, y, 8, 1, "Gelu").nodes[0].attr_string("approximate", "none"), "tanh");
}

TEST(RecogniseByMath, ErfGeluWithMulByInverseSqrt2) {
  // 0.5 x (1 + erf(x * 0.70710678)), the Muls in the order x * (0.5 * (1 + erf)): 5 nodes -> 1,
  // no approximate attribute (the erf form is ONNX Gelu's default).
  Chain c;
  const std::string z = c.op("scale", "Mul", {c.s("r2", 0.70710678f), c.x});
  const std::string e = c.op("erf", "Erf", {z});
  const std::string a = c.op("plus1", "Add", {e, c.s("c1", 1.0f)});
  const std::string h = c.op("half", "Mul", {c.s("c05", 0.5f), a});
  const std::string y = c.op("y", "Mul", {c.x, h});
  EXPECT_FALSE(recognised_as(c, y, 5, 1, "Gelu").nodes[0].has_attr("approximate"));
}

TEST(RecogniseByMath, HardSwishWithClipBoundsAsInputsAndMulBySixth) {
  // x * Clip(x + 3, 0, 6) * (1/6), the Clip's bounds as constant inputs (opset 11+): 4 -> 1.
  Chain c;
  const std::string a = c.op("add3", "Add", {c.s("c3", 3.0f), c.x});
  const std::string cl = c.op("clip", "Clip", {a, c.s("lo", 0.0f), c.s("hi", 6.0f)});
  const std::string m = c.op("sixth", "Mul", {cl, c.s("c6", 1.0f / 6.0f)});
  const std::string y = c.op("y", "Mul", {m, c.x});
  recognised_as(c, y, 4, 1, "HardSwish");
}

TEST(RecogniseByMath, HardSigmoidAsTorchAndAsMinMax) {
  // torch: Clip(x + 3, 0, 6) / 6 = HardSigmoid(alpha 1/6, beta 0.5): 3 -> 1.
  Chain c;
  const std::string a = c.op("add3", "Add", {c.x, c.s("c3", 3.0f)});
  Node& cl = c.b.node("clip", "Clip", {a}, {"clip.out"});
  cl.attrs["min"] = 0.0f;
  cl.attrs["max"] = 6.0f;
  c.b.add_tensor("clip.out", {1, kRows, kD});
  const std::string y = c.op("div6", "Div", {"clip.out", c.s("c6", 6.0f)});
  const Graph r = recognised_as(c, y, 3, 1, "HardSigmoid");
  EXPECT_NEAR(r.nodes[0].attr_float("alpha", 0), 1.0 / 6.0, 1e-6);
  EXPECT_NEAR(r.nodes[0].attr_float("beta", 0), 0.5, 1e-6);
  // Keras: Min(Max(0.2 x + 0.5, 0), 1) = HardSigmoid(alpha 0.2, beta 0.5): 4 -> 1.
  Chain k;
  const std::string s = k.op("scale", "Mul", {k.x, k.s("c02", 0.2f)});
  const std::string o = k.op("shift", "Add", {s, k.s("c05", 0.5f)});
  const std::string lo = k.op("max", "Max", {k.s("zero", 0.0f), o});
  const std::string hi = k.op("min", "Min", {lo, k.s("one", 1.0f)});
  const Graph rk = recognised_as(k, hi, 4, 1, "HardSigmoid");
  EXPECT_NEAR(rk.nodes[0].attr_float("alpha", 0), 0.2, 1e-6);
  EXPECT_NEAR(rk.nodes[0].attr_float("beta", 0), 0.5, 1e-6);
}

TEST(RecogniseByMath, Relu6AsMinMaxBecomesClip) {
  // Min(Max(x, 0), 6) = Clip(0, 6): 2 -> 1, bounds as attributes (the IR's canonical Clip).
  Chain c;
  const std::string lo = c.op("max", "Max", {c.x, c.s("zero", 0.0f)});
  const std::string y = c.op("min", "Min", {c.s("six", 6.0f), lo});
  const Graph r = recognised_as(c, y, 2, 1, "Clip");
  EXPECT_EQ(r.nodes[0].attr_float("min", -1), 0.0f);
  EXPECT_EQ(r.nodes[0].attr_float("max", -1), 6.0f);
}

TEST(RecogniseByMath, LeakyReluAsMaxOfXAndAScaledX) {
  // tf2onnx / Keras: Max(x, 0.1 x) = LeakyRelu(alpha 0.1): 2 -> 1 (new-user finding: it stayed
  // 2 layers unfused, and int8 had no rule for Max). The reference interpreter checks the values.
  Chain c;
  const std::string ax = c.op("scale", "Mul", {c.x, c.s("a", 0.1f)});
  const std::string y = c.op("max", "Max", {c.x, ax});
  const Graph r = recognised_as(c, y, 2, 1, "LeakyRelu");
  EXPECT_NEAR(r.nodes[0].attr_float("alpha", 0), 0.1, 1e-6);
  // Relu(x) - 0.2 Relu(-x) is LeakyRelu(0.2) too: 4 -> 1.
  Chain d;
  const std::string pos = d.op("relu_p", "Relu", {d.x});
  const std::string neg = d.op("relu_n", "Relu", {d.op("neg", "Neg", {d.x})});
  const std::string y2 = d.op("sub", "Sub", {pos, d.op("scale", "Mul", {d.s("a", 0.2f), neg})});
  const Graph r2 = recognised_as(d, y2, 5, 1, "LeakyRelu");
  EXPECT_NEAR(r2.nodes[0].attr_float("alpha", 0), 0.2, 1e-6);
}

TEST(RecogniseByMath, MaxOfXAndALargerMultipleIsNotLeaky) {
  // Max(x, 2 x) is 2x above 0 and x below: not x >= 0 ? x : a x. Nothing is recognised.
  Chain c;
  const std::string y = c.op("max", "Max", {c.x, c.op("scale", "Mul", {c.x, c.s("a", 2.0f)})});
  c.b.output(y);
  Graph r = c.b.g;
  EXPECT_EQ(recognise_activations(r, nullptr), 0);
  EXPECT_EQ(r.nodes.size(), 2u);
}

TEST(RecogniseByMath, AnInferenceDropoutBeforeARelu) {
  // Dropout(x, ratio 0.1) -> Relu: an inference Dropout is the identity (ONNX Dropout-13 without
  // training_mode), so the pair is relu(x): 2 -> 1, as Identity -> Relu already was (new-user
  // finding: Conv -> Dropout -> Relu kept its Relu unfused under every strategy).
  Chain c;
  const std::string d = c.op("drop", "Dropout", {c.x, c.s("ratio", 0.1f)});
  const std::string y = c.op("relu", "Relu", {d});
  recognised_as(c, y, 2, 1, "Relu");
}

TEST(RecogniseByMath, SiluWrittenAsDivisionBecomesTheSigmoidMulPair) {
  // x / (1 + exp(-x)): Neg, Exp, Add, Div = 4 nodes -> Sigmoid + Mul (fuse-activation's pair).
  Chain c;
  const std::string n = c.op("neg", "Neg", {c.x});
  const std::string e = c.op("exp", "Exp", {n});
  const std::string a = c.op("plus1", "Add", {c.s("c1", 1.0f), e});
  const std::string y = c.op("y", "Div", {c.x, a});
  const Graph r = recognised_as(c, y, 4, 2, "Mul");
  EXPECT_EQ(r.nodes[0].op_type, "Sigmoid");
  // The canonical pair is left as it is (recognising it again would loop).
  Graph again = r;
  EXPECT_EQ(recognise_activations(again), 0);
}

TEST(RecogniseByMath, MishIsDeclinedWithAReason) {
  // x * tanh(softplus(x)): recognised, but no NPU op runs Mish: 3 nodes stay, one declined decision.
  Chain c;
  const std::string sp = c.op("softplus", "Softplus", {c.x});
  const std::string t = c.op("tanh", "Tanh", {sp});
  const std::string y = c.op("y", "Mul", {c.x, t});
  c.b.output(y);
  expect_declined(c.b.g, recognise_activations, "Mish");
}

TEST(RecogniseByMath, WrongConstantsOrAnOuterReaderAreNotRecognised) {
  // 0.6 instead of 0.5 in an erf GELU: no activation; 5 nodes stay.
  Chain c;
  const std::string z = c.op("scale", "Mul", {c.x, c.s("r2", 0.70710678f)});
  const std::string e = c.op("erf", "Erf", {z});
  const std::string a = c.op("plus1", "Add", {e, c.s("c1", 1.0f)});
  const std::string h = c.op("half", "Mul", {a, c.s("c06", 0.6f)});
  const std::string y = c.op("y", "Mul", {c.x, h});
  c.b.output(y);
  Graph r = c.b.g;
  EXPECT_EQ(recognise_activations(r), 0);
  EXPECT_EQ(r.nodes.size(), 5u);
  // A right GELU whose Erf output is also a graph output: replacing it would lose that value.
  Chain o;
  const std::string z2 = o.op("scale", "Mul", {o.x, o.s("r2", 0.70710678f)});
  const std::string e2 = o.op("erf", "Erf", {z2});
  const std::string a2 = o.op("plus1", "Add", {e2, o.s("c1", 1.0f)});
  const std::string h2 = o.op("half", "Mul", {a2, o.s("c05", 0.5f)});
  const std::string y2 = o.op("y", "Mul", {o.x, h2});
  o.b.output(y2);
  o.b.output(e2);
  Graph r2 = o.b.g;
  recognise_activations(r2);
  EXPECT_EQ(r2.nodes.size(), 5u);
}

// ---- RMSNorm and LayerNorm ---------------------------------------------------------------

/// x / sqrt(mean(x^2) + eps) * gamma over the last axis, spelled by `factor`: it gets the
/// statistic m (mean of squares, [1, 4, 1]) and returns the normalised x.
struct NormChain : Chain {
  std::string gamma;
  NormChain() { gamma = b.constant("gamma", {kD}, 0.5f, 1.5f); }
  std::string stat(const std::string& name, const std::string& sq, bool keepdims = true) {
    const std::string out = name + ".out";
    b.add_tensor(out, keepdims ? std::vector<std::int64_t>{1, kRows, 1} : std::vector<std::int64_t>{1, kRows});
    Node& n = b.node(name, "ReduceMean", {sq}, {out});
    n.attrs["axes"] = std::vector<std::int64_t>{-1};
    n.attrs["keepdims"] = std::int64_t(keepdims ? 1 : 0);
    return out;
  }
  std::string row_op(const std::string& name, const std::string& type, std::vector<std::string> ins) {
    const std::string out = name + ".out";
    b.add_tensor(out, {1, kRows, 1});
    b.node(name, type, std::move(ins), {out});
    return out;
  }
};

/// Runs recognise-rmsnorm on a copy; expects `after` nodes ending in RMSNormalization with
/// epsilon `eps`, and the same outputs.
void expect_rmsnorm(NormChain& c, const std::string& y, std::size_t before, std::size_t after, float eps) {
  c.b.output(y);
  EXPECT_EQ(c.b.g.nodes.size(), before);
  Graph r = c.b.g;
  std::vector<Decision> d;
  EXPECT_EQ(recognise_rmsnorm(r, &d), 1);
  ASSERT_EQ(r.nodes.size(), after);
  EXPECT_EQ(r.nodes.back().op_type, "RMSNormalization");
  EXPECT_FLOAT_EQ(r.nodes.back().attr_float("epsilon", -1), eps);
  expect_same_outputs(c.b.g, r);
}

/// Llama's RMSNorm: Pow(x, 2), ReduceMean, Add(eps), Sqrt, Div(1, .), Mul(x, .), Mul(., gamma)
/// (7 nodes); returns the output.
std::string llama_rmsnorm(NormChain& c) {
  const std::string sq = c.op("pow", "Pow", {c.x, c.s("two", 2.0f)});
  const std::string m = c.stat("mean", sq);
  const std::string t = c.row_op("add", "Add", {m, c.s("eps", 1e-5f)});
  const std::string s = c.row_op("sqrt", "Sqrt", {t});
  const std::string r = c.row_op("inv", "Div", {c.s("one", 1.0f), s});
  const std::string n = c.op("norm", "Mul", {c.x, r});
  return c.op("scale", "Mul", {n, c.gamma});
}

TEST(RecogniseByMath, RmsNormAsLlamaExportsIt) {
  // 7 nodes -> 1.
  NormChain c;
  expect_rmsnorm(c, llama_rmsnorm(c), 7, 1, 1e-5f);
}

TEST(RecogniseByMath, RmsNormWithMulSquarePowMinusHalfAndGammaFirst) {
  // Mul(x, x), ReduceMean, Add(eps first), Pow(-0.5), Mul(r, x), Mul(gamma, .): 6 nodes -> 1.
  NormChain c;
  const std::string sq = c.op("sq", "Mul", {c.x, c.x});
  const std::string m = c.stat("mean", sq);
  const std::string t = c.row_op("add", "Add", {c.s("eps", 1e-6f), m});
  const std::string r = c.row_op("rsqrt", "Pow", {t, c.s("mhalf", -0.5f)});
  const std::string n = c.op("norm", "Mul", {r, c.x});
  const std::string y = c.op("scale", "Mul", {c.gamma, n});
  expect_rmsnorm(c, y, 6, 1, 1e-6f);
}

TEST(RecogniseByMath, RmsNormWithSqrtDivAndKeepdimsZero) {
  // keepdims=0 then Unsqueeze(-1), Sqrt, Div(x, .): Pow, ReduceMean, Unsqueeze, Add, Sqrt,
  // Div = 6 nodes -> 1 (no gamma: ones).
  NormChain c;
  const std::string sq = c.op("pow", "Pow", {c.x, c.s("two", 2.0f)});
  const std::string m = c.stat("mean", sq, false);
  const std::string u = c.row_op("unsq", "Unsqueeze", {m, c.b.ints("axes", {-1})});
  const std::string t = c.row_op("add", "Add", {u, c.s("eps", 1e-5f)});
  const std::string s = c.row_op("sqrt", "Sqrt", {t});
  const std::string y = c.op("div", "Div", {c.x, s});
  expect_rmsnorm(c, y, 6, 1, 1e-5f);
}

TEST(RecogniseByMath, RmsNormWithEpsilonOutsideTheSqrtIsDeclinedWithTheReason) {
  // x / (sqrt(mean(x^2)) + eps) is a different function (the bad input): declined,
  // the 5 nodes stay, and --explain says why.
  NormChain c;
  const std::string sq = c.op("pow", "Pow", {c.x, c.s("two", 2.0f)});
  const std::string m = c.stat("mean", sq);
  const std::string s = c.row_op("sqrt", "Sqrt", {m});
  const std::string t = c.row_op("add", "Add", {s, c.s("eps", 1e-5f)});
  const std::string y = c.op("div", "Div", {c.x, t});
  c.b.output(y);
  expect_declined(c.b.g, recognise_rmsnorm, "epsilon is not inside the square root");
}

TEST(RecogniseByMath, RmsNormWhoseMeanIsAGraphOutputStays) {
  // The mean of squares is also a graph output: the rewrite would lose it, so the 7 nodes stay.
  NormChain c;
  c.b.output(llama_rmsnorm(c));
  c.b.output("mean.out");
  Graph r = c.b.g;
  EXPECT_EQ(recognise_rmsnorm(r), 0);
  EXPECT_EQ(r.nodes.size(), 7u);
}

TEST(RecogniseByMath, LayerNormWithMulSquareAndReciprocal) {
  // ReduceMean, Sub, Mul(d, d), ReduceMean, Add(eps), Sqrt, Reciprocal, Mul(d, .), Mul(gamma),
  // Add(beta): 10 nodes -> 1 LayerNormalization.
  NormChain c;
  const std::string beta = c.b.constant("beta", {kD}, -0.2f, 0.2f);
  const std::string mu = c.stat("mean", c.x);
  const std::string dv = c.op("sub", "Sub", {c.x, mu});
  const std::string sq = c.op("sq", "Mul", {dv, dv});
  const std::string v = c.stat("var", sq);
  const std::string t = c.row_op("add", "Add", {v, c.s("eps", 1e-5f)});
  const std::string s = c.row_op("sqrt", "Sqrt", {t});
  const std::string r = c.row_op("recip", "Reciprocal", {s});
  const std::string n = c.op("norm", "Mul", {dv, r});
  const std::string g = c.op("scale", "Mul", {n, c.gamma});
  const std::string y = c.op("shift", "Add", {g, beta});
  c.b.output(y);
  EXPECT_EQ(c.b.g.nodes.size(), 10u);
  Graph rg = c.b.g;
  EXPECT_EQ(recognise_layernorm(rg), 1);
  ASSERT_EQ(rg.nodes.size(), 1u);
  EXPECT_EQ(rg.nodes[0].op_type, "LayerNormalization");
  expect_same_outputs(c.b.g, rg);
}

TEST(RecogniseByMath, RecognisedRmsNormIsOneLayerOnTheNpu) {
  // Layer counts under `none`: the Llama form lowers to 7 layers (Pow, ReduceMean, Add, Sqrt,
  // Div, Mul, Mul: one vector pass each); recognised, to 1 ACT rms_norm layer.
  NormChain c;
  c.b.output(llama_rmsnorm(c));
  Graph rg = c.b.g;
  recognise_rmsnorm(rg);
  const CompileResult before = compile(c.b.g, edge_like_hw(), builtin_strategy("none"));
  const CompileResult after = compile(rg, edge_like_hw(), builtin_strategy("none"));
  EXPECT_EQ(before.lowered.layers.size(), 7u);
  ASSERT_EQ(after.lowered.layers.size(), 1u);
  EXPECT_EQ(after.lowered.layers[0].act, isa::ActOp::RmsNorm);
}

}  // namespace
}  // namespace npu::compiler
