// NPU / host partitioning (shape_inference.hpp place_host_ops). As ONNX Runtime's execution
// providers partition a graph, each node goes where it can run: on the NPU when the lowering
// table accepts it, otherwise on the host with the reason; NPU and host subgraphs alternate
// (the NPU resumes after a host op, reading the host's results from DDR). Nothing moves to
// the host silently: every host node carries its reason into the compile report, and
// `--npu-only` turns any host placement into an error.
#include <set>
#include "npu/compiler/transforms/pass_registry.hpp"

#include "npu/compiler/backend/lowering/lowering.hpp"
#include "npu/compiler/transforms/canonicalize/shape_inference.hpp"

namespace npu::compiler {

void place_host_ops(Graph& graph) {
  for (Node& n : graph.nodes) {
    n.on_host = false;
    n.host_reason.clear();
    const std::string why = npu_lowering_problem(graph, n);
    if (!why.empty()) {
      n.on_host = true;
      n.host_reason = why;
    }
  }
  // A layout-only node (a view: no data moves) all of whose consumers are on the host goes
  // with them: the view costs nothing there and saves an NPU round trip.
  static const std::set<std::string> kViews = {"Reshape", "Flatten", "Identity", "Squeeze", "Unsqueeze", "Dropout"};
  for (std::size_t i = graph.nodes.size(); i-- > 0;) {
    Node& n = graph.nodes[i];
    if (n.on_host || !kViews.count(n.op_type) || n.outputs.empty()) continue;
    const auto cons = graph.consumers(n.outputs.at(0));
    if (cons.empty()) continue;
    bool all_host = true;
    for (std::size_t c : cons) all_host = all_host && graph.nodes[c].on_host;
    if (all_host) {
      n.on_host = true;
      n.host_reason = "layout-only " + n.op_type + " feeding only host nodes";
    }
  }
}

// ---- the pass ----------------------------------------------------------------------------

/// place-host-ops: each node on the NPU where the lowering table accepts it, else on the host.
class PlaceHostOps : public ImportPass {
 public:
  std::string name() const override { return "place-host-ops"; }
  std::string description() const override {
    return "place each node on the NPU where the lowering table accepts it, otherwise on the host with the reason";
  }
  std::vector<Decision> run(Graph& graph, const PassContext& ctx) const override {
    place_host_ops(graph);
    int host = 0;
    for (const Node& n : graph.nodes) host += n.on_host;
    return {summary_decision(name(), ctx.model,
                             "placed " + std::to_string(host) + " of " + std::to_string(graph.nodes.size()) +
                                 " node(s) on the host (reasons in the compile report)")};
  }
};

NPU_REGISTER_PASS(PlaceHostOps, 600);

}  // namespace npu::compiler
