// elide-identities: an Identity, or a Dropout that training-dropout (order 150) has left as the
// identity (no training_mode, or constant false), computes out = in. Between two nodes it hid
// the pair from every fusion pattern: Conv -> Dropout -> Add, MatMul -> Dropout -> bias Add and
// the like stayed unfused with "no candidate in the graph" (new-user finding; recognise-
// activations already saw through one before an activation). Each is removed and its readers
// read its input, unless its output is a graph output (the model returns that tensor under its
// name), a Loop/If/Scan body reads it by name, its Dropout mask output is read, or the two
// tensors are quantised differently (a requantisation). The values are unchanged by definition.
#include <map>
#include <set>
#include <string>
#include <vector>

#include "npu/compiler/transforms/pass_registry.hpp"
#include "frontend/onnx/onnx_subgraph.hpp"

namespace npu::compiler {

namespace {

bool same_quant(const Tensor& a, const Tensor& b) {
  if (!a.quant || !b.quant) return !a.quant && !b.quant;
  return a.quant->scale == b.quant->scale && a.quant->zero_point == b.quant->zero_point && a.quant->type == b.quant->type;
}

/// Node n is an identity that may go: the conditions in the file comment.
bool elidable(const Graph& g, const Node& n, const std::set<std::string>& outer_reads) {
  if (n.op_type != "Identity" && n.op_type != "Dropout") return false;
  if (n.inputs.empty() || n.inputs[0].empty() || n.outputs.empty() || n.outputs[0].empty()) return false;
  if (n.op_type == "Dropout" && n.inputs.size() > 2 && !n.inputs[2].empty()) return false;  // training_mode given
  for (std::size_t k = 1; k < n.outputs.size(); ++k)
    if (!n.outputs[k].empty() && !g.consumers(n.outputs[k]).empty()) return false;  // the mask is read
  const std::string& in = n.inputs[0];
  const std::string& out = n.outputs[0];
  if (is_graph_output(g, out) || outer_reads.count(out) || !g.has_tensor(in) || !g.has_tensor(out)) return false;
  return !g.tensor(in).is_constant && same_quant(g.tensor(in), g.tensor(out));
}

}  // namespace

/// The import pass (order 250: after training-dropout and fold-qdq, before the recognisers).
class ElideIdentities : public ImportPass {
 public:
  std::string name() const override { return "elide-identities"; }
  std::string description() const override {
    return "remove Identity nodes and inference Dropouts (out = in) so that the nodes around them match the fusion "
           "patterns";
  }
  std::vector<Decision> run(Graph& graph, const PassContext& ctx) const override {
    std::set<std::string> outer_reads;
    for (const Node& n : graph.nodes)
      for (const std::string& t : outer_scope_reads(n)) outer_reads.insert(t);
    std::vector<bool> elide(graph.nodes.size());  // decided on the graph as imported
    for (std::size_t i = 0; i < graph.nodes.size(); ++i) elide[i] = elidable(graph, graph.nodes[i], outer_reads);
    std::map<std::string, std::string> renamed;  // an elided output -> the tensor its readers read now
    std::vector<Node> kept;
    int removed = 0;
    for (std::size_t i = 0; i < graph.nodes.size(); ++i) {
      Node& n = graph.nodes[i];
      for (std::string& in : n.inputs)
        if (auto it = renamed.find(in); it != renamed.end()) in = it->second;
      if (elide[i]) {
        renamed[n.outputs[0]] = n.inputs[0];
        ++removed;
        continue;
      }
      kept.push_back(std::move(n));
    }
    graph.nodes = std::move(kept);
    if (removed > 0) remove_unused_tensors(graph, outer_reads);
    return {summary_decision(name(), ctx.model, "removed " + std::to_string(removed) + " Identity/Dropout node(s)")};
  }
};

NPU_REGISTER_PASS(ElideIdentities, 250);

}  // namespace npu::compiler
