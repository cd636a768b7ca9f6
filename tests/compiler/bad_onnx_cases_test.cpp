// Bad ONNX models, one row each, compiled with `npu compile MODEL --hw ... --strategy none`.
// The models are built here with the ONNX protobuf API (test_onnx_util.hpp).
#include <filesystem>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "bad_input_cases.hpp"
#include "test_onnx_util.hpp"

namespace {

using npu::test::BadCase;
using npu::test::OnnxModel;

/// input [1,3,8,8] -> Conv(4, 3x3) -> output, with `change` applied before writing.
std::string model_bytes(const std::function<void(OnnxModel&)>& change) {
  OnnxModel m(13);
  change(m);
  return m.bytes();
}

void conv_body(OnnxModel& m) {
  m.weight("w", {4, 3, 3, 3});
  m.node("Conv", "conv", {"input", "w"}, {"output"});
  m.output("output");
}

const std::vector<BadCase> kCases = {
    BadCase{"STRING input",
            model_bytes([](OnnxModel& m) {
              m.input("text", {1, 8}, "N", onnx::TensorProto_DataType_STRING);
              m.input("input", {1, 3, 8, 8});
              conv_body(m);
            }),
            "graph input 'text' has element type STRING; the NPU computes on numbers only"},
    BadCase{"input dims 2^40",
            model_bytes([](OnnxModel& m) {
              m.input("input", {1, 3, 1099511627776, 1099511627776});
              conv_body(m);
            }),
            "graph input 'input' dimension 2 is 1099511627776, out of range: at most 2147483648 (2^31)"},
    BadCase{"zero-size input",
            model_bytes([](OnnxModel& m) {
              m.input("input", {1, 0, 8, 8});
              conv_body(m);
            }),
            "graph input 'input' has a zero-size dimension 1"},
    BadCase{"invalid UTF-8 STRING input name",
            model_bytes([](OnnxModel& m) {
              m.input("t\xff", {1}, "N", onnx::TensorProto_DataType_STRING);
              m.input("input", {1, 3, 8, 8});
              conv_body(m);
            }),
            "graph input 't\\xff' has element type STRING"},
    // ONNX Conv's T is float16/float/double: an int64 X once compiled with inconsistent bytes.
    BadCase{"Conv fed by an int64 graph input",
            model_bytes([](OnnxModel& m) {
              m.input("input", {1, 3, 8, 8}, "N", onnx::TensorProto_DataType_INT64);
              conv_body(m);
            }),
            "'conv' (Conv): input X 'input' is int64, but ONNX Conv takes float types only (float16, float, double); "
            "give the model a float tensor there"},
    BadCase{"no nodes",
            model_bytes([](OnnxModel& m) { m.input("input", {1, 3, 8, 8}); }),
            "the file contains no ONNX graph (no nodes)"},
    BadCase{"output produced by no node",
            model_bytes([](OnnxModel& m) {
              m.input("input", {1, 3, 8, 8});
              conv_body(m);
              m.output("ghost");
            }),
            "graph output 'ghost' is produced by no node"},
    // The only output is the graph input: remove-dead-nodes leaves no node to compute.
    BadCase{"graph output is the graph input, every node dead",
            model_bytes([](OnnxModel& m) {
              m.input("input", {1, 3, 8, 8});
              m.weight("w", {4, 3, 3, 3});
              m.node("Conv", "conv", {"input", "w"}, {"output"});
              m.output("input");
            }),
            "no node computes a graph output: the outputs ('input') are graph inputs or constants, and the 1 "
            "node(s) reach none of them"},
    BadCase{"sequence op (mvit_v1_b's SequenceEmpty)",
            model_bytes([](OnnxModel& m) {
              m.input("input", {1, 3, 8, 8});
              m.node("SequenceEmpty", "seq", {}, {"s"});
              m.node("SequenceInsert", "insert", {"s", "input"}, {"s2"});
              auto* a = m.node("ConcatFromSequence", "concat", {"s2"}, {"output"}).add_attribute();
              a->set_name("axis");
              a->set_type(onnx::AttributeProto_AttributeType_INT);
              a->set_i(0);
              m.output("output");
            }),
            "(SequenceEmpty): output 's' is a sequence, not a tensor: npu-sim compiles tensor graphs only"},
    BadCase{"outputs are the inputs (no nodes)",
            model_bytes([](OnnxModel& m) {
              m.input("input", {1, 3, 8, 8});
              m.output("input");
            }),
            "the graph has no nodes: its outputs ('input') are graph inputs or constants, so there is nothing to "
            "compute"},
    // Newcomer probe round 3 (issue 27): values ONNX shape inference accepts, ONNX Runtime refuses.
    BadCase{"initializer name given twice",
            model_bytes([](OnnxModel& m) {
              m.input("input", {1, 3, 8, 8});
              m.weight("w", {4, 3, 1, 1});
              conv_body(m);
            }),
            "error: initializer #1 'w' has the name of an earlier initializer; ONNX names are unique"},
    BadCase{"graph input listed twice",
            model_bytes([](OnnxModel& m) {
              m.input("input", {1, 3, 8, 8});
              m.input("input", {1, 3, 8, 8});
              conv_body(m);
            }),
            "error: graph input 'input' is listed twice; ONNX names are unique"},
    // Axis 1 of [1,3,8,8] has 3 entries: valid indices -3..2, so 3 is out.
    BadCase{"constant Gather index past the axis",
            model_bytes([](OnnxModel& m) {
              m.input("input", {1, 3, 8, 8});
              m.init_int64("i", {2}, {0, 3});
              OnnxModel::attr_i(m.node("Gather", "gather", {"input", "i"}, {"output"}), "axis", 1);
              m.output("output");
            }),
            "(Gather): constant index 3 (element 1 of 'i') is out of range for axis 1 of 'input' [1,3,8,8], whose "
            "size is 3; ONNX Gather takes indices in [-3, 2]"},
    // H = 8: a reflection mirrors at most 7 rows; 8 is one too many.
    BadCase{"reflect Pad as large as the axis",
            model_bytes([](OnnxModel& m) {
              m.input("input", {1, 3, 8, 8});
              m.init_int64("p", {8}, {0, 0, 8, 0, 0, 0, 0, 0});
              OnnxModel::attr_s(m.node("Pad", "pad", {"input", "p"}, {"output"}), "mode", "reflect");
              m.output("output");
            }),
            "(Pad): reflect pad of 8 on axis 2 of 'input' [1,3,8,8], whose size is 8; a reflection mirrors at most "
            "size - 1 = 7 elements"},
    // var -1 + epsilon 1e-5 < 0: 1/sqrt of a negative number.
    BadCase{"BatchNorm with a negative variance",
            model_bytes([](OnnxModel& m) {
              m.input("input", {1, 3, 8, 8});
              for (const char* k : {"s", "b", "mu"}) m.init_float(k, {3}, {1.f, 1.f, 1.f});
              m.init_float("var", {3}, {1.f, -1.f, 1.f});
              m.node("BatchNormalization", "bn", {"input", "s", "b", "mu", "var"}, {"output"});
              m.output("output");
            }),
            "(BatchNormalization): channel 1 has var + epsilon = -1.000000 + 0.000010 <= 0 (or NaN), so 1 / "
            "sqrt(var + epsilon) is not a real number"},
    BadCase{"empty file", "", "the file is empty (0 bytes)"},
    BadCase{"not protobuf", "this is not an ONNX model\n", "cannot parse the ONNX protobuf"},
};

TEST(BadOnnxCases, EachIsRejectedWithItsMessageAndExitStatus) {
  const std::string dir = npu::test::fresh_dir("bad-onnx");
  int i = 0;
  for (const BadCase& c : kCases) {
    const std::string path = dir + "/case" + std::to_string(i++) + ".onnx";
    npu::test::write_bytes(path, c.input);
    npu::test::expect_case(c, npu::test::npu_tool() + " compile " + npu::test::shq(path) + " --hw " +
                                  npu::test::shq(std::string(NPU_SOURCE_DIR) + "/configs/edge-npu-ddr4.yaml") +
                                  " --strategy none -o " + npu::test::shq(dir + "/out.npuasm"));
  }
}

// A NaN weight makes the reference and every strategy NaN alike: int8 verify reported
// "bit-exact" with an SQNR of nan and exit 0, fp32 verify a FAIL without the reason.
TEST(BadOnnxCases, VerifyRefusesNaNWeights) {
  const std::string dir = npu::test::fresh_dir("bad-onnx-nan");
  OnnxModel m(13);
  m.input("input", {1, 3, 8, 8});
  std::vector<float> w(4 * 3 * 3 * 3, 0.5f);
  w[5] = std::numeric_limits<float>::quiet_NaN();
  m.init_float("w", {4, 3, 3, 3}, w);
  m.node("Conv", "conv", {"input", "w"}, {"output"});
  m.output("output");
  const std::string path = dir + "/nan_weight.onnx";
  npu::test::write_bytes(path, m.bytes());
  const std::string verify = npu::test::npu_tool() + " verify " + npu::test::shq(path) + " --hw " +
                             npu::test::shq(std::string(NPU_SOURCE_DIR) + "/configs/edge-npu-ddr4.yaml") +
                             " --strategies none --out " + npu::test::shq(dir + "/out");
  npu::test::expect_case(BadCase{"NaN weight, int8 verify", "",
                                 "nan_weight.onnx: error: constant tensor 'w' holds NaN (first at element 5); 1 NaN "
                                 "value(s) in 1 constant tensor(s)"},
                         verify);
  // --allow-nonfinite runs it anyway, with a warning.
  const npu::test::ToolResult r = npu::test::run_shell(verify + " --allow-nonfinite");
  EXPECT_NE(r.output.find("warning: constant tensor 'w' holds NaN"), std::string::npos) << r.output;
  std::filesystem::remove_all(dir);
}

}  // namespace
