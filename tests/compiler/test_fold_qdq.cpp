// Pre-quantised models (fold_qdq.hpp): QDQ graphs as ONNX Runtime's quantiser writes them and
// QLinearConv / QLinearMatMul models import onto the NPU, with their scales and zero points
// kept, and compile to the program of the float model with the same (dequantised) weights.
// Expected weights and biases are worked out by hand from ONNX's formulas:
// DequantizeLinear y = (q - zero_point) * scale; QLinearConv bias scale = x_scale * w_scale[k].
#include <gtest/gtest.h>

#include <string>

#include "npu/compiler/driver/compiler.hpp"
#include "npu/compiler/frontend/model_loader.hpp"
#include "npu/compiler/reference/reference_quantised.hpp"
#include "npu/compiler/transforms/strategy.hpp"
#include "npu/isa/assembly.hpp"
#include "npu/hw_config/hw_config.hpp"
#include "test_onnx_util.hpp"

namespace npu::compiler {
namespace {

using npu::test::OnnxModel;
using Ints = std::vector<std::int64_t>;

const std::string kQdqEdge = std::string(NPU_SOURCE_DIR) + "/configs/edge-npu-ddr4.yaml";

void init_typed(OnnxModel& m, const std::string& name, Ints dims, int type, const std::vector<std::int32_t>& v) {
  auto* t = m.graph().add_initializer();
  t->set_name(name);
  t->set_data_type(type);
  for (auto d : dims) t->add_dims(d);
  for (auto x : v) t->add_int32_data(x);  // int8, uint8 and int32 all live in int32_data
}

// Conv weights [2, 3, 1, 1] int8: channel 0 = {10, -20, 30}, channel 1 = {7, 0, -127}; per
// channel scales {0.01, 0.5} along axis 0, zero point 0 -> floats {0.1, -0.2, 0.3} and
// {3.5, 0, -63.5}.
const std::vector<std::int32_t> kWq = {10, -20, 30, 7, 0, -127};
const std::vector<float> kWf = {0.1f, -0.2f, 0.3f, 3.5f, 0.0f, -63.5f};

void add_activation_qdq(OnnxModel& m, const std::string& x, const std::string& out, const std::string& s,
                        const std::string& z) {
  m.node("QuantizeLinear", out + ".q", {x, s, z}, {out + ".q"});
  m.node("DequantizeLinear", out + ".dq", {out + ".q", s, z}, {out});
}

// x -> Q/DQ -> Conv(DQ(w), bias) -> Relu -> Q/DQ -> output: ONNX Runtime's QDQ form.
OnnxModel qdq_conv_model() {
  OnnxModel m(13);
  m.graph().set_name("qconv");
  m.input("x", {1, 3, 8, 8});
  m.init_float("xs", {}, {0.02f});
  init_typed(m, "xz", {}, onnx::TensorProto_DataType_INT8, {0});
  add_activation_qdq(m, "x", "x_dq", "xs", "xz");
  init_typed(m, "w_q", {2, 3, 1, 1}, onnx::TensorProto_DataType_INT8, kWq);
  m.init_float("ws", {2}, {0.01f, 0.5f});
  init_typed(m, "wz", {2}, onnx::TensorProto_DataType_INT8, {0, 0});
  auto& dq = m.node("DequantizeLinear", "w.dq", {"w_q", "ws", "wz"}, {"conv.weight"});
  OnnxModel::attr_i(dq, "axis", 0);
  m.init_float("conv.bias", {2}, {0.25f, -0.5f});
  auto& c = m.node("Conv", "conv", {"x_dq", "conv.weight", "conv.bias"}, {"conv.out"});
  OnnxModel::attr_ints(c, "kernel_shape", {1, 1});
  m.node("Relu", "relu", {"conv.out"}, {"relu.out"});
  m.init_float("ys", {}, {0.05f});
  init_typed(m, "yz", {}, onnx::TensorProto_DataType_INT8, {0});
  add_activation_qdq(m, "relu.out", "output", "ys", "yz");
  m.output("output");
  return m;
}

// The same network in float: Conv with the dequantised weights, Relu, output.
OnnxModel float_conv_model() {
  OnnxModel m(13);
  m.graph().set_name("qconv");
  m.input("x", {1, 3, 8, 8});
  m.init_float("conv.weight", {2, 3, 1, 1}, kWf);
  m.init_float("conv.bias", {2}, {0.25f, -0.5f});
  auto& c = m.node("Conv", "conv", {"x", "conv.weight", "conv.bias"}, {"conv.out"});
  OnnxModel::attr_ints(c, "kernel_shape", {1, 1});
  m.node("Relu", "relu", {"conv.out"}, {"output"});
  m.output("output");
  return m;
}

TEST(FoldQdq, QdqConvBecomesTheFloatConvWithItsQuantisationKept) {
  const Graph g = load_model_bytes(qdq_conv_model().bytes(), "qconv.onnx");
  ASSERT_EQ(g.nodes.size(), 2u);
  EXPECT_EQ(g.nodes[0].op_type, "Conv");
  EXPECT_EQ(g.nodes[1].op_type, "Relu");
  EXPECT_EQ(g.nodes[0].inputs[0], "x");  // the Q/DQ pair on the input is gone
  EXPECT_FALSE(g.nodes[0].on_host);
  EXPECT_EQ(g.outputs, std::vector<std::string>{"output"});
  EXPECT_EQ(g.nodes[1].outputs[0], "output");  // Relu writes the graph output itself
  const Tensor& w = g.tensor("conv.weight");
  ASSERT_TRUE(w.is_constant);
  ASSERT_EQ(w.float_data.size(), kWf.size());
  for (std::size_t i = 0; i < kWf.size(); ++i) EXPECT_FLOAT_EQ(w.float_data[i], kWf[i]) << i;
  ASSERT_TRUE(w.quant);
  EXPECT_EQ(w.quant->scale, (std::vector<float>{0.01f, 0.5f}));
  EXPECT_EQ(w.quant->axis, 0);
  EXPECT_EQ(w.quant->type, ElemType::Int8);
  ASSERT_TRUE(g.tensor("x").quant);
  EXPECT_EQ(g.tensor("x").quant->scale, std::vector<float>{0.02f});
  ASSERT_TRUE(g.tensor("output").quant);
  EXPECT_EQ(g.tensor("output").quant->scale, std::vector<float>{0.05f});
}

TEST(FoldQdq, QdqModelCompilesToTheFloatModelsProgram) {
  // On an fp32 array the quantisation is not used: the programs are identical. On the int8
  // preset the QDQ model executes in int8 (docs/functional.md, "int8 execution"): the same
  // compute instructions (shapes, MACs) plus the requantisation operand, and one LOAD of the
  // layer's requantisation table (the float model has no quantisation, so no table).
  HwConfig fp32 = load_hw_config(kQdqEdge);
  fp32.mac_array.dtype = DType::Fp32;
  const HwConfig hw = load_hw_config(kQdqEdge);
  for (const std::string& s : builtin_strategy_names()) {
    const CompileResult q32 = compile(load_model_bytes(qdq_conv_model().bytes(), "q.onnx"), fp32, builtin_strategy(s));
    const CompileResult f32 = compile(load_model_bytes(float_conv_model().bytes(), "f.onnx"), fp32, builtin_strategy(s));
    EXPECT_EQ(isa::write_program(q32.program), isa::write_program(f32.program)) << s;
    const CompileResult q = compile(load_model_bytes(qdq_conv_model().bytes(), "q.onnx"), hw, builtin_strategy(s));
    const CompileResult f = compile(load_model_bytes(float_conv_model().bytes(), "f.onnx"), hw, builtin_strategy(s));
    auto summary = [](const isa::Program& p, int& loads, int& requant) {
      std::vector<std::string> v;
      loads = requant = 0;
      for (const isa::Instruction& in : p.instructions) {
        loads += in.op == isa::Opcode::Load;
        if (const auto* c = std::get_if<isa::ConvParams>(&in.params)) {
          requant += c->epilogue.requant.on;
          v.push_back(std::to_string(c->c_in) + "x" + std::to_string(c->h_in) + "x" + std::to_string(c->w_in) + "->" +
                      std::to_string(c->c_out) + " act " + isa::to_string(c->epilogue.act) + " macs " +
                      std::to_string(c->macs()));
        } else if (in.op != isa::Opcode::Load && in.op != isa::Opcode::Store && in.op != isa::Opcode::Sync) {
          v.push_back(isa::to_string(in.op));
        }
      }
      return v;
    };
    int ql = 0, qr = 0, fl = 0, fr = 0;
    EXPECT_EQ(summary(q.program, ql, qr), summary(f.program, fl, fr)) << s;
    EXPECT_GT(qr, 0) << s;
    EXPECT_EQ(fr, 0) << s;
    int tables = 0;
    for (const isa::TensorDecl& t : q.program.tensors) tables += t.name.find(".requant") != std::string::npos;
    EXPECT_EQ(ql, fl + tables) << s;
  }
}

TEST(FoldQdq, QLinearConvAndQLinearMatMulRunOnTheNpu) {
  // x -> QuantizeLinear -> QLinearConv(w_q, bias int32) -> DequantizeLinear -> Flatten ->
  // QuantizeLinear -> QLinearMatMul -> DequantizeLinear -> output.
  OnnxModel m(13);
  m.input("x", {1, 3, 4, 4});
  m.init_float("xs", {}, {0.02f});
  init_typed(m, "xz", {}, onnx::TensorProto_DataType_UINT8, {128});
  m.node("QuantizeLinear", "qx", {"x", "xs", "xz"}, {"x_q"});
  init_typed(m, "w_q", {2, 3, 1, 1}, onnx::TensorProto_DataType_INT8, kWq);
  m.init_float("ws", {2}, {0.01f, 0.5f});
  init_typed(m, "wz", {2}, onnx::TensorProto_DataType_INT8, {0, 0});
  m.init_float("ys", {}, {0.1f});
  init_typed(m, "yz", {}, onnx::TensorProto_DataType_UINT8, {128});
  init_typed(m, "b_q", {2}, onnx::TensorProto_DataType_INT32, {100, -50});
  auto& c = m.node("QLinearConv", "qconv", {"x_q", "xs", "xz", "w_q", "ws", "wz", "ys", "yz", "b_q"}, {"y_q"});
  OnnxModel::attr_ints(c, "kernel_shape", {1, 1});
  m.node("DequantizeLinear", "dqy", {"y_q", "ys", "yz"}, {"y"});
  m.node("Flatten", "flat", {"y"}, {"f"});  // [1, 32]
  m.node("QuantizeLinear", "qf", {"f", "ys", "yz"}, {"f_q"});
  std::vector<std::int32_t> b(32 * 4);
  for (std::size_t i = 0; i < b.size(); ++i) b[i] = std::int32_t(i % 7) - 3;
  init_typed(m, "mb_q", {32, 4}, onnx::TensorProto_DataType_INT8, b);
  m.init_float("mbs", {}, {0.25f});
  init_typed(m, "mbz", {}, onnx::TensorProto_DataType_INT8, {0});
  m.init_float("os", {}, {0.5f});
  init_typed(m, "oz", {}, onnx::TensorProto_DataType_UINT8, {128});
  m.node("QLinearMatMul", "qmm", {"f_q", "ys", "yz", "mb_q", "mbs", "mbz", "os", "oz"}, {"o_q"});
  m.node("DequantizeLinear", "dqo", {"o_q", "os", "oz"}, {"output"});
  m.output("output");
  const Graph g = load_model_bytes(m.bytes(), "qlinear.onnx");
  std::vector<std::string> ops;
  for (const Node& n : g.nodes) {
    ops.push_back(n.op_type);
    EXPECT_FALSE(n.on_host) << n.name << ": " << n.host_reason;
  }
  EXPECT_EQ(ops, (std::vector<std::string>{"Conv", "Flatten", "MatMul"}));
  // Bias: 100 x 0.02 x 0.01 = 0.02 and -50 x 0.02 x 0.5 = -0.5.
  const Tensor& bias = g.tensor(g.nodes[0].inputs[2]);
  ASSERT_EQ(bias.float_data.size(), 2u);
  EXPECT_FLOAT_EQ(bias.float_data[0], 0.02f);
  EXPECT_FLOAT_EQ(bias.float_data[1], -0.5f);
  // MatMul B: (q - 0) x 0.25; element 5 = (5 % 7 - 3) x 0.25 = 0.5.
  EXPECT_FLOAT_EQ(g.tensor(g.nodes[2].inputs[1]).float_data[5], 0.5f);
  EXPECT_EQ(g.tensor("x").quant->zero_point, Ints{128});
  const CompileResult r = compile(g, load_hw_config(kQdqEdge), builtin_strategy("conv-bn-act"));
  int conv = 0, gemm = 0;
  for (const auto& in : r.program.instructions) {
    conv += in.op == isa::Opcode::Conv;
    gemm += in.op == isa::Opcode::Gemm;
  }
  EXPECT_GE(conv, 1);
  EXPECT_GE(gemm, 1);
}

// The committed sample (scripts/make_qdq_model.py): QDQ convs, a residual Add between
// quantised tensors and a QLinearConv; all 3 layers on the NPU under every strategy (2
// convs + the QLinearConv; `residual` fuses the Add into conv2).
TEST(FoldQdq, SampleQdqModelRunsWhollyOnTheNpu) {
  const Graph g = load_model(std::string(NPU_SOURCE_DIR) + "/tests/data/qdq_conv.onnx");
  CompileOptions opt;
  opt.npu_only = true;
  for (const std::string& s : builtin_strategy_names()) {
    const CompileResult r = compile(g, load_hw_config(kQdqEdge), builtin_strategy(s), opt);
    int convs = 0;
    for (const auto& l : r.report.layers) convs += l.kind == "conv";
    EXPECT_EQ(convs, 3) << s;
  }
}

TEST(FoldQdq, NonConstantScaleStaysOnTheHostWithItsReason) {
  // The scale is a graph input: nothing to fold; the Q/DQ run on the host, reported.
  OnnxModel m(13);
  m.input("x", {1, 3, 4, 4});
  m.input("s", {});
  m.init_float("w", {2, 3, 1, 1}, kWf);
  m.node("QuantizeLinear", "q", {"x", "s"}, {"x_q"});
  m.node("DequantizeLinear", "dq", {"x_q", "s"}, {"x_dq"});
  auto& c = m.node("Conv", "conv", {"x_dq", "w"}, {"output"});
  OnnxModel::attr_ints(c, "kernel_shape", {1, 1});
  m.output("output");
  const Graph g = load_model_bytes(m.bytes(), "dyn.onnx");
  ASSERT_EQ(g.nodes.size(), 3u);
  EXPECT_TRUE(g.nodes[0].on_host);
  EXPECT_FALSE(g.nodes[0].host_reason.empty());
  EXPECT_FALSE(g.nodes[2].on_host);
}


TEST(FoldQdq, QuantisedReferenceComputesTheHandDerivedInt8Conv) {
  // qdq_conv_model with every pixel x = {0.1, 0.2, -0.3}: on the input grid (s 0.02, zp 0)
  // q = {5, 10, -15}. Bias on s_x s_w: 0.25 / (0.02 x 0.01) = 1250, -0.5 / (0.02 x 0.5) = -50.
  //   channel 0: 10x5 - 20x10 + 30x(-15) = -600, + 1250 = 650; M = 0.02 x 0.01 / 0.05 = 0.004:
  //              2.6 -> 3 (Relu keeps it): 3 x 0.05 = 0.15
  //   channel 1: 7x5 + 0 - 127x(-15) = 1940, - 50 = 1890; M = 0.02 x 0.5 / 0.05 = 0.2: 378,
  //              saturated to 127: 6.35
  // (Conv's output has no Q/DQ of its own: complete_quant gives it the Relu's grid.)
  const Graph g = load_model_bytes(qdq_conv_model().bytes(), "q.onnx");
  std::vector<float> x(3 * 64);
  for (int c = 0; c < 3; ++c)
    for (int i = 0; i < 64; ++i) x[std::size_t(c * 64 + i)] = c == 0 ? 0.1f : c == 1 ? 0.2f : -0.3f;
  const QuantisedTensorMap out = run_quantised_reference(g, {{"x", x}});
  const QuantisedTensor& y = out.at("output");
  ASSERT_EQ(y.q.size(), 128u);
  for (int i = 0; i < 64; ++i) {
    EXPECT_EQ(y.q[std::size_t(i)], 3);
    EXPECT_EQ(y.q[std::size_t(64 + i)], 127);
  }
  EXPECT_FLOAT_EQ(y.real()[0], 0.15f);
  EXPECT_FLOAT_EQ(y.real()[64], 6.35f);
  // A missing input is named.
  const std::map<std::string, std::vector<float>> none;
  EXPECT_THROW(run_quantised_reference(g, none), ConfigError);
}

}  // namespace
}  // namespace npu::compiler
