// Graph statistics (graph_stats.hpp).
#include "npu/compiler/ir/graph_stats.hpp"

#include <set>

namespace npu::compiler {

namespace {

std::int64_t bytes_of(const Tensor& t) {
  const std::int64_t n = t.elements();
  return n < 0 ? 0 : n * elem_bytes(t.type);
}

bool is_float_constant(const Graph& g, const std::string& name) {
  if (name.empty() || !g.has_tensor(name)) return false;
  const Tensor& t = g.tensor(name);
  return t.is_constant && (t.type == ElemType::Float32 || t.type == ElemType::Float16);
}

/// Input slots of `node` holding trainable parameters and running statistics.
void weight_slots(const Node& n, std::vector<std::size_t>& params, std::vector<std::size_t>& buffers) {
  if (n.op_type == "Conv") params = {1, 2};
  else if (n.op_type == "Gemm") params = {1, 2};
  else if (n.op_type == "MatMul") params = {0, 1};
  else if (n.op_type == "BatchNormalization") { params = {1, 2}; buffers = {3, 4}; }
}

/// Every dimension known (>= 0) and at least `rank_at_least` of them.
bool known(const std::vector<std::int64_t>& shape, std::size_t rank_at_least) {
  if (shape.size() < rank_at_least) return false;
  for (std::int64_t d : shape)
    if (d < 0) return false;
  return true;
}

}  // namespace

std::int64_t node_macs(const Graph& g, const Node& n) {
  if (n.op_type == "Conv") {
    const Tensor& out = g.tensor(n.outputs.at(0));
    const auto& w = g.tensor(n.inputs.at(1)).shape;  // [K, C/group, kh, kw...]
    if (!known(out.shape, 3) || !known(w, 3)) return 0;
    std::int64_t per_output = 1;
    for (std::size_t i = 1; i < w.size(); ++i) per_output *= w[i];  // C/group * prod(kernel)
    return out.elements() * per_output;
  }
  if (n.op_type == "Gemm") {
    const auto& a = g.tensor(n.inputs.at(0)).shape;
    const auto& y = g.tensor(n.outputs.at(0)).shape;  // [M, N]
    if (!known(a, 2) || !known(y, 2)) return 0;
    const std::int64_t k = n.attr_int("transA", 0) ? a.at(0) : a.at(1);
    return y.at(0) * y.at(1) * k;
  }
  if (n.op_type == "MatMul") {
    const auto& a = g.tensor(n.inputs.at(0)).shape;
    const Tensor& out = g.tensor(n.outputs.at(0));
    if (!known(a, 1) || !known(out.shape, 1)) return 0;
    return out.elements() * a.back();
  }
  return 0;
}

GraphStats graph_stats(const Graph& g) {
  GraphStats s;
  std::set<std::string> counted;
  const std::set<std::string> graph_outputs(g.outputs.begin(), g.outputs.end());
  for (const Node& n : g.nodes) {
    NodeStats ns;
    ns.node = n.name;
    ns.op_type = n.op_type;
    ns.on_host = n.on_host;
    ns.macs = node_macs(g, n);
    std::vector<std::size_t> params, buffers;
    weight_slots(n, params, buffers);
    auto add = [&](const std::vector<std::size_t>& slots, std::int64_t& node_total,
                   std::int64_t& graph_total) {
      for (std::size_t i : slots) {
        if (i >= n.inputs.size() || !is_float_constant(g, n.inputs[i])) continue;
        const Tensor& t = g.tensor(n.inputs[i]);
        node_total += t.elements();
        if (counted.insert(t.name).second) {
          graph_total += t.elements();
          s.weight_bytes += bytes_of(t);
        }
      }
    };
    add(params, ns.params, s.params);
    add(buffers, ns.buffers, s.buffers);
    for (const std::string& o : n.outputs) {
      if (o.empty()) continue;
      const std::int64_t b = bytes_of(g.tensor(o));
      ns.output_bytes += b;
      if (graph_outputs.count(o)) s.output_bytes += b;
      else s.intermediate_bytes += b;
    }
    s.macs += ns.macs;
    if (n.on_host) {
      s.host_macs += ns.macs;
      ++s.host_nodes;
    }
    s.nodes.push_back(std::move(ns));
  }
  for (const std::string& in : g.inputs) s.input_bytes += bytes_of(g.tensor(in));
  return s;
}

}  // namespace npu::compiler
