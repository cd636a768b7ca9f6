// training-dropout (issue 28 kind 7): a Dropout whose training_mode is true drops random
// elements (ONNX Dropout-13), so an export left in train() mode (torchvision's swin_v2_t) is
// refused with what it is and the fixes, and --dropout-as-identity runs it as the identity with
// a warning. Model: x [1,4,8,8] -> Relu -> Dropout(ratio 0.1, training_mode T) -> y.
#include <gtest/gtest.h>

#include <string>

#include "test_onnx_util.hpp"
#include "tool_runner.hpp"

namespace {

std::string dropout_model(bool training) {
  npu::test::OnnxModel m(13);
  m.input("x", {1, 4, 8, 8});
  m.init_float("ratio", {}, {0.1f});
  onnx::TensorProto* t = m.graph().add_initializer();
  t->set_name("training_mode");
  t->set_data_type(onnx::TensorProto_DataType_BOOL);
  t->add_int32_data(training ? 1 : 0);
  m.node("Relu", "relu", {"x"}, {"r"});
  m.node("Dropout", "dropout", {"r", "ratio", "training_mode"}, {"y"});
  m.output("y");
  return m.write(std::string("dropout_") + (training ? "train" : "eval") + ".onnx");
}

npu::test::ToolResult compile(const std::string& model, bool as_identity) {
  std::vector<std::string> args{"compile", model, "--hw", "configs/edge-npu-ddr4.yaml", "-o",
                                npu::test::fresh_dir("training-dropout") + "/p.npuasm"};
  if (as_identity) args.push_back("--dropout-as-identity");
  return npu::test::run_npu(args);
}

TEST(TrainingDropout, IsRefusedWithWhatItIsAndTheTwoFixes) {
  const auto r = compile(dropout_model(true), false);
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_NE(r.output.find("node 'dropout' (Dropout) has training_mode true: it drops random elements"),
            std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("re-export after model.eval(), or pass --dropout-as-identity"), std::string::npos);
}

TEST(TrainingDropout, RunsAsTheIdentityWhenAskedAndSaysSo) {
  const auto r = compile(dropout_model(true), true);
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("1 Dropout node(s) in training mode run as the identity (--dropout-as-identity)"),
            std::string::npos)
      << r.output;
}

TEST(TrainingDropout, TrainingModeFalseIsTheIdentityWithoutAWord) {
  const auto r = compile(dropout_model(false), false);
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_EQ(r.output.find("Dropout"), std::string::npos) << r.output;
}

}  // namespace
