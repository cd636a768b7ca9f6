// int8 layout moves (int8_lowering.hpp): Transpose, Split, Slice and nearest upsampling copy
// int8 values unchanged, so their rule is the fp32 reference kernel applied to the values.
#include <cmath>
#include <set>

#include "npu/compiler/backend/lowering/int8/int8_lowering.hpp"
#include "npu/compiler/reference/reference_interpreter.hpp"

namespace npu::compiler {

bool is_int8_layout_move(const std::string& op_type) {
  static const std::set<std::string> kOps = {"Transpose", "Split", "Slice", "Resize", "Upsample"};
  return kOps.count(op_type) > 0;
}

std::vector<std::vector<std::int8_t>> int8_layout_move(const Graph& g, const Node& n, const std::vector<std::int64_t>& shape,
                                                       const std::vector<std::int8_t>& x) {
  // The node alone on input "x" (its other inputs: the graph's constants), run in fp32.
  Graph one;
  one.name = g.name + ":" + n.name + ":int8-move";
  one.opset = g.opset;
  Tensor xt;
  xt.name = "x";
  xt.shape = shape;
  one.tensors["x"] = xt;
  Node m = n;
  m.inputs.at(0) = "x";
  for (std::size_t i = 1; i < m.inputs.size(); ++i)
    if (!m.inputs[i].empty()) one.tensors[m.inputs[i]] = g.tensor(m.inputs[i]);
  for (const std::string& o : m.outputs)
    if (!o.empty()) {
      one.tensors[o] = g.tensor(o);
      one.tensors[o].quant.reset();  // the values are the int8 codes themselves: no fake quantisation
      one.outputs.push_back(o);
    }
  one.nodes = {m};
  one.inputs = {"x"};
  RefTensor xs;
  xs.shape = shape;
  xs.f.assign(x.begin(), x.end());
  const RefTensorMap r = run_reference(one, {{"x", xs}});
  std::vector<std::vector<std::int8_t>> out;
  for (const std::string& o : m.outputs) {
    out.emplace_back();
    if (o.empty()) continue;
    for (float v : r.at(o).f) out.back().push_back(std::int8_t(std::lround(v)));  // exact: values are moved
  }
  return out;
}

}  // namespace npu::compiler
