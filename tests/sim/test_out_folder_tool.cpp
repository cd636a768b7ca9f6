// Issue 27: `--out D` where D/runs (or another folder the tool writes into) is a regular file
// was "internal error: filesystem error" (exit 2). It is a bad input: exit 1, naming the path
// in the way and the fix. One case per command that makes such a folder.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "shared_data.hpp"
#include "tool_runner.hpp"

namespace {

using npu::test::fresh_dir;
using npu::test::run_npu;

const std::string kOutFolderTiny = std::string(NPU_SOURCE_DIR) + "/tests/data/tiny_convnet.onnx";

/// A fresh DIR/out with a regular file DIR/out/`blocked`; returns DIR/out.
std::string out_with_file(const std::string& name, const std::string& blocked) {
  const std::string out = fresh_dir(name) + "/out";
  std::filesystem::create_directories(out);
  std::ofstream(out + "/" + blocked) << "not a folder\n";
  return out;
}

void expect_names_the_file(const npu::test::ToolResult& r, const std::string& path) {
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_NE(r.output.find("'" + path + "' exists and is not a folder"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("fix: move or delete that file"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("internal error"), std::string::npos) << r.output;
}

TEST(OutFolderInTheWay, ExperimentRunsIsAFile) {
  const std::string out = out_with_file("outfile-exp-runs", "runs");
  expect_names_the_file(run_npu({"experiment", "--model", kOutFolderTiny, "--hw", "configs/edge-npu-ddr4.yaml", "--strategies",
                                 "none", "--out", out}),
                        out + "/runs");
}

TEST(OutFolderInTheWay, ExperimentLayersIsAFile) {
  const std::string out = out_with_file("outfile-exp-layers", "layers");
  expect_names_the_file(run_npu({"experiment", "--model", kOutFolderTiny, "--hw", "configs/edge-npu-ddr4.yaml", "--strategies",
                                 "none", "--out", out}),
                        out + "/layers");
}

TEST(OutFolderInTheWay, SweepCellsIsAFile) {
  const std::string out = out_with_file("outfile-sweep", "cells");
  const std::string spec = out + "/../spec.yaml";
  std::ofstream(spec) << "base: edge-npu-ddr4\naxes: {sram.capacity: [64KiB]}\nmodels: [" + kOutFolderTiny +
                             "]\nstrategies: [none]\n";
  expect_names_the_file(run_npu({"sweep", spec, "--out", out}), out + "/cells");
}

TEST(OutFolderInTheWay, SimulateOutIsUnderAFile) {
  const std::string out = out_with_file("outfile-sim", "x");
  const auto r = run_npu({"simulate", "--model", kOutFolderTiny, "--hw", "configs/edge-npu-ddr4.yaml", "--strategy", "none",
                          "--out", out + "/x/run", "-q"});
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_NE(r.output.find(out + "/x/run"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("internal error"), std::string::npos) << r.output;
}

TEST(OutFolderInTheWay, VerifyOutputsIsAFile) {
  const std::string out = out_with_file("outfile-verify", "outputs");
  std::string hw = npu::test::read_file(std::string(NPU_SOURCE_DIR) + "/configs/edge-npu-ddr4.yaml");
  hw.replace(hw.find("dtype: int8"), 11, "dtype: fp32");
  std::ofstream(out + "/../fp32.yaml") << hw;
  const auto r = run_npu({"verify", kOutFolderTiny, "--hw", out + "/../fp32.yaml", "--strategies", "none", "--out", out});
  expect_names_the_file(r, out + "/outputs");
}

TEST(OutFolderInTheWay, LlmRunsIsAFile) {
  NPU_REQUIRE_SHARED_OR_SKIP(npu::test::shared_path("models") + "/llm");
  const std::string m = npu::test::shared_path("models") + "/llm/";
  const std::string out = out_with_file("outfile-llm", "runs");
  expect_names_the_file(run_npu({"llm", m + "gpt2_tiny-prefill.onnx," + m + "gpt2_tiny-decode.onnx", "--hw",
                                 "configs/edge-npu-ddr4.yaml", "--strategies", "none", "--generate", "1", "--out", out}),
                        out + "/runs");
}

}  // namespace
