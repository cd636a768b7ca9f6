// The lowering table (lowering_table.hpp): one entry per op, filled by the op families.
#include "backend/lowering/lowering_table.hpp"

#include <algorithm>

#include "npu/compiler/ir/fused_attr.hpp"


namespace npu::compiler::lowering {

const std::map<std::string, OpLowering>& table() {
  static const std::map<std::string, OpLowering> kTable = [] {
    std::map<std::string, OpLowering> t;
    add_vector_ops(t);
    add_reduce_ops(t);
    add_cast_ops(t);
    add_where_ops(t);
    add_layout_ops(t);
    add_matmul_ops(t);
    add_attention_ops(t);
    add_conv_transpose(t);
    add_conv_ops(t);
    add_activation_ops(t);
    add_pool_ops(t);
    add_resize_ops(t);
    add_loop_ops(t);
    return t;
  }();
  return kTable;
}

const OpLowering* find(const std::string& op_type) {
  auto it = table().find(op_type);
  return it == table().end() ? nullptr : &it->second;
}

bool is_const(const Graph& g, const std::string& t) { return !t.empty() && g.has_tensor(t) && g.tensor(t).is_constant; }

std::string shapes_known(const Graph& g, const Node& n) {
  for (const auto* list : {&n.inputs, &n.outputs})
    for (const auto& t : *list)
      if (!t.empty() && (!g.has_tensor(t) || !g.tensor(t).shape_known()))
        return "tensor '" + t + "' has a size known only at run time";
  return "";
}

std::uint64_t elements(const Graph& g, const std::string& t) {
  return std::uint64_t(std::max<std::int64_t>(g.tensor(t).elements(), 0));
}

[[noreturn]] void fail(const Graph& g, const Node& n, const std::string& why) {
  throw ConfigError(g.name + ": node '" + n.name + "' (" + n.op_type + "): error: " + why);
}

const std::vector<std::int64_t>& shape_of(const Graph& g, const Node& n, const std::string& t) {
  if (!g.has_tensor(t)) fail(g, n, "tensor '" + t + "' is not in the graph");
  const Tensor& tt = g.tensor(t);
  if (!tt.shape_known())
    fail(g, n, "tensor '" + t + "' has unknown shape " + shape_string(tt.shape) +
                   " (run shape inference, or give the model input a static shape)");
  return tt.shape;
}

namespace {

// "batch N: ...; pass --input-shape NAME=1xCxHxW" for every graph input with a batch > 1.
std::string batch_problem(const Graph& g, std::int64_t batch) {
  std::string fix;
  for (const auto& in : g.inputs) {
    if (!g.has_tensor(in)) continue;
    const auto& s = g.tensor(in).shape;
    if (s.empty() || s[0] <= 1) continue;
    std::string dims = "1";
    for (std::size_t i = 1; i < s.size(); ++i) dims += "x" + std::to_string(s[i]);
    fix += std::string(fix.empty() ? "" : " ") + "--input-shape " + in + "=" + dims;
  }
  if (fix.empty()) fix = "--input-shape NAME=1xCxHxW for the graph input";
  return "batch " + std::to_string(batch) +
         ": the NPU lowering supports batch 1 (run the images one at a time); pass " + fix;
}

}  // namespace

std::string rank4_batch1(const Graph& g, const std::string& t) {
  if (!g.has_tensor(t)) return "input '" + t + "' missing";
  const auto& s = g.tensor(t).shape;
  if (s.size() != 4)
    return "needs a 4-D NCHW tensor, got " + shape_string(s) +
           "; re-export the model with 4-D NCHW activations for this op";
  if (s[0] < 1) return batch_problem(g, s[0]);  // batch N >= 1: images one after another
  return "";
}

void axis_pads(const std::string& auto_pad, int in, int out, int k, int s, int d, int explicit_begin,
               int explicit_end, int& begin, int& end) {
  if (auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER") {
    const int total = std::max(0, (out - 1) * s + d * (k - 1) + 1 - in);
    begin = auto_pad == "SAME_UPPER" ? total / 2 : total - total / 2;
    end = total - begin;
  } else if (auto_pad == "VALID") {
    begin = end = 0;
  } else {
    begin = explicit_begin;
    end = explicit_end;
  }
}

}  // namespace npu::compiler::lowering
