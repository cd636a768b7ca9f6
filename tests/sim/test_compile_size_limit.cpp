// `npu compile` refuses a program past --max-instructions (default 2 x 10^6): up front when a
// lower bound on its size (codegen/program_size.hpp) passes the limit, else as soon as code
// generation passes it, with an estimate of the full size: `--input-shape x=99999x3x16x16`
// used to grow past 1.4 GB with no output (then: 20 s and 0.97 GB for a refusal after the
// first layer; now refused before code generation).
#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include "tool_runner.hpp"

using npu::test::run_npu;

namespace {

const std::string kTiny = std::string(NPU_SOURCE_DIR) + "/tests/data/tiny_convnet.onnx";
const std::string kEdge = std::string(NPU_SOURCE_DIR) + "/configs/edge-npu-ddr4.yaml";

TEST(CompileSizeLimit, AHugeBatchIsRefusedUpFrontByItsLowerBound) {
  // Batch 99999: layer4.conv alone runs 16 tiles per image, each a CONV and a STORE, plus one
  // input LOAD per image and row tile: 99999 x (2 x 16 + 1) = 3,299,967 > 2 x 10^6.
  const std::string dir = npu::test::fresh_dir("compile-size-upfront");
  const auto r = run_npu({"compile", kTiny, "--hw", kEdge, "--input-shape", "input=99999x3x16x16", "-o",
                          dir + "/p.npuasm"});
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_NE(r.output.find("error: the program would have at least "), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("estimated before code generation; layer 'layer4.conv' alone at least 3299967: 99999 "
                          "image(s) x 16 tile(s)); the limit is 2000000 (--max-instructions"),
            std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("fix: compile a smaller input"), std::string::npos) << r.output;
  EXPECT_FALSE(std::ifstream(dir + "/p.npuasm").good());
}

TEST(CompileSizeLimit, AProgramPastTheLimitIsRefusedWithAnEstimate) {
  // Batch 1000 of 3 x 16 x 16 makes a program of ~64,000 instructions (~64 per image) whose
  // lower bound is ~48,000: with the limit at 55,000 the bound passes and code generation
  // stops at the first layer past the limit, extrapolating the full size.
  const std::string dir = npu::test::fresh_dir("compile-size");
  const auto r = run_npu({"compile", kTiny, "--hw", kEdge, "--input-shape", "input=1000x3x16x16", "-o",
                          dir + "/p.npuasm", "--max-instructions", "55000"});
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_NE(r.output.find("error: the program has "), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("instructions; the limit is 55000 (--max-instructions"), std::string::npos) << r.output;
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
