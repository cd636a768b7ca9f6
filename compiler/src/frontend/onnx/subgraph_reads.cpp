// The tensors a node's subgraphs (Loop/Scan bodies, If branches) read from the enclosing graph
// (onnx_subgraph.hpp). ONNX lets a body name any tensor of an enclosing scope without listing it
// as a node input: torchvision's paste_masks_in_image Loop (Mask R-CNN) lists only constants as
// inputs while its body reads the masks and the boxes.
#include <set>

#include "frontend/onnx/onnx_subgraph.hpp"

namespace npu::compiler {

namespace {

void reads_of(const onnx::GraphProto& sub, std::set<std::string> scope, std::vector<std::string>& out,
              std::set<std::string>& seen) {
  for (const auto& i : sub.input()) scope.insert(i.name());
  for (const auto& t : sub.initializer()) scope.insert(t.name());
  for (const auto& n : sub.node()) {
    for (const auto& in : n.input())
      if (!in.empty() && !scope.count(in) && seen.insert(in).second) out.push_back(in);
    for (const auto& a : n.attribute()) {
      if (a.has_g()) reads_of(a.g(), scope, out, seen);
      for (const auto& g : a.graphs()) reads_of(g, scope, out, seen);
    }
    for (const auto& o : n.output()) scope.insert(o);
  }
}

}  // namespace

std::vector<std::string> outer_scope_reads(const Node& n) {
  std::vector<std::string> out;
  onnx::NodeProto np;
  if (n.onnx_proto.empty() || !np.ParseFromString(n.onnx_proto)) return out;
  std::set<std::string> seen;
  for (const auto& a : np.attribute()) {
    if (a.has_g()) reads_of(a.g(), {}, out, seen);
    for (const auto& g : a.graphs()) reads_of(g, {}, out, seen);
  }
  return out;
}

}  // namespace npu::compiler
