// Requantising copies in front of narrow Concat inputs (shared_grids.hpp, insert_concat_requant).
#include <algorithm>

#include "npu/compiler/quantize/shared_grids.hpp"

namespace npu::compiler {

namespace {
double width(const TensorRange& r) { return double(std::max(r.hi, 0.0f)) - double(std::min(r.lo, 0.0f)); }
}  // namespace

std::vector<std::string> insert_concat_requant(Graph& graph, std::map<std::string, TensorRange>& ranges) {
  std::vector<std::string> added;
  for (std::size_t i = 0; i < graph.nodes.size(); ++i) {
    if (graph.nodes[i].op_type != "Concat" || graph.nodes[i].outputs.empty()) continue;
    const std::string out = graph.nodes[i].outputs[0];
    auto ro = ranges.find(out);
    if (ro == ranges.end() || width(ro->second) <= 0) continue;
    for (std::size_t k = 0; k < graph.nodes[i].inputs.size(); ++k) {
      const std::string x = graph.nodes[i].inputs[k];
      auto rx = ranges.find(x);
      if (x.empty() || rx == ranges.end() || !graph.has_tensor(x) || graph.tensor(x).is_constant) continue;
      if (width(rx->second) * kConcatRequantRatio >= width(ro->second)) continue;
      const std::string y = x + ":requant:" + graph.nodes[i].name;
      Tensor t = graph.tensor(x);
      t.name = y;
      graph.tensors[y] = t;
      ranges[y] = ranges.at(out);
      Node copy;
      copy.name = y;
      copy.op_type = "Clip";  // no bounds: identity in fp32, a rescaling copy in int8
      copy.inputs = {x};
      copy.outputs = {y};
      graph.nodes[i].inputs[k] = y;
      graph.nodes.insert(graph.nodes.begin() + std::ptrdiff_t(i), copy);
      ++i;  // the Concat moved one place down
      added.push_back(y);
    }
  }
  return added;
}

}  // namespace npu::compiler
