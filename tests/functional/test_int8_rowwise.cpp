// int8 Softmax, LayerNormalization and RMSNormalization (docs/functional.md "int8 execution"):
// the data path's rules (hw_models/src/functional/int8_rowwise.cpp, tables from the back end's
// int8_rowwise.cpp) against hand-derived values, against the integer reference's independent
// rules (compiler/src/reference/quantised_rowwise.cpp) bit for bit, and against fp32 within
// one output step; then small graphs compiled and run with int8 data under every strategy,
// bit-exact with the integer reference, with their SQNR against the fp32 reference.
#include <gtest/gtest.h>

#include <cmath>
#include <iostream>
#include <random>

#include "int8_test_util.hpp"
#include "npu/compiler/backend/lowering/int8/int8_lowering.hpp"
#include "npu/compiler/quantize/error_metrics.hpp"
#include "npu/hw/functional/data_path.hpp"
#include "npu/hw/functional/int8_ops.hpp"
#include "reference/quantised_rules.hpp"
#include "test_compile_graphs.hpp"

using namespace npu;

namespace {

struct RowwiseSram {
  hw::BackingStore ddr{"DDR", 1 << 16};
  hw::DataPath dp{ddr, 1 << 20, DType::Int8};
  void i8(std::uint32_t addr, const std::vector<std::int8_t>& v) { dp.sram().write(addr, v.data(), v.size()); }
  void i32(std::uint32_t addr, const std::vector<std::int32_t>& v) { dp.sram().write(addr, v.data(), v.size() * 4); }
  std::vector<std::int8_t> read(std::uint32_t addr, std::size_t n) {
    std::vector<std::int8_t> v(n);
    dp.sram().read(addr, v.data(), n);
    return v;
  }
};

constexpr std::uint32_t kIn = 0x0, kOut = 0x20000, kTable = 0x40000, kParam = 0x60000;

// The data path's softmax of `rows` rows of `x` with input scale s_in (output 1/256, zp -128).
std::vector<std::int8_t> dp_softmax(const std::vector<std::int8_t>& x, int rows, double s_in, bool mask = false) {
  RowwiseSram s;
  s.i8(kIn, x);
  s.i32(kTable, compiler::softmax_exp_table(s_in));
  isa::ActParams p;
  p.op = isa::ActOp::Softmax;
  p.in_addr = kIn, p.out_addr = kOut, p.elems = std::uint32_t(x.size()), p.channels = rows;
  p.requant.on = true, p.requant.addr = kTable, p.requant.out_zp = -128;
  p.requant.mask_lowest = mask;
  hw::functional::act_int8(p, s.dp.sram());
  return s.read(kOut, x.size());
}

// The data path's layer_norm (rms_norm without beta) of rows of x, parameters by the back end.
std::vector<std::int8_t> dp_norm(const compiler::Graph& g, const compiler::Node& n, const std::vector<std::int8_t>& x,
                                 int rows, const compiler::Int8Grid& in, const compiler::Int8Grid& out) {
  const std::int64_t d = std::int64_t(x.size()) / rows;
  const compiler::Int8Norm q = compiler::norm_int8(g, n, in, out, d);
  RowwiseSram s;
  s.i8(kIn, x);
  s.i32(kTable, q.table);
  std::vector<std::int32_t> wb = q.w;
  const bool ln = n.op_type == "LayerNormalization";
  if (ln) wb.insert(wb.end(), q.b.begin(), q.b.end());
  s.i32(kParam, wb);
  isa::ActParams p;
  p.op = ln ? isa::ActOp::LayerNorm : isa::ActOp::RmsNorm;
  p.in_addr = kIn, p.out_addr = kOut, p.elems = std::uint32_t(x.size()), p.channels = rows;
  p.has_param = true, p.param_addr = kParam;
  p.requant.on = true, p.requant.addr = kTable, p.requant.in_zp = in.zero_point, p.requant.out_zp = out.zero_point;
  hw::functional::act_int8(p, s.dp.sram());
  return s.read(kOut, x.size());
}

std::vector<std::int8_t> random_codes(std::mt19937& rng, std::size_t n, int lo, int hi) {
  std::uniform_int_distribution<int> d(lo, hi);
  std::vector<std::int8_t> v(n);
  for (auto& x : v) x = std::int8_t(d(rng));
  return v;
}

// A LayerNormalization / RMSNormalization node over rows of d with constant gamma (and beta).
compiler::Graph norm_graph(const std::string& op, std::int64_t d, float eps, std::uint32_t seed) {
  compiler::testing::GraphBuilder b("norm");
  b.rng.seed(seed);
  b.input("x", {1, d});
  std::vector<std::string> ins{"x", b.constant("gamma", {d}, -2.0f, 2.0f)};
  if (op == "LayerNormalization") ins.push_back(b.constant("beta", {d}, -1.0f, 1.0f));
  b.add_tensor("y", {1, d});
  b.node("norm", op, ins, {"y"}).attrs["epsilon"] = eps;
  b.output("y");
  return b.g;
}

}  // namespace

TEST(Int8Rowwise, SoftmaxOfEqualCodesAndOfOneElementByHand) {
  // Equal codes: every table entry e[0] = 65535, so p = 1/n exactly. n = 2: sum 131070, inv =
  // round(2^46 / 131070) = 536879104 (536879104.13), 65535 x inv / 2^38 =
  // 127.99999997 -> 128 (p x 256 = 128): out = -128 + 128 = 0. n = 4: 64 -> -64.
  // One element: p = 1 -> 256 - 128 = 128, saturated to 127 (TFLite's int8 softmax does too).
  EXPECT_EQ(dp_softmax({5, 5}, 1, 0.1), (std::vector<std::int8_t>{0, 0}));
  EXPECT_EQ(dp_softmax({-3, -3, -3, -3}, 1, 0.1), (std::vector<std::int8_t>{-64, -64, -64, -64}));
  EXPECT_EQ(dp_softmax({77}, 1, 0.1), (std::vector<std::int8_t>{127}));
  // s_in = ln 2 / 8, codes {16, 0}: e[0] = 65535, e[16] = floor(65535 / 4 + 0.5) = 16384 (16383.75);
  // sum 81919, inv = round(2^46 / 81919) = 859003945 (859003945.09); 65535 inv / 2^38 = 204.80 ->
  // 205, 16384 inv / 2^38 = 51.20 -> 51: out = 77, -77 (p = 0.8, 0.2: 204.8 and 51.2 of 256).
  EXPECT_EQ(dp_softmax({16, 0}, 1, std::log(2.0) / 8), (std::vector<std::int8_t>{77, -77}));
}

TEST(Int8Rowwise, MaskedSoftmaxGivesKeysAtTheLowestCodeWeightZeroByHand) {
  // s_in = ln 2 / 8, codes {16, 0, -128, -128} with mask=-128: the two keys at -128 weigh 0 and
  // the row is the {16, 0} row above: 77, -77, and p = 0 -> out_zp = -128 for the masked keys.
  EXPECT_EQ(dp_softmax({16, 0, -128, -128}, 1, std::log(2.0) / 8, true), (std::vector<std::int8_t>{77, -77, -128, -128}));
  // Without the mask they weigh e[16 + 128] = floor(65535 x 2^-18 + 0.5) = 0 (0.25): the same
  // here; at s_in = 0.01 they weigh e[144] = floor(65535 e^-1.44 + 0.5) = 15527 each, against
  // e[0] = 65535 and e[16] = floor(65535 e^-0.16 + 0.5) = 55845: p = 65535 / 152434 = 0.4299,
  // 55845 / 152434 = 0.3664 and 0.1019: 110.06 -> 110, 93.79 -> 94, 26.08 -> 26 of 256.
  EXPECT_EQ(dp_softmax({16, 0, -128, -128}, 1, 0.01), (std::vector<std::int8_t>{-18, -34, -102, -102}));
  // Masked, only the two visible keys share the mass: 65535 / 121380 = 0.5399 -> 138.2 -> 138,
  // 55845 / 121380 = 0.4601 -> 117.8 -> 118 of 256.
  EXPECT_EQ(dp_softmax({16, 0, -128, -128}, 1, 0.01, true), (std::vector<std::int8_t>{10, -10, -128, -128}));
  // A row whose every key is at -128 (all masked) is computed as without the mask: 1/2 each.
  EXPECT_EQ(dp_softmax({-128, -128}, 1, 0.01, true), (std::vector<std::int8_t>{0, 0}));
}

TEST(Int8Rowwise, MaskedSoftmaxDataPathEqualsTheIntegerReference) {
  std::mt19937 rng(11);
  const int rows = 9, d = 37;
  std::vector<std::int8_t> x = random_codes(rng, std::size_t(rows * d), -100, 127);
  for (int r = 0; r < rows; ++r)  // a causal mask: row r sees its first r + 1 keys
    for (int j = r + 1; j < d; ++j) x[std::size_t(r * d + j)] = -128;
  const std::vector<std::int8_t> got = dp_softmax(x, rows, 0.1173, true);
  compiler::qref::SoftmaxRule rule({0.1173, 3}, {1.0 / 256.0, -128});
  rule.mask_lowest = true;
  std::vector<std::int8_t> ref(x.size());
  for (int r = 0; r < rows; ++r) rule.row(&x[std::size_t(r * d)], std::size_t(d), &ref[std::size_t(r * d)]);
  EXPECT_EQ(got, ref);
  for (int j = 1; j < d; ++j) EXPECT_EQ(got[std::size_t(j)], -128) << j;  // row 0: key 0 alone
  EXPECT_EQ(got[0], 127);  // p = 1: 256 - 128 saturates at 127
}

TEST(Int8Rowwise, SoftmaxDataPathEqualsTheIntegerReferenceAndFp32WithinOneStep) {
  std::mt19937 rng(7);
  for (double s_in : {0.01, 0.05, 0.1173, 0.25, 0.7}) {
    const int rows = 9, d = 37;
    const std::vector<std::int8_t> x = random_codes(rng, std::size_t(rows * d), -128, 127);
    const std::vector<std::int8_t> got = dp_softmax(x, rows, s_in);
    const compiler::qref::SoftmaxRule rule({s_in, 3}, {1.0 / 256.0, -128});
    std::vector<std::int8_t> ref(x.size());
    double worst = 0;
    for (int r = 0; r < rows; ++r) {
      rule.row(&x[std::size_t(r * d)], std::size_t(d), &ref[std::size_t(r * d)]);
      double mx = -1e9, sum = 0;  // fp32 softmax of the dequantised row (zero point cancels)
      for (int j = 0; j < d; ++j) mx = std::max(mx, s_in * x[std::size_t(r * d + j)]);
      for (int j = 0; j < d; ++j) sum += std::exp(s_in * x[std::size_t(r * d + j)] - mx);
      for (int j = 0; j < d; ++j) {
        const double p = std::exp(s_in * x[std::size_t(r * d + j)] - mx) / sum;
        worst = std::max(worst, std::fabs((got[std::size_t(r * d + j)] + 128) / 256.0 - p));
      }
    }
    EXPECT_EQ(got, ref) << "s_in " << s_in;
    EXPECT_LE(worst, 1.0 / 256.0) << "s_in " << s_in;  // one output step (rounding 1/512 + table error)
  }
}

TEST(Int8Rowwise, LayerNormOfTwoCodesByHand) {
  // Codes {zp - 1, zp + 1} (zp 4), eps 0: S = 0, Q = 2, V = D Q - S^2 = 4, s8 = floor(sqrt(4 x 2^16))
  // = 512, c = D x - S = -2, 2, n = c 2^20 / 512 = -4096, 4096 (-1, 1 in Q12). gamma 1, beta 0:
  // w = 127 (s_w = 1/127), b = 0, M = 2^-12 / 127 / s_out with s_out = 1/64: acc x M = +-64.
  compiler::testing::GraphBuilder b("ln");
  b.input("x", {1, 2});
  b.scalar("g1", 1.0f);
  b.add_tensor("y", {1, 2});
  b.node("ln", "LayerNormalization", {"x", "g1"}, {"y"}).attrs["epsilon"] = 0.0f;
  EXPECT_EQ(dp_norm(b.g, b.g.nodes[0], {3, 5}, 1, {0.5, 4}, {1.0 / 64, 0}), (std::vector<std::int8_t>{-64, 64}));
}

TEST(Int8Rowwise, NormsDataPathEqualTheIntegerReferenceAndFp32WithinOneStep) {
  std::mt19937 rng(11);
  for (const std::string op : {"LayerNormalization", "RMSNormalization"})
    for (std::int64_t d : {8, 64, 300}) {
      const compiler::Graph g = norm_graph(op, d, 1e-5f, std::uint32_t(d));
      const compiler::Node& n = g.nodes[0];
      const std::vector<float>& gamma = g.tensors.at("gamma").float_data;
      const bool ln = op == "LayerNormalization";
      const std::vector<float> beta = ln ? g.tensors.at("beta").float_data : std::vector<float>{};
      const compiler::Int8Grid in{0.037, -7}, out{0.05, 2};  // |y| <= 2 sqrt(300) + 1 < 6.4 x 20
      const int rows = 6;
      const std::vector<std::int8_t> x = random_codes(rng, std::size_t(rows * d), -128, 127);
      const std::vector<std::int8_t> got = dp_norm(g, n, x, rows, in, out);
      const compiler::qref::NormRule rule(gamma, beta, 1e-5, ln, {in.scale, in.zero_point}, {out.scale, out.zero_point});
      std::vector<std::int8_t> ref(x.size());
      double worst = 0;
      for (int r = 0; r < rows; ++r) {
        const std::int8_t* q = &x[std::size_t(r * d)];
        rule.row(q, &ref[std::size_t(r * d)]);
        double mean = 0, ms = 0;  // fp32 (double) norm of the dequantised row
        for (std::int64_t j = 0; j < d; ++j) mean += (q[j] - in.zero_point) * in.scale / double(d);
        if (!ln) mean = 0;
        for (std::int64_t j = 0; j < d; ++j) ms += std::pow((q[j] - in.zero_point) * in.scale - mean, 2) / double(d);
        for (std::int64_t j = 0; j < d; ++j) {
          const double y = ((q[j] - in.zero_point) * in.scale - mean) / std::sqrt(ms + 1e-5) * gamma[std::size_t(j)] +
                           (ln ? beta[std::size_t(j)] : 0.0);
          if (std::fabs(y / out.scale) > 120) continue;  // saturated outputs: not a rounding question
          worst = std::max(worst, std::fabs((got[std::size_t(r * d + j)] - out.zero_point) * out.scale - y));
        }
      }
      EXPECT_EQ(got, ref) << op << " d " << d;
      EXPECT_LE(worst, out.scale) << op << " d " << d;  // one output step
    }
}

namespace {

// x [8, 32] -> MatMul W [32, 32] -> LayerNormalization or RMSNormalization (gamma, beta) ->
// MatMul W2 [32, 16] -> Softmax over the 16 columns: a transformer block's row-wise ops between
// int8 GEMMs.
compiler::Graph rowwise_block(const std::string& norm) {
  compiler::testing::GraphBuilder b("rowwise_block");
  b.input("x", {8, 32});
  b.constant("w1", {32, 32}, -0.3f, 0.3f);
  b.add_tensor("h", {8, 32});
  b.node("mm1", "MatMul", {"x", "w1"}, {"h"});
  std::vector<std::string> ins{"h", b.constant("gamma", {32}, 0.5f, 1.5f)};
  if (norm == "LayerNormalization") ins.push_back(b.constant("beta", {32}, -0.2f, 0.2f));
  b.add_tensor("n", {8, 32});
  b.node("norm", norm, ins, {"n"}).attrs["epsilon"] = 1e-5f;
  b.constant("w2", {32, 16}, -0.5f, 0.5f);
  b.add_tensor("logits", {8, 16});
  b.node("mm2", "MatMul", {"n", "w2"}, {"logits"});
  b.add_tensor("p", {8, 16});
  b.node("softmax", "Softmax", {"logits"}, {"p"}).attrs["axis"] = std::int64_t(-1);
  b.output("p");
  return b.g;
}

}  // namespace

TEST(Int8Rowwise, TransformerRowOpsRunBitExactUnderEveryStrategyWithSensibleSqnr) {
  const HwConfig hw = load_hw_config(std::string(NPU_SOURCE_DIR) + "/configs/edge-npu-ddr4.yaml");
  for (const std::string norm : {"LayerNormalization", "RMSNormalization"}) {
    SCOPED_TRACE(norm);
    const compiler::Graph g = rowwise_block(norm);
    npu::test::expect_int8_bit_exact_under_every_strategy(g, hw, 5, 6);
    // SQNR of the simulated int8 softmax against fp32 (strategy none, 4 seeded calibration samples).
    const compiler::Strategy st = compiler::builtin_strategy("none");
    const compiler::Graph qg = compiler::quantize_graph(g, st, compiler::generate_calibration(g, 5, 4)).graph;
    const compiler::RefTensorMap in = compiler::generate_calibration(g, 6, 1).at(0);
    const sim::Int8Check r = sim::check_int8_execution(compiler::compile(qg, hw, st), hw, qg, in);
    ASSERT_EQ(r.status, "bit-exact");
    const double sqnr = compiler::sqnr_db(compiler::run_reference(g, in).at("p").f, r.outputs.at("p").f);
    std::cout << norm << " block, int8 vs fp32: SQNR " << sqnr << " dB\n";
    // 28.1 dB (LayerNorm) and 25.2 dB (RMSNorm) measured. The output grid alone bounds it: p ~ 1/16
    // on steps of 1/256 gives 10 log10(12 x 256^2 x mean p^2) ~ 34.5 dB, and the logits' own
    // rounding (one step moves p by ~ p s_logits) and the norm's and MatMuls' come on top.
    EXPECT_GT(sqnr, 20.0);
  }
}

namespace {

// x [1, 4, 5, 5] -> Conv 3x3 (pad 1) -> Relu -> ConvTranspose 4 -> 3, k 4, stride 2, pad 1, bias
// (5x5 -> 10x10: (5 - 1) 2 - 2 + 4) -> graph output: a detection / segmentation head's upsampler.
compiler::Graph conv_transpose_head() {
  compiler::testing::GraphBuilder b("deconv");
  b.input("x", {1, 4, 5, 5});
  const std::string c = b.unary("relu", "Relu", b.conv("conv", "x", 4, 3, 1, 1));
  b.constant("wt", {4, 3, 4, 4}, -0.4f, 0.4f);
  b.constant("bt", {3}, -0.1f, 0.1f);
  b.add_tensor("y", {1, 3, 10, 10});
  compiler::Node& n = b.node("deconv", "ConvTranspose", {c, "wt", "bt"}, {"y"});
  n.attrs["kernel_shape"] = std::vector<std::int64_t>{4, 4};
  n.attrs["strides"] = std::vector<std::int64_t>{2, 2};
  n.attrs["pads"] = std::vector<std::int64_t>{1, 1, 1, 1};
  b.output("y");
  return b.g;
}

}  // namespace

TEST(Int8ConvTranspose, RunsAsZeroInsertionAndConvBitExactWithTheScatterDefinition) {
  // The NPU computes ConvTranspose as a zero insertion (MOVE zero=N) and a stride-1 CONV with the
  // kernel flipped; the integer reference scatters each input pixel by ONNX's definition. Integer
  // sums are associative, so the two agree bit for bit when the inserted 0 bytes are the real 0:
  // PTQ gives the ConvTranspose input a symmetric grid, zero point 0.
  const compiler::Graph g = conv_transpose_head();
  const HwConfig hw = load_hw_config(std::string(NPU_SOURCE_DIR) + "/configs/edge-npu-ddr4.yaml");
  const compiler::Strategy st = compiler::builtin_strategy("none");
  const compiler::Graph qg = compiler::quantize_graph(g, st, compiler::generate_calibration(g, 5, 4)).graph;
  ASSERT_TRUE(qg.tensors.at("relu.out").quant);
  EXPECT_EQ(qg.tensors.at("relu.out").quant->zero_point.at(0), 0);
  ASSERT_TRUE(qg.tensors.at("wt").quant);
  EXPECT_EQ(qg.tensors.at("wt").quant->axis, 1);  // output channels of [Cin, Cout, kh, kw]
  npu::test::expect_int8_bit_exact_under_every_strategy(g, hw, 5, 6);
  const compiler::RefTensorMap in = compiler::generate_calibration(g, 6, 1).at(0);
  const sim::Int8Check r = sim::check_int8_execution(compiler::compile(qg, hw, st), hw, qg, in);
  ASSERT_EQ(r.status, "bit-exact");
  const double sqnr = compiler::sqnr_db(compiler::run_reference(g, in).at("y").f, r.outputs.at("y").f);
  std::cout << "ConvTranspose head, int8 vs fp32: SQNR " << sqnr << " dB\n";
  EXPECT_GT(sqnr, 30.0);  // three int8 roundings (input, relu, output) of ~45 dB each
}
