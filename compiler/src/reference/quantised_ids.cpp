// The quantised reference's integer (token id) views (quantised_rules.hpp, id_view): written
// from the ONNX definitions, independent of the NPU's lowering (LowerCtx::int32_ids).
#include <cmath>
#include <stdexcept>

#include "npu/compiler/reference/reference_interpreter.hpp"
#include "reference/quantised_rules.hpp"

namespace npu::compiler::qref {

namespace {

bool same_values(const Node& n) {
  const std::string& op = n.op_type;
  if (op == "Reshape" || op == "Flatten" || op == "Squeeze" || op == "Unsqueeze" || op == "Identity" ||
      op == "Dropout")
    return true;
  // ONNX TensorProto types INT32 6, INT64 7, UINT32 12, UINT64 13: ids (0 <= id < 2^24) keep
  // their values. Narrower integers could wrap; floats are no indices.
  const std::int64_t to = n.attr_int("to", 0);
  return op == "Cast" && (to == 6 || to == 7 || to == 12 || to == 13);
}

}  // namespace

bool is_id_view(const Node& n) { return same_values(n) || n.op_type == "Slice" || n.op_type == "Split"; }

std::vector<std::vector<std::int64_t>> id_view(const Graph& g, const Node& n, const std::vector<std::int64_t>& shape,
                                               const std::vector<std::int64_t>& ids) {
  if (!is_id_view(n))
    throw std::invalid_argument("integer tensors (token ids) have an int8 rule only through Reshape, Flatten, "
                                "Squeeze, Unsqueeze, Identity, Dropout, Cast to int32/int64, Slice and Split, as "
                                "the indices of a Gather of a constant table along axis 0");
  if (same_values(n)) return {ids};
  // Slice / Split: the node alone on input "x" (its other inputs: the graph's constants), run
  // by the fp32 reference interpreter on the ids as floats (exact: |id| < 2^24, only selected).
  SingleNode single = single_node_on_x(g, n, shape, "ids");
  Graph& one = single.graph;
  const Node& m = single.node;
  for (const std::string& o : m.outputs)
    if (!o.empty()) {
      one.tensors[o] = g.tensor(o);
      one.tensors[o].type = ElemType::Float32;
      one.outputs.push_back(o);
    }
  one.nodes = {m};
  one.inputs = {"x"};
  RefTensor xs;
  xs.shape = shape;
  for (std::int64_t v : ids) {
    if (v <= -(std::int64_t(1) << 24) || v >= (std::int64_t(1) << 24))
      throw std::invalid_argument("id " + std::to_string(v) + " is outside (-2^24, 2^24), the ids a run carries");
    xs.f.push_back(float(v));
  }
  const RefTensorMap r = run_reference(one, {{"x", xs}});
  std::vector<std::vector<std::int64_t>> out;
  for (const std::string& o : m.outputs) {
    out.emplace_back();
    if (o.empty()) continue;
    for (float v : r.at(o).f) out.back().push_back(std::int64_t(std::lround(v)));
  }
  return out;
}

}  // namespace npu::compiler::qref
