// int8 parameters of the row-wise ACT layers (int8_lowering.hpp): Softmax's exp table and
// LayerNormalization / RMSNormalization's per-column weights, offsets and multipliers.
// docs/functional.md "int8 execution" gives the rules and their sources.
#include <algorithm>
#include <cmath>
#include <string>

#include "npu/compiler/backend/lowering/int8/int8_lowering.hpp"
#include "npu/compiler/ir/fused_attr.hpp"
#include "npu/isa/cost/requant_math.hpp"
#include "npu/isa/requant_operand.hpp"

namespace npu::compiler {

std::vector<std::int32_t> softmax_exp_table(double s_in) {
  std::vector<std::int32_t> e(256);
  for (int k = 0; k < 256; ++k) e[std::size_t(k)] = std::int32_t(std::floor(std::exp(-s_in * k) * 65535.0 + 0.5));
  return e;
}

Int8Norm norm_int8(const Graph& g, const Node& n, const Int8Grid& in, const Int8Grid& out, std::int64_t d) {
  auto param = [&](std::size_t i) -> std::vector<float> {
    if (i >= n.inputs.size() || n.inputs[i].empty()) return std::vector<float>(std::size_t(d), 0.0f);
    const Tensor* t = g.has_tensor(n.inputs[i]) ? &g.tensor(n.inputs[i]) : nullptr;
    if (!t || !t->is_constant || t->float_data.empty())
      throw std::invalid_argument("input " + std::to_string(i) + " is not a constant");
    if (std::int64_t(t->float_data.size()) == d) return t->float_data;
    if (t->float_data.size() == 1) return std::vector<float>(std::size_t(d), t->float_data[0]);
    throw std::invalid_argument("input " + std::to_string(i) + " has " + std::to_string(t->float_data.size()) +
                                " values for rows of " + std::to_string(d));
  };
  const bool ln = n.op_type == "LayerNormalization";
  const std::vector<float> gamma = param(1), beta = ln ? param(2) : std::vector<float>(std::size_t(d), 0.0f);
  const double eps = double(n.attr_float("epsilon", 1e-5f));
  constexpr double kQ12 = 1.0 / 4096.0, kLimit = double(1 << 30);
  Int8Norm r;
  const double eps_term = std::nearbyint(double(d) * double(d) * eps / (in.scale * in.scale));
  r.table = {std::int32_t(std::clamp(eps_term, 0.0, 2147483647.0)), 0};
  for (std::int64_t j = 0; j < d; ++j) {
    const double a = double(gamma[std::size_t(j)]), s_w = a == 0 ? 1.0 : std::fabs(a) / 127.0;
    r.w.push_back(std::int32_t(std::nearbyint(a / s_w)));
    r.b.push_back(std::int32_t(std::clamp(std::nearbyint(double(beta[std::size_t(j)]) / (kQ12 * s_w)), -kLimit, kLimit)));
    std::int32_t m = 0;
    int shift = 0;
    isa::quantize_multiplier(kQ12 * s_w / out.scale, m, shift);
    r.table.push_back(m);
    r.table.push_back(shift);
  }
  return r;
}

void rowwise_layer_int8(const Graph& g, const LayerSpec& L, const Node* anchor, const Int8Grid& x, const Int8Grid& y,
                        Int8Layer& r) {
  if (!L.residual.empty()) {
    r.problem = std::string("a ") + isa::to_string(L.act) + " with a fused residual input has no int8 rule (the " +
                "int8 Add rescales both inputs: run the Add as its own layer)";
    return;
  }
  const std::uint64_t rows = std::uint64_t(std::max(L.channels, 1)), d = L.elems / rows;
  if (d > isa::kInt8RowMax) {
    r.problem = "rows of " + std::to_string(d) + " elements exceed the int8 row limit " +
                std::to_string(isa::kInt8RowMax) + " (int32 row sums)";
    return;
  }
  if (L.act == isa::ActOp::Softmax) {
    if (std::fabs(y.scale * 256.0 - 1.0) > 1e-6) {
      r.problem = "Softmax output grid has scale " + std::to_string(y.scale) + "; int8 softmax writes onto scale 1/256 "
                  "(TFLite's int8 softmax output; post-training quantisation gives it)";
      return;
    }
    r.table = softmax_exp_table(x.scale);
    r.imm.mask_lowest = anchor && anchor->attr_int(fused_attr::kMaskLowest, 0) != 0;
  } else {
    if (!anchor || (anchor->op_type != "LayerNormalization" && anchor->op_type != "RMSNormalization")) {
      r.problem = "its node is not a LayerNormalization or RMSNormalization";
      return;
    }
    try {
      const Int8Norm nq = norm_int8(g, *anchor, x, y, std::int64_t(d));
      r.table = nq.table;
      r.scale_shift = nq.w;
      if (L.act == isa::ActOp::LayerNorm) r.scale_shift.insert(r.scale_shift.end(), nq.b.begin(), nq.b.end());
    } catch (const std::invalid_argument& e) {
      r.problem = anchor->op_type + " '" + anchor->name + "': " + e.what();
      return;
    }
  }
  r.imm.on = true;
  r.imm.in_zp = x.zero_point;
  r.imm.out_zp = y.zero_point;
}

}  // namespace npu::compiler
