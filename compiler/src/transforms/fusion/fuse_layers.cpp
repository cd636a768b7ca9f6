#include "npu/compiler/transforms/fusion/fuse_layers.hpp"
#include "npu/compiler/transforms/pass_registry.hpp"

#include <optional>

#include "backend/lowering/lowering_table.hpp"

namespace npu::compiler {

namespace {

bool eltwise_op(const Node& n) { return (n.op_type == "Add" || n.op_type == "Mul") && n.inputs.size() == 2; }

// Nearest upsampling by integer factors (YOLOv5's PAN neck): band rows map back as
// in row = out row / factor (lowering::upsample_pieces gives its MOVE).
bool upsample_op(const Graph& g, const Node& n) {
  return (n.op_type == "Resize" || n.op_type == "Upsample") && !lowering::upsample_pieces(g, n).empty();
}

bool tileable_op(const Graph& g, const Node& n) {
  return n.op_type == "Conv" || n.op_type == "MaxPool" || n.op_type == "AveragePool" || eltwise_op(n) ||
         upsample_op(g, n);
}

// A Concat along the channels of NCHW tensors: a stack gathers its pieces on chip.
bool channel_concat(const Graph& g, const Node& n) {
  if (n.op_type != "Concat" || n.outputs.empty() || !g.has_tensor(n.outputs[0])) return false;
  const auto rank = std::int64_t(g.tensor(n.outputs[0]).shape.size());
  const std::int64_t axis = n.attr_int("axis", 0);
  return rank == 4 && (axis == 1 || axis == -3);
}

// The tileable producer of `t`, looking through channel Concats (a C3 or SPPF block's Concat
// links the convs and pools around it).
std::optional<std::size_t> tileable_producer(const Graph& g, const std::string& t) {
  const auto p = g.producer(t);
  if (!p) return std::nullopt;
  const Node& n = g.nodes[*p];
  if (tileable_op(g, n)) return p;
  if (channel_concat(g, n))
    for (const std::string& in : n.inputs)
      if (const auto q = g.producer(in); q && tileable_op(g, g.nodes[*q])) return q;
  return std::nullopt;
}

// Why `n` cannot run in a stack, or "".
std::string problem(const Graph& g, const Node& n) {
  if (n.inputs.empty() || n.outputs.empty() || !g.has_tensor(n.inputs[0]) || !g.has_tensor(n.outputs[0]))
    return n.name + " has no data input or output";
  for (const std::string& t : {n.inputs[0], n.outputs[0]}) {
    const auto& shape = g.tensor(t).shape;
    if (shape.size() != 4) return n.name + " is not 2-D (tensor " + t + " has rank " + std::to_string(shape.size()) + ")";
    if (shape[0] != 1) return n.name + " runs a batch of " + std::to_string(shape[0]) + " (bands cover one image)";
  }
  if (eltwise_op(n) && (!g.has_tensor(n.inputs[1]) || g.tensor(n.inputs[1]).shape != g.tensor(n.inputs[0]).shape))
    return n.name + " broadcasts one input (bands need two tensors of one shape)";
  if (!n.attr_string(fused_attr::kInScale, "").empty())
    return n.name + " scales its input channels by a gate computed from the whole input (fuse-se-gate)";
  return "";
}

}  // namespace

std::vector<Candidate> FuseLayers::match(const Graph& graph) const {
  // One candidate per node (a pass rewrites a node once), labelled with one of its links: the
  // producer of its data input or skip tensor, else its first tileable consumer.
  std::vector<Candidate> out;
  for (const Node& n : graph.nodes) {
    if (!tileable_op(graph, n) || n.inputs.empty() || n.outputs.empty()) continue;
    std::string label;
    std::string second = n.attr_int(fused_attr::kResidual, 0) == 1 && n.inputs.size() > 3 ? n.inputs[3] : "";
    if (eltwise_op(n)) second = n.inputs[1];
    for (const std::string& t : {n.inputs[0], second}) {
      if (t.empty() || !label.empty()) continue;
      const auto p = tileable_producer(graph, t);
      if (p) label = graph.nodes[*p].name + " -> " + n.name;
    }
    for (std::size_t c : graph.consumers(n.outputs[0])) {
      if (!label.empty()) break;
      // "n (feeds c)": c's own candidate is labelled "n -> c" by its producer, and one link
      // printed twice in --explain read as a duplicate decision.
      if (tileable_op(graph, graph.nodes[c])) label = n.name + " (feeds " + graph.nodes[c].name + ")";
      if (channel_concat(graph, graph.nodes[c]))
        for (std::size_t d : graph.consumers(graph.nodes[c].outputs[0]))
          if (label.empty() && tileable_op(graph, graph.nodes[d]))
            label = n.name + " (feeds " + graph.nodes[c].name + " -> " + graph.nodes[d].name + ")";
    }
    if (!label.empty()) out.push_back({n.name, {n.name}, label});
  }
  return out;
}

Legality FuseLayers::check(const Graph& graph, const Candidate& c) const {
  for (const auto& name : c.nodes) {
    const long i = find_node(graph, name);
    if (i < 0) return Legality::decline("node " + name + " is gone");
    const std::string why = problem(graph, graph.nodes[std::size_t(i)]);
    if (!why.empty()) return Legality::decline(why);
  }
  return Legality::ok();
}

void FuseLayers::rewrite(Graph& graph, const Candidate& c) const {
  graph.nodes[std::size_t(find_node(graph, c.anchor))].attrs[fused_attr::kDepthFirst] = std::int64_t(1);
}

NPU_REGISTER_PASS(FuseLayers, 800);

}  // namespace npu::compiler
