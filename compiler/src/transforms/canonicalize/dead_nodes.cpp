// remove-dead-nodes: a node none of whose outputs reaches a graph output (directly or through
// other nodes) computes nothing the model returns; compiling it would add layers, DDR traffic
// and time no result depends on (a new-user test: conv_bn_bn.onnx with its graph output moved
// from 'y' to 'b1' still ran 'bn2'). Dead nodes are removed with the tensors only they used, at
// import, so every strategy (`none` included) and every tool sees the same graph; the number
// removed is a warning of the compile (Graph::import_warnings), never silent.
#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include "npu/base/config_error.hpp"
#include "npu/base/user_text.hpp"
#include "npu/compiler/transforms/pass_registry.hpp"
#include "frontend/onnx/onnx_subgraph.hpp"

namespace npu::compiler {

namespace {

/// Marks the nodes whose outputs reach a graph output, walking back from the outputs (nodes
/// are in topological order, so one reverse sweep sees every consumer before its producers).
std::vector<bool> live_nodes(const Graph& g) {
  std::set<std::string> needed(g.outputs.begin(), g.outputs.end());
  std::vector<bool> live(g.nodes.size(), false);
  for (std::size_t i = g.nodes.size(); i-- > 0;) {
    const Node& n = g.nodes[i];
    for (const std::string& o : n.outputs) live[i] = live[i] || (!o.empty() && needed.count(o));
    if (!live[i]) continue;
    for (const std::string& in : n.inputs)
      if (!in.empty()) needed.insert(in);
    // A Loop/If/Scan body may read enclosing tensors it does not list as inputs (Mask R-CNN's
    // paste-masks Loop reads the masks and boxes): those are read too.
    for (const std::string& in : outer_scope_reads(n)) needed.insert(in);
  }
  return live;
}

}  // namespace

/// The import pass (order 560: after the recognisers, which may leave their matched nodes'
/// leftovers, and before place-host-ops, so no dead node is placed anywhere).
class RemoveDeadNodes : public ImportPass {
 public:
  std::string name() const override { return "remove-dead-nodes"; }
  std::string description() const override {
    return "remove the nodes whose outputs reach no graph output (they would be compiled and simulated for nothing)";
  }
  std::vector<Decision> run(Graph& graph, const PassContext& ctx) const override {
    const std::vector<bool> live = live_nodes(graph);
    if (std::find(live.begin(), live.end(), false) == live.end())
      return {summary_decision(name(), ctx.model, "removed 0 dead node(s)")};
    std::vector<Node> kept;
    std::string first;
    int removed = 0;
    for (std::size_t i = 0; i < graph.nodes.size(); ++i) {
      if (live[i]) {
        kept.push_back(std::move(graph.nodes[i]));
        continue;
      }
      if (removed++ == 0) first = graph.nodes[i].op_type + " '" + graph.nodes[i].name + "'";
    }
    if (kept.empty()) {  // every output is a graph input or a constant: the importer's own words
      std::string outs;
      for (const auto& o : graph.outputs) outs += (outs.empty() ? "'" : ", '") + echo(o) + "'";
      throw ConfigError(ctx.source + ": error: no node computes a graph output: the outputs (" + outs +
                        ") are graph inputs or constants, and the " + std::to_string(removed) +
                        " node(s) reach none of them, so there is nothing to compute; give a model whose outputs "
                        "are computed by its nodes");
    }
    graph.nodes = std::move(kept);
    std::set<std::string> outer_reads;  // kept: Loop/If bodies read them without listing them
    for (const Node& n : graph.nodes)
      for (const std::string& t : outer_scope_reads(n)) outer_reads.insert(t);
    remove_unused_tensors(graph, outer_reads);
    const std::string text = "removed " + std::to_string(removed) +
                             " node(s) whose outputs reach no graph output (first: " + first +
                             "): they are not compiled or simulated";
    graph.import_warnings.push_back(text);
    return {summary_decision(name(), ctx.model, text)};
  }
};

NPU_REGISTER_PASS(RemoveDeadNodes, 560);

}  // namespace npu::compiler
