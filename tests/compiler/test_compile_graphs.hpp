// Helpers for the back-end tests: small graphs built by hand (with real float data where
// numerics matter), a reference interpreter for Conv / BatchNormalization, and a
// hand-written hardware config shaped like the edge preset.
#pragma once

#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "npu/compiler/ir/graph.hpp"
#include "npu/hw_config/hw_config.hpp"

namespace npu::compiler::testing {

/// Builds a graph node by node; every helper returns the output tensor name.
struct GraphBuilder {
  Graph g;
  std::mt19937 rng{12345};  // fixed seed: deterministic tests
  bool with_data = true;    // false: constants have shapes but empty float_data (like the zoo)

  explicit GraphBuilder(const std::string& name = "test") { g.name = name; }

  Tensor& add_tensor(const std::string& name, std::vector<std::int64_t> shape, bool constant = false) {
    Tensor t;
    t.name = name;
    t.shape = std::move(shape);
    t.is_constant = constant;
    g.tensors[name] = t;
    return g.tensors[name];
  }

  std::string input(const std::string& name, std::vector<std::int64_t> shape) {
    add_tensor(name, std::move(shape));
    g.inputs.push_back(name);
    return name;
  }

  std::string constant(const std::string& name, std::vector<std::int64_t> shape, float lo, float hi) {
    Tensor& t = add_tensor(name, shape, true);
    if (with_data) {
      std::uniform_real_distribution<float> d(lo, hi);
      t.float_data.resize(std::size_t(t.elements()));
      for (auto& v : t.float_data) v = d(rng);
    }
    return name;
  }

  /// A constant int64 vector (Reshape shapes, Split sizes, Slice starts/ends/axes).
  std::string ints(const std::string& name, std::vector<std::int64_t> v) {
    Tensor& t = add_tensor(name, {std::int64_t(v.size())}, true);
    t.type = ElemType::Int64;
    t.int_data = std::move(v);
    return name;
  }

  std::string scalar(const std::string& name, float v) {
    Tensor& t = add_tensor(name, {}, true);
    t.float_data = {v};
    return name;
  }

  const std::vector<std::int64_t>& shape(const std::string& t) { return g.tensors.at(t).shape; }

  Node& node(const std::string& name, const std::string& op, std::vector<std::string> ins,
             std::vector<std::string> outs) {
    Node n;
    n.name = name;
    n.op_type = op;
    n.inputs = std::move(ins);
    n.outputs = std::move(outs);
    g.nodes.push_back(n);
    return g.nodes.back();
  }

  std::string conv(const std::string& name, const std::string& x, int c_out, int k, int stride = 1, int pad = 0,
                   int group = 1, bool bias = false) {
    const auto s = shape(x);
    const std::int64_t h = (s[2] + 2 * pad - k) / stride + 1, w = (s[3] + 2 * pad - k) / stride + 1;
    const std::string wname = constant(name + ".weight", {c_out, s[1] / group, k, k}, -0.5f, 0.5f);
    std::vector<std::string> ins{x, wname};
    if (bias) ins.push_back(constant(name + ".bias", {c_out}, -0.2f, 0.2f));
    const std::string out = name + ".out";
    add_tensor(out, {s[0], c_out, h, w});
    Node& n = node(name, "Conv", ins, {out});
    n.attrs["kernel_shape"] = std::vector<std::int64_t>{k, k};
    n.attrs["strides"] = std::vector<std::int64_t>{stride, stride};
    n.attrs["pads"] = std::vector<std::int64_t>{pad, pad, pad, pad};
    n.attrs["group"] = std::int64_t(group);
    return out;
  }

  /// Inference BatchNormalization with constant statistics (gamma U(0.5,1.5), beta, mean
  /// U(-0.1,0.1), var U(0.5,2)).
  std::string bn(const std::string& name, const std::string& x, float eps = 1e-5f) {
    const std::int64_t c = shape(x)[1];
    const std::string gname = constant(name + ".scale", {c}, 0.5f, 1.5f);
    const std::string bname = constant(name + ".B", {c}, -0.1f, 0.1f);
    const std::string mname = constant(name + ".mean", {c}, -0.1f, 0.1f);
    const std::string vname = constant(name + ".var", {c}, 0.5f, 2.0f);
    const std::string out = name + ".out";
    add_tensor(out, shape(x));
    Node& n = node(name, "BatchNormalization", {x, gname, bname, mname, vname}, {out});
    n.attrs["epsilon"] = eps;
    return out;
  }

  std::string unary(const std::string& name, const std::string& op, const std::string& x,
                    std::vector<std::string> extra_inputs = {}) {
    const std::string out = name + ".out";
    add_tensor(out, shape(x));
    std::vector<std::string> ins{x};
    ins.insert(ins.end(), extra_inputs.begin(), extra_inputs.end());
    node(name, op, ins, {out});
    return out;
  }

  std::string binary(const std::string& name, const std::string& op, const std::string& a, const std::string& b) {
    const std::string out = name + ".out";
    add_tensor(out, shape(a));
    node(name, op, {a, b}, {out});
    return out;
  }

  std::string silu(const std::string& name, const std::string& x) {
    const std::string s = unary(name + ".sigmoid", "Sigmoid", x);
    return binary(name + ".mul", "Mul", x, s);
  }

  std::string maxpool(const std::string& name, const std::string& x, int k, int stride, int pad) {
    const auto s = shape(x);
    const std::string out = name + ".out";
    add_tensor(out, {s[0], s[1], (s[2] + 2 * pad - k) / stride + 1, (s[3] + 2 * pad - k) / stride + 1});
    Node& n = node(name, "MaxPool", {x}, {out});
    n.attrs["kernel_shape"] = std::vector<std::int64_t>{k, k};
    n.attrs["strides"] = std::vector<std::int64_t>{stride, stride};
    n.attrs["pads"] = std::vector<std::int64_t>{pad, pad, pad, pad};
    return out;
  }

  std::string concat(const std::string& name, const std::vector<std::string>& xs) {
    auto s = shape(xs[0]);
    s[1] = 0;
    for (const auto& x : xs) s[1] += shape(x)[1];
    const std::string out = name + ".out";
    add_tensor(out, s);
    Node& n = node(name, "Concat", xs, {out});
    n.attrs["axis"] = std::int64_t(1);
    return out;
  }

  std::string global_avg_pool_flatten_gemm(const std::string& name, const std::string& x, int n_out) {
    const auto s = shape(x);
    const std::string p = name + ".pool.out";
    add_tensor(p, {s[0], s[1], 1, 1});
    node(name + ".pool", "GlobalAveragePool", {x}, {p});
    const std::string f = name + ".flat.out";
    add_tensor(f, {s[0], s[1]});
    node(name + ".flat", "Flatten", {p}, {f});
    const std::string w = constant(name + ".fc.weight", {n_out, s[1]}, -0.1f, 0.1f);
    const std::string b = constant(name + ".fc.bias", {n_out}, -0.1f, 0.1f);
    const std::string out = name + ".fc.out";
    add_tensor(out, {s[0], n_out});
    Node& n = node(name + ".fc", "Gemm", {f, w, b}, {out});
    n.attrs["transB"] = std::int64_t(1);
    return out;
  }

  void output(const std::string& t) { g.outputs.push_back(t); }
};

/// Direct NCHW convolution (batch 1), ONNX semantics with symmetric pads; double accumulation.
inline std::vector<double> ref_conv(const std::vector<float>& x, const std::vector<std::int64_t>& xs,
                                    const std::vector<float>& w, const std::vector<std::int64_t>& ws,
                                    const std::vector<float>* bias, int stride, int pad, int group) {
  const std::int64_t C = xs[1], H = xs[2], W = xs[3], K = ws[0], cpg = ws[1], kh = ws[2], kw = ws[3];
  const std::int64_t Ho = (H + 2 * pad - kh) / stride + 1, Wo = (W + 2 * pad - kw) / stride + 1;
  const std::int64_t kpg = K / group;
  (void)C;
  std::vector<double> y(std::size_t(K * Ho * Wo), 0.0);
  for (std::int64_t k = 0; k < K; ++k) {
    const std::int64_t g = k / kpg;
    for (std::int64_t oh = 0; oh < Ho; ++oh)
      for (std::int64_t ow = 0; ow < Wo; ++ow) {
        double acc = bias ? double((*bias)[std::size_t(k)]) : 0.0;
        for (std::int64_t c = 0; c < cpg; ++c)
          for (std::int64_t i = 0; i < kh; ++i)
            for (std::int64_t j = 0; j < kw; ++j) {
              const std::int64_t ih = oh * stride - pad + i, iw = ow * stride - pad + j;
              if (ih < 0 || ih >= H || iw < 0 || iw >= W) continue;
              acc += double(x[std::size_t(((g * cpg + c) * H + ih) * W + iw)]) *
                     double(w[std::size_t(((k * cpg + c) * kh + i) * kw + j)]);
            }
        y[std::size_t((k * Ho + oh) * Wo + ow)] = acc;
      }
  }
  return y;
}

/// ONNX BatchNormalization (inference): y = (x - mean) / sqrt(var + eps) * scale + B.
inline void ref_bn(std::vector<double>& y, std::int64_t channels, const std::vector<float>& scale,
                   const std::vector<float>& b, const std::vector<float>& mean, const std::vector<float>& var,
                   double eps) {
  const std::size_t plane = y.size() / std::size_t(channels);
  for (std::size_t c = 0; c < std::size_t(channels); ++c)
    for (std::size_t i = 0; i < plane; ++i) {
      double& v = y[c * plane + i];
      v = (v - mean[c]) / std::sqrt(double(var[c]) + eps) * scale[c] + b[c];
    }
}

/// Max |a - b| / max |b| (the relative error of ../shared/models/README.md).
inline double rel_error(const std::vector<double>& a, const std::vector<double>& b) {
  double max_err = 0, max_ref = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    max_err = std::max(max_err, std::fabs(a[i] - b[i]));
    max_ref = std::max(max_ref, std::fabs(b[i]));
  }
  return max_ref > 0 ? max_err / max_ref : max_err;
}

/// A config shaped like configs/edge-npu-ddr4.yaml: 32x32 int8 array at 1 GHz, 1 MiB SRAM,
/// one DDR4-3200 x64 channel (4 bank groups x 4 banks, 1024 columns -> 8 KiB rows).
/// Two MobileNetV2 inverted residual blocks on x [1,8,32,32] (1x1 expand 8->32 + Relu, 3x3
/// depthwise + Relu, 1x1 project 32->8, + the block input), the second reading the first's
/// output: block 1's output is block 2's skip tensor, which block 2's depthwise conv needs with
/// a halo and its Add without (depth-first stacks copy the Add's rows on chip).
inline Graph inverted_residuals() {
  GraphBuilder b("inv_res");
  std::string y = b.input("x", {1, 8, 32, 32});
  for (int i = 1; i <= 2; ++i) {
    const std::string n = std::to_string(i);
    const std::string e = b.unary("relu_e" + n, "Relu", b.conv("expand" + n, y, 32, 1));
    const std::string d = b.unary("relu_d" + n, "Relu", b.conv("dw" + n, e, 32, 3, 1, 1, 32));
    y = b.binary("add" + n, "Add", b.conv("project" + n, d, 8, 1), y);
  }
  b.output(y);
  return b.g;
}

/// YOLOv5's C3 block (v7.0 common.py) on x [1, 8, 24, 24]: cv1 1x1 -> bottleneck (m.cv1 1x1,
/// m.cv2 3x3 pad 1, + cv1's output); cv2 1x1 of x; Concat along C -> cv3 1x1; Relu after each
/// conv. cv1 and cv2 both read x; a depth-first stack gathers the Concat on chip.
inline Graph c3_block() {
  GraphBuilder b("c3");
  const std::string x = b.input("x", {1, 8, 24, 24});
  const std::string a = b.unary("cv1.relu", "Relu", b.conv("cv1", x, 4, 1, 1, 0, 1, true));
  const std::string m1 = b.unary("m.cv1.relu", "Relu", b.conv("m.cv1", a, 4, 1, 1, 0, 1, true));
  const std::string m2 = b.unary("m.cv2.relu", "Relu", b.conv("m.cv2", m1, 4, 3, 1, 1, 1, true));
  const std::string m = b.binary("m.add", "Add", m2, a);
  const std::string c = b.unary("cv2.relu", "Relu", b.conv("cv2", x, 4, 1, 1, 0, 1, true));
  b.output(b.unary("cv3.relu", "Relu", b.conv("cv3", b.concat("cat", {m, c}), 8, 1, 1, 0, 1, true)));
  return b.g;
}

inline HwConfig edge_like_hw(std::uint64_t sram_bytes = 1u << 20) {
  HwConfig hw;
  hw.source = "edge-like.yaml";
  hw.npu.name = "edge-like";
  hw.npu.clock_mhz = 1000;
  hw.mac_array.rows = 32;
  hw.mac_array.cols = 32;
  hw.mac_array.dtype = DType::Int8;
  hw.sram.capacity_bytes = sram_bytes;
  hw.sram.banks = 8;
  hw.sram.bytes_per_cycle = 64;
  hw.act_unit.lanes = 32;
  hw.ddr.standard = "DDR4";
  hw.ddr.data_rate_mtps = 3200;
  hw.ddr.channels = 1;
  hw.ddr.ranks = 1;
  hw.ddr.bank_groups = 4;
  hw.ddr.banks_per_group = 4;
  hw.ddr.rows = 65536;
  hw.ddr.columns = 1024;
  hw.ddr.bus_width_bits = 64;
  hw.ddr.address_mapping = "rochrababgco";
  return hw;
}

}  // namespace npu::compiler::testing
