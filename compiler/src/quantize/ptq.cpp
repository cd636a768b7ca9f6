// Post-training quantisation (ptq.hpp).
#include "npu/compiler/quantize/ptq.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <set>

#include "npu/compiler/backend/lowering/int8/int8_lowering.hpp"
#include "npu/compiler/ir/fused_attr.hpp"
#include "npu/compiler/transforms/pass.hpp"
#include "npu/compiler/transforms/pass_manager.hpp"
#include "npu/compiler/quantize/shared_grids.hpp"
#include "npu/hw_config/hw_config.hpp"

namespace npu::compiler {

namespace {

constexpr const char* kFoldPass = "fold-batchnorm";

bool has_float_data(const Tensor& t) {
  return t.is_constant && t.elements() > 0 && std::int64_t(t.float_data.size()) == t.elements();
}

/// Index along `axis` of flat element e of a tensor of `shape`.
std::size_t channel_of(const std::vector<std::int64_t>& shape, std::int64_t axis, std::size_t e) {
  std::size_t inner = 1;
  for (std::size_t d = std::size_t(axis) + 1; d < shape.size(); ++d) inner *= std::size_t(shape[d]);
  return (e / inner) % std::size_t(shape[std::size_t(axis)]);
}

/// Runs fold-batchnorm on `g`; returns the names of the Convs it folded a BN into. The pass's
/// bookkeeping attributes (npu.covers, npu.folded_bn) are removed again: the graph stays one
/// the reference interpreter runs (it refuses attributes ONNX does not define).
std::set<std::string> run_fold(Graph& g) {
  PassManager::from_names({kFoldPass}).run(g);
  std::set<std::string> folded;
  for (Node& n : g.nodes) {
    if (n.has_attr(fused_attr::kFoldedBn)) folded.insert(n.name);
    for (auto it = n.attrs.begin(); it != n.attrs.end();)
      it = it->first.rfind("npu.", 0) == 0 ? n.attrs.erase(it) : std::next(it);
  }
  return folded;
}

}  // namespace

QuantParams activation_params(const TensorRange& range) {
  const double lo = std::min(0.0f, range.lo), hi = std::max(0.0f, range.hi);
  QuantParams q;
  q.type = ElemType::Int8;
  q.axis = 1;
  double s = (hi - lo) / 255.0;
  if (!(s > 0)) s = 1.0;  // an all-zero tensor: any scale represents it exactly
  q.scale = {float(s)};
  const double zp = std::nearbyint(-128.0 - lo / double(q.scale[0]));
  q.zero_point = {std::int64_t(std::clamp(zp, -128.0, 127.0))};
  if (lo == -hi && hi > 0) q.zero_point = {0};  // symmetric: -128 + 127.5 rounds to 0 (half to even), not by float luck
  return q;
}

QuantParams weight_params(const Tensor& w, std::int64_t axis) {
  QuantParams q;
  q.type = ElemType::Int8;
  q.axis = axis;
  const std::size_t channels = std::size_t(w.shape.at(std::size_t(axis)));
  std::vector<float> max_abs(channels, 0.0f);
  for (std::size_t e = 0; e < w.float_data.size(); ++e) {
    float& m = max_abs[channel_of(w.shape, axis, e)];
    m = std::max(m, std::fabs(w.float_data[e]));
  }
  for (float m : max_abs) q.scale.push_back(m > 0 ? m / 127.0f : 1.0f);
  q.zero_point.assign(channels, 0);
  return q;
}

std::int64_t weight_axis(const Graph& g, const Node& n) {
  if (n.inputs.size() < 2 || !g.has_tensor(n.inputs[1])) return -1;
  const Tensor& w = g.tensor(n.inputs[1]);
  if (!has_float_data(w)) return -1;
  if (n.op_type == "Conv" && w.shape.size() >= 3) return 0;
  if (n.op_type == "Gemm" && w.shape.size() == 2) return n.attr_int("transB", 0) != 0 ? 0 : 1;
  if (n.op_type == "MatMul" && w.shape.size() == 2) return 1;
  // ConvTranspose [Cin, Cout/group, kh, kw]: its output channels are axis 1 when group is 1
  if (n.op_type == "ConvTranspose" && w.shape.size() == 4 && n.attr_int("group", 1) == 1) return 1;
  return -1;
}

void quantize_constant(Tensor& t, const QuantParams& q) {
  double lo = -127, hi = 127;  // symmetric int8 weights: -128 unused, as in ONNX Runtime's weight quantiser
  if (q.type == ElemType::Uint8) lo = 0, hi = 255;
  if (q.type == ElemType::Int32)
    lo = double(std::numeric_limits<std::int32_t>::min()), hi = double(std::numeric_limits<std::int32_t>::max());
  for (std::size_t e = 0; e < t.float_data.size(); ++e) {
    const std::size_t c = q.scale.size() > 1 ? channel_of(t.shape, q.axis, e) : 0;
    const double s = double(q.scale[c]), zp = double(q.zero_point[c]);
    const double v = std::clamp(std::nearbyint(double(t.float_data[e]) / s) + zp, lo, hi);
    t.float_data[e] = float((v - zp) * s);
  }
  t.quant = q;
}

std::set<std::string> materialised_tensors(const Graph& graph, const Strategy& strategy) {
  Graph g = graph;
  // In int8 the residual Add stays a separate ELTWISE add (fuse-residual declines on a
  // quantised Conv output: the int8 Add rescales both inputs), so the Conv output feeding it is
  // written out and needs its own grid.
  // hoist-activation declines on quantised tensors (their grids stay where they are), so the
  // activation keeps its place and the tensors around it are written out too.
  // fuse-add-layernorm, fuse-bias and fuse-attention decline on quantised tensors (the int8 Add
  // rescales; int8 has no online softmax): the Add's inputs, the scores and the probabilities are
  // written. fuse-norm-prologue declines on a quantised norm output (int8 has no prologue rule):
  // the norm's output is written. fuse-se-gate declines on a quantised gated tensor (the int8
  // Mul rescales): the gated tensor is written. fuse-rope declines on quantised tensors (int8
  // has no rotary rule): the projection's output and each rotary pass's output are written.
  // fuse-gemm-epilogue declines on a quantised GEMM output (int8 has no epilogue Add/Mul rule)
  // and fuse-swiglu on quantised outputs (no dual-GEMM rule): Llama's o-projection output
  // before its residual Add and the gate/up projections are written.
  static const std::set<std::string> kDeclineOnInt8 = {"fuse-residual", "hoist-activation", "fuse-add-layernorm",
                                                       "fuse-attention", "fuse-bias", "fuse-norm-prologue",
                                                       "fuse-se-gate", "fuse-rope", "fuse-gemm-epilogue",
                                                       "fuse-swiglu"};
  std::vector<std::string> passes;
  for (const std::string& p : strategy.passes)
    if (!kDeclineOnInt8.count(p))
      passes.push_back(p);
  PassManager::from_names(passes).run(g);
  std::set<std::string> out(g.inputs.begin(), g.inputs.end());
  for (const Node& n : g.nodes)
    for (const std::string& o : n.outputs)
      if (!o.empty()) out.insert(o);
  // Activations other than Relu/Clip stay separate in int8 (fuse-activation declines them on a
  // quantised graph: they run by table), so their input and output are written out too.
  for (const Node& n : graph.nodes)
    if (has_int8_lut(n.op_type) && !n.inputs.empty() && !n.outputs.empty()) {
      out.insert(n.inputs[0]);
      out.insert(n.outputs[0]);
    }
  return out;
}

namespace {

/// Bias of Conv/Gemm node `n` quantised with s_in x s_w[c]; false when it has none that fits.
bool quantize_bias(Graph& g, const Node& n, float s_in, const QuantParams& wq) {
  if ((n.op_type != "Conv" && n.op_type != "Gemm" && n.op_type != "ConvTranspose") || n.inputs.size() < 3 || n.inputs[2].empty() ||
      !g.has_tensor(n.inputs[2]))
    return false;
  Tensor& b = g.tensor(n.inputs[2]);
  if (!has_float_data(b) || b.quant || b.shape.size() != 1 || std::size_t(b.elements()) != wq.scale.size()) return false;
  QuantParams q;
  q.type = ElemType::Int32;
  q.axis = 0;
  for (float s : wq.scale) q.scale.push_back(s_in * s);
  q.zero_point.assign(q.scale.size(), 0);
  quantize_constant(b, q);
  return true;
}

// Throws ConfigError if `graph` carries quantisation parameters already (a QDQ/QLinear model).
void refuse_quantised(const Graph& graph) {
  for (const auto& [name, t] : graph.tensors)
    if (t.quant)
      throw ConfigError((graph.source.empty() ? graph.name : graph.source) + ": error: tensor '" + name +
                        "' already carries quantisation parameters (a QDQ/QLinear model); it is quantised already: "
                        "run it without calibration");
}

/// Node name -> (its weight's quantisation parameters, its input scale s_in; 0: none).
using WeightGrids = std::map<std::string, std::pair<QuantParams, float>>;

// Quantises every Conv/Gemm weight (per output channel) and bias (s_in x s_w[c]); counts them
// in r.weights and r.biases. Returns the grids chosen, for the quantise-then-fold flow.
WeightGrids quantize_weights(Graph& g, PtqResult& r) {
  auto input_scale = [&](const Node& n) -> float {
    auto it = r.ranges.find(n.inputs[0]);
    return it == r.ranges.end() ? 0.0f : activation_params(it->second).scale[0];
  };
  WeightGrids before_fold;
  for (const Node& n : g.nodes) {
    const std::int64_t axis = weight_axis(g, n);
    if (axis < 0) continue;
    Tensor& w = g.tensor(n.inputs[1]);
    if (!w.quant) {
      quantize_constant(w, weight_params(w, axis));
      ++r.weights;
    }
    const float s_in = input_scale(n);
    if (s_in > 0 && quantize_bias(g, n, s_in, *w.quant)) ++r.biases;
    before_fold[n.name] = {*w.quant, s_in};
  }
  return before_fold;
}

// The naive flow folds as if the weights were plain floats (fold-batchnorm declines quantised
// weights): the parameters are dropped first, the values stay on their int8 grid. Returns the
// number of BatchNorms folded.
int fold_after_quantising(Graph& g, const WeightGrids& before_fold) {
  for (const auto& [conv, params] : before_fold) {
    const Node& n = g.nodes[std::size_t(find_node(g, conv))];
    g.tensor(n.inputs[1]).quant.reset();
    if (n.inputs.size() > 2 && !n.inputs[2].empty()) g.tensor(n.inputs[2]).quant.reset();
  }
  const std::set<std::string> folded = run_fold(g);
  // The naive flow: folded weights (new tensors) rounded onto the grid chosen before folding;
  // the folded bias onto s_in x s_w_old[c]. Layers without a BN get their parameters back
  // (their values never left the grid, so this rounding changes nothing).
  for (const Node& n : g.nodes) {
    auto it = before_fold.find(n.name);
    if (it == before_fold.end()) continue;
    const auto& [wq, s_in] = it->second;
    Tensor& w = g.tensor(n.inputs[1]);
    if (has_float_data(w)) quantize_constant(w, wq);
    if (s_in > 0) quantize_bias(g, n, s_in, wq);
  }
  return int(folded.size());
}

// A constant operand of an element-wise Add/Mul (a detection head's anchor grid, a scale) is
// an int8 tensor like the activation it meets: per-tensor, on the grid of its own min/max
// (with 0), its values rounded onto that grid. An attention mask added to the scores (0 where
// a key is seen, -inf or -3.4e38 where not: mask sentinels) gets the range of its data widened
// down to 2 (out_lo - x_hi) (out the Add's output, x its other operand; -1 without ranges), so
// its sentinels (code -128) push every masked score below the output grid: it saturates at the
// output's lowest code, as a real -inf would; each Softmax reading that Add's output gets
// fused_attr::kMaskLowest (a key at code -128 weighs 0). Returns the number of such operands.
int quantize_eltwise_constants(Graph& g, const std::map<std::string, TensorRange>& ranges) {
  int n_quantised = 0;
  std::vector<std::string> mask_outputs;  // the mask Adds' outputs
  for (const Node& n : g.nodes) {
    if (n.op_type != "Add" && n.op_type != "Mul") continue;
    for (std::size_t k = 0; k < n.inputs.size(); ++k) {
      const std::string& in = n.inputs[k];
      if (in.empty() || !g.has_tensor(in)) continue;
      Tensor& t = g.tensor(in);
      if (!t.is_constant || t.quant || !has_float_data(t)) continue;
      TensorRange range = data_range(t.float_data);
      if (std::any_of(t.float_data.begin(), t.float_data.end(), [](float v) { return mask_sentinel(v) && v < 0; })) {
        const auto x = n.inputs.size() == 2 ? ranges.find(n.inputs[1 - k]) : ranges.end();
        const auto y = n.outputs.empty() ? ranges.end() : ranges.find(n.outputs[0]);
        const float reach = x != ranges.end() && y != ranges.end() ? 2.0f * (y->second.lo - x->second.hi) : -1.0f;
        range.lo = std::min(range.lo, reach < 0 ? reach : -1.0f);
        if (n.op_type == "Add" && !n.outputs.empty()) mask_outputs.push_back(n.outputs[0]);
      }
      const QuantParams q = activation_params(range);
      const double s = double(q.scale[0]), zp = double(q.zero_point[0]);
      for (float& v : t.float_data) v = float((std::clamp(std::nearbyint(double(v) / s) + zp, -128.0, 127.0) - zp) * s);
      t.quant = q;
      ++n_quantised;
    }
  }
  for (Node& s : g.nodes)
    if (s.op_type == "Softmax" && !s.inputs.empty() &&
        std::find(mask_outputs.begin(), mask_outputs.end(), s.inputs[0]) != mask_outputs.end())
      s.attrs[fused_attr::kMaskLowest] = std::int64_t(1);
  return n_quantised;
}

// A constant input of a Concat (ViT's class token, expanded to the batch and folded) moves into
// the output like the computed inputs: its min/max (with 0) joins the Concat's range before
// share_grids, so the shared grid covers it. Returns the constants given a range.
std::vector<std::string> range_concat_constants(const Graph& g, std::map<std::string, TensorRange>& ranges) {
  std::vector<std::string> out;
  for (const Node& n : g.nodes) {
    if (n.op_type != "Concat" || n.outputs.empty() || !ranges.count(n.outputs[0])) continue;
    for (const std::string& in : n.inputs) {
      if (in.empty() || !g.has_tensor(in) || ranges.count(in)) continue;
      const Tensor& t = g.tensor(in);
      if (t.quant || !has_float_data(t)) continue;
      TensorRange r;
      r.lo = r.hi = 0.0f;
      for (float v : t.float_data) r.lo = std::min(r.lo, v), r.hi = std::max(r.hi, v);
      ranges[in] = r;
      out.push_back(in);
    }
  }
  return out;
}

// After share_grids: each constant of range_concat_constants on its (the Concat's) grid, its
// values rounded onto it, as the int8 image stores them.
void quantize_concat_constants(Graph& g, const std::vector<std::string>& names,
                               const std::map<std::string, TensorRange>& ranges) {
  for (const std::string& name : names) {
    Tensor& t = g.tensor(name);
    const QuantParams q = activation_params(ranges.at(name));
    const double s = double(q.scale[0]), zp = double(q.zero_point[0]);
    for (float& v : t.float_data) v = float((std::clamp(std::nearbyint(double(v) / s) + zp, -128.0, 127.0) - zp) * s);
    t.quant = q;
  }
}

// int8 has no division rule (TFLite's converter folds a division by a constant into a
// multiplication too): Div(x, c) with a constant c becomes Mul(x, 1/c), exact in reals (the fp32
// values differ by at most one rounding). Returns how many it rewrote.
int divisions_to_multiplications(Graph& g) {
  int n_rewritten = 0;
  for (Node& n : g.nodes) {
    if (n.op_type != "Div" || n.inputs.size() != 2 || !g.has_tensor(n.inputs[1])) continue;
    const Tensor& c = g.tensor(n.inputs[1]);
    if (!has_float_data(c) || std::any_of(c.float_data.begin(), c.float_data.end(), [](float v) { return v == 0.0f; }))
      continue;
    Tensor r = c;
    r.name = c.name + ".reciprocal";
    for (float& v : r.float_data) v = 1.0f / v;
    const std::string name = r.name;
    if (!g.has_tensor(name)) g.tensors[name] = std::move(r);
    n.op_type = "Mul";
    n.inputs[1] = name;
    ++n_rewritten;
  }
  return n_rewritten;
}

// Tensors that int8 needs with zero point 0, which get a symmetric range [-m, m] (hence zero
// point 0, activation_params): a MatMul's computed B (attention's K^T and V: the int8 GEMM
// subtracts no zero point from B, the ISA has none, as for weights) and a ConvTranspose's input
// (its zero insertion writes 0 bytes, the real 0 only on such a grid). Returns how many ranges it
// widened.
int widen_zero_point_free(const Graph& g, std::map<std::string, TensorRange>& ranges) {
  int n_widened = 0;
  for (const Node& n : g.nodes) {
    std::string t;
    if (n.op_type == "MatMul" && n.inputs.size() >= 2 && g.has_tensor(n.inputs[1]) && !g.tensor(n.inputs[1]).is_constant)
      t = n.inputs[1];
    if (n.op_type == "ConvTranspose" && !n.inputs.empty()) t = n.inputs[0];
    auto it = t.empty() ? ranges.end() : ranges.find(t);
    if (it == ranges.end()) continue;
    const float m = std::max(std::fabs(it->second.lo), std::fabs(it->second.hi));
    if (it->second.lo == -m && it->second.hi == m) continue;
    it->second.lo = -m;
    it->second.hi = m;
    ++n_widened;
  }
  return n_widened;
}

}  // namespace

PtqResult quantize_graph(const Graph& graph, const Strategy& strategy, const std::vector<CalibSample>& samples,
                         const PtqOptions& options) {
  refuse_quantised(graph);
  const std::set<std::string> mat = materialised_tensors(graph, strategy);
  const bool folds = std::find(strategy.passes.begin(), strategy.passes.end(), kFoldPass) != strategy.passes.end();
  PtqResult r;
  r.graph = graph;
  Graph& g = r.graph;
  if (folds && options.order == FoldOrder::FoldThenQuantize) r.folded_bn = int(run_fold(g).size());
  divisions_to_multiplications(g);
  r.ranges = calibrate(g, samples, options.calibration);
  widen_zero_point_free(g, r.ranges);
  // A Softmax output goes onto TFLite's int8 softmax grid, scale 1/256 and zero point -128 (the
  // range [0, 255/256]), whatever its calibrated range: the int8 softmax rule writes onto it.
  for (const Node& n : g.nodes)
    if (n.op_type == "Softmax" && !n.outputs.empty() && r.ranges.count(n.outputs[0])) {
      TensorRange& range = r.ranges[n.outputs[0]];
      range.lo = 0.0f;
      range.hi = 255.0f / 256.0f;
    }
  // A Concat input far narrower than the concatenation (a detection head's 0..1 scores beside
  // pixel coordinates) is not put on the output's grid, which would round it to a few levels:
  // it is requantised onto that grid by a copy of its own (concat_requant.cpp), as TFLite's and
  // ONNX Runtime's int8 Concat rescale each input.
  std::set<std::string> mat_all = mat;
  for (const std::string& t : insert_concat_requant(g, r.ranges)) mat_all.insert(t);
  // Pools, views and Concat keep their input's grid in int8: one range per group, before any
  // scale (biases use their input's) is derived from them.
  std::vector<std::string> concat_constants = range_concat_constants(g, r.ranges);
  for (const std::string& t : range_gather_tables(g, r.ranges)) concat_constants.push_back(t);  // same treatment
  share_grids(g, r.ranges);
  if (widen_zero_point_free(g, r.ranges)) share_grids(g, r.ranges);  // their groups, now symmetric
  const WeightGrids before_fold = quantize_weights(g, r);
  if (folds && options.order == FoldOrder::QuantizeThenFold) r.folded_bn = fold_after_quantising(g, before_fold);
  for (const auto& [name, range] : r.ranges) {
    if (!mat_all.count(name) || !g.has_tensor(name)) continue;
    g.tensor(name).quant = activation_params(range);
    ++r.activations;
  }
  r.activations += quantize_eltwise_constants(g, r.ranges);
  quantize_concat_constants(g, concat_constants, r.ranges);
  r.activations += int(concat_constants.size());
  return r;
}

}  // namespace npu::compiler
