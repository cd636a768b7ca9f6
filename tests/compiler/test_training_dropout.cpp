// training-dropout (issue 28 kind 7): a Dropout whose training_mode is true drops random
// elements (ONNX Dropout-13), so an export left in train() mode (torchvision's swin_v2_t) is
// refused with what it is and the fixes, and --dropout-as-identity runs it as the identity with
// a warning. Model: x [1,4,8,8] -> Relu -> Dropout(ratio 0.1, training_mode T) -> y.
#include <gtest/gtest.h>

#include <string>

#include "fp32_config.hpp"
#include "test_onnx_util.hpp"
#include "tool_runner.hpp"

namespace {

std::string dropout_model(bool training, float ratio = 0.1f) {
  npu::test::OnnxModel m(13);
  m.input("x", {1, 4, 8, 8});
  m.init_float("ratio", {}, {ratio});
  onnx::TensorProto* t = m.graph().add_initializer();
  t->set_name("training_mode");
  t->set_data_type(onnx::TensorProto_DataType_BOOL);
  t->add_int32_data(training ? 1 : 0);
  m.node("Relu", "relu", {"x"}, {"r"});
  m.node("Dropout", "dropout", {"r", "ratio", "training_mode"}, {"y"});
  m.output("y");
  return m.write(std::string("dropout_") + (training ? "train" : "eval") + (ratio == 0 ? "_p0" : "") + ".onnx");
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

TEST(TrainingDropout, VerifyAndExperimentPassTheFlagToTheirRuns) {
  // verify's fp32 runs and experiment --verify are child processes: the flag must reach them
  // (a newcomer's probe: every strategy failed with the refusal naming the flag it was given).
  const std::string dir = npu::test::fresh_dir("training-dropout-verify");
  const std::string hw = npu::test::fp32_config(dir);
  const std::string model = dropout_model(true);
  const auto v = npu::test::run_npu({"verify", model, "--hw", hw, "--strategies", "none,conv-bn-act", "--out",
                                     dir + "/v", "--dropout-as-identity"});
  EXPECT_EQ(v.status, 0) << v.output;
  const auto e = npu::test::run_npu({"experiment", "--model", model, "--hw", hw, "--strategies", "none", "--out",
                                     dir + "/e", "--dropout-as-identity", "--verify"});
  EXPECT_EQ(e.status, 0) << e.output;
  // The flag is part of the run's key: the same experiment without it is not reused, and refused.
  const auto again = npu::test::run_npu({"experiment", "--model", model, "--hw", hw, "--strategies", "none", "--out",
                                         dir + "/e"});
  EXPECT_EQ(again.status, 1) << again.output;
  EXPECT_EQ(again.output.find("reused 1"), std::string::npos) << again.output;
}

TEST(TrainingDropout, RatioZeroInTrainingModeIsTheIdentityInVerifyToo) {
  // ratio 0: nothing dropped, scale 1 / (1 - 0) = 1 (ONNX Dropout-13): the identity. The
  // compiler took it without the flag, but the reference interpreter refused it ("training_mode
  // is true"), so `npu verify` failed on torchvision's swin_t (attention dropout p = 0).
  const std::string dir = npu::test::fresh_dir("training-dropout-p0");
  const std::string model = dropout_model(true, 0.0f);
  EXPECT_EQ(compile(model, false).status, 0);
  const auto v = npu::test::run_npu({"verify", model, "--hw", npu::test::fp32_config(dir), "--strategies", "none",
                                     "--out", dir + "/v"});
  EXPECT_EQ(v.status, 0) << v.output;
  EXPECT_EQ(v.output.find("training_mode"), std::string::npos) << v.output;
  // int8 too: the quantised reference runs the same graph.
  const auto q = npu::test::run_npu({"verify", model, "--hw", "configs/edge-npu-ddr4.yaml", "--strategies", "none",
                                     "--out", dir + "/q"});
  EXPECT_EQ(q.status, 0) << q.output;
}

TEST(TrainingDropout, TrainingModeFalseIsTheIdentityWithoutAWord) {
  const auto r = compile(dropout_model(false), false);
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_EQ(r.output.find("Dropout"), std::string::npos) << r.output;
}

}  // namespace
