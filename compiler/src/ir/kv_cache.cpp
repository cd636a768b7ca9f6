// KV-cache append recognition (kv_cache.hpp).
#include "npu/compiler/ir/kv_cache.hpp"

#include <algorithm>

#include "npu/compiler/ir/fused_attr.hpp"

namespace npu::compiler {

namespace {

bool is_graph_input(const Graph& g, const std::string& t) {
  return std::find(g.inputs.begin(), g.inputs.end(), t) != g.inputs.end();
}

bool rank4_known(const Graph& g, const std::string& t) {
  return !t.empty() && g.has_tensor(t) && g.tensor(t).shape_known() && g.tensor(t).shape.size() == 4;
}

std::string shape_text(const std::vector<std::int64_t>& s) {
  std::string r = "[";
  for (std::size_t i = 0; i < s.size(); ++i) r += (i ? "," : "") + std::to_string(s[i]);
  return r + "]";
}

}  // namespace

bool kv_append_candidate(const Graph& graph, const Node& node) {
  return node.op_type == "Concat" && !node.inputs.empty() && is_graph_input(graph, node.inputs[0]);
}

std::string kv_append_problem(const Graph& g, const Node& n, KvAppend* out) {
  if (n.op_type != "Concat") return "not a Concat";
  if (n.inputs.size() != 2 || n.outputs.size() != 1) return "not a Concat of two inputs";
  const std::string &past = n.inputs[0], &fresh = n.inputs[1], &present = n.outputs[0];
  if (!is_graph_input(g, past) || !g.has_tensor(past) || g.tensor(past).is_constant)
    return "input 0 is not a graph input (the past cache)";
  if (g.consumers(past).size() != 1) return "the past cache '" + past + "' is also read by another node";
  if (is_graph_output(g, past)) return "the past cache '" + past + "' is also a graph output";
  if (fresh.empty() || is_graph_input(g, fresh) || !g.has_tensor(fresh) || g.tensor(fresh).is_constant)
    return "input 1 (the new rows) is not computed in the graph";
  if (!is_graph_output(g, present)) return "its output is not a graph output (the present cache)";
  if (!rank4_known(g, past) || !rank4_known(g, fresh) || !rank4_known(g, present))
    return "the shapes are not all known and 4-D [batch, heads, sequence, head_dim]";
  std::int64_t axis = n.attr_int("axis", 0);
  if (axis < 0) axis += 4;
  if (axis != 2) return "axis " + std::to_string(n.attr_int("axis", 0)) + " is not the sequence axis 2";
  const auto &p = g.tensor(past).shape, &f = g.tensor(fresh).shape, &o = g.tensor(present).shape;
  for (const auto* s : {&p, &f, &o})
    for (auto d : *s)
      if (d < 1) return "a dimension is below 1";
  if (p[0] != o[0] || p[1] != o[1] || p[3] != o[3] || f[0] != o[0] || f[1] != o[1] || f[3] != o[3] ||
      p[2] + f[2] != o[2])
    return "shapes disagree: past " + shape_text(p) + " + new " + shape_text(f) + " along axis 2 is not present " +
           shape_text(o);
  if (out) {
    *out = KvAppend{n.name, past, fresh, present, std::uint64_t(o[0] * o[1]), std::uint64_t(p[2]),
                    std::uint64_t(f[2]), std::uint64_t(o[3])};
  }
  return "";
}

}  // namespace npu::compiler
