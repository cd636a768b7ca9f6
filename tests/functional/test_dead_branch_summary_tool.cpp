// A model with a node whose output reaches no graph output: the compile removes it (it is not
// simulated), and `npu experiment` and `npu report` say so under their tables, not only in each
// run's log.txt (new-user finding: a dead Conv branch left the summary silent about the half
// of the network that did not run).
#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include "fp32_config.hpp"
#include "test_onnx_util.hpp"
#include "tool_runner.hpp"

namespace {

using npu::test::fresh_dir;
using npu::test::OnnxModel;
using npu::test::run_npu;

TEST(DeadBranchSummary, ExperimentAndReportNameTheRemovedNode) {
  const std::string dir = fresh_dir("dead-branch-summary");
  OnnxModel m(13);
  m.input("x", {1, 8});
  m.node("Relu", "relu", {"x"}, {"y"});
  m.node("Sigmoid", "dead_sigmoid", {"x"}, {"z"});  // z is no graph output
  m.output("y");
  const std::string model = dir + "/dead_branch.onnx";
  std::ofstream(model, std::ios::binary) << m.bytes();
  const std::string line = "compile: dead_branch: warning: removed 1 node(s) whose outputs reach no graph output "
                           "(first: Sigmoid 'dead_sigmoid'): they are not compiled or simulated (2 run(s))";
  const auto e = run_npu({"experiment", "--model", model, "--hw", "configs/edge-npu-ddr4.yaml", "--strategies",
                          "none,conv-act", "--out", dir + "/e", "-j", "1"});
  ASSERT_EQ(e.status, 0) << e.output;
  EXPECT_NE(e.output.find(line), std::string::npos) << e.output;
  const auto r = run_npu({"report", dir + "/e", "--out", dir + "/r"});
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find(line), std::string::npos) << r.output;
}

}  // namespace
