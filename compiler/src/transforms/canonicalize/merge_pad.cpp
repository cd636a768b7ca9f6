// Pad merged into its consumer's padding (merge_pad.hpp).
#include "npu/compiler/transforms/canonicalize/merge_pad.hpp"
#include "npu/compiler/transforms/pass_registry.hpp"

#include "npu/compiler/transforms/pass.hpp"

namespace npu::compiler {

namespace {

// H/W pads [top, left, bottom, right] of a 4-D zero Pad, or false.
bool zero_hw_pad(const Graph& g, const Node& p, std::vector<std::int64_t>& hw) {
  if (p.op_type != "Pad" || p.attr_string("mode", "constant") != "constant" || p.inputs.empty()) return false;
  std::vector<std::int64_t> pads = p.attr_ints("pads");
  if (p.inputs.size() > 1 && !p.inputs[1].empty()) {
    if (!g.has_tensor(p.inputs[1]) || !g.tensor(p.inputs[1]).is_constant) return false;
    pads = g.tensor(p.inputs[1]).int_data;
  }
  if (p.inputs.size() > 2 && !p.inputs[2].empty()) {
    if (!g.has_tensor(p.inputs[2]) || !g.tensor(p.inputs[2]).is_constant) return false;
    const Tensor& v = g.tensor(p.inputs[2]);
    if (!(v.float_data.size() == 1 && v.float_data[0] == 0.0f) && !(v.int_data.size() == 1 && v.int_data[0] == 0))
      return false;
  }
  if (p.attr_float("value", 0.0f) != 0.0f) return false;
  if (p.inputs.size() > 3 && !p.inputs[3].empty()) return false;  // opset 18 axes
  if (pads.size() != 8 || !g.tensor(p.inputs[0]).shape_known() || g.tensor(p.inputs[0]).shape.size() != 4) return false;
  for (auto v : pads)
    if (v < 0) return false;
  if (pads[0] || pads[1] || pads[4] || pads[5]) return false;
  hw = {pads[2], pads[3], pads[6], pads[7]};
  return true;
}

}  // namespace

int merge_pads(Graph& graph) {
  int merged = 0;
  for (std::size_t i = 0; i < graph.nodes.size(); ++i) {
    const Node& p = graph.nodes[i];
    std::vector<std::int64_t> hw;
    if (!zero_hw_pad(graph, p, hw) || is_graph_output(graph, p.outputs[0])) continue;
    const auto cons = graph.consumers(p.outputs[0]);
    if (cons.size() != 1) continue;
    Node& c = graph.nodes[cons[0]];
    if (c.inputs.empty() || c.inputs[0] != p.outputs[0]) continue;
    std::vector<std::int64_t> own = c.attr_ints("pads", {0, 0, 0, 0});
    if (own.size() != 4) continue;
    if (c.op_type == "AveragePool") {
      const bool own_zero = own == std::vector<std::int64_t>{0, 0, 0, 0};
      if (!own_zero && c.attr_int("count_include_pad", 0) == 0) continue;
      c.attrs["count_include_pad"] = std::int64_t{1};
    } else if (c.op_type != "Conv") {
      continue;
    }
    for (std::size_t k = 0; k < 4; ++k) own[k] += hw[k];
    c.attrs["pads"] = own;
    c.attrs.erase("auto_pad");
    c.inputs[0] = p.inputs[0];
    graph.tensors.erase(p.outputs[0]);
    graph.nodes.erase(graph.nodes.begin() + std::ptrdiff_t(i));
    --i;
    ++merged;
  }
  return merged;
}

// ---- the pass ----------------------------------------------------------------------------

/// merge-pads: a zero Pad merged into the padding of the Conv / AveragePool it feeds.
class MergePads : public ImportPass {
 public:
  std::string name() const override { return "merge-pads"; }
  std::string description() const override { return "merge a zero Pad into the padding of the Conv or AveragePool it feeds"; }
  std::vector<Decision> run(Graph& graph, const PassContext& ctx) const override {
    return {summary_decision(name(), ctx.model, "merged " + std::to_string(merge_pads(graph)) + " Pad node(s)")};
  }
};

NPU_REGISTER_PASS(MergePads, 500);

}  // namespace npu::compiler
