// Checks of constant operand values (operand_values.hpp).
#include "transforms/canonicalize/operand_values.hpp"

#include <cmath>
#include <cstdint>
#include <vector>

#include "npu/base/config_error.hpp"
#include "npu/base/user_text.hpp"

namespace npu::compiler {

namespace {

std::string shape_text(const std::vector<std::int64_t>& s) {
  std::string out = "[";
  for (std::size_t i = 0; i < s.size(); ++i) out += (i ? "," : "") + std::to_string(s[i]);
  return out + "]";
}

bool constant_input(const Graph& g, const Node& n, std::size_t i) {
  return n.inputs.size() > i && !n.inputs[i].empty() && g.has_tensor(n.inputs[i]) && g.tensor(n.inputs[i]).is_constant;
}

// Gather: every constant index in [-d, d) for d = the data's size along `axis`.
void check_gather(const Graph& g, const Node& n, const std::string& where) {
  if (!constant_input(g, n, 1) || !g.has_tensor(n.inputs[0])) return;
  const std::vector<std::int64_t>& data = g.tensor(n.inputs[0]).shape;
  const auto rank = std::int64_t(data.size());
  std::int64_t axis = n.attr_int("axis", 0);
  if (axis < 0) axis += rank;
  if (axis < 0 || axis >= rank) return;  // the shape rule names a bad axis
  const std::int64_t d = data[std::size_t(axis)];
  if (d < 0) return;  // a dynamic size: not known at import
  const std::vector<std::int64_t>& idx = g.tensor(n.inputs[1]).int_data;
  for (std::size_t k = 0; k < idx.size(); ++k)
    if (idx[k] < -d || idx[k] >= d)
      throw ConfigError(where + ": constant index " + std::to_string(idx[k]) + " (element " + std::to_string(k) +
                        " of '" + echo(n.inputs[1]) + "') is out of range for axis " + std::to_string(axis) + " of '" +
                        echo(n.inputs[0]) + "' " + shape_text(data) + ", whose size is " + std::to_string(d) +
                        "; ONNX Gather takes indices in [" + std::to_string(-d) + ", " + std::to_string(d - 1) +
                        "]: fix the indices (re-export the model)");
}

// Pad, mode reflect: begin and end pads of each axis of size d at most d - 1.
void check_reflect_pad(const Graph& g, const Node& n, const std::string& where) {
  if (n.attr_string("mode", "constant") != "reflect" || !g.has_tensor(n.inputs[0])) return;
  std::vector<std::int64_t> pads = n.attr_ints("pads");
  if (constant_input(g, n, 1)) pads = g.tensor(n.inputs[1]).int_data;
  const std::vector<std::int64_t>& x = g.tensor(n.inputs[0]).shape;
  if (pads.size() != 2 * x.size() || constant_input(g, n, 3)) return;  // axes given: the shape rule's case
  for (std::size_t a = 0; a < x.size(); ++a) {
    for (std::int64_t p : {pads[a], pads[a + x.size()]}) {
      if (x[a] < 0 || p < x[a]) continue;  // a dynamic size is not known at import
      throw ConfigError(where + ": reflect pad of " + std::to_string(p) + " on axis " + std::to_string(a) + " of '" +
                        echo(n.inputs[0]) + "' " + shape_text(x) + ", whose size is " + std::to_string(x[a]) +
                        "; a reflection mirrors at most size - 1 = " + std::to_string(x[a] - 1) +
                        " elements (ONNX Runtime refuses more): use smaller pads, or mode 'edge' or 'constant'");
    }
  }
}

// BatchNormalization: var[c] + epsilon > 0 for a constant variance.
void check_batchnorm_variance(const Graph& g, const Node& n, const std::string& where) {
  if (!constant_input(g, n, 4)) return;
  const float eps = n.attr_float("epsilon", 1e-5f);
  const std::vector<float>& var = g.tensor(n.inputs[4]).float_data;
  for (std::size_t c = 0; c < var.size(); ++c) {
    const double v = double(var[c]) + double(eps);
    if (v > 0) continue;  // false for NaN too
    throw ConfigError(where + ": channel " + std::to_string(c) + " has var + epsilon = " + std::to_string(var[c]) +
                      " + " + std::to_string(eps) + " <= 0 (or NaN), so 1 / sqrt(var + epsilon) is not a real "
                      "number; a variance is >= 0 and epsilon > 0: fix the constant '" + echo(n.inputs[4]) +
                      "' or the epsilon attribute (re-export the model)");
  }
}

}  // namespace

void check_constant_operands(const Graph& g, const Node& n, const std::string& where) {
  if (n.op_type == "Gather") check_gather(g, n, where);
  else if (n.op_type == "Pad") check_reflect_pad(g, n, where);
  else if (n.op_type == "BatchNormalization") check_batchnorm_variance(g, n, where);
}

}  // namespace npu::compiler
