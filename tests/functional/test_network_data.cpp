// Whole networks executed with data: timing does not depend on data (same cycles, bytes and
// DDR trace with and without it), and tests/data/tiny_convnet.onnx gives the same output
// under every built-in fusion strategy and equal to a direct computation of that network
// written here layer by layer from its ONNX definition (conv1-bn-relu, conv2-bn + skip
// add-relu, 1x1/2 conv3-bn-clip(0,6), depthwise conv4-bn-silu, global average pool, fc).
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <set>
#include <sstream>

#include "functional_test_util.hpp"
#include "npu/compiler/frontend/model_loader.hpp"
#include "npu/compiler/transforms/strategy.hpp"

namespace {

using namespace npu;
using test::fp32_hw;

const std::string kNetworkTiny = std::string(NPU_SOURCE_DIR) + "/tests/data/tiny_convnet.onnx";

std::string slurp_network(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

TEST(NetworkData, TimingIsIdenticalWithAndWithoutData) {
  const HwConfig hw = fp32_hw();
  const compiler::Graph g = compiler::load_model(kNetworkTiny);
  const auto c = compiler::compile(g, hw, compiler::builtin_strategy("conv-bn-act"));
  const std::vector<float> x = test::random_values(3 * 32 * 32, 11);
  const std::string dir = ::testing::TempDir();
  const auto off = test::run_forked(c, hw, {}, false, dir + "/func_trace_off.csv");
  const auto on = test::run_forked(c, hw, {{g.inputs[0], x}}, true, dir + "/func_trace_on.csv");
  ASSERT_TRUE(off.ok) << off.error;
  ASSERT_TRUE(on.ok) << on.error;
  EXPECT_GT(off.total_cycles, 0u);
  EXPECT_EQ(on.total_cycles, off.total_cycles);
  EXPECT_EQ(on.ddr_read, off.ddr_read);
  EXPECT_EQ(on.ddr_write, off.ddr_write);
  EXPECT_EQ(on.sram_read, off.sram_read);
  EXPECT_EQ(on.sram_write, off.sram_write);
  EXPECT_EQ(on.macs, off.macs);
  EXPECT_EQ(on.instr_cycles, off.instr_cycles);  // every instruction's start, end and DDR bytes
  const std::string t_off = slurp_network(dir + "/func_trace_off.csv"), t_on = slurp_network(dir + "/func_trace_on.csv");
  EXPECT_GT(t_off.size(), 1000u);
  EXPECT_TRUE(t_on == t_off) << "DDR traces differ";
  EXPECT_EQ(on.outputs.size(), 1u);
  EXPECT_EQ(off.ddr_pages, 0u);
  // The sparse store allocates only pages the program's tensors cover: at most the 64 KiB
  // pages that the declared regions span (about 13 of the 4 GiB DDR's 65536 pages here).
  std::set<std::uint64_t> pages;
  for (const isa::TensorDecl& t : c.program.tensors)
    for (std::uint64_t p = t.ddr_addr >> 16; p <= (t.ddr_addr + t.bytes - 1) >> 16; ++p) pages.insert(p);
  EXPECT_GT(on.ddr_pages, 0u);
  EXPECT_LE(on.ddr_pages, pages.size());
  EXPECT_LT(pages.size(), 20u);
}

// ---- the direct computation of tiny_convnet (double, batch 1) ----
using Vec = std::vector<double>;
struct Net {
  const compiler::Graph& g;
  const compiler::Node& node(const std::string& name) const {
    for (const auto& n : g.nodes)
      if (n.name == name) return n;
    throw std::runtime_error("tiny_convnet has no node " + name);
  }
  const std::vector<float>& c(const std::string& t) const { return g.tensor(t).float_data; }

  // ONNX Conv, symmetric pads taken from the node.
  Vec conv(const Vec& x, int C, int H, int W, const std::string& name, int& Co, int& Ho, int& Wo) const {
    const compiler::Node& n = node(name);
    const auto& ws = g.tensor(n.inputs[1]).shape;
    const std::vector<float>& w = c(n.inputs[1]);
    const int K = int(ws[2]), cpg = int(ws[1]), group = int(n.attr_int("group", 1));
    const int s = int(n.attr_ints("strides", {1, 1})[0]), p = int(n.attr_ints("pads", {0, 0, 0, 0})[0]);
    Co = int(ws[0]);
    Ho = (H + 2 * p - K) / s + 1;
    Wo = (W + 2 * p - K) / s + 1;
    const bool has_b = n.inputs.size() > 2 && !n.inputs[2].empty();
    Vec y(std::size_t(Co * Ho * Wo));
    for (int o = 0; o < Co; ++o) {
      const int g0 = o / (Co / group) * cpg;
      for (int i = 0; i < Ho; ++i)
        for (int j = 0; j < Wo; ++j) {
          double acc = has_b ? c(n.inputs[2])[std::size_t(o)] : 0.0;
          for (int ci = 0; ci < cpg; ++ci)
            for (int ky = 0; ky < K; ++ky)
              for (int kx = 0; kx < K; ++kx) {
                const int yy = i * s - p + ky, xx = j * s - p + kx;
                if (yy < 0 || yy >= H || xx < 0 || xx >= W) continue;
                acc += x[std::size_t(((g0 + ci) * H + yy) * W + xx)] * w[std::size_t(((o * cpg + ci) * K + ky) * K + kx)];
              }
          y[std::size_t((o * Ho + i) * Wo + j)] = acc;
        }
    }
    (void)C;
    return y;
  }
  Vec bn(Vec y, int C, const std::string& name) const {
    const compiler::Node& n = node(name);
    const double eps = n.attr_float("epsilon", 1e-5f);
    const std::size_t plane = y.size() / std::size_t(C);
    for (std::size_t ch = 0; ch < std::size_t(C); ++ch)
      for (std::size_t i = 0; i < plane; ++i) {
        double& v = y[ch * plane + i];
        v = (v - c(n.inputs[3])[ch]) / std::sqrt(double(c(n.inputs[4])[ch]) + eps) * c(n.inputs[1])[ch] + c(n.inputs[2])[ch];
      }
    return y;
  }
  static Vec relu(Vec y) {
    for (double& v : y) v = v > 0 ? v : 0;
    return y;
  }
};

Vec tiny_convnet_reference(const compiler::Graph& g, const std::vector<float>& input) {
  const Net net{g};
  int C = 3, H = 32, W = 32, Co = 0, Ho = 0, Wo = 0;
  Vec x(input.begin(), input.end());
  // layer1: conv-bn-relu
  Vec t = net.conv(x, C, H, W, "layer1.conv", Co, Ho, Wo);
  const Vec r1 = Net::relu(net.bn(t, Co, "layer1.bn"));
  C = Co, H = Ho, W = Wo;
  // layer2: relu(bn(conv(r1)) + r1)
  t = net.conv(r1, C, H, W, "layer2.conv", Co, Ho, Wo);
  Vec b2 = net.bn(t, Co, "layer2.bn");
  for (std::size_t i = 0; i < b2.size(); ++i) b2[i] += r1[i];
  const Vec r2 = Net::relu(b2);
  // layer3: clip(bn(conv1x1/2(r2)), 0, 6)
  t = net.conv(r2, C, H, W, "layer3.conv", Co, Ho, Wo);
  Vec c3 = net.bn(t, Co, "layer3.bn");
  C = Co, H = Ho, W = Wo;
  for (double& v : c3) v = std::min(std::max(v, 0.0), 6.0);
  // layer4: silu(bn(depthwise conv(c3)))
  t = net.conv(c3, C, H, W, "layer4.conv", Co, Ho, Wo);
  Vec b4 = net.bn(t, Co, "layer4.bn");
  for (double& v : b4) v = v / (1.0 + std::exp(-v));
  // global average pool, fc (Gemm transB=1 with bias)
  Vec pooled(static_cast<std::size_t>(Co), 0.0);
  for (int ch = 0; ch < Co; ++ch) {
    for (int k = 0; k < Ho * Wo; ++k) pooled[std::size_t(ch)] += b4[std::size_t(ch * Ho * Wo + k)];
    pooled[std::size_t(ch)] /= Ho * Wo;
  }
  const compiler::Node& fc = net.node("fc");
  const auto& w = net.c(fc.inputs[1]);
  const auto& b = net.c(fc.inputs[2]);
  const int N = int(g.tensor(fc.inputs[1]).shape[0]);
  Vec out(static_cast<std::size_t>(N));
  for (int n = 0; n < N; ++n) {
    double acc = b[std::size_t(n)];
    for (int k = 0; k < Co; ++k) acc += pooled[std::size_t(k)] * w[std::size_t(n * Co + k)];
    out[std::size_t(n)] = acc;
  }
  return out;
}

TEST(NetworkData, TinyConvnetEveryStrategyMatchesTheDirectComputation) {
  const compiler::Graph g = compiler::load_model(kNetworkTiny);
  ASSERT_EQ(g.inputs.size(), 1u);
  ASSERT_EQ(g.outputs.size(), 1u);
  const std::vector<float> x = test::random_values(3 * 32 * 32, 12);
  const Vec ref = tiny_convnet_reference(g, x);
  // Two SRAM sizes: the default 1 MiB and 16 KiB, which tiles every layer into row bands.
  for (const std::uint64_t sram : {std::uint64_t(1) << 20, std::uint64_t(16) << 10}) {
    const HwConfig hw = fp32_hw(sram);
    std::vector<float> first;
    std::string first_name;
    for (const std::string& s : compiler::builtin_strategy_names()) {
      SCOPED_TRACE("strategy " + s + ", SRAM " + std::to_string(sram) + " B");
      const auto c = compiler::compile(g, hw, compiler::builtin_strategy(s));
      const auto r = test::run_forked(c, hw, {{g.inputs[0], x}}, true);
      ASSERT_TRUE(r.ok) << r.error;
      const std::vector<float>& y = r.outputs.at(g.outputs[0]);
      ASSERT_EQ(y.size(), ref.size());
      EXPECT_LE(test::rel_err(y, ref), 1e-5);
      if (first.empty()) {
        first = y;
        first_name = s;
      } else {
        EXPECT_LE(test::rel_err(y, test::to_double(first)), 1e-5) << "differs from strategy " << first_name;
      }
    }
  }
}

}  // namespace
