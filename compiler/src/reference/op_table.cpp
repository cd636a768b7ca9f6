// The reference interpreter's op table and the helpers its op families share (ref_ops.hpp).
#include <algorithm>
#include <thread>

#include "npu/hw_config/hw_config.hpp"
#include "npu/base/user_text.hpp"
#include "reference/ref_ops.hpp"

namespace npu::compiler::reference {

const std::map<std::string, OpKernel>& op_table() {
  static const std::map<std::string, OpKernel> kTable = [] {
    std::map<std::string, OpKernel> t;
    add_conv_ops(t);
    add_matmul_ops(t);
    add_norm_ops(t);
    add_elementwise_ops(t);
    add_activation_ops(t);
    add_pool_ops(t);
    add_reduce_ops(t);
    add_layout_ops(t);
    add_resize_ops(t);
    add_detection_ops(t);
    add_roi_ops(t);
    add_index_ops(t);
    return t;
  }();
  return kTable;
}

void OpCall::fail(const std::string& why) const {
  const std::string src = graph.source.empty() ? "graph '" + echo(graph.name) + "'" : graph.source;
  throw ConfigError(src + ": error: node #" + std::to_string(index) + " '" + echo(node.name) + "' (" +
                    echo(node.op_type) + "): " + why);
}

const RefTensor& OpCall::fin(std::size_t k) const {
  const RefTensor* t = opt(k);
  if (!t) fail("input " + std::to_string(k) + " is required but absent");
  if (!t->is_float())
    fail("input " + std::to_string(k) + " ('" + echo(node.inputs[k]) +
         "') is an integer tensor; the reference interpreter computes this op on float tensors only");
  return *t;
}

void OpCall::only_attrs(std::initializer_list<const char*> allowed) const {
  for (const auto& [key, value] : node.attrs) {
    bool ok = false;
    for (const char* a : allowed) ok = ok || key == a;
    if (ok) continue;
    std::string list;
    for (const char* a : allowed) list += (list.empty() ? "" : ", ") + std::string(a);
    fail("attribute '" + echo(key) + "' is not an ONNX " + node.op_type + " attribute (" + list +
         "); the reference interpreter does not guess what it means: remove it from the model or re-export it");
  }
}

std::vector<std::int64_t> OpCall::ints(std::size_t k) const {
  const RefTensor* t = opt(k);
  if (!t) fail("input " + std::to_string(k) + " is required but absent");
  if (t->is_float()) {
    std::vector<std::int64_t> v;
    for (float x : t->f) v.push_back(static_cast<std::int64_t>(x));
    return v;
  }
  return t->i;
}

std::vector<std::int64_t> strides_of(const std::vector<std::int64_t>& shape) {
  std::vector<std::int64_t> s(shape.size(), 1);
  for (std::size_t d = shape.size(); d-- > 1;) s[d - 1] = s[d] * shape[d];
  return s;
}

std::int64_t span(const std::vector<std::int64_t>& shape, std::size_t from, std::size_t to) {
  std::int64_t n = 1;
  for (std::size_t d = from; d < to && d < shape.size(); ++d) n *= shape[d];
  return n;
}

std::size_t norm_axis(const OpCall& call, std::int64_t axis, std::size_t rank) {
  const std::int64_t r = static_cast<std::int64_t>(rank);
  if (axis < -r || axis >= r)
    call.fail("axis " + std::to_string(axis) + " is out of range for a tensor of rank " + std::to_string(rank));
  return static_cast<std::size_t>(axis < 0 ? axis + r : axis);
}

std::string shape_str(const std::vector<std::int64_t>& shape) {
  if (shape.empty()) return "scalar";
  std::string s;
  for (std::size_t i = 0; i < shape.size(); ++i) s += (i ? "x" : "") + std::to_string(shape[i]);
  return s;
}

void parallel_for(int threads, std::int64_t n, const std::function<void(std::int64_t, std::int64_t)>& f) {
  const std::int64_t workers = std::min<std::int64_t>(std::max(threads, 1), n);
  if (workers <= 1) {
    if (n > 0) f(0, n);
    return;
  }
  std::vector<std::thread> pool;
  const std::int64_t chunk = (n + workers - 1) / workers;
  for (std::int64_t w = 1; w < workers; ++w) {
    const std::int64_t b = w * chunk, e = std::min(n, b + chunk);
    if (b < e) pool.emplace_back([&f, b, e] { f(b, e); });
  }
  f(0, std::min(n, chunk));
  for (auto& t : pool) t.join();
}

}  // namespace npu::compiler::reference

namespace npu::compiler::reference {

Window window_of(const OpCall& call, const std::vector<std::int64_t>& spatial, const std::vector<std::int64_t>& kernel,
                 bool allow_ceil) {
  const Node& n = call.node;
  const std::size_t r = spatial.size();
  if (r < 1 || r > 3 || kernel.size() != r)
    call.fail("the reference interpreter implements 1-D, 2-D and 3-D windows only; this one has " + std::to_string(r) +
              " spatial dims (kernel rank " + std::to_string(kernel.size()) + ")");
  auto list = [&](const char* key, std::size_t len, std::int64_t def) {
    std::vector<std::int64_t> v = n.attr_ints(key, std::vector<std::int64_t>(len, def));
    if (v.size() != len)
      call.fail(std::string("attribute '") + key + "' has " + std::to_string(v.size()) + " values, expected " +
                std::to_string(len));
    return v;
  };
  const auto strides = list("strides", r, 1), dil = list("dilations", r, 1);
  auto pads = list("pads", 2 * r, 0);
  for (std::size_t d = 0; d < r; ++d)
    if (strides[d] < 1 || dil[d] < 1 || kernel[d] < 1)
      call.fail("strides, dilations and kernel sizes must be positive");
  const std::string auto_pad = n.attr_string("auto_pad", "NOTSET");
  const bool ceil_mode = allow_ceil && n.attr_int("ceil_mode", 0) != 0;
  std::vector<std::int64_t> out(r);
  for (std::size_t d = 0; d < r; ++d) {
    const std::int64_t eff_k = dil[d] * (kernel[d] - 1) + 1;
    if (auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER") {
      // ONNX Conv: output = ceil(in / stride); total padding split, the odd one at the end
      // (SAME_UPPER) or the beginning (SAME_LOWER).
      out[d] = (spatial[d] + strides[d] - 1) / strides[d];
      const std::int64_t total = std::max<std::int64_t>(0, (out[d] - 1) * strides[d] + eff_k - spatial[d]);
      pads[d] = auto_pad == "SAME_UPPER" ? total / 2 : total - total / 2;
      pads[d + r] = total - pads[d];
      continue;
    }
    if (auto_pad == "VALID") pads[d] = pads[d + r] = 0;
    else if (auto_pad != "NOTSET")
      call.fail("auto_pad '" + echo(auto_pad) + "' is not an ONNX value (NOTSET, SAME_UPPER, SAME_LOWER, VALID)");
    const std::int64_t span_ = spatial[d] + pads[d] + pads[d + r] - eff_k;
    if (span_ < 0)
      call.fail("the window (" + std::to_string(eff_k) + " with dilation) does not fit the padded input (" +
                std::to_string(spatial[d] + pads[d] + pads[d + r]) + ")");
    out[d] = (ceil_mode ? (span_ + strides[d] - 1) / strides[d] : span_ / strides[d]) + 1;
    if (ceil_mode && (out[d] - 1) * strides[d] >= spatial[d] + pads[d]) --out[d];
  }
  Window w;
  if (r == 3) {  // dim 0 is D
    w.in_d = spatial[0], w.k_d = kernel[0], w.s_d = strides[0], w.d_d = dil[0], w.pad_f = pads[0], w.pad_k = pads[r];
    w.out_d = out[0];
  }
  if (r >= 2) {  // dim r - 2 is H
    const std::size_t y = r - 2;
    w.in_h = spatial[y], w.k_h = kernel[y], w.s_h = strides[y], w.d_h = dil[y], w.pad_t = pads[y], w.pad_b = pads[y + r];
    w.out_h = out[y];
  }
  const std::size_t x = r - 1;
  w.in_w = spatial[x], w.k_w = kernel[x], w.s_w = strides[x], w.d_w = dil[x], w.pad_l = pads[x], w.pad_r = pads[x + r];
  w.out_w = out[x];
  return w;
}

}  // namespace npu::compiler::reference
