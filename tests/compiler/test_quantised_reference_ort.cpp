// The quantised reference's element-wise functions (the ops the NPU runs by table) against
// ONNX Runtime (npm onnxruntime-node, CPU, graph optimisations off; scripts/ort_reference.js).
// Each case is a small QDQ model built here: x -> Q/DQ -> OP -> Q/DQ -> output, fed every one
// of the 256 int8 codes of the input grid, so the whole table is compared.
//
// Tolerance, 1 LSB: ORT runs the file as written -- DequantizeLinear in float, the op's float
// kernel (MLAS's Logistic and Tanh are rational approximations, about 1e-6 relative error),
// QuantizeLinear rounding half to even. The reference computes f in double and rounds the same
// way. The two pre-rounding values y_ort and y_ref differ by |y_ort - y_ref| <= e, e far below
// one output step s_y (>= 1/256 here vs e ~ 1e-6), so round(y / s_y) can differ only where a
// rounding boundary (a half step) lies between them: by exactly 1, and for a fraction ~2e/s_y of
// the codes. SiLU (Sigmoid, then an int8 Mul by x) adds TFLite's Mul rounding (half away from
// zero, the multiplier's 2^-31 relative error) against ORT's float Mul and half-to-even: again
// only at a tie, 1 LSB. The grids avoid exact real ties where f is rational: with LeakyRelu on
// (0.05 -> 0.04) every positive code q = 2 mod 4 is one (q x 1.25 = k + 1/2), and there fp32
// rounding decides the side: 10 of 256 codes differed. On 0.05 -> 0.035 the ratios 10/7 and 1/7
// (alpha 0.1) never give k + 1/2. Skipped where node or the npm packages are absent.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>

#include "npu/compiler/frontend/model_loader.hpp"
#include "npu/compiler/reference/reference_quantised.hpp"
#include "npu/compiler/frontend/tensor_io.hpp"
#include "test_onnx_util.hpp"
#include "ort_util.hpp"
#include "tool_runner.hpp"

namespace npu::compiler {
namespace {

namespace fs = std::filesystem;
using npu::test::OnnxModel;

using npu::test::ort_missing;

struct Grid {
  float scale;
  int zero_point;
};

struct LutCase {
  const char* name;
  const char* op;  ///< "SiLU": Sigmoid on (1/256, -128), then Mul by x
  Grid in, out;
  float alpha = 0;  ///< LeakyRelu / HardSigmoid alpha (0: the ONNX default)
};

// x -> Q/DQ(in) -> name + ".q" ... -> Q/DQ(out) -> "y".
void add_qdq(OnnxModel& m, const std::string& x, const std::string& out, const Grid& g) {
  m.init_float(out + ".s", {}, {g.scale});
  auto* z = m.graph().add_initializer();
  z->set_name(out + ".z");
  z->set_data_type(onnx::TensorProto_DataType_INT8);
  z->add_int32_data(g.zero_point);
  m.node("QuantizeLinear", out + ".Q", {x, out + ".s", out + ".z"}, {out + ".q"});
  m.node("DequantizeLinear", out + ".DQ", {out + ".q", out + ".s", out + ".z"}, {out});
}

OnnxModel lut_model(const LutCase& c) {
  OnnxModel m(14);  // HardSwish: opset 14
  m.graph().set_name(std::string("qdq_") + c.name);
  m.input("x", {1, 256});
  add_qdq(m, "x", "xd", c.in);
  const std::string op = c.op;
  if (op == "SiLU") {
    m.node("Sigmoid", "sig", {"xd"}, {"sig.out"});
    add_qdq(m, "sig.out", "sigd", {1.0f / 256, -128});
    m.node("Mul", "mul", {"xd", "sigd"}, {"f.out"});
  } else {
    auto& n = m.node(op, "f", {"xd"}, {"f.out"});
    if (c.alpha != 0) OnnxModel::attr_f(n, "alpha", c.alpha);
  }
  add_qdq(m, "f.out", "y", c.out);
  m.output("y");
  return m;
}

class OrtLut : public ::testing::TestWithParam<LutCase> {};

TEST_P(OrtLut, ReferenceIsWithinOneLsbOfOnnxRuntimeOnEveryCode) {
  const LutCase& c = GetParam();
  std::string ort_dir;
  if (const std::string why = ort_missing(ort_dir); !why.empty()) GTEST_SKIP() << "ONNX Runtime cross-check skipped: " << why;
  const std::string dir = test::fresh_dir(std::string("qdq_lut_") + c.name);
  const std::string model = dir + "/model.onnx";
  {
    std::FILE* f = std::fopen(model.c_str(), "wb");
    ASSERT_NE(f, nullptr);
    const std::string bytes = lut_model(c).bytes();
    std::fwrite(bytes.data(), 1, bytes.size(), f);
    std::fclose(f);
  }
  RefTensor x = RefTensor::zeros({1, 256});
  for (int q = -128; q <= 127; ++q) x.f[std::size_t(q + 128)] = float(q - c.in.zero_point) * c.in.scale;
  write_tensor_pb(dir + "/input_0.pb", x, "x");
  const test::ToolResult r = test::run_shell("NPU_ORT_DIR='" + ort_dir + "' node '" + NPU_SOURCE_DIR +
                                             "/scripts/ort_reference.js' '" + model + "' '" + dir + "' '" + dir + "/input_0.pb'");
  ASSERT_EQ(r.status, 0) << r.output;
  const RefTensor ort = read_tensor_pb(dir + "/output_0.pb");
  const QuantisedTensor ref = run_quantised_reference(load_model(model), {{"x", x.f}}).at("y");
  ASSERT_EQ(ort.f.size(), ref.q.size());
  int max_lsb = 0, differ = 0;
  for (std::size_t i = 0; i < ref.q.size(); ++i) {
    // ORT's output is DequantizeLinear of its int8: back to the integer exactly.
    const int o = int(std::lround(double(ort.f[i]) / double(c.out.scale))) + c.out.zero_point;
    const int d = std::abs(o - int(ref.q[i]));
    max_lsb = std::max(max_lsb, d);
    differ += d != 0;
  }
  std::printf("%s: %d of 256 codes differ from ONNX Runtime, max %d LSB\n", c.name, differ, max_lsb);
  EXPECT_LE(max_lsb, 1);
  EXPECT_LE(differ, 8) << "more codes than rounding ties can explain";
  fs::remove_all(dir);
}

INSTANTIATE_TEST_SUITE_P(LutOps, OrtLut,
                         ::testing::Values(LutCase{"Sigmoid", "Sigmoid", {0.05f, 10}, {1.0f / 256, -128}},
                                           LutCase{"Tanh", "Tanh", {0.03f, -5}, {1.0f / 128, 0}},
                                           LutCase{"HardSwish", "HardSwish", {0.05f, 0}, {0.03f, -115}},
                                           LutCase{"HardSigmoid", "HardSigmoid", {0.05f, 3}, {1.0f / 255, -128}},
                                           LutCase{"LeakyRelu", "LeakyRelu", {0.05f, 0}, {0.035f, -20}, 0.1f},
                                           LutCase{"Exp", "Exp", {0.02f, 0}, {0.05f, -128}},
                                           LutCase{"SiLU", "SiLU", {0.05f, 0}, {0.03f, -115}}),
                         [](const ::testing::TestParamInfo<LutCase>& info) { return std::string(info.param.name); });

}  // namespace
}  // namespace npu::compiler
