// Differential testing of the fusion strategies by values: seeded random small graphs (conv
// chains with BN, activations incl. SiLU/ReLU6/LeakyReLU/HardSigmoid, residual adds, concat,
// max/average pooling, depthwise and strided convs, intermediates that are graph outputs or
// have several consumers) compiled under every built-in strategy and executed with data.
// Strategy `none` lowers node by node; every fused strategy must give every graph output
// within 1e-5 of it (max |err| / max |ref|). A difference is a fusion legality bug: the
// message names the seed, the strategy and the output. NPU_RANDOM_GRAPHS=N runs N graphs
// (default 200) for longer campaigns.
#include <gtest/gtest.h>

#include <cstdlib>
#include <random>

#include "functional_test_util.hpp"
#include "npu/compiler/ddr_image.hpp"
#include "npu/compiler/strategy.hpp"

namespace {

using namespace npu;
using compiler::testing::GraphBuilder;

struct RandomGraph {
  GraphBuilder b;
  std::string input;
  std::vector<std::int64_t> input_shape;
};

RandomGraph random_graph(unsigned seed) {
  RandomGraph r;
  std::mt19937 rng(seed);
  r.b.rng.seed(seed);
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  auto chance = [&](double p) { return std::uniform_real_distribution<double>(0, 1)(rng) < p; };
  GraphBuilder& b = r.b;
  const int c0 = pick(1, 6), h0 = pick(5, 14), w0 = pick(5, 14);
  r.input_shape = {1, c0, h0, w0};
  r.input = b.input("x", r.input_shape);
  std::vector<std::string> live{r.input};
  std::string cur = r.input;
  const int depth = pick(2, 6);
  for (int i = 0; i < depth; ++i) {
    const std::string id = "n" + std::to_string(i);
    const auto s = b.shape(cur);
    const int kind = pick(0, 9);
    if (kind <= 5) {  // conv [+ bn] [+ act]
      const int k = chance(0.5) ? 3 : 1;
      const int stride = s[2] >= 6 && s[3] >= 6 && chance(0.25) ? 2 : 1;
      // A 3x3 window without padding needs at least 3 rows and columns (no empty outputs).
      const int pad = k == 3 && (chance(0.8) || s[2] < 3 || s[3] < 3) ? 1 : 0;
      const bool dw = s[1] > 1 && chance(0.25);
      const int c_out = dw ? int(s[1]) : pick(1, 8);
      std::string y = b.conv(id + ".conv", cur, c_out, k, stride, pad, dw ? int(s[1]) : 1, chance(0.5));
      if (chance(0.6)) y = b.bn(id + ".bn", y);
      switch (pick(0, 6)) {
        case 0: y = b.unary(id + ".relu", "Relu", y); break;
        case 1: y = b.unary(id + ".relu6", "Clip", y, {b.scalar(id + ".min", 0.0f), b.scalar(id + ".max", 6.0f)}); break;
        case 2: {
          y = b.unary(id + ".lrelu", "LeakyRelu", y);
          b.g.nodes.back().attrs["alpha"] = 0.1f;
          break;
        }
        case 3: y = b.silu(id + ".silu", y); break;
        case 4: y = b.unary(id + ".hsig", "HardSigmoid", y); break;
        default: break;  // no activation
      }
      cur = y;
    } else if (kind == 6) {  // residual add with an earlier tensor of the same shape
      std::string other;
      for (const auto& t : live)
        if (t != cur && b.shape(t) == s) other = t;
      if (other.empty()) continue;
      cur = b.binary(id + ".add", "Add", cur, other);
      if (chance(0.5)) cur = b.unary(id + ".relu", "Relu", cur);
    } else if (kind == 7) {  // pooling
      if (s[2] < 3 || s[3] < 3) continue;
      if (chance(0.5)) {
        cur = b.maxpool(id + ".maxpool", cur, 3, pick(1, 2), 1);
      } else {
        const std::string out = id + ".avgpool.out";
        b.add_tensor(out, {s[0], s[1], (s[2] - 2) / 2 + 1, (s[3] - 2) / 2 + 1});
        compiler::Node& n = b.node(id + ".avgpool", "AveragePool", {cur}, {out});
        n.attrs["kernel_shape"] = std::vector<std::int64_t>{2, 2};
        n.attrs["strides"] = std::vector<std::int64_t>{2, 2};
        cur = out;
      }
    } else if (kind == 8) {  // concat with an earlier tensor of the same spatial size
      std::string other;
      for (const auto& t : live) {
        const auto o = b.shape(t);
        if (t != cur && o[2] == s[2] && o[3] == s[3]) other = t;
      }
      if (other.empty()) continue;
      cur = b.concat(id + ".concat", {cur, other});
    } else {  // a second consumer: a 1x1 conv branch of the current tensor, added back later
      live.push_back(b.conv(id + ".branch", cur, int(s[1]), 1, 1, 0, 1, true));
      continue;
    }
    live.push_back(cur);
    if (chance(0.2)) b.output(cur);  // an intermediate that is also a graph output
  }
  if (std::find(b.g.outputs.begin(), b.g.outputs.end(), cur) == b.g.outputs.end()) b.output(cur);
  return r;
}

int graph_count() {
  const char* e = std::getenv("NPU_RANDOM_GRAPHS");
  return e ? std::max(1, std::atoi(e)) : 200;
}

TEST(RandomGraphsData, EveryStrategyGivesTheUnfusedOutputs) {
  const HwConfig hw = test::fp32_hw(64 * 1024);  // small: layers tile into row bands
  const std::vector<std::string> strategies = compiler::builtin_strategy_names();
  int runs = 0, skipped = 0;
  const char* first = std::getenv("NPU_RANDOM_GRAPHS_FIRST");
  for (int g = 0; g < graph_count(); ++g) {
    const unsigned seed = (first ? unsigned(std::atoi(first)) : 1000u) + unsigned(g);
    RandomGraph rg = random_graph(seed);
    const std::vector<float> x = test::random_values(std::size_t(rg.b.g.tensors.at(rg.input).elements()), seed);
    std::map<std::string, std::vector<float>> ref;
    for (const std::string& s : strategies) {
      compiler::CompileResult c;
      try {
        c = compiler::compile(rg.b.g, hw, compiler::builtin_strategy(s));
      } catch (const ConfigError& e) {
        std::string nodes;
        for (const auto& n : rg.b.g.nodes) {
          nodes += "\n  " + n.op_type + " " + n.name + " in " + n.inputs[0] + " [";
          for (auto d : rg.b.g.tensors.at(n.inputs[0]).shape) nodes += std::to_string(d) + " ";
          nodes += "] out [";
          for (auto d : rg.b.g.tensors.at(n.outputs[0]).shape) nodes += std::to_string(d) + " ";
          nodes += "]";
          if (n.has_attr("group")) nodes += " group " + std::to_string(n.attr_int("group", 1));
          if (n.has_attr("strides")) nodes += " stride " + std::to_string(n.attr_ints("strides")[0]);
          if (n.has_attr("pads")) nodes += " pad " + std::to_string(n.attr_ints("pads")[0]);
          if (n.has_attr("kernel_shape")) nodes += " k " + std::to_string(n.attr_ints("kernel_shape")[0]);
        }
        ADD_FAILURE() << "seed " << seed << " strategy " << s << ": compile failed: " << e.what() << nodes;
        break;
      }
      if (!compiler::functional_problems(c).empty()) {
        ++skipped;
        break;
      }
      const auto r = test::run_forked(c, hw, {{rg.input, x}}, true);
      ++runs;
      ASSERT_TRUE(r.ok) << "seed " << seed << " strategy " << s << ": " << r.error;
      if (s == strategies.front()) {
        ref = r.outputs;
        continue;
      }
      for (const auto& [name, v] : ref) {
        ASSERT_EQ(r.outputs.count(name), 1u) << "seed " << seed << " strategy " << s << ": output " << name << " missing";
        EXPECT_LE(test::rel_err(r.outputs.at(name), test::to_double(v)), 1e-5)
            << "seed " << seed << ", strategy " << s << ", graph output '" << name << "' differs from strategy "
            << strategies.front();
      }
    }
  }
  RecordProperty("runs", runs);
  EXPECT_EQ(skipped, 0) << "graphs the data path cannot execute";
  EXPECT_EQ(runs, graph_count() * int(strategies.size()));
}

}  // namespace
