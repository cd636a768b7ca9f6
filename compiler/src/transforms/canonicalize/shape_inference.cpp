// Static shape inference and host placement (shape_inference.hpp).
// Rules follow the ONNX operator specification, opsets 9-17 (onnx/docs/Operators.md).
#include "npu/compiler/transforms/canonicalize/shape_inference.hpp"
#include "npu/compiler/transforms/canonicalize/einsum_shape.hpp"
#include "npu/compiler/transforms/pass_registry.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <numeric>
#include <set>
#include <sstream>

#include "npu/compiler/ir/canonical_forms.hpp"
#include "npu/compiler/transforms/canonicalize/constant_folding.hpp"
#include "npu/compiler/frontend/onnx/onnx_node_inference.hpp"
#include "frontend/onnx/onnx_subgraph.hpp"
#include "frontend/onnx/paste_loop.hpp"
#include "transforms/canonicalize/operand_values.hpp"
#include "npu/hw_config/hw_config.hpp"

namespace npu::compiler {

namespace {

using Shape = std::vector<std::int64_t>;

std::string shape_str(const Shape& s) {
  std::string out = "[";
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (i) out += ",";
    out += s[i] < 0 ? std::string("?") : std::to_string(s[i]);
  }
  return out + "]";
}

std::int64_t product(const Shape& s, std::size_t begin, std::size_t end) {
  std::int64_t p = 1;
  for (std::size_t i = begin; i < end; ++i) p *= s[i];
  return p;
}

/// Shape-inference context of one node: typed access to inputs, error reporting.
class NodeCtx {
 public:
  NodeCtx(Graph& g, std::size_t index, const std::string& source)
      : g_(g), n_(g.nodes[index]), index_(index), source_(source) {}

  Node& node() { return n_; }

  [[noreturn]] void fail(const std::string& reason, const std::string& fix) const {
    throw ConfigError(source_ + ": error: node #" + std::to_string(index_) + " '" + n_.name +
                      "' (" + n_.op_type + "): " + reason + "; " + fix);
  }
  [[noreturn]] void mismatch(const std::string& reason) const {
    fail(reason,
         "the model's shapes are inconsistent: re-export it, or check --input-shape overrides");
  }

  bool has_input(std::size_t i) const { return i < n_.inputs.size() && !n_.inputs[i].empty(); }

  const Tensor& in(std::size_t i) const {
    if (!has_input(i))
      fail("missing required input " + std::to_string(i),
           "the ONNX operator spec lists the inputs this op needs");
    return g_.tensor(n_.inputs[i]);
  }
  const Shape& in_shape(std::size_t i) const { return in(i).shape; }

  std::size_t rank(std::size_t i, std::size_t min_rank) const {
    const Shape& s = in_shape(i);
    if (s.size() < min_rank)
      mismatch("input '" + n_.inputs[i] + "' has rank " + std::to_string(s.size()) +
               " " + shape_str(s) + ", this op needs rank >= " + std::to_string(min_rank));
    return s.size();
  }

  /// Constant int64 data of input i (Reshape shape, Split sizes...).
  const std::vector<std::int64_t>& const_ints(std::size_t i) const {
    const Tensor& t = in(i);
    if (!t.is_constant || (t.type != ElemType::Int64 && t.type != ElemType::Int32))
      fail("input '" + n_.inputs[i] + "' must be a constant integer tensor",
           "the compiler needs static shapes: export with constant folding enabled");
    return t.int_data;
  }

  /// Sets output i (creating the tensor if needed).
  void set_out(std::size_t i, Shape shape, ElemType type) {
    if (i >= n_.outputs.size() || n_.outputs[i].empty()) return;  // optional output absent
    for (std::int64_t d : shape) {
      // A zero extent is valid ONNX (an empty Split part, a Slice of nothing), but npu-sim
      // simulates no empty tensors: say so rather than blame the export.
      if (d == 0)
        fail("output '" + n_.outputs[i] + "' would have shape " + shape_str(shape) +
                 " with a zero-size dimension (an empty tensor)",
             "npu-sim does not simulate empty tensors: remove the empty output from the model (e.g. a "
             "Split part of size 0)");
      if (d < 0)
        mismatch("output '" + n_.outputs[i] + "' would have shape " + shape_str(shape) +
                 " with a negative dimension");
    }
    Tensor& t = g_.tensors[n_.outputs[i]];
    t.name = n_.outputs[i];
    t.shape = std::move(shape);
    t.type = type;
  }

  std::int64_t norm_axis(std::int64_t axis, std::size_t rank, const char* what) const {
    const auto r = static_cast<std::int64_t>(rank);
    if (axis < -r || axis >= r)
      fail(std::string(what) + " " + std::to_string(axis) + " is out of range for rank " +
               std::to_string(rank),
           "use an axis in [-rank, rank-1]");
    return axis < 0 ? axis + r : axis;
  }

  Graph& g_;
  Node& n_;
  std::size_t index_;
  const std::string& source_;
};

// ---- elementwise ----------------------------------------------------------------------

void infer_unary(NodeCtx& c) { c.set_out(0, c.in_shape(0), c.in(0).type); }

void infer_broadcast(NodeCtx& c) {
  Shape out = c.in_shape(0);
  for (std::size_t i = 1; i < c.node().inputs.size(); ++i) {
    auto b = broadcast_shapes(out, c.in_shape(i));
    if (!b)
      c.mismatch("inputs " + shape_str(out) + " and " + shape_str(c.in_shape(i)) +
                 " ('" + c.node().inputs[i] + "') cannot be broadcast (numpy rules)");
    out = *b;
  }
  c.set_out(0, out, c.in(0).type);
}

void infer_batchnorm(NodeCtx& c) {
  c.rank(0, 2);
  const Shape& x = c.in_shape(0);
  const std::int64_t channels = x[1];
  static const char* kNames[] = {"X", "scale", "B", "mean", "var"};
  for (std::size_t i = 1; i < 5; ++i) {
    const Shape& s = c.in_shape(i);
    if (s.size() != 1 || s[0] != channels)
      c.mismatch(std::string("input ") + kNames[i] + " '" + c.node().inputs[i] + "' has shape " +
                 shape_str(s) + ", expected [" + std::to_string(channels) +
                 "] (the channel count of X " + shape_str(x) + ")");
  }
  c.set_out(0, x, c.in(0).type);
  // Training-mode outputs (running mean/var, saved mean/var) are per-channel vectors.
  for (std::size_t i = 1; i < c.node().outputs.size(); ++i)
    c.set_out(i, {channels}, c.in(0).type);
}

// ---- convolution and pooling ----------------------------------------------------------

/// Resolves kernel/stride/dilation/pads/auto_pad into explicit attributes and the output
/// spatial sizes. `kernel` is the spatial kernel shape.
Shape resolve_window(NodeCtx& c, const Shape& x, const Shape& kernel, bool ceil_mode) {
  Node& n = c.node();
  const std::size_t spatial = x.size() - 2;
  const Shape ones(spatial, 1);
  Shape strides = n.attr_ints("strides", ones);
  Shape dilations = n.attr_ints("dilations", ones);
  if (strides.size() != spatial || dilations.size() != spatial)
    c.fail("strides/dilations have " + std::to_string(strides.size()) + "/" +
               std::to_string(dilations.size()) + " entries, expected " + std::to_string(spatial),
           "give one value per spatial dimension");
  for (std::size_t i = 0; i < spatial; ++i)
    if (strides[i] <= 0 || dilations[i] <= 0)
      c.fail("strides and dilations must be positive", "fix the attribute values");
  const std::string auto_pad = n.attr_string("auto_pad", "NOTSET");
  Shape pads = n.attr_ints("pads", Shape(2 * spatial, 0));
  if (pads.size() != 2 * spatial)
    c.fail("pads has " + std::to_string(pads.size()) + " entries, expected " +
               std::to_string(2 * spatial) + " (begin values then end values)",
           "fix the pads attribute");
  Shape out(spatial);
  for (std::size_t i = 0; i < spatial; ++i) {
    const std::int64_t eff_k = dilations[i] * (kernel[i] - 1) + 1;
    if (auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER") {
      // ONNX: output = ceil(in / stride); the total padding needed is split evenly, the odd
      // one at the end (SAME_UPPER) or the beginning (SAME_LOWER).
      const std::int64_t o = (x[2 + i] + strides[i] - 1) / strides[i];
      const std::int64_t total = std::max<std::int64_t>(0, (o - 1) * strides[i] + eff_k - x[2 + i]);
      const std::int64_t small = total / 2, big = total - small;
      pads[i] = auto_pad == "SAME_UPPER" ? small : big;
      pads[spatial + i] = auto_pad == "SAME_UPPER" ? big : small;
    } else if (auto_pad == "VALID") {
      pads[i] = pads[spatial + i] = 0;
    } else if (auto_pad != "NOTSET") {
      c.fail("auto_pad '" + auto_pad + "' is not one of NOTSET, SAME_UPPER, SAME_LOWER, VALID",
             "fix the attribute");
    }
    if (pads[i] < 0 || pads[spatial + i] < 0) c.fail("negative pads", "fix the pads attribute");
    out[i] = window_output_size(x[2 + i], kernel[i], strides[i], dilations[i], pads[i],
                                pads[spatial + i], ceil_mode);
    if (out[i] <= 0)
      c.mismatch("the window (kernel " + std::to_string(kernel[i]) + ", dilation " +
                 std::to_string(dilations[i]) + ") does not fit spatial dimension " +
                 std::to_string(i) + " of size " + std::to_string(x[2 + i]) + " plus padding");
  }
  n.attrs["kernel_shape"] = kernel;
  n.attrs["strides"] = strides;
  n.attrs["dilations"] = dilations;
  n.attrs["pads"] = pads;
  n.attrs.erase("auto_pad");
  return out;
}

/// ONNX Conv's T is a float type (tensor(float16), tensor(float), tensor(double); bfloat16 from
/// opset 22): an integer X or W is invalid ONNX (ConvInteger is the integer op). Accepting one
/// compiled with the input counted at 4 bytes an element and loaded at 1 (a new-user test).
void check_conv_float_inputs(NodeCtx& c) {
  for (std::size_t i : {std::size_t(0), std::size_t(1)}) {
    const ElemType t = c.in(i).type;
    const char* name = t == ElemType::Int64 ? "int64" : t == ElemType::Int32 ? "int32" : t == ElemType::Bool ? "bool" : "";
    if (*name)
      c.fail(std::string(i == 0 ? "input X '" : "weight W '") + c.node().inputs[i] + "' is " + name +
                 ", but ONNX Conv takes float types only (float16, float, double)",
             "give the model a float tensor there (declare the graph input as float, or Cast it to float before "
             "the Conv); an integer convolution is ConvInteger, which npu-sim does not lower");
  }
}

void infer_conv(NodeCtx& c) {
  Node& n = c.node();
  check_conv_float_inputs(c);
  const std::size_t r = c.rank(0, 3);
  const Shape& x = c.in_shape(0);
  const Shape& w = c.in_shape(1);
  if (w.size() != r)
    c.mismatch("weight '" + n.inputs[1] + "' " + shape_str(w) + " has rank " +
               std::to_string(w.size()) + " but X " + shape_str(x) + " has rank " +
               std::to_string(r));
  const std::int64_t group = n.attr_int("group", 1);
  if (group <= 0) c.fail("group must be positive", "fix the group attribute");
  if (w[1] * group != x[1])
    c.mismatch("input channels " + std::to_string(x[1]) + " of X " + shape_str(x) +
               " do not match weight '" + n.inputs[1] + "' " + shape_str(w) + ": W[1] " +
               std::to_string(w[1]) + " x group " + std::to_string(group) + " = " +
               std::to_string(w[1] * group));
  if (w[0] % group != 0)
    c.mismatch("output channels " + std::to_string(w[0]) + " are not a multiple of group " +
               std::to_string(group));
  if (c.has_input(2)) {
    const Shape& b = c.in_shape(2);
    if (b.size() != 1 || b[0] != w[0])
      c.mismatch("bias '" + n.inputs[2] + "' " + shape_str(b) + " must be [" +
                 std::to_string(w[0]) + "]");
  }
  const Shape kernel(w.begin() + 2, w.end());
  const Shape attr_kernel = n.attr_ints("kernel_shape", kernel);
  if (attr_kernel != kernel)
    c.mismatch("kernel_shape " + shape_str(attr_kernel) + " disagrees with weight '" +
               n.inputs[1] + "' " + shape_str(w));
  Shape spatial = resolve_window(c, x, kernel, false);
  n.attrs["group"] = group;
  Shape out{x[0], w[0]};
  out.insert(out.end(), spatial.begin(), spatial.end());
  c.set_out(0, out, c.in(0).type);
}

void infer_pool(NodeCtx& c) {
  Node& n = c.node();
  c.rank(0, 3);
  const Shape& x = c.in_shape(0);
  if (!n.has_attr("kernel_shape"))
    c.fail("missing kernel_shape attribute", "pooling needs an explicit kernel_shape");
  const Shape kernel = n.attr_ints("kernel_shape");
  if (kernel.size() != x.size() - 2)
    c.mismatch("kernel_shape " + shape_str(kernel) + " does not match the " +
               std::to_string(x.size() - 2) + " spatial dimensions of X " + shape_str(x));
  for (std::int64_t k : kernel)
    if (k <= 0) c.fail("kernel_shape entries must be positive", "fix kernel_shape");
  const bool ceil_mode = n.attr_int("ceil_mode", 0) != 0;
  Shape spatial = resolve_window(c, x, kernel, ceil_mode);
  n.attrs["ceil_mode"] = std::int64_t{ceil_mode ? 1 : 0};
  Shape out{x[0], x[1]};
  out.insert(out.end(), spatial.begin(), spatial.end());
  c.set_out(0, out, c.in(0).type);
  c.set_out(1, out, ElemType::Int64);  // MaxPool Indices
}

void infer_global_pool(NodeCtx& c) {
  c.rank(0, 3);
  Shape out = c.in_shape(0);
  std::fill(out.begin() + 2, out.end(), 1);
  c.set_out(0, out, c.in(0).type);
}

// ---- matrix products ------------------------------------------------------------------

void infer_gemm(NodeCtx& c) {
  Node& n = c.node();
  const Shape& a = c.in_shape(0);
  const Shape& b = c.in_shape(1);
  if (a.size() != 2 || b.size() != 2)
    c.mismatch("Gemm needs 2-D A and B, got " + shape_str(a) + " and " + shape_str(b) +
               " (insert a Flatten before it)");
  const std::int64_t trans_a = n.attr_int("transA", 0), trans_b = n.attr_int("transB", 0);
  const std::int64_t m = trans_a ? a[1] : a[0], k = trans_a ? a[0] : a[1];
  const std::int64_t kb = trans_b ? b[1] : b[0], nn = trans_b ? b[0] : b[1];
  if (k != kb)
    c.mismatch("inner dimensions differ: A " + shape_str(a) + (trans_a ? " (transA)" : "") +
               " gives K=" + std::to_string(k) + ", B " + shape_str(b) +
               (trans_b ? " (transB)" : "") + " gives K=" + std::to_string(kb));
  if (c.has_input(2) && !broadcast_shapes(c.in_shape(2), {m, nn}))
    c.mismatch("C " + shape_str(c.in_shape(2)) + " cannot be broadcast to [" +
               std::to_string(m) + "," + std::to_string(nn) + "]");
  n.attrs["alpha"] = n.attr_float("alpha", 1.0f);
  n.attrs["beta"] = n.attr_float("beta", 1.0f);
  n.attrs["transA"] = trans_a;
  n.attrs["transB"] = trans_b;
  c.set_out(0, {m, nn}, c.in(0).type);
}

void infer_matmul(NodeCtx& c) {
  Shape a = c.in_shape(0), b = c.in_shape(1);
  if (a.empty() || b.empty()) c.mismatch("MatMul inputs must have rank >= 1");
  const bool a_vec = a.size() == 1, b_vec = b.size() == 1;
  if (a_vec) a.insert(a.begin(), 1);
  if (b_vec) b.push_back(1);
  if (a.back() != b[b.size() - 2])
    c.mismatch("inner dimensions differ: " + shape_str(c.in_shape(0)) + " x " +
               shape_str(c.in_shape(1)));
  const Shape batch_a(a.begin(), a.end() - 2), batch_b(b.begin(), b.end() - 2);
  auto batch = broadcast_shapes(batch_a, batch_b);
  if (!batch)
    c.mismatch("batch dimensions " + shape_str(batch_a) + " and " + shape_str(batch_b) +
               " cannot be broadcast");
  Shape out = *batch;
  if (!a_vec) out.push_back(a[a.size() - 2]);
  if (!b_vec) out.push_back(b.back());
  c.set_out(0, out, c.in(0).type);
}

// ---- data movement --------------------------------------------------------------------

void infer_concat(NodeCtx& c) {
  Node& n = c.node();
  const Shape& first = c.in_shape(0);
  if (!n.has_attr("axis")) c.fail("missing axis attribute", "Concat needs an axis");
  const std::int64_t axis = c.norm_axis(n.attr_int("axis", 0), first.size(), "axis");
  Shape out = first;
  for (std::size_t i = 1; i < n.inputs.size(); ++i) {
    const Shape& s = c.in_shape(i);
    bool ok = s.size() == first.size();
    for (std::size_t d = 0; ok && d < s.size(); ++d)
      if (static_cast<std::int64_t>(d) != axis && s[d] != first[d]) ok = false;
    if (!ok)
      c.mismatch("input '" + n.inputs[i] + "' " + shape_str(s) + " differs from " +
                 shape_str(first) + " outside the concat axis " + std::to_string(axis));
    out[axis] += s[axis];
  }
  n.attrs["axis"] = axis;
  c.set_out(0, out, c.in(0).type);
}

void infer_flatten(NodeCtx& c) {
  Node& n = c.node();
  const Shape& x = c.in_shape(0);
  const auto r = static_cast<std::int64_t>(x.size());
  std::int64_t axis = n.attr_int("axis", 1);
  if (axis < -r || axis > r) c.fail("axis out of range", "use an axis in [-rank, rank]");
  if (axis < 0) axis += r;
  n.attrs["axis"] = axis;
  c.set_out(0, {product(x, 0, axis), product(x, axis, x.size())}, c.in(0).type);
}

void infer_reshape(NodeCtx& c) {
  Node& n = c.node();
  const Shape& x = c.in_shape(0);
  const std::vector<std::int64_t>& spec = c.const_ints(1);
  const bool allow_zero = n.attr_int("allowzero", 0) != 0;
  Shape out(spec.size());
  int infer_at = -1;
  std::int64_t known = 1;
  for (std::size_t i = 0; i < spec.size(); ++i) {
    std::int64_t d = spec[i];
    if (d == 0 && !allow_zero) {
      if (i >= x.size())
        c.mismatch("shape entry " + std::to_string(i) + " is 0 (copy) but the input " +
                   shape_str(x) + " has no dimension " + std::to_string(i));
      d = x[i];
    }
    if (d == -1) {
      if (infer_at >= 0) c.mismatch("more than one -1 in the target shape");
      infer_at = static_cast<int>(i);
      continue;
    }
    if (d <= 0) c.mismatch("target shape entry " + std::to_string(spec[i]) + " is not allowed");
    out[i] = d;
    known *= d;
  }
  const std::int64_t total = product(x, 0, x.size());
  if (infer_at >= 0) {
    if (known == 0 || total % known != 0)
      c.mismatch("cannot infer the -1 entry: " + std::to_string(total) +
                 " elements are not divisible by " + std::to_string(known));
    out[infer_at] = total / known;
  } else if (known != total) {
    c.mismatch("input " + shape_str(x) + " has " + std::to_string(total) +
               " elements, target shape " + shape_str(out) + " has " + std::to_string(known));
  }
  c.set_out(0, out, c.in(0).type);
}

void infer_transpose(NodeCtx& c) {
  Node& n = c.node();
  const Shape& x = c.in_shape(0);
  Shape perm(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) perm[i] = static_cast<std::int64_t>(x.size() - 1 - i);
  perm = n.attr_ints("perm", perm);
  Shape sorted = perm;
  std::sort(sorted.begin(), sorted.end());
  for (std::size_t i = 0; i < sorted.size(); ++i)
    if (sorted.size() != x.size() || sorted[i] != static_cast<std::int64_t>(i))
      c.mismatch("perm " + shape_str(perm) + " is not a permutation of the " +
                 std::to_string(x.size()) + " axes of " + shape_str(x));
  Shape out(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) out[i] = x[perm[i]];
  n.attrs["perm"] = perm;
  c.set_out(0, out, c.in(0).type);
}

void infer_split(NodeCtx& c) {
  Node& n = c.node();
  const Shape& x = c.in_shape(0);
  const std::int64_t axis = c.norm_axis(n.attr_int("axis", 0), x.size(), "axis");
  Shape split = n.attr_ints("split");
  if (c.has_input(1)) split = c.const_ints(1);  // opset >= 13: sizes as an input
  const std::size_t outs = n.outputs.size();
  if (split.empty()) {
    if (x[axis] % static_cast<std::int64_t>(outs) != 0)
      c.mismatch("dimension " + std::to_string(x[axis]) + " of axis " + std::to_string(axis) +
                 " cannot be split evenly into " + std::to_string(outs) + " outputs");
    split.assign(outs, x[axis] / static_cast<std::int64_t>(outs));
  }
  if (split.size() != outs)
    c.mismatch("split has " + std::to_string(split.size()) + " sizes for " +
               std::to_string(outs) + " outputs");
  std::int64_t sum = 0;
  for (std::int64_t s : split) sum += s;
  if (sum != x[axis])
    c.mismatch("split sizes " + shape_str(split) + " sum to " + std::to_string(sum) +
               ", axis " + std::to_string(axis) + " of " + shape_str(x) + " has " +
               std::to_string(x[axis]));
  n.attrs["axis"] = axis;
  n.attrs["split"] = split;
  for (std::size_t i = 0; i < outs; ++i) {
    Shape o = x;
    o[axis] = split[i];
    c.set_out(i, o, c.in(0).type);
  }
}

void infer_resize(NodeCtx& c) {
  Node& n = c.node();
  const Shape& x = c.in_shape(0);
  Shape out(x.size());
  if (n.has_attr("sizes")) {
    out = n.attr_ints("sizes");
    if (out.size() != x.size())
      c.mismatch("sizes " + shape_str(out) + " has a different rank than X " + shape_str(x));
  } else if (n.has_attr("scales")) {
    const auto* scales = std::get_if<std::vector<float>>(&n.attrs.at("scales"));
    if (!scales || scales->size() != x.size())
      c.mismatch("scales must be a list of " + std::to_string(x.size()) + " floats");
    // ONNX Resize: output_dimension = floor(input_dimension * scale).
    for (std::size_t i = 0; i < x.size(); ++i)
      out[i] = static_cast<std::int64_t>(std::floor(static_cast<double>(x[i]) * (*scales)[i]));
  } else {
    c.fail("neither scales nor sizes is known",
           "give Resize constant scales or sizes (export with constant folding)");
  }
  c.set_out(0, out, c.in(0).type);
}

void infer_softmax(NodeCtx& c) {
  Node& n = c.node();
  const Shape& x = c.in_shape(0);
  n.attrs["axis"] = c.norm_axis(n.attr_int("axis", -1), x.size(), "axis");
  c.set_out(0, x, c.in(0).type);
}

using Rule = void (*)(NodeCtx&);

const std::map<std::string, Rule>& rules() {
  static const std::map<std::string, Rule> kRules = {
      {"Add", infer_broadcast},
      {"AveragePool", infer_pool},
      {"BatchNormalization", infer_batchnorm},
      {"Clip", infer_unary},
      {"Concat", infer_concat},
      {"Conv", infer_conv},
      {"Flatten", infer_flatten},
      {"Gemm", infer_gemm},
      {"GlobalAveragePool", infer_global_pool},
      {"HardSigmoid", infer_unary},
      {"HardSwish", infer_unary},
      {"Identity", infer_unary},
      {"LeakyRelu", infer_unary},
      {"MatMul", infer_matmul},
      {"MaxPool", infer_pool},
      {"Mul", infer_broadcast},
      {"Pow", infer_broadcast},
      {"Relu", infer_unary},
      {"Reshape", infer_reshape},
      {"Resize", infer_resize},
      {"Sigmoid", infer_unary},
      {"Softmax", infer_softmax},
      {"Split", infer_split},
      {"Transpose", infer_transpose},
  };
  return kRules;
}

}  // namespace

const std::vector<std::string>& supported_ops() {
  static const std::vector<std::string> kOps = [] {
    std::vector<std::string> v;
    for (const auto& [op, rule] : rules()) v.push_back(op);
    return v;
  }();
  return kOps;
}

bool is_supported_op(const std::string& op_type) { return rules().count(op_type) != 0; }

bool is_host_only_op(const std::string& op_type) {
  // Every standard op has an NPU lowering or a host fallback decided per node by
  // place_host_ops(); no op type is host-only by name any more.
  (void)op_type;
  return false;
}

std::optional<std::vector<std::int64_t>> broadcast_shapes(const std::vector<std::int64_t>& a,
                                                          const std::vector<std::int64_t>& b) {
  const std::size_t r = std::max(a.size(), b.size());
  std::vector<std::int64_t> out(r);
  for (std::size_t i = 0; i < r; ++i) {
    const std::int64_t da = i < r - a.size() ? 1 : a[i - (r - a.size())];
    const std::int64_t db = i < r - b.size() ? 1 : b[i - (r - b.size())];
    if (da != db && da != 1 && db != 1) return std::nullopt;
    out[i] = da == 1 ? db : da;
  }
  return out;
}

std::int64_t window_output_size(std::int64_t in, std::int64_t kernel, std::int64_t stride,
                                std::int64_t dilation, std::int64_t pad_begin,
                                std::int64_t pad_end, bool ceil_mode) {
  const std::int64_t span = in + pad_begin + pad_end - dilation * (kernel - 1) - 1;
  if (span < 0) return 0;
  std::int64_t out = (ceil_mode ? (span + stride - 1) / stride : span / stride) + 1;
  // PyTorch / onnxruntime: the last window must start inside the input or the begin padding.
  if (ceil_mode && (out - 1) * stride >= in + pad_begin) --out;
  return out;
}

void infer_node(Graph& graph, std::size_t i, const std::string& source) {
  NodeCtx ctx(graph, i, source);
  Node& n = graph.nodes[i];
  auto rule = rules().find(n.op_type);
  try {
    if (rule != rules().end()) {
      rule->second(ctx);
    } else {
      bool known = !n.outputs.empty();
      for (const std::string& o : n.outputs)
        if (!o.empty() && (!graph.has_tensor(o) || !graph.tensor(o).shape_known())) known = false;
      if (!known) {
        if (n.onnx_proto.empty()) {
          std::string list;
          for (const std::string& op : supported_ops()) list += (list.empty() ? "" : ", ") + op;
          ctx.fail("op type '" + n.op_type + "' is not supported by the compiler",
                   "remove or replace the node (supported: " + list + ")");
        }
        onnx_infer_node(graph, i, source);  // ONNX's own rule for every other standard op
        if (n.op_type == "Einsum" && n.outputs.size() == 1 && !graph.tensor(n.outputs[0]).shape_known())
          if (const auto e = einsum_shape(graph, n)) graph.tensors[n.outputs[0]].shape = e->output;  // rank only from ONNX
      }
    }
  } catch (const ConfigError& e) {
    const std::string msg = e.what();
    if (msg.rfind(source + ":", 0) == 0) throw;
    // Attribute type errors from graph.cpp already name the node and say how to fix it.
    throw ConfigError(source + ": error: node #" + std::to_string(i) + ": " + msg);
  }
}

namespace {
// Checks that every graph input has a tensor of a fully known shape.
void check_graph_inputs(const Graph& graph, const std::string& source) {
  for (const std::string& name : graph.inputs) {
    auto it = graph.tensors.find(name);
    if (it == graph.tensors.end())
      throw ConfigError(source + ": error: graph input '" + name +
                        "' has no tensor; the model is malformed (re-export it)");
    if (!it->second.shape_known())
      throw ConfigError(source + ": error: graph input '" + name + "' has shape " +
                        shape_str(it->second.shape) +
                        " with a dynamic dimension; re-export with a fixed input shape or pass "
                        "--input-shape " + name + "=1x3x224x224");
  }
}

// An If on a constant condition becomes the nodes of its branch, processed from `i`: true
// when node `i` was such an If (`folded` keeps one flag per node).
bool inline_if_at(Graph& graph, std::size_t i, const std::string& source, std::vector<bool>& folded) {
  if (graph.nodes[i].op_type == "If" && graph.nodes[i].inputs.size() == 1 &&
      graph.has_tensor(graph.nodes[i].inputs[0]) && graph.tensor(graph.nodes[i].inputs[0]).is_constant) {
    const std::size_t before = graph.nodes.size();
    if (inline_constant_if(graph, i, source)) {
      folded.insert(folded.begin() + std::ptrdiff_t(i), graph.nodes.size() + 1 - before, false);
      folded.erase(folded.begin() + std::ptrdiff_t(i) + std::ptrdiff_t(graph.nodes.size() + 1 - before));
      return true;
    }
  }
  return false;
}

// Checks that each input of node `n` is defined before it; true when one has an unknown shape.
bool has_dynamic_input(const Graph& graph, const Node& n, const NodeCtx& ctx, const std::set<std::string>& defined) {
  bool dynamic_input = false;
  for (std::size_t k = 0; k < n.inputs.size(); ++k) {
    const std::string& in = n.inputs[k];
    if (in.empty()) continue;
    if ((!defined.count(in) && !(graph.has_tensor(in) && graph.tensor(in).is_constant)) || !graph.has_tensor(in))
      ctx.fail("input '" + in + "' is not a graph input, a constant or the output of an "
               "earlier node",
               "the model is truncated or its nodes are not in topological order");
    if (!graph.tensor(in).shape_known()) dynamic_input = true;
  }
  return dynamic_input;
}

// Downstream of a data-dependent size (NonMaxSuppression, NonZero...): nothing to
// infer statically; place_host_ops() puts the node on the host.
void mark_outputs_dynamic(Graph& graph, const Node& n) {
  for (const std::string& o : n.outputs)
    if (!o.empty()) {
      Tensor& t = graph.tensors[o];
      t.name = o;
      if (t.shape.empty() || t.shape_known()) t.shape = {-1};
    }
}

// Sized by the --dynamic-size bound: its outputs are too. Two independently bounded
// sizes may disagree where the real ones match (e.g. a broadcast of two NonZero
// results): then the node stays unsized and goes to the host, as without the bound.
void infer_bounded_node(Graph& graph, std::size_t i, const std::string& source) {
  const Node& n = graph.nodes[i];
  try {
    infer_node(graph, i, source);
    for (const auto& o : n.outputs)
      if (!o.empty()) graph.bounded_tensors.insert(o);
  } catch (const ConfigError&) {
    for (const auto& o : n.outputs)
      if (!o.empty()) {
        Tensor& t = graph.tensors[o];
        t.name = o;
        t.shape = {-1};
      }
  }
}

// Removes the nodes folded into constants, then the constants nothing reads any more.
void drop_folded(Graph& graph, const std::vector<bool>& folded, bool any_folded) {
  if (any_folded) {
    std::vector<Node> kept;
    for (std::size_t i = 0; i < graph.nodes.size(); ++i)
      if (!folded[i]) kept.push_back(std::move(graph.nodes[i]));
    graph.nodes = std::move(kept);
  }
  // Drop constants nothing reads any more (folded shape arithmetic, bounds moved into
  // attributes); graph outputs stay.
  std::set<std::string> read(graph.outputs.begin(), graph.outputs.end());
  for (const Node& n : graph.nodes) read.insert(n.inputs.begin(), n.inputs.end());
  for (auto it = graph.tensors.begin(); it != graph.tensors.end();) {
    if (it->second.is_constant && !read.count(it->first)) it = graph.tensors.erase(it);
    else ++it;
  }
}
}  // namespace

void infer_shapes(Graph& graph, const std::string& source) {
  check_graph_inputs(graph, source);
  std::set<std::string> defined;
  for (const auto& [name, t] : graph.tensors)
    if (t.is_constant) defined.insert(name);
  for (const std::string& name : graph.inputs) defined.insert(name);

  std::vector<bool> folded(graph.nodes.size(), false);
  bool any_folded = false;
  for (std::size_t i = 0; i < graph.nodes.size(); ++i) {
    if (inline_if_at(graph, i, source, folded)) {
      --i;
      continue;
    }
    if (bound_paste_loop(graph, i)) {  // Mask R-CNN's paste-masks Loop, sized [M, H, W] (paste_loop.hpp)
      defined.insert(graph.nodes[i].outputs[0]);
      continue;
    }
    NodeCtx ctx(graph, i, source);
    Node& n = graph.nodes[i];
    const bool dynamic_input = has_dynamic_input(graph, n, ctx, defined);
    for (const std::string& o : n.outputs)
      if (!o.empty()) defined.insert(o);
    if (dynamic_input) {
      mark_outputs_dynamic(graph, n);
      continue;
    }
    // Computable now (shape arithmetic, Identity of a weight...): becomes constants.
    if (fold_node(graph, i, source)) {
      folded[i] = true;
      any_folded = true;
      for (const auto& in : n.inputs)
        if (graph.bounded_tensors.count(in))
          for (const auto& o : n.outputs) graph.bounded_tensors.insert(o);
      continue;
    }
    const std::string where = source + ": error: node #" + std::to_string(i) + " '" + n.name + "' (" + n.op_type + ")";
    canonicalise_node(graph, n, where);
    bool reads_bounded = false;
    for (const auto& in : n.inputs) reads_bounded = reads_bounded || graph.bounded_tensors.count(in);
    if (reads_bounded) infer_bounded_node(graph, i, source);
    else infer_node(graph, i, source);
    check_constant_operands(graph, graph.nodes[i], where);
  }
  drop_folded(graph, folded, any_folded);
}

// ---- the pass ----------------------------------------------------------------------------

/// infer-shapes: shapes of every tensor, constant subgraphs folded (constant_folding.hpp).
class InferShapes : public ImportPass {
 public:
  std::string name() const override { return "infer-shapes"; }
  std::string description() const override {
    return "infer every tensor's shape and dtype; fold constant subgraphs into initializers";
  }
  std::vector<Decision> run(Graph& graph, const PassContext& ctx) const override {
    const std::size_t nodes_before = graph.nodes.size();
    infer_shapes(graph, ctx.source);
    std::vector<Decision> out{summary_decision(name(), ctx.model,
                                               "inferred " + std::to_string(graph.tensors.size()) +
                                                   " tensor shape(s); folded " +
                                                   std::to_string(nodes_before - graph.nodes.size()) +
                                                   " constant node(s)")};
    for (const Node& n : graph.nodes)  // paste-masks Loops sized by --dynamic-size (paste_loop.hpp)
      if (const std::string bound = paste_loop_bound_text(graph, n); !bound.empty()) {
        Decision d;
        d.pass = name();
        d.nodes = {n.name};
        d.label = n.name;
        d.outcome = DecisionOutcome::Applied;
        d.verb = "bounded";
        d.reason = bound;
        out.push_back(d);
      }
    return out;
  }
};

NPU_REGISTER_PASS(InferShapes, 100);

}  // namespace npu::compiler
