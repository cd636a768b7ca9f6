// A depth-first program simulates: `npu simulate --strategy depth-first` on tiny_convnet
// moves fewer DDR bytes than `residual`, and its layers.csv names each layer's stack, band
// rows and overlap mode (docs/depth_first.md, docs/experiment.md).
#include <gtest/gtest.h>

#include <sstream>
#include <string>

#include "tool_runner.hpp"

using npu::test::read_file;
using npu::test::read_json;
using npu::test::run_npu;

namespace {

std::uint64_t ddr_bytes(const std::string& run_dir) {
  const auto run = read_json(run_dir + "/run.json");
  return run.at("ddr_read_bytes").get<std::uint64_t>() + run.at("ddr_write_bytes").get<std::uint64_t>();
}

TEST(DepthFirstRun, SimulatesWithFewerDdrBytesAndReportsStacks) {
  const std::string dir = npu::test::fresh_dir("depth_first_run");
  for (const char* s : {"residual", "depth-first"}) {
    auto r = run_npu({"simulate", "--model", "tests/data/tiny_convnet.onnx", "--hw", "configs/edge-npu-ddr4.yaml",
                      "--strategy", s, "--out", dir + "/" + s, "-q"});
    ASSERT_EQ(r.status, 0) << r.output;
  }
  // residual writes and reads back every conv output; depth-first keeps layer1..layer3's
  // tensors on chip except the ones read outside the stack or read back (compile report).
  EXPECT_LT(ddr_bytes(dir + "/depth-first"), ddr_bytes(dir + "/residual"));
  // Layers of a stack end their rows with the overlap mode and the weights mode.
  const std::string csv = read_file(dir + "/depth-first/layers.csv");
  std::istringstream lines(csv);
  std::string header, row;
  std::getline(lines, header);
  EXPECT_NE(header.find(",stack,band_rows,overlap,weights"), std::string::npos) << header;
  int stacked = 0;
  auto ends_with = [](const std::string& r, const std::string& tail) {
    return r.size() >= tail.size() && r.compare(r.size() - tail.size(), tail.size(), tail) == 0;
  };
  while (std::getline(lines, row))
    if (ends_with(row, ",recompute,resident") || ends_with(row, ",recompute,streamed")) ++stacked;
  EXPECT_GE(stacked, 2) << csv;
}

}  // namespace
