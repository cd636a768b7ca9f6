// The quantised reference interpreter (reference_quantised.hpp): graph level, one node at a
// time, with the rules of quantised_rules.hpp (no back-end code).
#include "npu/compiler/reference/reference_quantised.hpp"

#include <algorithm>
#include <array>
#include <climits>
#include <cmath>
#include <functional>
#include <set>
#include <stdexcept>
#include <string>

#include "npu/compiler/ir/pool_window.hpp"
#include "npu/compiler/ir/fused_attr.hpp"
#include "npu/hw_config/hw_config.hpp"  // ConfigError
#include "reference/quantised_rules.hpp"

namespace npu::compiler {

std::vector<float> QuantisedTensor::real() const {
  std::vector<float> v;
  v.reserve(q.size());
  for (std::int8_t x : q) v.push_back(float(qref::dequantise(x, grid)));
  return v;
}

namespace {

class QuantisedInterpreter {
 public:
  explicit QuantisedInterpreter(Graph g) : g_(std::move(g)) {
    where_ = g_.source.empty() ? "model '" + g_.name + "'" : g_.source;
  }

  QuantisedTensorMap run(const std::map<std::string, std::vector<float>>& inputs) {
    qref::infer_implicit_grids(g_);
    for (const std::string& in : g_.inputs) {
      const Tensor& t = g_.tensor(in);
      auto it = inputs.find(in);
      if (it == inputs.end()) fail("no values given for graph input '" + in + "'");
      if (std::int64_t(it->second.size()) != t.elements())
        fail("graph input '" + in + "' needs " + std::to_string(t.elements()) + " values, got " +
             std::to_string(it->second.size()));
      if (t.type == ElemType::Int64 || t.type == ElemType::Int32) {  // token ids: not quantised
        ints_[in].assign(it->second.begin(), it->second.end());  // exact: the floats hold integers
        continue;
      }
      QuantisedTensor q;
      q.shape = t.shape;
      q.grid = grid_of(in, "graph input");
      for (float x : it->second) q.q.push_back(qref::quantise(double(x), q.grid));
      vals_[in] = std::move(q);
    }
    // An op without an int8 rule is named first, before a missing grid it causes earlier in
    // the graph (e.g. a Conv whose output only a Sigmoid reads has no grid of its own).
    for (const Node& n : g_.nodes) {
      node_ = &n;
      if (!has_rule(n.op_type) && !id_view_of_ints(n)) fail(no_rule(n.op_type));
    }
    for (const Node& n : g_.nodes) {
      node_ = &n;
      execute(n);
    }
    QuantisedTensorMap out;
    for (const std::string& o : g_.outputs) out[o] = value(o);
    return out;
  }

 private:
  [[noreturn]] void fail(const std::string& what) const {
    std::string at = node_ ? "node '" + node_->name + "' (" + node_->op_type + "): " : "";
    throw ConfigError(where_ + ": error: quantised reference: " + at + what);
  }

  QuantGrid grid_of(const std::string& t, const char* role) const {
    const auto gr = qref::grid_of(g_.tensor(t));
    if (!gr) fail(std::string(role) + " '" + t + "' has no per-tensor int8 quantisation (Tensor::quant)");
    return *gr;
  }

  // An operand: a computed tensor or a constant quantised on its grid.
  QuantisedTensor value(const std::string& t) {
    if (auto it = vals_.find(t); it != vals_.end()) return it->second;
    const Tensor& c = g_.tensor(t);
    if (!c.is_constant) fail("tensor '" + t + "' was not computed");
    QuantisedTensor q;
    q.shape = c.shape;
    q.grid = grid_of(t, "constant");
    for (float x : c.float_data) q.q.push_back(qref::quantise(double(x), q.grid));
    return q;
  }

  QuantisedTensor output_like(const Node& n, std::size_t elems) const {
    QuantisedTensor y;
    y.shape = g_.tensor(n.outputs.at(0)).shape;
    y.grid = grid_of(n.outputs[0], "output");
    y.q.assign(elems, 0);
    if (std::int64_t(elems) != g_.tensor(n.outputs[0]).elements()) fail("output element count disagrees with its shape");
    return y;
  }

  static bool has_rule(const std::string& op) {
    static const std::set<std::string> kOps = {
        "Conv",    "Gemm",    "MatMul",  "Relu",      "Clip",     "Add",     "MaxPool", "AveragePool", "GlobalAveragePool",
        "GlobalMaxPool", "Reshape", "Flatten", "Squeeze", "Unsqueeze", "Identity", "Dropout", "Concat",
        "BatchNormalization", "Mul", "ConvTranspose", "Softmax", "LayerNormalization", "RMSNormalization",
        "ReduceMean"};
    return kOps.count(op) > 0 || qref::is_unary_function(op) || qref::is_layout_move(op);
  }

  static std::string no_rule(const std::string& op) {
    return "no int8 rule for op '" + op + "' (implemented: Conv, ConvTranspose, Gemm, MatMul, Relu, Clip, Add, MaxPool, AveragePool, "
           "GlobalAveragePool, GlobalMaxPool, Reshape, Flatten, Squeeze, Unsqueeze, Identity, Dropout, Concat, "
           "BatchNormalization, Mul, Softmax, LayerNormalization, RMSNormalization (last axis), ReduceMean, Transpose, Split, Slice, "
           "nearest and bilinear Resize/Upsample, Gather at constant indices, Pad, and element-wise LeakyRelu, Sigmoid, "
           "HardSigmoid, HardSwish, Tanh, Gelu, Erf, Exp, Sqrt, Reciprocal, Abs, Neg, Pow by a constant)";
  }

  void execute(const Node& n) {
    const std::string& op = n.op_type;
    if (integer_operand(n)) return integer_op(n);
    if (op == "Conv") return conv(n);
    if (op == "ConvTranspose") return conv_transpose(n);
    if (op == "Gemm") return gemm(n);
    if (op == "MatMul") return matmul(n);
    if (op == "Relu" || op == "Clip") return activation(n);
    if (op == "Add" || op == "Mul") return add(n);
    if (qref::is_unary_function(op)) return unary(n);
    if ((op == "Resize" || op == "Upsample") && is_linear(n)) return resize_bilinear(n);
    if (qref::is_layout_move(op)) return layout_move(n);
    if (op == "BatchNormalization") return batchnorm(n);
    if (op == "Softmax" || op == "LayerNormalization" || op == "RMSNormalization") return rowwise(n);
    if (op == "MaxPool" || op == "AveragePool" || op == "GlobalAveragePool" || op == "GlobalMaxPool") return pool(n);
    if (op == "ReduceMean") return reduce_mean(n);
    if (op == "Reshape" || op == "Flatten" || op == "Squeeze" || op == "Unsqueeze" || op == "Identity" ||
        op == "Dropout" || op == "Concat")
      return move_bytes(n);
    fail(no_rule(op));
  }

  // Weights (symmetric, per output channel along `axis`, or per tensor), int32 bias and
  // per-channel multipliers M[c] = s_x s_w[c] / s_y of a Conv/Gemm (docs/functional.md, "Rules").
  struct Mac {
    std::vector<std::int8_t> w;
    std::vector<std::int32_t> bias;
    std::vector<qref::Multiplier> m;
  };
  std::vector<double> weight_scales(const Tensor& w, int axis, std::int64_t channels) const {
    if (!w.is_constant) fail("weights '" + w.name + "' are not constant");
    if (!w.quant) fail("weights '" + w.name + "' carry no quantisation");
    for (std::int64_t z : w.quant->zero_point)
      if (z != 0) fail("weights '" + w.name + "' have a non-zero zero point (int8 weights are symmetric)");
    const std::vector<float>& sc = w.quant->scale;
    if (sc.size() == 1) return std::vector<double>(std::size_t(channels), double(sc[0]));
    if (w.quant->axis != axis || std::int64_t(sc.size()) != channels)
      fail("weights '" + w.name + "' are not quantised per output channel (axis " + std::to_string(axis) + ")");
    return std::vector<double>(sc.begin(), sc.end());
  }
  Mac mac_params(const Node& n, int axis, std::int64_t channels, const QuantGrid& x, const QuantGrid& y) {
    const Tensor& w = g_.tensor(n.inputs.at(1));
    const std::vector<double> sw = weight_scales(w, axis, channels);
    std::size_t inner = 1;  // elements per step of the output-channel axis
    for (std::size_t d = std::size_t(axis) + 1; d < w.shape.size(); ++d) inner *= std::size_t(w.shape[d]);
    Mac m;
    for (std::size_t i = 0; i < w.float_data.size(); ++i)
      m.w.push_back(qref::quantise(double(w.float_data[i]), {sw[(i / inner) % sw.size()], 0}));
    for (double s : sw) m.m.push_back(qref::quantize_multiplier(x.scale * s / y.scale));
    m.bias.assign(sw.size(), 0);
    if (n.inputs.size() > 2 && !n.inputs[2].empty()) {
      const Tensor& b = g_.tensor(n.inputs[2]);
      if (b.float_data.size() != sw.size()) fail("bias '" + b.name + "' is not one constant per output channel");
      for (std::size_t c = 0; c < sw.size(); ++c)  // ONNX QuantizeLinear to int32: half to even, saturated
        m.bias[c] = std::int32_t(std::clamp(std::nearbyint(double(b.float_data[c]) / (x.scale * sw[c])),
                                            -2147483648.0, 2147483647.0));
    }
    return m;
  }

  // clamp(zp_y + acc x M), acc saturated to int32 (it never reaches that in practice).
  static std::int8_t requant(std::int64_t acc, const qref::Multiplier& m, int zp_y) {
    const std::int32_t a = std::int32_t(std::clamp<std::int64_t>(acc, INT32_MIN, INT32_MAX));
    return qref::saturate(std::int64_t(zp_y) + qref::scale_by(a, m));
  }

  // A Conv's window over 2 or 3 spatial axes (4-D NCHW or 5-D NCDHW); a 2-D one has depth 1.
  struct ConvWindow {
    std::int64_t D = 1, H = 0, W = 0, Do = 1, Ho = 0, Wo = 0, kd = 1, kh = 0, kw = 0;
    std::array<std::int64_t, 3> st{1, 1, 1}, dl{1, 1, 1}, pad{0, 0, 0};  // depth, rows, columns
  };
  ConvWindow conv_window(const Node& n, const std::vector<std::int64_t>& xs, const Tensor& wt) const {
    const std::size_t sp = xs.size() - 2;  // spatial axes: 2 or 3
    if (sp != 2 && sp != 3) fail("only 2-D and 3-D convolutions (4-D and 5-D tensors) are implemented");
    if (wt.shape.size() != xs.size()) fail("weights '" + wt.name + "' do not have the input's rank");
    const auto st = n.attr_ints("strides", std::vector<std::int64_t>(sp, 1));
    const auto dl = n.attr_ints("dilations", std::vector<std::int64_t>(sp, 1));
    const auto pd = n.attr_ints("pads", std::vector<std::int64_t>(2 * sp, 0));
    if (st.size() != sp || dl.size() != sp || pd.size() != 2 * sp) fail("strides, dilations or pads do not match the rank");
    const auto& ys = g_.tensor(n.outputs.at(0)).shape;
    ConvWindow c;
    const std::size_t o = 3 - sp;  // a 2-D window fills the rows and columns slots
    for (std::size_t a = 0; a < sp; ++a) c.st[o + a] = st[a], c.dl[o + a] = dl[a], c.pad[o + a] = pd[a];
    if (sp == 3) c.D = xs[2], c.Do = ys[2], c.kd = wt.shape[2];
    c.H = xs[xs.size() - 2], c.W = xs.back(), c.Ho = ys[ys.size() - 2], c.Wo = ys.back();
    c.kh = wt.shape[wt.shape.size() - 2], c.kw = wt.shape.back();
    return c;
  }

  // acc = bias + sum over (c, kd, ky, kx) of (x - zp_x) w over the taps inside the input (a
  // padding tap is the real 0), one int32 sum over every kernel tap (depth too), then one
  // requantisation (TFLite's int8 CONV_2D / CONV_3D).
  void conv(const Node& n) {
    const QuantisedTensor x = value(n.inputs.at(0));
    if (n.attr_string("auto_pad", "NOTSET") != "NOTSET") fail("auto_pad is not implemented (give explicit pads)");
    const Tensor& wt = g_.tensor(n.inputs.at(1));
    const ConvWindow c = conv_window(n, x.shape, wt);
    const std::int64_t N = x.shape[0], C = x.shape[1], K = wt.shape[0];
    const std::int64_t grp = n.attr_int("group", 1), cpg = C / grp, kpg = K / grp;
    const std::int64_t in_plane = c.D * c.H * c.W, taps = c.kd * c.kh * c.kw;
    QuantisedTensor y = output_like(n, std::size_t(N * K * c.Do * c.Ho * c.Wo));
    const Mac m = mac_params(n, 0, K, x.grid, y.grid);
    std::size_t i = 0;  // output index, NC(D)HW order
    for (std::int64_t b = 0; b < N; ++b)
      for (std::int64_t k = 0; k < K; ++k)
        for (std::int64_t oz = 0; oz < c.Do; ++oz)
          for (std::int64_t oy = 0; oy < c.Ho; ++oy)
            for (std::int64_t ox = 0; ox < c.Wo; ++ox) {
              std::int64_t acc = m.bias[std::size_t(k)];
              for (std::int64_t ch = 0; ch < cpg; ++ch) {
                const std::int8_t* xc = &x.q[std::size_t((b * C + (k / kpg) * cpg + ch) * in_plane)];
                const std::int8_t* wc = &m.w[std::size_t((k * cpg + ch) * taps)];
                for (std::int64_t kz = 0; kz < c.kd; ++kz) {
                  const std::int64_t iz = oz * c.st[0] - c.pad[0] + kz * c.dl[0];
                  if (iz < 0 || iz >= c.D) continue;  // padding: a real 0
                  for (std::int64_t ky = 0; ky < c.kh; ++ky) {
                    const std::int64_t iy = oy * c.st[1] - c.pad[1] + ky * c.dl[1];
                    if (iy < 0 || iy >= c.H) continue;
                    for (std::int64_t kx = 0; kx < c.kw; ++kx) {
                      const std::int64_t ix = ox * c.st[2] - c.pad[2] + kx * c.dl[2];
                      if (ix < 0 || ix >= c.W) continue;
                      acc += (std::int64_t(xc[(iz * c.H + iy) * c.W + ix]) - x.grid.zero_point) *
                             std::int64_t(wc[(kz * c.kh + ky) * c.kw + kx]);
                    }
                  }
                }
              }
              y.q[i++] = requant(acc, m.m[std::size_t(k)], y.grid.zero_point);
            }
    vals_[n.outputs[0]] = std::move(y);
  }

  // ConvTranspose by its ONNX definition (group 1, 2-D): every input pixel scatters x - zp_x times
  // the kernel onto the output, y[co, iy s + ky d - pad_top, ix s + kx d - pad_left] +=
  // (x[ci, iy, ix] - zp_x) w[ci, co, ky, kx]; bias and per-channel requantisation as a Conv's.
  void conv_transpose(const Node& n) {
    const QuantisedTensor x = value(n.inputs.at(0));
    if (x.shape.size() != 4) fail("only 2-D transposed convolutions (4-D tensors) are implemented");
    if (n.attr_int("group", 1) != 1) fail("int8 ConvTranspose with group != 1 is not implemented");
    if (n.attr_string("auto_pad", "NOTSET") != "NOTSET") fail("auto_pad is not implemented (give explicit pads)");
    const Tensor& wt = g_.tensor(n.inputs.at(1));
    const std::int64_t N = x.shape[0], C = x.shape[1], H = x.shape[2], W = x.shape[3];
    const std::int64_t K = wt.shape[1], kh = wt.shape[2], kw = wt.shape[3];
    const auto st = n.attr_ints("strides", {1, 1}), dl = n.attr_ints("dilations", {1, 1});
    const auto pd = n.attr_ints("pads", {0, 0, 0, 0});
    const auto& ys = g_.tensor(n.outputs.at(0)).shape;
    const std::int64_t Ho = ys[2], Wo = ys[3];
    QuantisedTensor y = output_like(n, std::size_t(N * K * Ho * Wo));
    const Mac m = mac_params(n, 1, K, x.grid, y.grid);
    std::vector<std::int64_t> acc(y.q.size(), 0);
    for (std::int64_t b = 0; b < N; ++b)
      for (std::int64_t c = 0; c < C; ++c)
        for (std::int64_t iy = 0; iy < H; ++iy)
          for (std::int64_t ix = 0; ix < W; ++ix) {
            const std::int64_t v = std::int64_t(x.q[std::size_t(((b * C + c) * H + iy) * W + ix)]) - x.grid.zero_point;
            for (std::int64_t k = 0; k < K; ++k)
              for (std::int64_t ky = 0; ky < kh; ++ky)
                for (std::int64_t kx = 0; kx < kw; ++kx) {
                  const std::int64_t oy = iy * st[0] + ky * dl[0] - pd[0], ox = ix * st[1] + kx * dl[1] - pd[1];
                  if (oy < 0 || oy >= Ho || ox < 0 || ox >= Wo) continue;
                  acc[std::size_t(((b * K + k) * Ho + oy) * Wo + ox)] +=
                      v * std::int64_t(m.w[std::size_t(((c * K + k) * kh + ky) * kw + kx)]);
                }
          }
    for (std::size_t i = 0; i < acc.size(); ++i) {
      const std::size_t k = (i / std::size_t(Ho * Wo)) % std::size_t(K);
      y.q[i] = requant(acc[i] + m.bias[k], m.m[k], y.grid.zero_point);
    }
    vals_[n.outputs[0]] = std::move(y);
  }

  // MatMul with numpy batch broadcasting, ranks >= 2: acc = sum_k (a - zp_a)(b - zp_b) per
  // output element. A constant 2-D B is a weight (per-channel scales, mac_params); a computed B
  // is an int8 activation on its own grid (TFLite's int8 BatchMatMul: M = s_a s_b / s_y).
  void matmul(const Node& n) {
    const QuantisedTensor a = value(n.inputs.at(0));
    const Tensor& bt = g_.tensor(n.inputs.at(1));
    if (a.shape.size() < 2) fail("a 1-D MatMul operand has no int8 rule here");
    if (bt.is_constant && bt.shape.size() == 2 && a.shape.size() == 2) return gemm(n);
    QuantisedTensor b;
    if (bt.is_constant)
      b.shape = bt.shape;
    else
      b = value(n.inputs.at(1));
    if (b.shape.size() < 2) fail("a 1-D MatMul operand has no int8 rule here");
    const std::vector<std::int64_t>& ys = g_.tensor(n.outputs.at(0)).shape;
    const std::int64_t M = a.shape[a.shape.size() - 2], K = a.shape.back(), N = b.shape.back();
    if (b.shape[b.shape.size() - 2] != K) fail("inner dimensions differ");
    std::int64_t batches = 1;
    for (std::size_t d = 0; d + 2 < ys.size(); ++d) batches *= ys[d];
    QuantisedTensor y = output_like(n, std::size_t(batches * M * N));
    const std::vector<double> sb = bt.is_constant ? weight_scales(bt, int(bt.shape.size()) - 1, N) : std::vector<double>{};
    std::vector<qref::Multiplier> m;
    for (std::int64_t j = 0; j < N; ++j)
      m.push_back(qref::quantize_multiplier(a.grid.scale * (sb.empty() ? b.grid.scale : sb[std::size_t(j)]) / y.grid.scale));
    const int zp_b = bt.is_constant ? 0 : b.grid.zero_point;
    std::vector<std::int8_t> bq = b.q;  // a constant B on its per-channel grid (zero point 0)
    if (bt.is_constant) bq.resize(bt.float_data.size());
    if (bt.is_constant)
      for (std::size_t i = 0; i < bq.size(); ++i)
        bq[i] = qref::quantise(double(bt.float_data[i]), {sb[i % std::size_t(N)], 0});
    // Offset of batch `t` of the output in an operand of shape s (right-aligned, size-1 dims broadcast).
    auto batch_offset = [&](const std::vector<std::int64_t>& s, std::int64_t t) {
      std::int64_t off = 0, stride = s[s.size() - 2] * s.back();
      for (std::size_t d = ys.size() - 2; d-- > 0;) {
        const std::int64_t coord = t % ys[d];
        t /= ys[d];
        const std::size_t od = d + s.size();
        if (od < ys.size()) continue;
        const std::int64_t sd = s[od - ys.size()];
        off += (sd == 1 ? 0 : coord) * stride;
        stride *= sd;
      }
      return off;
    };
    for (std::int64_t t = 0; t < batches; ++t) {
      const std::int64_t ao = batch_offset(a.shape, t), bo = batch_offset(b.shape, t);
      for (std::int64_t i = 0; i < M; ++i)
        for (std::int64_t j = 0; j < N; ++j) {
          std::int64_t acc = 0;
          for (std::int64_t k = 0; k < K; ++k)
            acc += (std::int64_t(a.q[std::size_t(ao + i * K + k)]) - a.grid.zero_point) *
                   (std::int64_t(bq[std::size_t(bo + k * N + j)]) - zp_b);
          y.q[std::size_t((t * M + i) * N + j)] = requant(acc, m[std::size_t(j)], y.grid.zero_point);
        }
    }
    vals_[n.outputs[0]] = std::move(y);
  }

  void gemm(const Node& n) {
    const QuantisedTensor a = value(n.inputs.at(0));
    const Tensor& bt = g_.tensor(n.inputs.at(1));
    const bool is_gemm = n.op_type == "Gemm";
    if (a.shape.size() != 2 || bt.shape.size() != 2) fail("only 2-D operands are implemented");
    if (is_gemm && (n.attr_int("transA", 0) != 0 || n.attr_float("alpha", 1.0f) != 1.0f ||
                    n.attr_float("beta", 1.0f) != 1.0f))
      fail("transA, alpha or beta other than the defaults have no int8 rule");
    const bool tb = is_gemm && n.attr_int("transB", 0) != 0;
    const std::int64_t M = a.shape[0], Kd = a.shape[1], N = tb ? bt.shape[0] : bt.shape[1];
    QuantisedTensor y = output_like(n, std::size_t(M * N));
    const Mac m = mac_params(n, tb ? 0 : 1, N, a.grid, y.grid);
    for (std::int64_t i = 0; i < M; ++i)
      for (std::int64_t j = 0; j < N; ++j) {
        std::int64_t acc = m.bias[std::size_t(j)];
        for (std::int64_t k = 0; k < Kd; ++k)
          acc += (std::int64_t(a.q[std::size_t(i * Kd + k)]) - a.grid.zero_point) *
                 std::int64_t(m.w[std::size_t(tb ? j * Kd + k : k * N + j)]);
        y.q[std::size_t(i * N + j)] = requant(acc, m.m[std::size_t(j)], y.grid.zero_point);
      }
    vals_[n.outputs[0]] = std::move(y);
  }

  float clip_bound(const Node& n, std::size_t input, const char* attr, float fallback) {
    if (n.inputs.size() > input && !n.inputs[input].empty()) {
      const Tensor& t = g_.tensor(n.inputs[input]);
      if (!t.is_constant || t.float_data.size() != 1) fail("Clip bounds must be constant scalars");
      return t.float_data[0];
    }
    return n.attr_float(attr, fallback);
  }

  void activation(const Node& n) {
    const QuantisedTensor x = value(n.inputs.at(0));
    QuantisedTensor y = output_like(n, x.q.size());
    int lo = -128, hi = 127;
    if (!qref::activation_range(n.op_type, clip_bound(n, 1, "min", -3.4e38f), clip_bound(n, 2, "max", 3.4e38f), y.grid,
                                lo, hi))
      fail("Clip range is empty on the output grid");
    const qref::Multiplier m = qref::quantize_multiplier(x.grid.scale / y.grid.scale);
    for (std::size_t i = 0; i < x.q.size(); ++i)
      y.q[i] = qref::saturate(std::int64_t(y.grid.zero_point) + qref::scale_by(std::int32_t(x.q[i]) - x.grid.zero_point, m),
                              lo, hi);
    vals_[n.outputs[0]] = std::move(y);
  }

  // Per channel: the depthwise-1x1 rule of qref::BatchNormChannel.
  void batchnorm(const Node& n) {
    const QuantisedTensor x = value(n.inputs.at(0));
    if (x.shape.size() < 2) fail("BatchNormalization needs an input of rank >= 2 (N, C, ...)");
    if (n.outputs.size() > 1 && !n.outputs[1].empty()) fail("training-form BatchNormalization has no int8 rule");
    QuantisedTensor y = output_like(n, x.q.size());
    const std::int64_t C = x.shape[1];
    auto param = [&](std::size_t i) -> const std::vector<float>& {
      if (i >= n.inputs.size() || !g_.has_tensor(n.inputs[i]) || !g_.tensor(n.inputs[i]).is_constant)
        fail("input " + std::to_string(i) + " is not a constant (int8 needs the inference form)");
      const std::vector<float>& v = g_.tensor(n.inputs[i]).float_data;
      if (std::int64_t(v.size()) != C) fail("input " + std::to_string(i) + " has " + std::to_string(v.size()) +
                                            " values for " + std::to_string(C) + " channels");
      return v;
    };
    const std::vector<float>&gamma = param(1), &beta = param(2), &mean = param(3), &var = param(4);
    const double eps = double(n.attr_float("epsilon", 1e-5f));
    std::vector<qref::BatchNormChannel> ch;
    for (std::size_t c = 0; c < std::size_t(C); ++c)
      ch.emplace_back(gamma[c], beta[c], mean[c], var[c], eps, x.grid.scale, y.grid.scale);
    const std::size_t per = x.q.size() / std::size_t(x.shape[0] * C);
    for (std::size_t i = 0; i < x.q.size(); ++i)
      y.q[i] = ch[(i / per) % std::size_t(C)](x.q[i], x.grid.zero_point, y.grid.zero_point);
    vals_[n.outputs[0]] = std::move(y);
  }

  // A constant per-column parameter of a norm (input i): D values, one broadcast, or none.
  std::vector<float> row_param(const Node& n, std::size_t i, std::int64_t d) {
    if (i >= n.inputs.size() || n.inputs[i].empty()) return {};
    const Tensor& t = g_.tensor(n.inputs[i]);
    if (!t.is_constant) fail("input " + std::to_string(i) + " is not a constant");
    if (std::int64_t(t.float_data.size()) == d) return t.float_data;
    if (t.float_data.size() == 1) return std::vector<float>(std::size_t(d), t.float_data[0]);
    fail("input " + std::to_string(i) + " has " + std::to_string(t.float_data.size()) + " values for rows of " +
         std::to_string(d));
  }

  // Softmax, LayerNormalization, RMSNormalization over the last axis (qref::SoftmaxRule, NormRule).
  void rowwise(const Node& n) {
    const QuantisedTensor x = value(n.inputs.at(0));
    const std::int64_t rank = std::int64_t(x.shape.size());
    std::int64_t axis = n.attr_int("axis", -1);
    if (axis < 0) axis += rank;
    if (rank == 0 || axis != rank - 1) fail("int8 rule only over the last axis");
    if (n.outputs.size() > 1 && std::any_of(n.outputs.begin() + 1, n.outputs.end(), [](const std::string& o) { return !o.empty(); }))
      fail("the training form (Mean / InvStdDev outputs) has no int8 rule");
    const std::int64_t d = x.shape.back();
    QuantisedTensor y = output_like(n, x.q.size());
    const std::size_t rows = d > 0 ? x.q.size() / std::size_t(d) : 0;
    try {
      if (n.op_type == "Softmax") {
        qref::SoftmaxRule rule(x.grid, y.grid);
        rule.mask_lowest = n.attr_int(fused_attr::kMaskLowest, 0) != 0;
        for (std::size_t r = 0; r < rows; ++r) rule.row(&x.q[r * std::size_t(d)], std::size_t(d), &y.q[r * std::size_t(d)]);
      } else {
        const bool ln = n.op_type == "LayerNormalization";
        std::vector<float> gamma = row_param(n, 1, d);
        if (gamma.empty()) fail("no scale input");
        const qref::NormRule rule(gamma, ln ? row_param(n, 2, d) : std::vector<float>{},
                                  double(n.attr_float("epsilon", 1e-5f)), ln, x.grid, y.grid);
        for (std::size_t r = 0; r < rows; ++r) rule.row(&x.q[r * std::size_t(d)], &y.q[r * std::size_t(d)]);
      }
    } catch (const std::invalid_argument& e) {
      fail(e.what());
    }
    vals_[n.outputs[0]] = std::move(y);
  }

  static bool is_linear(const Node& n) {
    const std::string mode = n.attr_string("mode", "nearest");
    return mode == "linear" || mode == "bilinear";
  }

  // A bilinear Resize / Upsample of the last two axes of NCHW: TFLite's int8 rule
  // (qref::resize_bilinear), input and output on one grid.
  void resize_bilinear(const Node& n) {
    const QuantisedTensor x = value(n.inputs.at(0));
    const auto& ys = g_.tensor(n.outputs.at(0)).shape;
    if (x.shape.size() != 4 || ys.size() != 4 || ys[0] != x.shape[0] || ys[1] != x.shape[1])
      fail("int8 bilinear Resize is over the last two axes of a 4-D NCHW tensor only");
    QuantisedTensor y = output_like(n, std::size_t(ys[0] * ys[1] * ys[2] * ys[3]));
    if (!(x.grid == y.grid)) fail("input and output are on different int8 grids (int8 bilinear Resize keeps the grid)");
    const std::string ctm = n.op_type == "Upsample" ? "asymmetric" : n.attr_string("coordinate_transformation_mode", "half_pixel");
    try {
      y.q = qref::resize_bilinear(x.shape, x.q, ys[2], ys[3], ctm);
    } catch (const std::invalid_argument& e) {
      fail(e.what());
    }
    vals_[n.outputs[0]] = std::move(y);
  }

  // Layout ops: the values move unchanged, on the input's grid (qref::layout_move).
  void layout_move(const Node& n) {
    const QuantisedTensor x = value(n.inputs.at(0));
    std::vector<std::vector<std::int8_t>> ys;
    try {
      ys = qref::layout_move(g_, n, x.grid, x.shape, x.q);
    } catch (const std::invalid_argument& e) {
      fail(e.what());
    }
    for (std::size_t k = 0; k < n.outputs.size(); ++k) {
      if (n.outputs[k].empty()) continue;
      QuantisedTensor y;
      y.shape = g_.tensor(n.outputs[k]).shape;
      y.grid = grid_of(n.outputs[k], "output");
      if (!(y.grid == x.grid)) fail("input and output '" + n.outputs[k] + "' are on different int8 grids (the op moves bytes unchanged)");
      y.q = ys.at(k);
      vals_[n.outputs[k]] = std::move(y);
    }
  }

  // ReduceMean over any constant axes (qref::reduce_mean): TFLite's int8 MEAN on an output grid
  // of its own, the integer average on the input's.
  void reduce_mean(const Node& n) {
    const QuantisedTensor x = value(n.inputs.at(0));
    QuantisedTensor y = output_like(n, std::size_t(g_.tensor(n.outputs.at(0)).elements()));
    try {
      y.q = qref::reduce_mean(x.shape, qref::reduce_axes(g_, n, x.shape.size()), x.q, x.grid, y.grid);
    } catch (const std::invalid_argument& e) {
      fail(e.what());
    }
    if (std::int64_t(y.q.size()) != g_.tensor(n.outputs[0]).elements()) fail("output element count disagrees with its shape");
    vals_[n.outputs[0]] = std::move(y);
  }

  // Element-wise functions, per element: f in double on ONNX's float32 tensors (qref::apply).
  void unary(const Node& n) {
    qref::UnaryFunction f;
    try {
      f = qref::unary_function(g_, n);
    } catch (const std::invalid_argument& e) {
      fail(e.what());
    }
    const QuantisedTensor x = value(n.inputs.at(0));
    QuantisedTensor y = output_like(n, x.q.size());
    for (std::size_t i = 0; i < x.q.size(); ++i) y.q[i] = qref::apply(f, x.q[i], x.grid, y.grid);
    vals_[n.outputs[0]] = std::move(y);
  }

  // Add (TFLite's quantised Add) and Mul (TFLite's int8 Mul), numpy broadcasting.
  void add(const Node& n) {
    const QuantisedTensor a = value(n.inputs.at(0)), b = value(n.inputs.at(1));
    const auto& ys = g_.tensor(n.outputs.at(0)).shape;
    std::int64_t total = 1;
    for (auto d : ys) total *= d;
    QuantisedTensor y = output_like(n, std::size_t(total));
    const bool mul = n.op_type == "Mul";
    const qref::AddRule add_rule(a.grid, b.grid, y.grid);
    const qref::MulRule mul_rule(a.grid, b.grid, y.grid);
    // numpy broadcasting: index of output element i in an operand of shape s (right-aligned).
    auto index = [&](const std::vector<std::int64_t>& s, std::int64_t i) {
      std::int64_t idx = 0, stride = 1;
      for (std::size_t d = ys.size(); d-- > 0;) {
        const std::int64_t coord = i % ys[d];
        i /= ys[d];
        const std::size_t od = d + s.size();
        if (od < ys.size()) continue;  // operand has fewer dims
        const std::int64_t sd = s[od - ys.size()];
        idx += (sd == 1 ? 0 : coord) * stride;
        stride *= sd;
      }
      return std::size_t(idx);
    };
    for (std::int64_t i = 0; i < total; ++i) {
      const std::int8_t av = a.q[index(a.shape, i)], bv = b.q[index(b.shape, i)];
      y.q[std::size_t(i)] = mul ? mul_rule(av, bv) : add_rule(av, bv);
    }
    vals_[n.outputs[0]] = std::move(y);
  }

  void pool(const Node& n) {
    const QuantisedTensor x = value(n.inputs.at(0));
    const bool global = n.op_type.rfind("Global", 0) == 0, is_max = n.op_type.find("Max") != std::string::npos;
    if (x.shape.size() != 4 && !(global && x.shape.size() > 4))
      fail("only 2-D pooling (4-D tensors) and global pools over more axes are implemented in int8 (a 3-D "
           "MaxPool/AveragePool runs in fp32)");
    const auto dil = n.attr_ints("dilations", {1, 1});
    // ceil_mode only adds windows that hang past the input: the taps loop below skips what is
    // outside, as for padding (max of the taps inside; avg divides by their count, ONNX
    // count_include_pad=0), and the output size is the graph's. count_include_pad=1: the taps
    // inside the padded input count, the padding's as the input's zero point (real value 0).
    if (!global && (std::any_of(dil.begin(), dil.end(), [](auto d) { return d != 1; }) ||
                    n.attr_string("auto_pad", "NOTSET") != "NOTSET"))
      fail("dilations and auto_pad have no int8 rule here");
    const bool include_pad = avg_pool_counts_padding(g_, n);
    // A global pool over NCDHW (or more axes) is one pool over the D x H x W elements of a plane.
    std::int64_t spatial = 1;
    for (std::size_t d = 3; d < x.shape.size(); ++d) spatial *= x.shape[d];
    const std::int64_t C = x.shape[0] * x.shape[1], H = x.shape[2], W = spatial;
    const auto ks = global ? std::vector<std::int64_t>{H, W} : n.attr_ints("kernel_shape");
    const auto st = global ? std::vector<std::int64_t>{1, 1} : n.attr_ints("strides", {1, 1});
    const auto pd = global ? std::vector<std::int64_t>{0, 0, 0, 0} : n.attr_ints("pads", {0, 0, 0, 0});
    const auto& ys = g_.tensor(n.outputs.at(0)).shape;
    const std::int64_t Ho = global ? 1 : ys[2], Wo = global ? 1 : ys[3];
    QuantisedTensor y = output_like(n, std::size_t(C * Ho * Wo));
    if (n.op_type == "GlobalAveragePool" && !(x.grid == y.grid)) {  // own output grid: TFLite's int8 MEAN
      const qref::Multiplier m = qref::quantize_multiplier(x.grid.scale / (y.grid.scale * double(std::max<std::int64_t>(H * W, 1))));
      for (std::int64_t c = 0; c < C; ++c) {
        std::int64_t sum = 0;
        for (std::int64_t k = 0; k < H * W; ++k) sum += std::int32_t(x.q[std::size_t(c * H * W + k)]) - x.grid.zero_point;
        y.q[std::size_t(c)] = requant(sum, m, y.grid.zero_point);
      }
      vals_[n.outputs[0]] = std::move(y);
      return;
    }
    if (!(x.grid == y.grid))
      fail("input and output are on different int8 grids (int8 pooling other than GlobalAveragePool keeps the grid)");
    for (std::int64_t c = 0; c < C; ++c)
      for (std::int64_t oy = 0; oy < Ho; ++oy)
        for (std::int64_t ox = 0; ox < Wo; ++ox) {
          std::int64_t mx = -128, sum = 0, cnt = 0;
          for (std::int64_t ky = 0; ky < ks[0]; ++ky)
            for (std::int64_t kx = 0; kx < ks[1]; ++kx) {
              const std::int64_t iy = oy * st[0] - pd[0] + ky, ix = ox * st[1] - pd[1] + kx;
              const bool in_padded = iy >= -pd[0] && iy < H + pd[2] && ix >= -pd[1] && ix < W + pd[3];
              if (include_pad && in_padded && (iy < 0 || iy >= H || ix < 0 || ix >= W)) {
                sum += x.grid.zero_point;  // a padding tap: the zero point
                ++cnt;
                continue;
              }
              if (iy < 0 || iy >= H || ix < 0 || ix >= W) continue;
              const std::int64_t v = x.q[std::size_t((c * H + iy) * W + ix)];
              mx = std::max(mx, v);
              sum += v;
              ++cnt;
            }
          // avg: TFLite's integer AveragePool, round half away from zero
          y.q[std::size_t((c * Ho + oy) * Wo + ox)] = is_max ? std::int8_t(mx) : cnt == 0 ? std::int8_t(0) : qref::average(sum, cnt);
        }
    vals_[n.outputs[0]] = std::move(y);
  }

  // A view (a Cast to int64...) of an integer tensor of the graph (token ids): has an int8 rule.
  bool id_view_of_ints(const Node& n) const {
    if (!qref::is_id_view(n) || n.inputs.empty() || !g_.has_tensor(n.inputs[0])) return false;
    const ElemType t = g_.tensor(n.inputs[0]).type;
    return t == ElemType::Int64 || t == ElemType::Int32;
  }
  // A node reading an integer tensor (token ids): a view of it, or the token-embedding Gather.
  bool integer_operand(const Node& n) const {
    for (const std::string& in : n.inputs)
      if (ints_.count(in)) return true;
    return false;
  }
  void integer_op(const Node& n) {
    const std::string& op = n.op_type;
    if (qref::is_id_view(n) && !n.inputs.empty() && ints_.count(n.inputs[0])) {  // quantised_ids.cpp
      std::vector<std::vector<std::int64_t>> ys;
      try {
        ys = qref::id_view(g_, n, g_.tensor(n.inputs[0]).shape, ints_.at(n.inputs[0]));
      } catch (const std::invalid_argument& e) {
        fail(e.what());
      }
      for (std::size_t k = 0; k < n.outputs.size() && k < ys.size(); ++k)
        if (!n.outputs[k].empty()) ints_[n.outputs[k]] = std::move(ys[k]);
      return;
    }
    if (op != "Gather" || n.inputs.size() < 2 || !ints_.count(n.inputs[1]) || n.attr_int("axis", 0) != 0 ||
        !g_.tensor(n.inputs[0]).is_constant)
      fail("integer tensors (token ids) have an int8 rule only as the indices of a Gather of a constant table along "
           "axis 0 (the token embedding), through views (Reshape, Flatten, Squeeze, Unsqueeze, Identity, Dropout, "
           "Cast to int32/int64, Slice, Split)");
    const QuantisedTensor table = value(n.inputs[0]);
    QuantisedTensor y = output_like(n, std::size_t(g_.tensor(n.outputs.at(0)).elements()));
    if (!(y.grid == table.grid))
      fail("table '" + n.inputs[0] + "' and output are on different int8 grids (the int8 Gather selects rows as they are)");
    const std::int64_t rows = table.shape.empty() ? 0 : table.shape[0];
    try {
      y.q = qref::gather_rows(table.q, rows, rows > 0 ? std::int64_t(table.q.size()) / rows : 0, ints_.at(n.inputs[1]));
    } catch (const std::invalid_argument& e) {
      fail("indices '" + n.inputs[1] + "': " + e.what());
    }
    if (std::int64_t(y.q.size()) != g_.tensor(n.outputs[0]).elements()) fail("output element count disagrees with its shape");
    vals_[n.outputs[0]] = std::move(y);
  }

  void move_bytes(const Node& n) {
    QuantisedTensor y;
    y.shape = g_.tensor(n.outputs.at(0)).shape;
    y.grid = grid_of(n.outputs[0], "output");
    std::vector<QuantisedTensor> ins;
    for (const std::string& in : n.inputs)
      if (!in.empty() && !(n.op_type != "Concat" && g_.tensor(in).is_constant)) ins.push_back(value(in));
    for (const QuantisedTensor& x : ins)
      if (!(x.grid == y.grid)) fail("input and output are on different int8 grids (the op moves bytes unchanged)");
    if (n.op_type != "Concat") {
      y.q = ins.at(0).q;
    } else {
      std::int64_t axis = n.attr_int("axis", 0);
      if (axis < 0) axis += std::int64_t(y.shape.size());
      std::int64_t outer = 1;
      for (std::int64_t d = 0; d < axis; ++d) outer *= y.shape[std::size_t(d)];
      for (std::int64_t o = 0; o < outer; ++o)
        for (const QuantisedTensor& x : ins) {
          const std::size_t block = x.q.size() / std::size_t(outer);
          y.q.insert(y.q.end(), x.q.begin() + std::ptrdiff_t(std::size_t(o) * block),
                     x.q.begin() + std::ptrdiff_t(std::size_t(o + 1) * block));
        }
    }
    vals_[n.outputs[0]] = std::move(y);
  }

  Graph g_;
  std::string where_;
  const Node* node_ = nullptr;
  std::map<std::string, QuantisedTensor> vals_;
  std::map<std::string, std::vector<std::int64_t>> ints_;  ///< integer tensors: token ids and their views
};

}  // namespace

QuantisedTensorMap run_quantised_reference(const Graph& graph, const std::map<std::string, std::vector<float>>& inputs) {
  return QuantisedInterpreter(graph).run(inputs);
}

}  // namespace npu::compiler
