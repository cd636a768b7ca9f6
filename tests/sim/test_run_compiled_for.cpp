// `npu run` of a program compiled for other hardware (sim/include/npu/sim/run/compiled_for.hpp):
// the program's header names the config it was tiled for, and a run on an array, dataflow or
// SRAM other than that one says so (new-user finding: ResNet-18 compiled for the edge preset
// ran 3.1x slower on tpu-v1-like than compiled for it, without a word).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "tool_runner.hpp"

using npu::test::read_file;
using npu::test::run_npu;

namespace {

const std::string kModel = "tests/data/tiny_convnet.onnx";

std::string compiled_for_edge(const std::string& dir) {
  const std::string program = dir + "/p.npuasm";
  const auto r = run_npu({"compile", kModel, "--hw", "configs/edge-npu-ddr4.yaml", "--strategy", "residual", "-o",
                          program});
  EXPECT_EQ(r.status, 0) << r.output;
  return program;
}

}  // namespace

TEST(RunCompiledFor, TheHeaderNamesTheConfigTheProgramWasCompiledFor) {
  const std::string program = compiled_for_edge(npu::test::fresh_dir("compiled-for-header"));
  // edge-npu-ddr4: 32x32 weight-stationary array, 1 MiB SRAM (configs/edge-npu-ddr4.yaml).
  EXPECT_NE(read_file(program).find(
                "dtype=int8 hw=edge-npu-ddr4 array=32x32 sram=1048576 dataflow=weight_stationary\n"),
            std::string::npos);
}

TEST(RunCompiledFor, ARunOnOtherHardwareSaysSoAndOnTheSameSaysNothing) {
  const std::string program = compiled_for_edge(npu::test::fresh_dir("compiled-for-run"));
  const auto other = run_npu({"run", program, "--hw", "configs/tpu-v1-like.yaml"});
  ASSERT_EQ(other.status, 0) << other.output;
  // tpu-v1-like: 256x256 weight-stationary, 24 MiB SRAM.
  EXPECT_NE(other.output.find(program + ": warning: compiled for edge-npu-ddr4 (32x32 weight_stationary array, 1 MiB "
                                        "SRAM), run on tpu-v1-like (256x256 weight_stationary array, 24 MiB SRAM)"),
            std::string::npos)
      << other.output;
  EXPECT_NE(other.output.find("fix: to measure this config, compile for it (npu compile MODEL --hw "
                              "configs/tpu-v1-like.yaml, or npu simulate)"),
            std::string::npos)
      << other.output;
  const auto same = run_npu({"run", program, "--hw", "configs/edge-npu-ddr4.yaml"});
  ASSERT_EQ(same.status, 0) << same.output;
  EXPECT_EQ(same.output.find("warning: compiled for"), std::string::npos) << same.output;
  // A copy of the preset with its array edited keeps npu.name; the run side is named by its file
  // (new-user finding: "compiled for edge-npu-ddr4 (...), run on edge-npu-ddr4 (...)").
  const std::string dir = std::filesystem::path(program).parent_path().string();
  std::string yaml = read_file("configs/edge-npu-ddr4.yaml");
  yaml.replace(yaml.find("rows: 32"), 8, "rows: 16");
  std::ofstream(dir + "/hw_arr.yaml") << yaml;
  const auto copy = run_npu({"run", program, "--hw", dir + "/hw_arr.yaml"});
  ASSERT_EQ(copy.status, 0) << copy.output;
  EXPECT_NE(copy.output.find("run on hw_arr (16x32 weight_stationary array, 1 MiB SRAM)"), std::string::npos)
      << copy.output;
  // A hand-written program does not say what it was written for: nothing to compare.
  const auto hand = run_npu({"run", "tests/hw/data/two_layer.npuasm", "--hw", "configs/tpu-v1-like.yaml"});
  ASSERT_EQ(hand.status, 0) << hand.output;
  EXPECT_EQ(hand.output.find("warning: compiled for"), std::string::npos) << hand.output;
}

TEST(SimulateOutputs, TheClosingLineListsTheTracesWritten) {
  // New-user finding: `npu simulate --trace timeline,vcd` wrote them but its closing line did
  // not list them (npu run does).
  const std::string out = npu::test::fresh_dir("simulate-trace-list");
  const auto r = run_npu({"simulate", "--model", kModel, "--hw", "configs/edge-npu-ddr4.yaml", "--strategy", "none",
                          "--trace", "timeline,vcd", "--out", out});
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("wrote " + out + "/ (program.npuasm, compile_report.csv, run.json, layers.csv, "
                                           "run_summary.json, timeline.json, waves.vcd)"),
            std::string::npos)
      << r.output;
}
