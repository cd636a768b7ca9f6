// Fused-node conventions and graph-edit helpers (fused_attr.hpp).
#include "npu/compiler/ir/fused_attr.hpp"

#include <algorithm>
#include <stdexcept>
#include <set>
#include <sstream>

namespace npu::compiler {

// ---- fused-node conventions and graph helpers ------------------------------------------

std::vector<std::string> covered_nodes(const Node& node) {
  std::vector<std::string> out{node.name};
  const std::string covers = node.attr_string(fused_attr::kCovers, "");
  std::size_t start = 0;
  while (start < covers.size()) {
    std::size_t end = covers.find(';', start);
    if (end == std::string::npos) end = covers.size();
    if (end > start) out.push_back(covers.substr(start, end - start));
    start = end + 1;
  }
  return out;
}

long find_node(const Graph& graph, const std::string& name) {
  for (std::size_t i = 0; i < graph.nodes.size(); ++i)
    if (graph.nodes[i].name == name) return long(i);
  return -1;
}

const Node* node_named(const Graph& graph, const std::string& name) {
  const long k = find_node(graph, name);
  return k < 0 ? nullptr : &graph.nodes[std::size_t(k)];
}

bool is_graph_output(const Graph& graph, const std::string& tensor) {
  return std::find(graph.outputs.begin(), graph.outputs.end(), tensor) != graph.outputs.end();
}

std::string host_anchor_decline(const Node& anchor, const std::string& what) {
  if (!anchor.on_host) return "";
  return anchor.op_type + " " + anchor.name + " runs on the host (" + anchor.host_reason + "); " + what +
         " stays an NPU layer of its own";
}

long sole_reader(const Graph& graph, const std::string& tensor) {
  if (is_graph_output(graph, tensor)) return -1;
  const auto c = graph.consumers(tensor);
  return c.size() == 1 ? long(c[0]) : -1;
}

void merge_nodes(Graph& graph, const std::string& anchor, const std::vector<std::string>& absorbed) {
  const long anchor_idx = find_node(graph, anchor);
  if (anchor_idx < 0) throw std::logic_error("merge_nodes: no node " + anchor);
  std::set<std::string> gone(absorbed.begin(), absorbed.end());
  long last = anchor_idx;
  for (const auto& name : absorbed) last = std::max(last, find_node(graph, name));
  Node merged = graph.nodes[std::size_t(anchor_idx)];
  std::string covers = merged.attr_string(fused_attr::kCovers, "");
  for (const auto& name : absorbed) covers += (covers.empty() ? "" : ";") + name;
  merged.attrs[fused_attr::kCovers] = covers;
  std::vector<Node> nodes;
  nodes.reserve(graph.nodes.size());
  for (long i = 0; i < long(graph.nodes.size()); ++i) {
    if (i == last) nodes.push_back(merged);
    if (i == anchor_idx || gone.count(graph.nodes[std::size_t(i)].name)) continue;
    nodes.push_back(std::move(graph.nodes[std::size_t(i)]));
  }
  graph.nodes = std::move(nodes);
}

std::optional<double> constant_scalar(const Graph& graph, const std::string& t) {
  if (t.empty() || !graph.has_tensor(t)) return std::nullopt;
  const Tensor& c = graph.tensor(t);
  if (!c.is_constant || c.elements() != 1) return std::nullopt;
  if (c.float_data.size() == 1) return double(c.float_data[0]);
  if (c.int_data.size() == 1) return double(c.int_data[0]);
  return std::nullopt;
}

void remove_unused_tensors(Graph& graph, const std::set<std::string>& also_used) {
  std::set<std::string> used = also_used;
  used.insert(graph.inputs.begin(), graph.inputs.end());
  used.insert(graph.outputs.begin(), graph.outputs.end());
  for (const auto& n : graph.nodes) {
    used.insert(n.inputs.begin(), n.inputs.end());
    used.insert(n.outputs.begin(), n.outputs.end());
  }
  for (auto it = graph.tensors.begin(); it != graph.tensors.end();) {
    if (used.count(it->first))
      ++it;
    else
      it = graph.tensors.erase(it);
  }
}

std::string shape_string(const std::vector<std::int64_t>& shape) {
  std::string s = "[";
  for (std::size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + "]";
}

}  // namespace npu::compiler
