// An If with a constant condition replaced by its branch (onnx_subgraph.hpp). torchvision's
// detection exports branch on shapes ("squeeze when there is one level"), which are
// constants once the input shape is static.
#include "frontend/onnx/onnx_subgraph.hpp"

#include "npu/hw_config/hw_config.hpp"

namespace npu::compiler {

bool inline_constant_if(Graph& graph, std::size_t index, const std::string& source) {
  const Node& n = graph.nodes.at(index);
  if (n.op_type != "If" || n.inputs.empty() || n.onnx_proto.empty() || !graph.has_tensor(n.inputs[0])) return false;
  const Tensor& c = graph.tensor(n.inputs[0]);
  if (!c.is_constant || c.elements() != 1) return false;
  const bool cond = c.float_data.empty() ? (!c.int_data.empty() && c.int_data[0] != 0) : c.float_data[0] != 0.0f;
  onnx::NodeProto np;
  if (!np.ParseFromString(n.onnx_proto)) return false;
  const onnx::GraphProto* branch = nullptr;
  for (const auto& a : np.attribute())
    if (a.name() == (cond ? "then_branch" : "else_branch") && a.has_g()) branch = &a.g();
  if (!branch || branch->output_size() != int(n.outputs.size()))
    throw ConfigError(source + ": error: node '" + n.name + "' (If): its " + (cond ? "then" : "else") +
                      " branch is missing or has " + std::to_string(branch ? branch->output_size() : 0) +
                      " outputs for " + std::to_string(n.outputs.size()) + "; the model is corrupt: re-export it");
  const std::vector<std::string> outs = n.outputs;
  const std::string name = n.name;
  std::vector<Node> nodes = import_subgraph(*branch, graph, source);
  for (int k = 0; k < branch->output_size(); ++k) {
    Node id;
    id.name = name + ":out" + std::to_string(k);
    id.op_type = "Identity";
    id.inputs = {branch->output(k).name()};
    id.outputs = {outs[std::size_t(k)]};
    nodes.push_back(std::move(id));
  }
  graph.nodes.erase(graph.nodes.begin() + std::ptrdiff_t(index));
  graph.nodes.insert(graph.nodes.begin() + std::ptrdiff_t(index), nodes.begin(), nodes.end());
  return true;
}

}  // namespace npu::compiler
