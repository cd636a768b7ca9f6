// `npu compile` end to end through the tool binary (NPU_TOOL_PATH; cwd = repo root):
// outputs, --explain, --report, strategy files, and every bad input exiting with status 1.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include "npu/isa/assembly.hpp"
#include "shared_data.hpp"

namespace {

struct ToolRun {
  int status = -1;
  std::string out, err;
};

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string tmp(const std::string& name) { return ::testing::TempDir() + "/npu_compile_tool_" + name; }

ToolRun run_tool(const std::string& args) {
  // Per-test capture files: ctest -j runs the tests of this file in parallel processes.
  const std::string test = ::testing::UnitTest::GetInstance()->current_test_info()->name();
  const std::string out = tmp(test + ".stdout"), err = tmp(test + ".stderr");
  const std::string cmd = std::string(NPU_TOOL_PATH) + " " + args + " >" + out + " 2>" + err;
  const int raw = std::system(cmd.c_str());
  ToolRun r;
  r.status = WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
  r.out = slurp(out);
  r.err = slurp(err);
  return r;
}

const std::string kHw = "--hw configs/edge-npu-ddr4.yaml";

TEST(CompileTool, WritesProgramReportAndExplains) {
  const std::string prog = tmp("r18.npuasm"), csv = tmp("r18.csv"), json = tmp("r18.json");
  const ToolRun r = run_tool("compile resnet18 " + kHw + " --strategy conv-bn-act -o " + prog + " --report " + csv +
                             " --report-json " + json + " --explain");
  ASSERT_EQ(r.status, 0) << r.err;
  // ResNet-18: 20 Conv+BN pairs (stem, 16 in the basic blocks, 3 downsample) all fold.
  std::size_t folded = 0, pos = 0;
  while ((pos = r.out.find("fold-batchnorm", pos)) != std::string::npos) ++folded, ++pos;
  EXPECT_EQ(folded, 20u);
  EXPECT_NE(r.out.find("declined: Add"), std::string::npos);  // Relu after the residual Add
  const npu::isa::Program p = npu::isa::read_program_file(prog);
  EXPECT_EQ(p.strategy, "conv-bn-act");
  EXPECT_FALSE(p.instructions.empty());
  EXPECT_EQ(slurp(csv).rfind("layer,op,kind,placement,covers,macs,", 0), 0u);
  EXPECT_NE(slurp(json).find("\"strategy\": \"conv-bn-act\""), std::string::npos);
}

TEST(CompileTool, StrategyFile) {
  const std::string yaml = tmp("bn.yaml"), prog = tmp("bn.npuasm");
  std::ofstream(yaml) << "name: bn-only\npasses: [fold-batchnorm]\n";
  const ToolRun r = run_tool("compile mobilenet_v2 " + kHw + " --strategy-file " + yaml + " -o " + prog + " -q");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(npu::isa::read_program_file(prog).strategy, "bn-only");
  std::ofstream(yaml) << "name: bad\npasses: [fold-batchnorm, fuse-everything]\n";
  const ToolRun bad = run_tool("compile mobilenet_v2 " + kHw + " --strategy-file " + yaml + " -o " + prog);
  EXPECT_EQ(bad.status, 1);
  // Column 26: "passes: [" (9 chars) + "fold-batchnorm, " (16 chars) precede the bad name.
  EXPECT_NE(bad.err.find(yaml + ":2:26: error: unknown pass 'fuse-everything' (allowed: fold-batchnorm, "
                                "fuse-bias, hoist-activation, fuse-activation, fuse-residual, fuse-se-gate, fuse-add-layernorm, fuse-gemm-epilogue, fuse-norm-prologue, fuse-rope, fuse-swiglu, fuse-attention, fuse-layers)"),
            std::string::npos)
      << bad.err;
}

TEST(CompileTool, BadInputsExitOne) {
  const std::string prog = tmp("x.npuasm");
  ToolRun r = run_tool("compile resnet18 " + kHw + " --strategy fastest -o " + prog);
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("unknown strategy 'fastest' (allowed: none, conv-bn, conv-act, conv-bn-act, residual, depth-first, transformer)"),
            std::string::npos)
      << r.err;
  r = run_tool("compile resnet18 --hw configs/no-such.yaml --strategy none -o " + prog);
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("no-such.yaml"), std::string::npos) << r.err;
  r = run_tool("compile resnet18 " + kHw + " --strategy none -o /nonexistent-dir/x.npuasm");
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("/nonexistent-dir/x.npuasm: error: cannot write the program"), std::string::npos) << r.err;
  r = run_tool("compile no_such_net " + kHw + " --strategy none -o " + prog);
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("no_such_net"), std::string::npos) << r.err;
}

TEST(CompileTool, LayerThatDoesNotFitTheSramExitsOne) {
  // 16 KiB passes config validation (its minimal array tile is 2 x 32 x 32 + 32 + 32 x 4 =
  // 2,208 B) but ResNet-50's layer4 3x3 conv needs 34,887 B for one tile (test_tiling.cpp).
  std::string yaml = slurp("configs/edge-npu-ddr4.yaml");
  const std::size_t at = yaml.find("capacity: 1 MiB");
  ASSERT_NE(at, std::string::npos);
  yaml.replace(at, 15, "capacity: 16 KiB");
  const std::string cfg = tmp("small-sram.yaml");
  std::ofstream(cfg) << yaml;
  const ToolRun r = run_tool("compile resnet50 --hw " + cfg + " --strategy none -o " + tmp("y.npuasm"));
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("cannot fit even one minimal tile in SRAM"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("sram.capacity is 16384 bytes; "), std::string::npos) << r.err;
  // Every layer that does not fit is sized: the largest need is a layer4 3x3 conv (512 input
  // channels), and the capacity it names compiles the whole network.
  EXPECT_NE(r.err.find(" layers do not fit, the largest need is layer '/layer4/"), std::string::npos) << r.err;
  const std::string key = "increase sram.capacity to at least ";
  const std::size_t k = r.err.find(key);
  ASSERT_NE(k, std::string::npos) << r.err;
  const std::string need = std::to_string(std::stoull(r.err.substr(k + key.size())));
  std::string fits = yaml;
  fits.replace(fits.find("capacity: 16 KiB"), 16, "capacity: " + need);
  const std::string cfg2 = tmp("fits-sram.yaml");
  std::ofstream(cfg2) << fits;
  EXPECT_EQ(run_tool("compile resnet50 --hw " + cfg2 + " --strategy none -o " + tmp("y2.npuasm")).status, 0) << need;
}

TEST(CompileTool, StrategyNameThatCannotBeWrittenExitsOneAtLoad) {
  // Before: "internal error: write_program: strategy 'a/b c' cannot be written" (exit 2).
  const std::string yaml = tmp("bad-name.yaml");
  std::ofstream(yaml) << "name: \"a/b c\"\npasses: [fold-batchnorm]\n";
  ToolRun r = run_tool("compile resnet18 " + kHw + " --strategy " + yaml + " -o " + tmp("n.npuasm"));
  EXPECT_EQ(r.status, 1);
  // The value starts at line 1, column 7 (after `name: `).
  EXPECT_NE(r.err.find(yaml + ":1:7: error: strategy name 'a/b c' contains '/'; use only letters, digits"),
            std::string::npos)
      << r.err;
  const std::string dup = tmp("dup-pass.yaml");
  std::ofstream(dup) << "name: dup\npasses: [fold-batchnorm, fold-batchnorm]\n";
  r = run_tool("compile resnet18 " + kHw + " --strategy-file " + dup + " -o " + tmp("n.npuasm"));
  EXPECT_EQ(r.status, 1);
  // "passes: [fold-batchnorm, " is 25 characters: the duplicate starts at column 26.
  EXPECT_NE(r.err.find(dup + ":2:26: error: pass 'fold-batchnorm' is listed twice"), std::string::npos) << r.err;
  r = run_tool("compile resnet18 " + kHw + " --strategy '' -o " + tmp("n.npuasm"));
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("error: --strategy is empty; give a strategy name (none, conv-bn, conv-act, conv-bn-act, "
                       "residual, depth-first, transformer) or a strategy .yaml file"),
            std::string::npos)
      << r.err;
}

TEST(CompileTool, BatchAboveOneCompilesEveryImage) {
  // Was an error (batch 1 only). Now 8 images: 8 x 1,814,073,344 = 14,512,586,752 MACs.
  const ToolRun r = run_tool("compile resnet18 " + kHw + " --strategy none --input-shape input=8x3x224x224 -o " +
                             tmp("b.npuasm"));
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("MACs 14512586752"), std::string::npos) << r.out;
  EXPECT_EQ(r.err, "");  // no host placement, no warning
}

}  // namespace

namespace {

TEST(CompileTool, AFailedCompileLeavesEarlierOutputsIntact) {
  // A previous good program and report; then a compile of a corrupt model into the same
  // paths fails (exit 1) and both files keep their bytes.
  const std::string prog = tmp("keep.npuasm"), rep = tmp("keep.csv"), bad = tmp("corrupt.onnx");
  ASSERT_EQ(run_tool("compile resnet18 " + kHw + " -o " + prog + " --report " + rep + " -q").status, 0);
  const std::string p0 = slurp(prog), r0 = slurp(rep);
  ASSERT_FALSE(p0.empty());
  std::ofstream(bad, std::ios::binary) << "not an onnx model";
  const ToolRun r = run_tool("compile " + bad + " " + kHw + " -o " + prog + " --report " + rep);
  EXPECT_EQ(r.status, 1) << r.err;
  EXPECT_EQ(slurp(prog), p0);
  EXPECT_EQ(slurp(rep), r0);
}

TEST(CompileTool, OutputNamingTheInputModelIsRefused) {
  const std::string model = tmp("self.onnx");
  {
    const std::string shared = npu::test::shared_path("models/cases/se_broadcast_mul.onnx");
    NPU_REQUIRE_SHARED_OR_SKIP(shared);
    std::ifstream src(shared, std::ios::binary);
    ASSERT_TRUE(src) << shared;
    std::ofstream(model, std::ios::binary) << src.rdbuf();
  }
  const std::string before = slurp(model);
  const ToolRun r = run_tool("compile " + model + " " + kHw + " -o " + model);
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("would overwrite the input"), std::string::npos) << r.err;
  EXPECT_EQ(slurp(model), before);
}

}  // namespace
