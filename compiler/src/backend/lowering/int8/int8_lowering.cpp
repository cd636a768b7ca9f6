// Integer parameters of NPU layers of quantised models (int8_lowering.hpp).
#include "npu/compiler/backend/lowering/int8/int8_lowering.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <stdexcept>

#include "npu/compiler/transforms/pass.hpp"
#include "npu/isa/cost/requant_math.hpp"
#include "npu/isa/requant_operand.hpp"

namespace npu::compiler {

namespace {

bool is_view(const std::string& op) {
  return op == "Reshape" || op == "Flatten" || op == "Squeeze" || op == "Unsqueeze" || op == "Identity" ||
         op == "Dropout";
}

// A lowered tensor name: a graph tensor, or a byte subview "T@offset+bytes" of one.
const Tensor* graph_tensor(const Graph& g, const std::string& name) {
  if (g.has_tensor(name)) return &g.tensor(name);
  const std::size_t at = name.rfind('@');
  if (at != std::string::npos && g.has_tensor(name.substr(0, at))) return &g.tensor(name.substr(0, at));
  return nullptr;
}

std::pair<std::int32_t, std::int32_t> multiplier(double real) {
  std::int32_t m = 0;
  int s = 0;
  isa::quantize_multiplier(real, m, s);
  return {m, s};
}

}  // namespace

bool is_quantised(const Graph& g) {
  for (const auto& [name, t] : g.tensors)
    if (t.quant) return true;
  return false;
}

int complete_quant(Graph& g) {
  int n = 0;
  for (const Node& node : g.nodes) {
    if (node.outputs.empty() || !g.has_tensor(node.outputs[0]) || g.tensor(node.outputs[0]).quant) continue;
    const std::string& out = node.outputs[0];
    const std::string& op = node.op_type;
    if (op == "Conv" || op == "Gemm" || op == "MatMul") {
      const auto cons = g.consumers(out);
      if (cons.size() != 1 || is_graph_output(g, out)) continue;
      const Node& c = g.nodes[cons[0]];
      if ((c.op_type == "Relu" || c.op_type == "Clip") && !c.outputs.empty() && g.has_tensor(c.outputs[0]) &&
          g.tensor(c.outputs[0]).quant) {
        g.tensor(out).quant = g.tensor(c.outputs[0]).quant;
        ++n;
      }
    } else if ((op == "MaxPool" || op == "GlobalMaxPool" || is_view(op)) && !node.inputs.empty() &&
               g.has_tensor(node.inputs[0]) && g.tensor(node.inputs[0]).quant) {
      g.tensor(out).quant = g.tensor(node.inputs[0]).quant;
      ++n;
    }
  }
  return n;
}

std::optional<Int8Grid> activation_grid(const Tensor& t) {
  if (!t.quant || t.quant->scale.size() != 1 || t.quant->zero_point.size() != 1) return std::nullopt;
  Int8Grid g;
  g.scale = double(t.quant->scale[0]);
  g.zero_point = int(t.quant->zero_point[0]) - (t.quant->type == ElemType::Uint8 ? 128 : 0);
  if (!(g.scale > 0) || g.zero_point < -128 || g.zero_point > 127) return std::nullopt;
  return g;
}

std::int8_t quantise(float x, const Int8Grid& g) {
  const double q = std::nearbyint(double(x) / g.scale) + g.zero_point;  // half to even (default rounding mode)
  return std::int8_t(std::clamp(q, -128.0, 127.0));
}

float dequantise(std::int8_t q, const Int8Grid& g) { return float(double(int(q) - g.zero_point) * g.scale); }

std::vector<double> weight_scales(const Tensor& w, int out_axis, std::int64_t channels, std::string& problem) {
  problem.clear();
  if (!w.quant) {
    problem = "weights '" + w.name + "' carry no quantisation";
    return {};
  }
  const QuantParams& q = *w.quant;
  for (std::int64_t z : q.zero_point)
    if (z != 0) {
      problem = "weights '" + w.name + "' have a non-zero zero point (int8 weights are symmetric)";
      return {};
    }
  if (q.scale.size() == 1) return std::vector<double>(std::size_t(channels), double(q.scale[0]));
  if (q.axis != out_axis || std::int64_t(q.scale.size()) != channels) {
    problem = "weights '" + w.name + "' are quantised per channel along axis " + std::to_string(q.axis) +
              ", not per output channel (axis " + std::to_string(out_axis) + ")";
    return {};
  }
  return std::vector<double>(q.scale.begin(), q.scale.end());
}

std::vector<std::int8_t> quantise_weights(const Tensor& w, int out_axis, const std::vector<double>& scales) {
  std::vector<std::int8_t> out(w.float_data.size());
  std::size_t inner = 1;
  for (std::size_t d = std::size_t(out_axis) + 1; d < w.shape.size(); ++d) inner *= std::size_t(w.shape[d]);
  for (std::size_t i = 0; i < out.size(); ++i) {
    const std::size_t c = (i / inner) % scales.size();
    out[i] = std::int8_t(std::clamp(std::nearbyint(double(w.float_data[i]) / scales[c]), -128.0, 127.0));
  }
  return out;
}

std::vector<std::int32_t> global_avg_table(double s_in, double s_out, std::int64_t plane) {
  const auto m = multiplier(s_in / (s_out * double(std::max<std::int64_t>(plane, 1))));
  return {m.first, m.second};
}

Int8ScaleShift batchnorm_int8(const Graph& g, const Node& bn, const Int8Grid& in, const Int8Grid& out) {
  auto param = [&](std::size_t i) -> const std::vector<float>& {
    if (i >= bn.inputs.size() || !g.has_tensor(bn.inputs[i]) || !g.tensor(bn.inputs[i]).is_constant)
      throw std::invalid_argument("BatchNormalization '" + bn.name + "': input " + std::to_string(i) +
                                  " is not a constant (int8 needs the inference form)");
    return g.tensor(bn.inputs[i]).float_data;
  };
  const std::vector<float>&gamma = param(1), &beta = param(2), &mean = param(3), &var = param(4);
  const std::size_t c = gamma.size();
  if (beta.size() != c || mean.size() != c || var.size() != c)
    throw std::invalid_argument("BatchNormalization '" + bn.name + "': scale, B, mean and var differ in length");
  const double eps = bn.attr_float("epsilon", 1e-5f);
  Int8ScaleShift r;
  for (std::size_t k = 0; k < c; ++k) {
    const double a = double(gamma[k]) / std::sqrt(double(var[k]) + eps);
    const double shift = double(beta[k]) - double(mean[k]) * a;
    const double s_w = a == 0 ? 1.0 : std::fabs(a) / 127.0;
    r.w.push_back(std::int32_t(std::nearbyint(a / s_w)));
    constexpr double kLimit = double(1 << 30);
    r.b.push_back(std::int32_t(std::clamp(std::nearbyint(shift / (in.scale * s_w)), -kLimit, kLimit)));
    const auto m = multiplier(in.scale * s_w / out.scale);
    r.pairs.push_back(m.first);
    r.pairs.push_back(m.second);
  }
  return r;
}

std::vector<std::int32_t> add_table(double s_a, double s_b, double s_out) {
  constexpr int kLeftShift = 20;  // TFLite kernels/add.cc, int8
  const double twice_max = 2 * std::max(s_a, s_b);
  const auto a = multiplier(s_a / twice_max), b = multiplier(s_b / twice_max);
  const auto o = multiplier(twice_max / (double(1 << kLeftShift) * s_out));
  return {kLeftShift, a.first, a.second, b.first, b.second, o.first, o.second};
}

bool activation_clamp(isa::ActOp act, float lo, float hi, const Int8Grid& out, int& clamp_min, int& clamp_max) {
  clamp_min = -128;
  clamp_max = 127;
  auto q = [&](float x) { return double(out.zero_point) + std::round(double(x) / out.scale); };
  switch (act) {
    case isa::ActOp::None:
    case isa::ActOp::Identity: return true;
    case isa::ActOp::Relu: clamp_min = std::max(-128, out.zero_point); return true;
    case isa::ActOp::Clip:
      clamp_min = int(std::clamp(q(lo), -128.0, 127.0));
      clamp_max = int(std::clamp(q(hi), -128.0, 127.0));
      return clamp_min <= clamp_max;
    default: return false;
  }
}

namespace {

/// The per-tensor int8 grid of tensor `name` of `g`; none (and, if it is the first, a note
/// in `problem` naming its `role`) when it has none.
std::optional<Int8Grid> layer_grid(const Graph& g, const std::string& name, const char* role, std::string& problem) {
  const Tensor* t = graph_tensor(g, name);
  auto gr = t ? activation_grid(*t) : std::nullopt;
  if (!gr && problem.empty()) problem = std::string(role) + " '" + name + "' has no per-tensor int8 quantisation";
  return gr;
}

/// A BatchNormalization run as its own ACT (scale/shift): its int8 multipliers and offsets.
void batchnorm_layer_int8(const Graph& g, const LayerSpec& L, const Node& bn, Int8Layer& r) {
  const auto x = layer_grid(g, L.inputs[0], "input", r.problem), y = layer_grid(g, L.output, "output", r.problem);
  if (!x || !y) return;
  if (!L.residual.empty()) {
    r.problem = "a BatchNormalization with a residual input has no int8 rule";
    return;
  }
  try {
    const Int8ScaleShift ss = batchnorm_int8(g, bn, *x, *y);
    r.scale_shift = ss.w;
    r.scale_shift.insert(r.scale_shift.end(), ss.b.begin(), ss.b.end());
    r.table = ss.pairs;
  } catch (const std::invalid_argument& e) {
    r.problem = e.what();
    return;
  }
  r.imm.on = true;
  r.imm.in_zp = x->zero_point;
  r.imm.out_zp = y->zero_point;
}

/// The weights' per-output-channel scales of a CONV or GEMM layer (empty, with r.problem,
/// when they are not a constant or the Gemm has alpha/beta other than 1).
std::vector<double> layer_weight_scales(const Graph& g, const LayerSpec& L, const Node* anchor, Int8Layer& r) {
  const Tensor* w = g.has_tensor(L.weight) ? &g.tensor(L.weight) : nullptr;  // not a slice of a batched MatMul
  if (const Tensor* b = graph_tensor(g, L.weight); b && !b->is_constant && L.kind == LayerKind::Gemm) {
    // A computed B (attention's Q K^T and P V): an int8 activation on one grid, as TFLite's int8
    // BatchMatMul; the ISA subtracts no B zero point, so it must be 0 (PTQ makes it symmetric).
    const auto gb = activation_grid(*b);
    if (!gb) {
      r.problem = "B operand '" + L.weight + "' has no per-tensor int8 quantisation";
      return {};
    }
    if (gb->zero_point != 0) {
      r.problem = "B operand '" + L.weight + "' has zero point " + std::to_string(gb->zero_point) +
                  "; int8 GEMM subtracts none from B (post-training quantisation gives a computed B a symmetric grid)";
      return {};
    }
    return std::vector<double>(std::size_t(L.geom.c_out), gb->scale);
  }
  if (!w || !w->is_constant) {
    const Tensor* whole = graph_tensor(g, L.weight);
    r.problem = whole && whole->is_constant
                    ? "weights '" + L.weight + "' are a slice of constant '" + whole->name +
                          "' (one GEMM per batch); int8 has no rule for a sliced constant weight (fp32 runs it)"
                    : "weights '" + L.weight + "' are not a constant of the graph";
    return {};
  }
  int axis = anchor && anchor->op_type == "ConvTranspose" ? 1 : 0;  // ONNX [Cin, Cout/group, kh, kw]
  if (L.kind == LayerKind::Gemm) {
    const bool trans_b = anchor && anchor->op_type == "Gemm" && anchor->attr_int("transB", 0) != 0;
    axis = trans_b ? 0 : 1;
    if (anchor && anchor->op_type == "Gemm" &&
        (anchor->attr_float("alpha", 1.0f) != 1.0f || anchor->attr_float("beta", 1.0f) != 1.0f)) {
      r.problem = "Gemm with alpha or beta other than 1 has no int8 rule";
      return {};
    }
  }
  return weight_scales(*w, axis, L.geom.c_out, r.problem);
}

/// CONV / GEMM: per-channel requantisation multipliers, int32 bias, epilogue clamp.
void matmul_layer_int8(const Graph& g, const LayerSpec& L, const Node* anchor, Int8Layer& r) {
  if (!L.residual.empty() || !L.in_scale.empty() || !L.scale_shift.empty()) {
    r.problem = "a fused residual, input-channel scale or scale/shift has no int8 rule";
    return;
  }
  if (L.prologue != isa::ActOp::None) {
    r.problem = "a fused norm prologue (fuse-norm-prologue) has no int8 rule";
    return;
  }
  if (L.rope_dim > 0) {
    r.problem = "a fused rotary epilogue (fuse-rope) has no int8 rule";
    return;
  }
  // A ConvTranspose's CONV reads the zero-inserted copy of the node's input, on that input's grid.
  const bool transposed = anchor && anchor->op_type == "ConvTranspose";
  const std::string& in = transposed ? anchor->inputs.at(0) : L.inputs[0];
  const auto x = layer_grid(g, in, "input", r.problem), y = layer_grid(g, L.output, "output", r.problem);
  if (!x || !y) return;
  if (transposed && x->zero_point != 0) {
    r.problem = "ConvTranspose input '" + in + "' has zero point " + std::to_string(x->zero_point) +
                ": the zero insertion writes 0 bytes, the real 0 only on a grid with zero point 0 (post-training "
                "quantisation gives a ConvTranspose input a symmetric grid)";
    return;
  }
  const std::vector<double> sw = layer_weight_scales(g, L, anchor, r);
  if (!r.problem.empty()) return;
  if (!activation_clamp(L.act, L.act_alpha, L.act_beta, *y, r.imm.clamp_min, r.imm.clamp_max)) {
    r.problem = std::string("fused activation ") + isa::to_string(L.act) + " has no int8 rule (relu and clip do)";
    return;
  }
  r.imm.on = true;
  r.imm.in_zp = x->zero_point;
  r.imm.out_zp = y->zero_point;
  for (std::size_t c = 0; c < sw.size(); ++c) {
    const auto m = multiplier(x->scale * sw[c] / y->scale);
    r.table.push_back(m.first);
    r.table.push_back(m.second);
  }
  if (L.bias.empty()) return;
  const Tensor* b = graph_tensor(g, L.bias);
  if (!b || b->float_data.size() != sw.size()) {
    r.problem = "bias '" + L.bias + "' is not one constant per output channel";
    return;
  }
  for (std::size_t c = 0; c < sw.size(); ++c) {
    const double q = std::nearbyint(double(b->float_data[c]) / (x->scale * sw[c]));
    r.bias.push_back(std::int32_t(std::clamp(q, -2147483648.0, 2147483647.0)));
  }
}

/// ACT: an element-wise function by 256-entry table, or relu / clip / identity by clamp and
/// one requantisation multiplier.
void act_layer_int8(const Graph& g, const LayerSpec& L, const Node* anchor, Int8Layer& r) {
  const auto x = layer_grid(g, L.inputs[0], "input", r.problem), y = layer_grid(g, L.output, "output", r.problem);
  if (!x || !y) return;
  if (L.act == isa::ActOp::Softmax || L.act == isa::ActOp::LayerNorm || L.act == isa::ActOp::RmsNorm)
    return rowwise_layer_int8(g, L, anchor, *x, *y, r);
  if (anchor && has_int8_lut(anchor->op_type) && L.covers.size() == 1 && isa::act_uses_lut(L.act)) {
    if (!L.residual.empty()) {
      r.problem = "an ACT with a residual input has no int8 rule";
      return;
    }
    try {
      const std::vector<std::int8_t> lut = int8_lut(g, *anchor, *x, *y);
      r.table.assign(lut.size() / 4, 0);
      std::memcpy(r.table.data(), lut.data(), lut.size());  // 64 words holding the 256 bytes in order
    } catch (const std::exception& e) {
      r.problem = std::string("its int8 table could not be computed: ") + e.what();
      return;
    }
    r.imm.on = true;
    return;
  }
  if (L.act != isa::ActOp::Relu && L.act != isa::ActOp::Clip && L.act != isa::ActOp::Identity) {
    r.problem = std::string("ACT ") + isa::to_string(L.act) +
                " has no int8 rule (relu, clip, identity, softmax, layer_norm, rms_norm, an unfolded "
                "BatchNormalization and the element-wise functions by table do)";
    return;
  }
  if (!L.residual.empty() || !L.scale_shift.empty()) {
    r.problem = "an ACT with a residual input or parameters has no int8 rule";
    return;
  }
  activation_clamp(L.act, L.act_alpha, L.act_beta, *y, r.imm.clamp_min, r.imm.clamp_max);
  r.imm.on = true;
  r.imm.in_zp = x->zero_point;
  r.imm.out_zp = y->zero_point;
  const auto m = multiplier(x->scale / y->scale);
  r.table = {m.first, m.second};
}

/// ELTWISE add / mul: the TFLite-style requantisation table.
void eltwise_layer_int8(const Graph& g, const LayerSpec& L, Int8Layer& r) {
  if (L.eltwise != isa::EltwiseOp::Add && L.eltwise != isa::EltwiseOp::Mul) {
    r.problem = std::string("ELTWISE ") + isa::to_string(L.eltwise) + " has no int8 rule (add and mul do)";
    return;
  }
  const auto a = layer_grid(g, L.inputs[0], "input a", r.problem), b = layer_grid(g, L.inputs[1], "input b", r.problem),
             y = layer_grid(g, L.output, "output", r.problem);
  if (!a || !b || !y) return;
  r.imm.on = true;
  r.imm.in_zp = a->zero_point;
  r.imm.b_zp = b->zero_point;
  r.imm.out_zp = y->zero_point;
  r.table = L.eltwise == isa::EltwiseOp::Mul ? mul_table(a->scale, b->scale, y->scale)
                                             : add_table(a->scale, b->scale, y->scale);
}

/// A bilinear Resize (TFLite's ResizeBilinearInteger, codegen/resize_linear_int8.cpp): input
/// and output on one grid; the table is the int32 10-bit fixed-point weights of the second tap,
/// 1024 w of taps_h (one per output row) then of taps_w (one per output column), which ELTWISE
/// lerp / lerp_round read as their requant operand. w = f / 1024 is exact, so the round is too.
void linear_resize_layer_int8(const Graph& g, const LayerSpec& L, Int8Layer& r) {
  for (const LinearTaps* t : {&L.taps_h, &L.taps_w})
    for (float w : t->w) r.table.push_back(std::int32_t(std::lround(double(w) * 1024.0)));
  const auto x = layer_grid(g, L.inputs.at(0), "input", r.problem);
  const auto y = layer_grid(g, L.output, "output", r.problem);
  if (x && y && !(*x == *y) && r.problem.empty())
    r.problem = "input '" + L.inputs[0] + "' and output '" + L.output + "' are on different int8 grids; an int8 "
                "bilinear Resize keeps its input's grid (TFLite's rule; the post-training quantisation shares it)";
}

/// POOL, copy, layout view and resize: the output keeps the input's grid, except a global
/// average pool (GlobalAveragePool, ReduceMean) with an output grid of its own (TFLite's int8
/// MEAN).
void grid_keeping_layer_int8(const Graph& g, const LayerSpec& L, const Node* anchor, Int8Layer& r) {
  if (L.kind == LayerKind::Layout && !L.taps_h.i0.empty()) return linear_resize_layer_int8(g, L, r);
  if ((L.kind == LayerKind::Layout || L.kind == LayerKind::Resize) && L.layout.empty())
    return;  // costed only: refused by functional_problems on its own
  const auto y = layer_grid(g, L.output, "output", r.problem);
  // A ReduceMean runs as the same global average pool over its reduced trailing axes
  // (reduce_ops.cpp: rows x h_in x w_in), and has the same int8 rule over n = h_in w_in.
  if (L.kind == LayerKind::Pool && L.pool == isa::PoolOp::GlobalAvg && anchor &&
      (anchor->op_type == "GlobalAveragePool" || anchor->op_type == "ReduceMean") && L.inputs.size() == 1) {
    const auto x = layer_grid(g, L.inputs[0], "input", r.problem);
    if (!x || !y) return;
    if (!(*x == *y)) {  // an output grid of its own: TFLite's int8 MEAN (pool_int8)
      r.imm.on = true;
      r.imm.in_zp = x->zero_point;
      r.imm.out_zp = y->zero_point;
      r.table = global_avg_table(x->scale, y->scale, std::int64_t(L.geom.h_in) * L.geom.w_in);
    }
    return;
  }
  for (const std::string& in : L.inputs) {
    const auto x = layer_grid(g, in, "input", r.problem);
    if (x && y && !(*x == *y) && r.problem.empty())
      r.problem = "input '" + in + "' and output '" + L.output + "' are on different int8 grids; " +
                  (L.kind == LayerKind::Pool ? "int8 POOL keeps its input's grid" : "an int8 copy (MOVE) moves bytes");
    // avg_pad (count_include_pad=1): the padding's taps are the input's zero point, POOL
    // zp=IN,IN without requant (codegen reads imm.in_zp; imm.on stays false: no requantisation)
    if (x && L.kind == LayerKind::Pool && L.pool == isa::PoolOp::AvgPad) r.imm.in_zp = x->zero_point;
  }
}

}  // namespace

Int8Layer int8_layer(const Graph& g, const LayerSpec& L) {
  Int8Layer r;
  const Node* anchor = L.covers.empty() ? nullptr : node_named(g, L.covers[0]);
  const bool standalone_bn = L.kind == LayerKind::Act && L.act == isa::ActOp::ScaleShift && L.covers.size() == 1 &&
                             anchor && anchor->op_type == "BatchNormalization";
  for (const std::string& c : L.covers)
    if (const Node* n = node_named(g, c); n && n->op_type == "BatchNormalization" && !standalone_bn)
      r.problem = "BatchNormalization '" + c + "' fused into " + L.op_type +
                  " has no int8 rule (fold it into the weights before quantising, or run it as its own layer)";
  if (!r.problem.empty()) return r;
  if (standalone_bn) {
    batchnorm_layer_int8(g, L, *anchor, r);
    return r;
  }
  // A Conv over NCDHW (L.depth) is a CONV layer like a 2-D one: its depth taps' CONVs keep
  // int32 partial sums (acc_in / acc_out) and only the last requantises (codegen/conv3d.cpp).
  if (L.kind == LayerKind::Pool && anchor && (anchor->op_type == "MaxPool" || anchor->op_type == "AveragePool") &&
      !anchor->inputs.empty() && g.has_tensor(anchor->inputs[0]) && g.tensor(anchor->inputs[0]).shape.size() == 5) {
    r.problem = "a 3-D MaxPool/AveragePool has no int8 rule yet: it runs as two separable POOLs through a temporary "
                "with no int8 grid (an average would round twice); run it in fp32";
    return r;
  }
  switch (L.kind) {
    case LayerKind::Conv:
    case LayerKind::Gemm: matmul_layer_int8(g, L, anchor, r); break;
    case LayerKind::Act: act_layer_int8(g, L, anchor, r); break;
    case LayerKind::Eltwise: eltwise_layer_int8(g, L, r); break;
    case LayerKind::Pool:
    case LayerKind::Copy:
    case LayerKind::Layout:
    case LayerKind::Resize: grid_keeping_layer_int8(g, L, anchor, r); break;
    case LayerKind::Gather:
      if (L.gather_index_float)
        r.problem = "a Gather by indices the program computed has no int8 rule: the indices would be int8 values on "
                    "a grid, and a gather LOAD reads int32 or fp32 indices; run it in fp32";
      else if (!g.has_tensor(L.weight) || !g.tensor(L.weight).is_constant)
        r.problem = "a Gather of an activation table has no int8 rule (the output would need the table's grid); "
                    "run it in fp32";
      else
        gather_layer_int8(g, L, r);  // a constant table by int indices (the token embedding): int8_gather.cpp
      break;
    case LayerKind::Attention:
      r.problem = "fused attention has no int8 rule: the int8 Softmax normalises whole rows, and an online softmax "
                  "would need the running maximum to rescale int32 partial sums between key blocks (not built); with "
                  "quantised scores (post-training quantisation gives them a grid) fuse-attention declines and "
                  "MatMul, Softmax and MatMul run as int8 layers";
      break;
    default: break;  // Host: refused by functional_problems on its own
  }
  return r;
}

}  // namespace npu::compiler
