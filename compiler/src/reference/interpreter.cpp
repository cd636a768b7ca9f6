// The reference interpreter's run loop (reference_interpreter.hpp): binds inputs and
// constants, runs each node's kernel from the op table in graph order, checks every output
// against the shape inferred at load, and frees intermediates after their last reader.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <set>
#include <thread>

#include "npu/compiler/reference/reference_interpreter.hpp"
#include "npu/hw_config/hw_config.hpp"
#include "npu/base/user_text.hpp"
#include "reference/ref_ops.hpp"

namespace npu::compiler {

std::int64_t RefTensor::elements() const {
  std::int64_t n = 1;
  for (std::int64_t d : shape) n *= d;
  return n;
}

RefTensor RefTensor::zeros(std::vector<std::int64_t> shape, float value) {
  RefTensor t;
  t.shape = std::move(shape);
  t.f.assign(static_cast<std::size_t>(t.elements()), value);
  return t;
}

std::vector<std::string> reference_ops() {
  std::vector<std::string> v;
  for (const auto& [op, kernel] : reference::op_table()) v.push_back(op);
  return v;
}

TensorDiff compare_tensors(const RefTensor& a, const RefTensor& b) {
  if (a.shape != b.shape || a.is_float() != b.is_float())
    throw ConfigError("error: cannot compare a " + reference::shape_str(a.shape) + (a.is_float() ? " float" : " integer") +
                      " tensor with a " + reference::shape_str(b.shape) + (b.is_float() ? " float" : " integer") +
                      " tensor; the outputs do not match in shape or element type");
  TensorDiff d;
  const std::size_t n = static_cast<std::size_t>(a.elements());
  for (std::size_t k = 0; k < n; ++k) {
    const double x = a.is_float() ? a.f[k] : double(a.i[k]);
    const double y = b.is_float() ? b.f[k] : double(b.i[k]);
    // A NaN on either side makes the difference NaN; keep it visible (max() would drop it).
    const double diff = std::fabs(x - y);
    if (std::isnan(diff)) d.max_abs = NAN;
    else if (diff > d.max_abs) d.max_abs = diff;  // false once max_abs is NaN
    d.max_ref = std::max(d.max_ref, std::fabs(y));
  }
  d.max_rel = d.max_ref > 0 ? d.max_abs / d.max_ref : (d.max_abs == 0 ? 0.0 : INFINITY);
  return d;
}

namespace {

std::string source_of(const Graph& g) { return g.source.empty() ? "graph '" + echo(g.name) + "'" : g.source; }

RefTensor from_constant(const Graph& g, const Tensor& t) {
  RefTensor r;
  r.shape = t.shape;
  const std::int64_t n = t.elements();
  if (t.type == ElemType::Float32 || t.type == ElemType::Float16) {
    r.type = ElemType::Float32;
    r.f = t.float_data;
  } else {
    r.type = t.type;
    r.i = t.int_data;
  }
  const std::size_t have = r.is_float() ? r.f.size() : r.i.size();
  if (n < 0 || have != static_cast<std::size_t>(n))
    throw ConfigError(source_of(g) + ": error: constant tensor '" + echo(t.name) + "' (" + reference::shape_str(t.shape) +
                      ") has " + std::to_string(have) +
                      " values of data; the reference interpreter needs every constant's data (the built-in zoo "
                      "models carry shapes only): run it on an .onnx file");
  return r;
}

bool float_kind(ElemType t) { return t == ElemType::Float32 || t == ElemType::Float16; }

/// ONNX QuantizeLinear then DequantizeLinear of `t` with `q` (reference_interpreter.hpp,
/// ReferenceOptions::apply_quant). Rounding: half to even (std::nearbyint in the default
/// rounding mode), as the ONNX spec says.
void fake_quantize(const Graph& g, const std::string& name, RefTensor& t, const QuantParams& q) {
  if (!t.is_float() || q.scale.empty() || q.zero_point.size() != q.scale.size())
    throw ConfigError(source_of(g) + ": error: tensor '" + echo(name) + "' carries quantisation parameters with " +
                      std::to_string(q.scale.size()) + " scales and " + std::to_string(q.zero_point.size()) +
                      " zero points; the model's QuantizeLinear/DequantizeLinear parameters are malformed");
  const double lo = q.type == ElemType::Uint8 ? 0 : -128, hi = q.type == ElemType::Uint8 ? 255 : 127;
  std::int64_t inner = 1, dim = 1;
  if (q.scale.size() > 1) {
    const auto axis = static_cast<std::size_t>(q.axis);
    if (q.axis < 0 || axis >= t.shape.size() || t.shape[axis] != static_cast<std::int64_t>(q.scale.size()))
      throw ConfigError(source_of(g) + ": error: tensor '" + echo(name) + "' (" + reference::shape_str(t.shape) + ") has " +
                        std::to_string(q.scale.size()) + " per-channel scales along axis " + std::to_string(q.axis) +
                        ", which does not match its shape");
    dim = t.shape[axis];
    inner = reference::span(t.shape, axis + 1, t.shape.size());
  }
  for (std::size_t e = 0; e < t.f.size(); ++e) {
    const std::size_t c = q.scale.size() > 1 ? static_cast<std::size_t>((static_cast<std::int64_t>(e) / inner) % dim) : 0;
    // In float, as ONNX Runtime computes both ops: q = nearbyint(x / s) + zp; x' = (q - zp) * s.
    const float s = q.scale[c];
    const double zp = double(q.zero_point[c]);
    const double v = std::clamp(double(std::nearbyint(t.f[e] / s)) + zp, lo, hi);
    t.f[e] = static_cast<float>(v - zp) * s;
  }
}

using reference::shape_str;

// The graph inputs' tensors, checked against the graph (name, shape, element kind, size) and,
// with apply_quant, rounded to their integer grid; then checks that every kept tensor exists.
std::map<std::string, RefTensor> bind_inputs(const Graph& g, const RefTensorMap& inputs, const ReferenceOptions& options,
                                             const std::string& src) {
  std::map<std::string, RefTensor> live;
  for (const auto& [name, value] : inputs)
    if (std::find(g.inputs.begin(), g.inputs.end(), name) == g.inputs.end())
      throw ConfigError(src + ": error: input '" + echo(name) + "' given to the reference interpreter is not a graph input" +
                        " (graph inputs: " + [&] {
                          std::string l;
                          for (const auto& i : g.inputs) l += (l.empty() ? "" : ", ") + i;
                          return l;
                        }() + ")");
  for (const std::string& name : g.inputs) {
    const Tensor& decl = g.tensor(name);
    auto it = inputs.find(name);
    if (it == inputs.end())
      throw ConfigError(src + ": error: graph input '" + echo(name) + "' (" + shape_str(decl.shape) +
                        ") has no tensor; give one tensor per graph input");
    const RefTensor& v = it->second;
    if (v.shape != decl.shape)
      throw ConfigError(src + ": error: input '" + echo(name) + "' has shape " + shape_str(v.shape) +
                        ", the model expects " + shape_str(decl.shape) +
                        "; give a tensor of the model's shape (or load the model with --input-shape)");
    if (v.is_float() != float_kind(decl.type))
      throw ConfigError(src + ": error: input '" + echo(name) + "' is a " + (v.is_float() ? "float" : "integer") +
                        " tensor, the model expects " + (float_kind(decl.type) ? "float" : "integer") + " data");
    const std::size_t have = v.is_float() ? v.f.size() : v.i.size();
    if (have != static_cast<std::size_t>(v.elements()))
      throw ConfigError(src + ": error: input '" + echo(name) + "' holds " + std::to_string(have) +
                        " values but its shape " + shape_str(v.shape) + " has " + std::to_string(v.elements()));
    live[name] = v;
    if (options.apply_quant && decl.quant) fake_quantize(g, name, live[name], *decl.quant);
  }
  for (const std::string& k : options.keep)
    if (!g.has_tensor(k))
      throw ConfigError(src + ": error: tensor '" + echo(k) + "' asked to be kept is no tensor of the graph");
  return live;
}

// The tensors returned and never freed: graph outputs, kept tensors, and with keep_all every
// node output.
std::set<std::string> retained_tensors(const Graph& g, const ReferenceOptions& options) {
  std::set<std::string> retained(g.outputs.begin(), g.outputs.end());
  retained.insert(options.keep.begin(), options.keep.end());
  if (options.keep_all)
    for (const Node& n : g.nodes)
      for (const std::string& o : n.outputs)
        if (!o.empty()) retained.insert(o);
  return retained;
}

// The kernel of node `call.node` from the op table; fails naming the implemented ops if none.
reference::OpKernel kernel_of(const reference::OpCall& call) {
  const auto& table = reference::op_table();
  auto kernel = table.find(call.node.op_type);
  if (kernel == table.end()) {
    std::string list;
    for (const auto& [op, k] : table) list += (list.empty() ? "" : " ") + op;
    call.fail("the reference interpreter does not implement op '" + echo(call.node.op_type) +
              "'; add a kernel for it under compiler/src/reference/ (implemented: " + list + ")");
  }
  return kernel->second;
}

// Points `call.in` at the node's input values: live tensors, constants (made live on first
// use) or nullptr for an absent optional input.
void gather_inputs(reference::OpCall& call, std::map<std::string, RefTensor>& live) {
  const Graph& g = call.graph;
  for (const std::string& in : call.node.inputs) {
    if (in.empty()) {
      call.in.push_back(nullptr);
      continue;
    }
    auto it = live.find(in);
    if (it == live.end()) {
      if (!g.has_tensor(in) || !g.tensor(in).is_constant)
        call.fail("input '" + echo(in) + "' has no value: nothing before this node produces it");
      it = live.emplace(in, from_constant(g, g.tensor(in))).first;
    }
    call.in.push_back(&it->second);
  }
}

// Checks each output the kernel computed (size, shape against shape inference), rounds it
// to its grid with apply_quant, and makes it live.
void store_outputs(const reference::OpCall& call, const ReferenceOptions& options,
                   std::map<std::string, RefTensor>& live) {
  const Graph& g = call.graph;
  const Node& n = call.node;
  for (std::size_t k = 0; k < n.outputs.size(); ++k) {
    const std::string& name = n.outputs[k];
    if (name.empty()) continue;
    RefTensor& o = call.out[k];
    const std::size_t have = o.is_float() ? o.f.size() : o.i.size();
    if (have != static_cast<std::size_t>(o.elements()))
      call.fail("internal error: output '" + echo(name) + "' has " + std::to_string(have) + " values for shape " +
                shape_str(o.shape));
    if (g.has_tensor(name) && g.tensor(name).shape_known() && g.tensor(name).shape != o.shape)
      call.fail("output '" + echo(name) + "' computed with shape " + shape_str(o.shape) +
                " but shape inference gave " + shape_str(g.tensor(name).shape) +
                "; one of them is wrong (report it with the model)");
    if (options.apply_quant && g.has_tensor(name) && g.tensor(name).quant) fake_quantize(g, name, o, *g.tensor(name).quant);
    live[name] = std::move(o);
  }
}

// The retained tensors' values: live, or constants; throws for one that no node writes.
RefTensorMap collect_retained(const Graph& g, const std::set<std::string>& retained,
                              const std::map<std::string, RefTensor>& live, const std::string& src) {
  RefTensorMap result;
  for (const std::string& name : retained) {
    auto it = live.find(name);
    if (it != live.end()) {
      result[name] = it->second;
    } else if (g.has_tensor(name) && g.tensor(name).is_constant) {
      result[name] = from_constant(g, g.tensor(name));
    } else {
      throw ConfigError(src + ": error: tensor '" + echo(name) + "' is never computed (" +
                        (std::find(g.outputs.begin(), g.outputs.end(), name) != g.outputs.end() ? "a graph output"
                                                                                                 : "asked to be kept") +
                        " that no node writes)");
    }
  }
  return result;
}

}  // namespace

RefTensorMap run_reference(const Graph& g, const RefTensorMap& inputs, const ReferenceOptions& options) {
  const std::string src = source_of(g);
  const int threads = options.threads > 0 ? options.threads : std::max(1u, std::thread::hardware_concurrency());
  std::map<std::string, RefTensor> live = bind_inputs(g, inputs, options, src);

  // Last reader of every tensor, to free intermediates early (YOLOv5s at 640x640 has
  // 490 MB of them); graph outputs and kept tensors are never freed.
  const std::set<std::string> retained = retained_tensors(g, options);
  std::map<std::string, std::size_t> last_use;
  for (std::size_t i = 0; i < g.nodes.size(); ++i)
    for (const std::string& in : g.nodes[i].inputs)
      if (!in.empty()) last_use[in] = i;

  for (std::size_t i = 0; i < g.nodes.size(); ++i) {
    const Node& n = g.nodes[i];
    std::vector<RefTensor> outs(n.outputs.size());
    reference::OpCall call{g, n, i, {}, outs, threads};
    const reference::OpKernel kernel = kernel_of(call);
    gather_inputs(call, live);
    const auto t0 = std::chrono::steady_clock::now();
    kernel(call);
    if (options.seconds_per_op)
      (*options.seconds_per_op)[n.op_type] += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    store_outputs(call, options, live);
    for (const std::string& in : n.inputs) {
      auto lu = last_use.find(in);
      if (!in.empty() && lu != last_use.end() && lu->second == i && !retained.count(in)) live.erase(in);
    }
  }
  return collect_retained(g, retained, live, src);
}

}  // namespace npu::compiler
