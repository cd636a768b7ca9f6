// The quantised reference's layout moves (Transpose, Split, Slice, nearest Resize, Gather at
// constant indices, Pad) and its int8 ReduceMean (quantised_rules.hpp). A move runs the fp32
// reference kernel on the int8 codes as floats: it only copies values, so the codes come out
// exact; a constant-mode Pad writes the code of its pad value on the tensor's grid.
#include <algorithm>
#include <climits>
#include <cmath>
#include <set>
#include <stdexcept>

#include "npu/compiler/reference/reference_interpreter.hpp"
#include "reference/quantised_rules.hpp"

namespace npu::compiler::qref {

SingleNode single_node_on_x(const Graph& g, const Node& n, const std::vector<std::int64_t>& shape,
                            const std::string& tag) {
  SingleNode r;
  r.graph.name = g.name + ":" + n.name + ":" + tag;
  r.graph.opset = g.opset;
  Tensor xt;
  xt.name = "x";
  xt.shape = shape;
  r.graph.tensors["x"] = xt;
  r.node = n;
  r.node.inputs.at(0) = "x";
  for (std::size_t i = 1; i < r.node.inputs.size(); ++i)
    if (!r.node.inputs[i].empty()) r.graph.tensors[r.node.inputs[i]] = g.tensor(r.node.inputs[i]);
  return r;
}

bool is_layout_move(const std::string& op) {
  static const std::set<std::string> kOps = {"Transpose", "Split", "Slice", "Resize", "Upsample", "Gather", "Pad",
                                             "Expand"};  // Expand: GQA's repeat of K/V heads
  return kOps.count(op) > 0;
}

std::int8_t pad_code(const Graph& g, const Node& n, const QuantGrid& grid) {
  double v = double(n.attr_float("value", 0.0f));  // opset < 11: the attribute
  if (n.inputs.size() > 2 && !n.inputs[2].empty()) {
    const Tensor* t = g.has_tensor(n.inputs[2]) ? &g.tensor(n.inputs[2]) : nullptr;
    if (!t || !t->is_constant || t->elements() != 1 || (t->float_data.empty() && t->int_data.empty()))
      throw std::invalid_argument("Pad's constant_value '" + n.inputs[2] +
                                  "' is not a constant scalar (int8 pads with its code on the tensor's grid)");
    v = !t->float_data.empty() ? double(t->float_data[0]) : double(t->int_data[0]);
  }
  return quantise(v, grid);
}

namespace {

// Refuses what is not a move of int8 values: a Gather whose indices are computed at run time
// (they are integers the int8 reference does not carry).
void check_move(const Graph& g, const Node& n) {
  if (n.op_type != "Gather") return;
  const std::string idx = n.inputs.size() > 1 ? n.inputs[1] : "";
  if (idx.empty() || !g.has_tensor(idx) || !g.tensor(idx).is_constant)
    throw std::invalid_argument("Gather by indices computed at run time ('" + idx +
                                "') has no int8 rule (a Gather at constant indices moves int8 values)");
}

}  // namespace

std::vector<std::vector<std::int8_t>> layout_move(const Graph& g, const Node& n, const QuantGrid& grid,
                                                  const std::vector<std::int64_t>& shape,
                                                  const std::vector<std::int8_t>& x) {
  check_move(g, n);
  // The node alone on input "x" (its other inputs: the graph's constants), run by the fp32
  // reference interpreter on the int8 codes as floats, without fake quantisation.
  SingleNode single = single_node_on_x(g, n, shape, "int8-move");
  Graph& one = single.graph;
  Node& m = single.node;
  if (n.op_type == "Pad" && n.attr_string("mode", "constant") == "constant") {
    // The pad value as its code on the grid (the real 0 -> the zero point), given both ways.
    const float code = float(pad_code(g, n, grid));
    m.attrs["value"] = code;
    if (g.opset >= 11) {
      Tensor v;
      v.name = "npu.int8_pad_value";
      v.is_constant = true;
      v.float_data = {code};
      one.tensors[v.name] = v;
      if (m.inputs.size() < 3) m.inputs.resize(3);
      m.inputs[2] = v.name;
      m.attrs.erase("value");  // opset 11+ Pad has no value attribute
    }
  }
  for (const std::string& o : m.outputs)
    if (!o.empty()) {
      one.tensors[o] = g.tensor(o);
      one.tensors[o].quant.reset();
      one.outputs.push_back(o);
    }
  one.nodes = {m};
  one.inputs = {"x"};
  RefTensor xs;
  xs.shape = shape;
  xs.f.assign(x.begin(), x.end());
  const RefTensorMap r = run_reference(one, {{"x", xs}});
  std::vector<std::vector<std::int8_t>> out;
  for (const std::string& o : m.outputs) {
    out.emplace_back();
    if (o.empty()) continue;
    for (float v : r.at(o).f) out.back().push_back(std::int8_t(std::lround(v)));  // exact: values are moved
  }
  return out;
}

std::vector<std::int64_t> reduce_axes(const Graph& g, const Node& n, std::size_t rank) {
  std::vector<std::int64_t> axes = n.attr_ints("axes");  // opset < 18
  if (n.inputs.size() > 1 && !n.inputs[1].empty()) {  // opset 18: an input
    const Tensor* t = g.has_tensor(n.inputs[1]) ? &g.tensor(n.inputs[1]) : nullptr;
    if (!t || !t->is_constant) throw std::invalid_argument("axes '" + n.inputs[1] + "' are computed at run time");
    axes = t->int_data;
  }
  if (axes.empty() && n.attr_int("noop_with_empty_axes", 0) != 0)
    throw std::invalid_argument("noop_with_empty_axes=1 with no axes has no int8 rule");
  std::set<std::int64_t> set;
  for (std::int64_t a : axes) {
    if (a < -std::int64_t(rank) || a >= std::int64_t(rank))
      throw std::invalid_argument("axis " + std::to_string(a) + " is out of range for rank " + std::to_string(rank));
    set.insert(a < 0 ? a + std::int64_t(rank) : a);
  }
  if (axes.empty())  // ONNX: no axes reduce all of them
    for (std::size_t d = 0; d < rank; ++d) set.insert(std::int64_t(d));
  return {set.begin(), set.end()};
}

std::vector<std::int8_t> reduce_mean(const std::vector<std::int64_t>& shape, const std::vector<std::int64_t>& axes,
                                     const std::vector<std::int8_t>& x, const QuantGrid& in, const QuantGrid& out) {
  // Output index of an input element: its coordinates with the reduced axes dropped.
  std::int64_t count = 1, kept = 1;
  for (std::size_t d = 0; d < shape.size(); ++d)
    (std::binary_search(axes.begin(), axes.end(), std::int64_t(d)) ? count : kept) *= shape[d];
  if (count <= 0) throw std::invalid_argument("the mean over an empty axis has no int8 rule");
  std::vector<std::int64_t> sum(std::size_t(kept), 0);  // sum of the raw codes
  for (std::size_t e = 0; e < x.size(); ++e) {
    std::int64_t rest = std::int64_t(e), o = 0, stride = 1;
    for (std::size_t d = shape.size(); d-- > 0;) {
      const std::int64_t c = rest % shape[d];
      rest /= shape[d];
      if (std::binary_search(axes.begin(), axes.end(), std::int64_t(d))) continue;
      o += c * stride;
      stride *= shape[d];
    }
    sum[std::size_t(o)] += x[e];
  }
  std::vector<std::int8_t> y(sum.size());
  const Multiplier m = quantize_multiplier(in.scale / (out.scale * double(count)));
  for (std::size_t k = 0; k < sum.size(); ++k) {
    if (in == out) {  // on the input's grid: TFLite's integer average, round half away from zero
      y[k] = average(sum[k], count);
      continue;
    }
    // An output grid of its own: TFLite's int8 MEAN, sum (x - zp_x) requantised by
    // s_x / (s_y n) (the int32 accumulator saturates, as TFLite's does not need to).
    const std::int64_t acc = std::clamp<std::int64_t>(sum[k] - count * in.zero_point, INT32_MIN, INT32_MAX);
    y[k] = saturate(std::int64_t(out.zero_point) + scale_by(std::int32_t(acc), m));
  }
  return y;
}

}  // namespace npu::compiler::qref
