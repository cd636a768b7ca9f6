// recognise-affine: a Conv's affine epilogue written out as constant Add / Mul / Div / Sub
// nodes, as converters (paddle2onnx, tf2onnx, Caffe's Scale layer) write it, recognised as the
// ops torch writes for the same layer (issue 30, "canonicalisation by math"), so a converter's
// spelling does not change what fusion saves (../shared/models/cases/converter/README):
//  - a bias written as a separate Add (or Sub) of a per-channel or scalar constant after a
//    bias-less Conv becomes the Conv's bias B: ONNX Conv computes conv(x, W) + B[c], the same
//    sum in the same order, so the values are bit-identical; after a Conv whose bias is a
//    constant, the Add joins it (B + d, summed in double and rounded once: conv(x, W) + B + d
//    up to one fp32 rounding), so a Relu after it fuses under every strategy that fuses one
//    (new-user finding: an Add-only chain has no Mul/Div to make a BatchNormalization of, and
//    stayed a layer of its own under every strategy);
//  - a chain of per-channel or scalar constant Mul / Div / Add / Sub after a Conv becomes one
//    BatchNormalization with scale s, B b, mean 0, var 1 and epsilon 0: ONNX's
//    (x - mean) / sqrt(var + epsilon) * scale + B is then s x + b, which fold-batchnorm folds
//    into the Conv as it folds any BN (in the conv-bn strategies) and which runs as one
//    vector pass where the chain took one per node. The chain's constants are combined in
//    double and rounded once (s = c1 c2 ..., b = (d1 c2 + d2) ...): equal to the chain up to
//    fp32 rounding.
// A constant is per channel when its shape is [C,1,1] or [1,C,1,1] (a [C] vector broadcasts
// along W, not C, and is left alone) or it has one element. Only tensors read once and no
// graph output are rewritten.
#include <cmath>
#include <optional>
#include <vector>

#include "npu/compiler/transforms/canonicalize/recognise_activations.hpp"
#include "npu/compiler/transforms/pass_registry.hpp"

namespace npu::compiler {

namespace {

/// The C per-channel values of constant `t` for an NCHW tensor, or nullopt.
std::optional<std::vector<double>> per_channel(const Graph& g, const std::string& t, std::int64_t c) {
  if (t.empty() || !g.has_tensor(t)) return std::nullopt;
  const Tensor& x = g.tensor(t);
  if (!x.is_constant || x.type != ElemType::Float32 || x.quant || std::int64_t(x.float_data.size()) != x.elements())
    return std::nullopt;
  const auto& s = x.shape;
  const bool one = x.elements() == 1 && s.size() <= 4;
  const bool chw = (s.size() == 3 && s[0] == c && s[1] == 1 && s[2] == 1) ||
                   (s.size() == 4 && s[0] == 1 && s[1] == c && s[2] == 1 && s[3] == 1);
  if (!one && !chw) return std::nullopt;
  std::vector<double> v(static_cast<std::size_t>(c));
  for (std::int64_t k = 0; k < c; ++k) v[std::size_t(k)] = x.float_data[one ? 0 : std::size_t(k)];
  return v;
}

/// Node `i` applies a constant per-channel affine step to `x`: y = x * m + a. A constant on the
/// left of a Sub is c - x = x * -1 + c (a converter's reversed subtraction); on the left of a
/// Div it is no affine of x: false, as for any other node.
bool affine_step(const Graph& g, const Node& n, const std::string& x, std::int64_t c, std::vector<double>& m,
                 std::vector<double>& a) {
  const std::string& op = n.op_type;
  if (n.inputs.size() != 2 || n.outputs.size() != 1 || (op != "Mul" && op != "Div" && op != "Add" && op != "Sub"))
    return false;
  const bool x_first = n.inputs[0] == x;
  if (!x_first && (n.inputs[1] != x || op == "Div")) return false;
  const auto k = per_channel(g, n.inputs[x_first ? 1 : 0], c);
  if (!k) return false;
  for (double v : *k)  // a division by 0 or a non-finite constant stays as written (no inf scale)
    if (!std::isfinite(v) || (op == "Div" && v == 0.0)) return false;
  m.assign(std::size_t(c), 1.0);
  a.assign(std::size_t(c), 0.0);
  for (std::size_t i = 0; i < std::size_t(c); ++i) {
    const double v = (*k)[i];
    if (op == "Mul") m[i] = v;
    else if (op == "Div") m[i] = 1.0 / v;
    else if (op == "Add") a[i] = v;
    else if (x_first) a[i] = -v;
    else m[i] = -1.0, a[i] = v;  // c - x
  }
  return true;
}

/// A new float constant [C] named `name` holding `v`.
std::string add_vector(Graph& g, const std::string& name, const std::vector<double>& v) {
  Tensor t;
  t.name = name;
  t.shape = {std::int64_t(v.size())};
  t.is_constant = true;
  for (double x : v) t.float_data.push_back(float(x));
  g.tensors[name] = t;
  return name;
}

/// The C values of Conv `conv`'s bias: zeros without one, its constant float [C] bias, or nullopt
/// (a bias computed at run time or of another shape or type).
std::optional<std::vector<double>> conv_bias(const Graph& g, const Node& conv, std::int64_t c) {
  if (conv.inputs.size() < 3 || conv.inputs[2].empty()) return std::vector<double>(std::size_t(c), 0.0);
  if (!g.has_tensor(conv.inputs[2])) return std::nullopt;
  const Tensor& b = g.tensor(conv.inputs[2]);
  if (!b.is_constant || b.type != ElemType::Float32 || b.quant || std::int64_t(b.float_data.size()) != c)
    return std::nullopt;
  return std::vector<double>(b.float_data.begin(), b.float_data.end());
}

/// Folds the constant Add/Sub after Conv `i` into its bias (bias-less, or a constant bias); true if
/// it did.
bool fold_bias(Graph& g, std::size_t i) {
  Node& conv = g.nodes[i];
  if (conv.op_type != "Conv" || conv.inputs.size() > 3 || conv.outputs.size() != 1) return false;
  const Tensor& y = g.tensor(conv.outputs[0]);
  if (y.shape.size() != 4 || y.quant) return false;
  const auto bias = conv_bias(g, conv, y.shape[1]);
  if (!bias) return false;
  const long r = sole_reader(g, conv.outputs[0]);
  std::vector<double> m, a;
  if (r < 0 || !affine_step(g, g.nodes[std::size_t(r)], conv.outputs[0], y.shape[1], m, a)) return false;
  const std::string op = g.nodes[std::size_t(r)].op_type;
  if ((op != "Add" && op != "Sub") || m[0] != 1.0) return false;  // c - x scales by -1: a chain's, not a bias
  const std::string out = g.nodes[std::size_t(r)].outputs[0];
  for (std::size_t k = 0; k < a.size(); ++k) a[k] += (*bias)[k];
  conv.inputs.resize(2);
  conv.inputs.push_back(add_vector(g, conv.name + ".B_recognised", a));
  conv.outputs[0] = out;  // the Conv now writes what the Add wrote
  conv.onnx_proto.clear();  // no longer the node the file wrote (shape_inference.hpp)
  g.nodes.erase(g.nodes.begin() + r);
  return true;
}

/// Replaces the constant affine chain after Conv `i` (at least one Mul or Div) by one
/// BatchNormalization; true if it did.
bool chain_to_batchnorm(Graph& g, std::size_t i) {
  const Node& conv = g.nodes[i];
  if (conv.op_type != "Conv" || conv.outputs.size() != 1) return false;
  const std::string x = conv.outputs[0];
  if (g.tensor(x).shape.size() != 4 || g.tensor(x).quant) return false;
  const std::int64_t c = g.tensor(x).shape[1];
  std::vector<double> s(std::size_t(c), 1.0), b(std::size_t(c), 0.0), m, a;
  std::vector<std::size_t> chain;
  bool scales = false;
  for (std::string t = x;;) {
    const long r = sole_reader(g, t);
    if (r < 0 || !affine_step(g, g.nodes[std::size_t(r)], t, c, m, a)) break;
    for (std::size_t k = 0; k < std::size_t(c); ++k) {
      s[k] *= m[k];
      b[k] = b[k] * m[k] + a[k];
    }
    const Node& n = g.nodes[std::size_t(r)];
    scales = scales || n.op_type == "Mul" || n.op_type == "Div" || m[0] != 1.0;  // c - x: a scale of -1
    chain.push_back(std::size_t(r));
    t = n.outputs[0];
  }
  if (chain.empty() || !scales) return false;
  Node bn;
  bn.name = g.nodes[chain.front()].name;
  bn.op_type = "BatchNormalization";
  bn.inputs = {x, add_vector(g, bn.name + ".scale", s), add_vector(g, bn.name + ".B", b),
               add_vector(g, bn.name + ".mean", std::vector<double>(std::size_t(c), 0.0)),
               add_vector(g, bn.name + ".var", std::vector<double>(std::size_t(c), 1.0))};
  bn.outputs = {g.nodes[chain.back()].outputs[0]};
  bn.attrs["epsilon"] = 0.0f;
  replace_chain(g, chain, std::move(bn));
  return true;
}

/// What the pass did: bias Adds folded and chains recognised.
struct AffineCounts {
  int biases = 0;
  int chains = 0;
};

AffineCounts recognise_affine(Graph& graph) {
  AffineCounts n;
  for (std::size_t i = 0; i < graph.nodes.size(); ++i) {
    while (fold_bias(graph, i)) ++n.biases;
    if (chain_to_batchnorm(graph, i)) ++n.chains;
  }
  remove_unused_tensors(graph);
  return n;
}

}  // namespace

class RecogniseAffine : public ImportPass {
 public:
  std::string name() const override { return "recognise-affine"; }
  std::string description() const override {
    return "recognise a Conv's constant bias Add and Mul/Div/Add/Sub affine chain as the Conv's bias and one "
           "BatchNormalization";
  }
  std::vector<Decision> run(Graph& graph, const PassContext& ctx) const override {
    const AffineCounts n = recognise_affine(graph);
    return {summary_decision(name(), ctx.model,
                             "folded " + std::to_string(n.biases) + " bias Add(s) into their Conv; recognised " +
                                 std::to_string(n.chains) + " affine chain(s) as BatchNormalization")};
  }
};

NPU_REGISTER_PASS(RecogniseAffine, 450);

}  // namespace npu::compiler
