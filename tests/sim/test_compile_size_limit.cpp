// `npu compile` refuses a program past --max-instructions (default 2 x 10^6) as soon as code
// generation passes it, with an estimate of the full size: `--input-shape x=99999x3x16x16`
// used to grow past 1.4 GB with no output.
#include <gtest/gtest.h>

#include <string>

#include "tool_runner.hpp"

using npu::test::run_npu;

namespace {

const std::string kTiny = std::string(NPU_SOURCE_DIR) + "/tests/data/tiny_convnet.onnx";
const std::string kEdge = std::string(NPU_SOURCE_DIR) + "/configs/edge-npu-ddr4.yaml";

TEST(CompileSizeLimit, AProgramPastTheLimitIsRefusedWithAnEstimate) {
  // Batch 1000 of 3 x 16 x 16 makes a program of ~64,000 instructions (~64 per image); with
  // the limit at 20,000 code generation stops at the first layer that passes it.
  const std::string dir = npu::test::fresh_dir("compile-size");
  const auto r = run_npu({"compile", kTiny, "--hw", kEdge, "--input-shape", "input=1000x3x16x16", "-o",
                          dir + "/p.npuasm", "--max-instructions", "20000"});
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_NE(r.output.find("error: the program has "), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("instructions; the limit is 20000 (--max-instructions"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("on course for about "), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("fix: compile a smaller input"), std::string::npos) << r.output;
}

TEST(CompileSizeLimit, ASmallBatchIsUnderTheDefaultLimit) {
  const std::string dir = npu::test::fresh_dir("compile-size-ok");
  const auto r = run_npu({"compile", kTiny, "--hw", kEdge, "--input-shape", "input=2x3x16x16", "-o",
                          dir + "/p.npuasm", "-q"});
  EXPECT_EQ(r.status, 0) << r.output;
  const auto bad = run_npu({"compile", kTiny, "--hw", kEdge, "-o", dir + "/q.npuasm", "--max-instructions", "0"});
  EXPECT_NE(bad.status, 0) << bad.output;
}

}  // namespace
