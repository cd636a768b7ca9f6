// Random small CNN graphs for differential testing of the fusion strategies (issue: fusion
// legality as a kind, not case by case). Each graph is built from a seed with the shapes of
// what real exports contain: conv chains (kernels 1/3/5, strides 1/2, pads, grouped and
// depthwise) with optional bias, BatchNormalization and an activation (Relu, ReLU6 as Clip,
// LeakyRelu, SiLU as Sigmoid + Mul, Sigmoid), residual Adds of two same-shape tensors,
// Concat along channels, MaxPool, layout ops (Transpose of H and W, Split along W, Concat along
// W, nearest 2x Resize: computed by MOVE), multi-consumer tensors, graph outputs in the middle,
// and sometimes a GlobalAveragePool + Flatten + Gemm head. Every tensor nobody consumes is a
// graph output, so no node is dead. Shapes are small (C <= 24, H, W <= 24) so hundreds of
// graphs compile in seconds.
#pragma once

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "npu/compiler/transforms/strategy.hpp"
#include "test_compile_graphs.hpp"

namespace npu::compiler::testing {

/// The strategies the differential tests compare: every built-in one, then `depth-first`
/// with each overlap mode forced (the built-in picks per stack, mostly recompute), so the
/// cached mode's MOVEs are checked on every graph too.
inline std::vector<Strategy> differential_strategies() {
  std::vector<Strategy> out;
  // Not transformer: these CNN graphs have no attention, so it is residual's program again;
  // the attention differential test is tests/functional/test_attention_data.cpp.
  for (const std::string& n : builtin_strategy_names())
    if (n != "transformer") out.push_back(builtin_strategy(n));
  for (const auto& [name, mode] : {std::pair<const char*, OverlapPolicy>{"depth-first-recompute", OverlapPolicy::Recompute},
                                   {"depth-first-cache", OverlapPolicy::Cache}}) {
    Strategy s = builtin_strategy("depth-first");
    s.name = name;
    s.overlap = mode;
    out.push_back(s);
  }
  return out;
}

struct RandomGraph {
  Graph graph;
  std::string description;  ///< one line per node, for failure messages
  std::uint64_t conv_macs = 0;  ///< sum over Conv and Gemm nodes of out elements x (cin/group) x kh x kw, by hand
};

class RandomGraphGenerator {
 public:
  explicit RandomGraphGenerator(std::uint32_t seed) : rng_(seed), b_("random_" + std::to_string(seed)) {
    b_.rng.seed(seed);
  }

  RandomGraph make() {
    const std::int64_t c = pick<std::int64_t>({1, 3, 4, 8}), h = range(6, 24), w = range(6, 24);
    live_.push_back(b_.input("input", {1, c, h, w}));
    note("input 1x" + std::to_string(c) + "x" + std::to_string(h) + "x" + std::to_string(w));
    const int ops = int(range(2, 10));
    for (int i = 0; i < ops; ++i) {
      const int kind = int(range(0, 99));
      if (kind < 55) add_conv_block(i);
      else if (kind < 70) add_residual(i);
      else if (kind < 80) add_concat(i);
      else if (kind < 85) add_maxpool(i);
      else if (kind < 95) add_layout(i);
      else add_middle_output();
    }
    if (range(0, 3) == 0) {  // classifier head on the last tensor
      const std::string x = live_.back();
      const std::int64_t cin = b_.shape(x)[1], n_out = range(2, 12);
      live_.push_back(b_.global_avg_pool_flatten_gemm("head" + std::to_string(n_++), x, int(n_out)));
      macs_ += std::uint64_t(n_out * cin);
      note("head gap+gemm -> " + std::to_string(n_out));
    }
    // Every tensor no node reads becomes a graph output (the last one at least).
    for (const std::string& t : live_) {
      bool consumed = false;
      for (const Node& nd : b_.g.nodes)
        for (const std::string& in : nd.inputs) consumed = consumed || in == t;
      bool listed = false;
      for (const std::string& o : b_.g.outputs) listed = listed || o == t;
      if (!consumed && !listed && t != "input") b_.output(t);
    }
    RandomGraph r;
    r.graph = b_.g;
    r.description = desc_;
    r.conv_macs = macs_;
    return r;
  }

 private:
  std::int64_t range(std::int64_t lo, std::int64_t hi) { return std::uniform_int_distribution<std::int64_t>(lo, hi)(rng_); }
  template <class T>
  T pick(std::initializer_list<T> v) {
    return *(v.begin() + range(0, std::int64_t(v.size()) - 1));
  }
  const std::string& any_live() { return live_[std::size_t(range(0, std::int64_t(live_.size()) - 1))]; }
  // Tensors that are 4-D (after a head, the Gemm output is 2-D).
  std::vector<std::string> live4() const {
    std::vector<std::string> v;
    for (const auto& t : live_)
      if (b_.g.tensors.at(t).shape.size() == 4) v.push_back(t);
    return v;
  }
  std::string pick4() {
    const auto v = live4();
    return v[std::size_t(range(0, std::int64_t(v.size()) - 1))];
  }
  void note(const std::string& s) { desc_ += s + "\n"; }
  static std::string dims(const std::vector<std::int64_t>& s) {
    std::string o;
    for (auto d : s) o += (o.empty() ? "" : "x") + std::to_string(d);
    return o;
  }

  void add_conv_block(int i) {
    const std::string x = pick4();
    const auto s = b_.shape(x);
    const std::int64_t cin = s[1];
    int k = pick<int>({1, 3, 3, 5}), stride = pick<int>({1, 1, 2});
    int pad = pick<int>({0, k / 2, k / 2});
    // The (padded) input must hold the kernel.
    while (k > 1 && (s[2] + 2 * pad < k || s[3] + 2 * pad < k)) k -= 2;
    if (pad > k / 2) pad = k / 2;
    int group = 1;
    std::int64_t cout = pick<std::int64_t>({4, 8, 12, 16, 24});
    const int g = int(range(0, 5));
    if (g == 0) group = int(cin), cout = cin;  // depthwise
    else if (g == 1 && cin % 2 == 0 && cin >= 2) group = 2, cout = 2 * pick<std::int64_t>({2, 4, 6});
    const bool bias = range(0, 1) == 1;
    const std::string name = "c" + std::to_string(i);
    std::string y = b_.conv(name, x, int(cout), k, stride, pad, group, bias);
    const auto ys = b_.shape(y);
    macs_ += std::uint64_t(ys[1] * ys[2] * ys[3] * (cin / group) * k * k);
    std::string what = name + " conv " + dims(s) + " k" + std::to_string(k) + " s" + std::to_string(stride) + " p" +
                       std::to_string(pad) + " g" + std::to_string(group) + (bias ? " bias" : "") + " -> " + dims(ys);
    std::vector<std::string> inner{y};  // tensors inside the block a fusion would drop
    if (range(0, 2) > 0) {
      y = b_.bn(name + ".bn", y);
      what += " +bn";
      inner.push_back(y);
    }
    switch (range(0, 5)) {
      case 0: y = b_.unary(name + ".relu", "Relu", y); what += " +relu"; break;
      case 1: {
        const std::string lo = b_.scalar(name + ".lo", 0.0f), hi = b_.scalar(name + ".hi", 6.0f);
        y = b_.unary(name + ".relu6", "Clip", y, {lo, hi});
        what += " +relu6";
        break;
      }
      case 2: {
        y = b_.unary(name + ".leaky", "LeakyRelu", y);
        b_.g.nodes.back().attrs["alpha"] = 0.1f;
        what += " +leakyrelu";
        break;
      }
      case 3:
        y = b_.silu(name + ".silu", y);
        inner.push_back(name + ".silu.sigmoid.out");
        what += " +silu";
        break;
      case 4: y = b_.unary(name + ".sigmoid", "Sigmoid", y); what += " +sigmoid"; break;
      default: break;
    }
    // Fusion legality: sometimes a tensor inside the block is also a graph output, or is
    // read by a later node (it joins the live tensors), so the fusion must keep it in DDR.
    const std::int64_t r = range(0, 19);
    if (r == 0 && y != inner.back()) {
      b_.output(inner.back());
      what += " [" + inner.back() + " is a graph output]";
    } else if (r == 1 && y != inner.back()) {
      live_.push_back(inner.back());
      what += " [" + inner.back() + " is live]";
    }
    live_.push_back(y);
    note(what);
  }

  void add_residual(int i) {
    const auto v = live4();
    for (std::size_t a = v.size(); a-- > 0;)
      for (std::size_t c = a; c-- > 0;)
        if (b_.shape(v[a]) == b_.shape(v[c])) {
          std::string y = b_.binary("add" + std::to_string(i), "Add", v[a], v[c]);
          std::string what = "add" + std::to_string(i) + " " + v[a] + " + " + v[c];
          if (range(0, 1) == 1) {
            y = b_.unary("add" + std::to_string(i) + ".relu", "Relu", y);
            what += " +relu";
          }
          live_.push_back(y);
          note(what);
          return;
        }
    add_conv_block(i);  // no two tensors of one shape yet
  }

  void add_concat(int i) {
    const auto v = live4();
    for (std::size_t a = v.size(); a-- > 0;)
      for (std::size_t c = a; c-- > 0;) {
        const auto sa = b_.shape(v[a]), sc = b_.shape(v[c]);
        if (sa[2] == sc[2] && sa[3] == sc[3] && v[a] != v[c]) {
          live_.push_back(b_.concat("cat" + std::to_string(i), {v[c], v[a]}));
          note("cat" + std::to_string(i) + " " + v[c] + " | " + v[a]);
          return;
        }
      }
    add_conv_block(i);
  }

  void add_maxpool(int i) {
    const std::string x = pick4();
    const auto s = b_.shape(x);
    const int k = pick<int>({2, 3}), stride = pick<int>({1, 2}), pad = k == 3 ? pick<int>({0, 1}) : 0;
    if (s[2] + 2 * pad < k || s[3] + 2 * pad < k) return add_conv_block(i);
    live_.push_back(b_.maxpool("pool" + std::to_string(i), x, k, stride, pad));
    note("pool" + std::to_string(i) + " maxpool " + dims(s) + " k" + std::to_string(k) + " s" + std::to_string(stride) +
         " p" + std::to_string(pad));
  }

  // A layout op on a 4-D tensor (each computed by MOVE): Transpose (0,1,3,2), Split along W
  // into two parts (both live), Concat of two tensors along W, or nearest 2x Resize of a small
  // tensor.
  void add_layout(int i) {
    // Not on the graph input itself: a Split of the input along its outermost non-unit axis is
    // a view of the input, which no program stores (an output the data path reads back from
    // the input's region), and this test counts the outputs a program declares.
    const std::string x = pick4();
    if (x == "input") return add_conv_block(i);
    const auto s = b_.shape(x);
    const std::string name = "lay" + std::to_string(i);
    switch (range(0, 3)) {
      case 0: {
        const std::string y = name + ".out";
        b_.add_tensor(y, {s[0], s[1], s[3], s[2]});
        b_.node(name, "Transpose", {x}, {y}).attrs["perm"] = std::vector<std::int64_t>{0, 1, 3, 2};
        live_.push_back(y);
        note(name + " transpose " + dims(s) + " perm 0,1,3,2");
        return;
      }
      case 1: {
        // Along W: an inner axis (a Split along the outermost non-unit axis is a zero-copy
        // view, not a MOVE), so C or H must exceed 1.
        if (s[3] < 2 || (s[1] == 1 && s[2] == 1)) break;
        const std::int64_t left = range(1, s[3] - 1);
        const std::string a = name + ".a", c = name + ".b", sizes = name + ".split";
        b_.add_tensor(a, {s[0], s[1], s[2], left});
        b_.add_tensor(c, {s[0], s[1], s[2], s[3] - left});
        Tensor& t = b_.add_tensor(sizes, {2}, true);
        t.type = ElemType::Int64;
        t.int_data = {left, s[3] - left};
        b_.node(name, "Split", {x, sizes}, {a, c}).attrs["axis"] = std::int64_t(3);
        live_.push_back(a);
        live_.push_back(c);
        note(name + " split " + dims(s) + " along W at " + std::to_string(left));
        return;
      }
      case 2: {
        for (const std::string& o : live4()) {
          const auto so = b_.shape(o);
          if (o == x || so[1] != s[1] || so[2] != s[2]) continue;
          const std::string y = name + ".out";
          b_.add_tensor(y, {s[0], s[1], s[2], s[3] + so[3]});
          b_.node(name, "Concat", {x, o}, {y}).attrs["axis"] = std::int64_t(3);
          live_.push_back(y);
          note(name + " concat along W " + x + " | " + o);
          return;
        }
        break;
      }
      default: {
        if (s[2] > 16 || s[3] > 16) break;
        const std::string y = name + ".out", scales = name + ".scales";
        Tensor& t = b_.add_tensor(scales, {4}, true);
        t.float_data = {1, 1, 2, 2};
        b_.add_tensor(y, {s[0], s[1], 2 * s[2], 2 * s[3]});
        Node& n = b_.node(name, "Resize", {x, "", scales}, {y});
        n.attrs["mode"] = std::string("nearest");
        n.attrs["coordinate_transformation_mode"] = std::string("asymmetric");
        n.attrs["nearest_mode"] = std::string("floor");
        live_.push_back(y);
        note(name + " resize nearest x2 " + dims(s));
        return;
      }
    }
    add_maxpool(i);  // the picked form does not fit this tensor
  }

  void add_middle_output() {
    const std::string& t = any_live();
    if (t == "input") return;
    for (const std::string& o : b_.g.outputs)
      if (o == t) return;
    b_.output(t);
    note("graph output " + t);
  }

  std::mt19937 rng_;
  GraphBuilder b_;
  std::vector<std::string> live_;
  std::string desc_;
  std::uint64_t macs_ = 0;
  int n_ = 0;
};

}  // namespace npu::compiler::testing
