// Bad ONNX models, one row each, compiled with `npu compile MODEL --hw ... --strategy none`.
// The models are built here with the ONNX protobuf API (test_onnx_util.hpp).
#include <functional>
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

}  // namespace
