// The `npu run` and `npu scalesim` commands end to end through the built tool (NPU_TOOL_PATH):
// bad input gives exit status 1 and a message naming the place and the fix.
#include <gtest/gtest.h>

#include "tool_runner.hpp"
#include <sys/wait.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "npu/isa/assembly.hpp"
#include "npu_test_util.hpp"

namespace fs = std::filesystem;
using namespace npu;
using namespace npu::test;

namespace {
fs::path temp_dir(const std::string& name) {
  fs::path d = fs::temp_directory_path() / ("npu_hw_tests_" + name + "_" + std::to_string(getpid()));
  fs::create_directories(d);
  return d;
}
int line_of(const std::string& text, const std::string& needle) {
  std::istringstream in(text);
  std::string l;
  for (int n = 1; std::getline(in, l); ++n) {
    if (l.rfind(needle, 0) == 0) return n;
  }
  return 0;
}
const std::string kEdge = std::string(NPU_SOURCE_DIR) + "/configs/edge-npu-ddr4.yaml";
}  // namespace

TEST(NpuRunTool, SramOverflowNamesInstructionLineAndLayerAndExits1) {
  // CONV output [4, 8, 8] = 256 B at 1 MiB - 100: ends 156 B past the 1 MiB SRAM.
  isa::Program p;
  p.name = "overflow";
  isa::Instruction c;
  c.op = isa::Opcode::Conv;
  c.layer = "conv7";
  isa::ConvParams cp;
  cp.c_in = cp.c_out = 4;
  cp.h_in = cp.w_in = 8;
  cp.in_addr = 0, cp.w_addr = 0x1000, cp.out_addr = (1u << 20) - 100;
  c.params = cp;
  p.instructions.push_back(c);
  const fs::path dir = temp_dir("overflow");
  const std::string text = isa::write_program(p);
  std::ofstream(dir / "p.npuasm") << text;
  const auto r = run_tool("run " + (dir / "p.npuasm").string() + " --hw " + kEdge);
  EXPECT_EQ(r.status, 1) << r.output;
  // The format of `npu asm check` (every issue, one line each; docs/timing.md):
  // 1048476 = 0xfff9c, + 256 B = 1048732 = 0x10009c > 1 MiB = 0x100000.
  const std::string where = (dir / "p.npuasm").string() + ":" + std::to_string(line_of(text, "CONV")) +
                            ": error: instruction #0 CONV (layer conv7): operand 'out' [0xfff9c, 0x10009c) (256 "
                            "bytes) ends past the SRAM capacity of 1048576 bytes (0x100000)";
  EXPECT_NE(r.output.find(where), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("p.npuasm: 1 issue against "), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("fix:"), std::string::npos);
}

TEST(NpuRunTool, UnbalancedTokensAreRejectedBeforeSimulating) {
  // The CONV waits on ld2cp but nothing pushes it: `npu asm check` rejects the program
  // (pushes 0 != waits 1), so `npu run` reports the same issue and does not simulate it.
  // (The simulator's own deadlock report is tested on NpuTop in test_npu_top.cpp.)
  isa::Program p;
  p.name = "deadlock";
  p.tensors.push_back({"in", isa::TensorKind::Input, 0x0, 256});
  p.instructions.push_back(dma(isa::Opcode::Load, "conv", "in", 0, 0, 256));
  isa::Instruction c;
  c.op = isa::Opcode::Conv;
  c.layer = "conv";
  isa::ConvParams cp;
  cp.c_in = cp.c_out = 4, cp.h_in = cp.w_in = 8, cp.w_addr = 0x1000, cp.out_addr = 0x2000;
  c.params = cp;
  c.wait = {tok(LD, CP)};
  p.instructions.push_back(c);
  const fs::path dir = temp_dir("deadlock");
  const std::string text = isa::write_program(p);
  std::ofstream(dir / "p.npuasm") << text;
  const auto r = run_tool("run " + (dir / "p.npuasm").string() + " --hw " + kEdge);
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_NE(r.output.find((dir / "p.npuasm").string() + ":" + std::to_string(line_of(text, "CONV")) + ": error: "),
            std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("token ld2cp is pushed 0 times but waited on 1 time"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("1 issue against " + kEdge), std::string::npos) << r.output;
}

TEST(NpuRunTool, ProgramThatAsmCheckRejectsIsNotSimulated) {
  // two_layer.npuasm (valid) with two mistakes `npu asm check` catches:
  //  - conv2.W moved to DDR 0x400: [0x400, 0x500) overlaps conv1.W [0x0, 0x480);
  //  - the STORE pushes st2cp twice, and nothing waits on st2cp.
  std::ifstream in(std::string(NPU_SOURCE_DIR) + "/tests/hw/data/two_layer.npuasm");
  std::stringstream ss;
  ss << in.rdbuf();
  std::string text = ss.str();
  auto replace = [&text](const std::string& from, const std::string& to) {
    const auto at = text.find(from);
    ASSERT_NE(at, std::string::npos) << from;
    text.replace(at, from.size(), to);
  };
  replace(".tensor conv2.W kind=weight ddr=0x1000", ".tensor conv2.W kind=weight ddr=0x400");
  replace("tensor=conv2.W ddr=0x1000", "tensor=conv2.W ddr=0x400");
  replace("extent=4096 wait=cp2st", "extent=4096 wait=cp2st push=st2cp,st2cp");
  const fs::path dir = temp_dir("asmcheck");
  const std::string prog = (dir / "p.npuasm").string();
  std::ofstream(prog) << text;
  const auto c = run_tool("asm check " + prog + " --hw " + kEdge);
  ASSERT_EQ(c.status, 1) << c.output;  // the same program is rejected by asm check
  const auto r = run_tool("run " + prog + " --hw " + kEdge + " --out " + (dir / "out").string());
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_NE(r.output.find(prog + ":" + std::to_string(line_of(text, ".tensor conv2.W")) +
                          ": error: tensor 'conv2.W' [0x400, 0x500) overlaps tensor 'conv1.W' [0x0, 0x480)"),
            std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find(prog + ":" + std::to_string(line_of(text, "STORE")) +
                          ": error: instruction #5 STORE (layer conv2): token st2cp is pushed 2 times but waited "
                          "on 0 times"),
            std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find(prog + ": 2 issues against " + kEdge), std::string::npos) << r.output;
  EXPECT_FALSE(fs::exists(dir / "out" / "run.json"));  // nothing was simulated
}

TEST(NpuRunTool, WritesRunJsonLayersCsvAndTraces) {
  const fs::path dir = temp_dir("traces");
  const std::string prog = std::string(NPU_SOURCE_DIR) + "/tests/hw/data/two_layer.npuasm";
  const auto r = run_tool("run " + prog + " --hw " + kEdge + " --out " + dir.string() + " --trace ddr,timeline,vcd");
  ASSERT_EQ(r.status, 0) << r.output;
  for (const char* f : {"run.json", "layers.csv", "ddr.csv", "ddr.trace", "timeline.json", "waves.vcd"}) {
    EXPECT_TRUE(fs::exists(dir / f)) << f;
  }
  // Two identical runs give byte-identical files.
  const fs::path dir2 = temp_dir("traces2");
  ASSERT_EQ(run_tool("run " + prog + " --hw " + kEdge + " --out " + dir2.string() + " --trace ddr,timeline,vcd").status, 0);
  for (const char* f : {"run.json", "layers.csv", "ddr.csv", "ddr.trace", "timeline.json", "waves.vcd"}) {
    std::ifstream a(dir / f, std::ios::binary), b(dir2 / f, std::ios::binary);
    std::stringstream sa, sb;
    sa << a.rdbuf();
    sb << b.rdbuf();
    EXPECT_EQ(sa.str(), sb.str()) << f;
  }
  // The DDR trace's bytes sum to the reported DDR bytes.
  std::ifstream csv(dir / "ddr.csv");
  std::string line;
  std::getline(csv, line);
  std::uint64_t sum = 0;
  while (std::getline(csv, line)) {
    std::stringstream ss(line);
    std::string field;
    for (int i = 0; i <= 10 && std::getline(ss, field, ','); ++i) {
      if (i == 10) sum += std::stoull(field);
    }
  }
  std::ifstream js(dir / "run.json");
  std::stringstream jss;
  jss << js.rdbuf();
  const std::string j = jss.str();
  const auto pos = j.find("\"total_bytes\": ");
  ASSERT_NE(pos, std::string::npos);
  EXPECT_EQ(std::stoull(j.substr(pos + 15)), sum);
}

TEST(NpuRunTool, TraceWithoutOutIsABadInput) {
  const std::string prog = std::string(NPU_SOURCE_DIR) + "/tests/hw/data/two_layer.npuasm";
  const auto r = run_tool("run " + prog + " --hw " + kEdge + " --trace timeline");
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.output.find("give --out"), std::string::npos) << r.output;
}

TEST(CliErrors, DeviceFilesAreRefusedBeforeReading) {
  // /dev/zero never ends: each reader refuses it at once (was: read until timeout or OOM).
  for (const auto& args : std::vector<std::vector<std::string>>{
           {"config", "check", "/dev/zero"},
           {"asm", "check", "/dev/zero", "--hw", "configs/edge-npu-ddr4.yaml"},
           {"ddr", "run", "--hw", "configs/edge-npu-ddr4.yaml", "--trace", "/dev/zero"}}) {
    const auto r = npu::test::run_npu(args);
    EXPECT_EQ(r.status, 1) << args[0];
    EXPECT_NE(r.output.find("/dev/zero: error: is not a regular file"), std::string::npos) << r.output;
  }
}

TEST(CliErrors, UnknownCommandIsNamedWithTheClosestOne) {
  const auto r = npu::test::run_npu({"simulte"});
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.output.find("npu: error: unknown command 'simulte'; did you mean 'simulate'?"), std::string::npos)
      << r.output;
}

TEST(CliErrors, DynamicSizeMustBeAnIntegerFrom1To2Pow31) {
  for (const char* v : {"0", "-1", "abc", "5x", "99999999999"}) {
    const auto r = npu::test::run_npu({"compile", "resnet18", "--hw", "configs/edge-npu-ddr4.yaml", "-o",
                                       "/tmp/npu_cli_dyn.npuasm", std::string("--dynamic-size=") + v});
    EXPECT_EQ(r.status, 1) << v;
    EXPECT_NE(r.output.find(std::string("'") + v + "' is not an integer from 1 to 2147483648 (2^31)"),
              std::string::npos)
        << r.output;
  }
}
