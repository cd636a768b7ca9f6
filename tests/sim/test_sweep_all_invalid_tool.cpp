// `npu sweep` whose every config point is invalid: nothing ran, so it exits 1 saying so and
// why; invalid cells beside valid ones still run the valid ones and exit 0 (docs/sweep.md).
#include <gtest/gtest.h>

#include <fstream>

#include "tool_runner.hpp"

namespace {

const std::string kInvalidSweepTiny = std::string(NPU_SOURCE_DIR) + "/tests/data/tiny_convnet.onnx";

// A spec over sram.capacity on the edge preset (32 x 32 int8 array, minimal tile 2 x 32 x 32 +
// 32 + 32 x 4 = 2208 bytes): 1 KiB and 2 KiB are below it, 64 KiB is valid.
std::string spec(const std::string& dir, const std::string& capacities) {
  const std::string path = dir + "/spec.yaml";
  std::ofstream(path) << "base: edge-npu-ddr4\naxes: {sram.capacity: [" + capacities + "]}\nmodels: [" + kInvalidSweepTiny +
                             "]\nstrategies: [none]\n";
  return path;
}

TEST(SweepAllInvalidTool, EveryConfigInvalidExitsOneSayingNoCellRanAndWhy) {
  const std::string dir = npu::test::fresh_dir("sweep-all-invalid");
  const auto r = npu::test::run_npu({"sweep", spec(dir, "1KiB, 2KiB"), "--out", dir + "/out"});
  EXPECT_EQ(r.status, 1) << r.output;  // exit 0 before: "2 invalid, 0 run now, 0 failed"
  EXPECT_NE(r.output.find("npu sweep: error: no cell ran: all 2 planned cells are invalid"), std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("the first: edge-npu-ddr4__capacity-1KiB: 'sram.capacity' = 1024 bytes is smaller than one "
                          "minimal tile of 2208 bytes"),
            std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find(dir + "/out/summary.md (status 'invalid')"), std::string::npos) << r.output;
  // A shard holding one of the two invalid cells: the sweep as a whole ran nothing either.
  const auto s = npu::test::run_npu({"sweep", spec(dir, "1KiB, 2KiB"), "--out", dir + "/shard", "--shard", "1/2"});
  EXPECT_EQ(s.status, 1) << s.output;
  EXPECT_NE(s.output.find("no cell ran: all 2 planned cells are invalid"), std::string::npos) << s.output;
}

TEST(SweepAllInvalidTool, SomeInvalidBesideValidRunsTheValidAndExitsZero) {
  const std::string dir = npu::test::fresh_dir("sweep-some-invalid");
  const auto r = npu::test::run_npu({"sweep", spec(dir, "1KiB, 64KiB"), "--out", dir + "/out"});
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("2 cells, 0 done before, 1 invalid, 1 run now, 0 failed"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("no cell ran"), std::string::npos) << r.output;
  // Said on stderr also under -q, which prints nothing else (new-user finding: a typo'd axis value
  // gave exit 0 and no word at all).
  const auto q = npu::test::run_npu({"sweep", spec(dir, "1KiB, 64KiB"), "--out", dir + "/outq", "-q"});
  EXPECT_EQ(q.status, 0) << q.output;
  EXPECT_EQ(q.output.rfind("npu sweep: warning: 1 of 2 planned cells are invalid and did not run (status 'invalid' in " +
                               dir + "/outq/summary.md); the first: ",
                           0),
            0u)
      << q.output;
}

}  // namespace
