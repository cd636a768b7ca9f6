#include "npu/compiler/ir/pool_window.hpp"

#include <cstddef>
#include <string>
#include <vector>

namespace npu::compiler {

bool avg_pool_counts_padding(const Graph& g, const Node& n) {
  if (n.op_type != "AveragePool" || n.attr_int("count_include_pad", 0) == 0) return false;
  const std::string auto_pad = n.attr_string("auto_pad", "NOTSET");
  if (auto_pad != "NOTSET" && auto_pad != "VALID") return true;  // SAME_*: pads not resolved here
  if (n.inputs.empty() || n.outputs.empty() || !g.has_tensor(n.inputs[0]) || !g.has_tensor(n.outputs[0])) return true;
  const auto& x = g.tensor(n.inputs[0]).shape;
  const auto& y = g.tensor(n.outputs[0]).shape;
  if (x.size() < 3 || y.size() != x.size()) return true;
  const std::size_t sp = x.size() - 2;
  const std::vector<std::int64_t> k = n.attr_ints("kernel_shape", {});
  const std::vector<std::int64_t> s = n.attr_ints("strides", std::vector<std::int64_t>(sp, 1));
  const std::vector<std::int64_t> d = n.attr_ints("dilations", std::vector<std::int64_t>(sp, 1));
  const std::vector<std::int64_t> p = n.attr_ints("pads", std::vector<std::int64_t>(2 * sp, 0));
  if (k.size() != sp || s.size() != sp || d.size() != sp || p.size() != 2 * sp) return true;
  for (std::size_t i = 0; i < sp; ++i) {
    if (p[i] != 0 || p[sp + i] != 0) return true;
    if (x[2 + i] < 1 || y[2 + i] < 1) return true;  // unknown (dynamic) size
    if ((y[2 + i] - 1) * s[i] + (k[i] - 1) * d[i] + 1 > x[2 + i]) return true;  // ceil_mode overhang
  }
  return false;
}

}  // namespace npu::compiler
