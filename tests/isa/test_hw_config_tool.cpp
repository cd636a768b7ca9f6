// `npu config check` as a user runs it: the built tool (NPU_TOOL_PATH) started from the repo
// root (the test working directory), its exit status, stdout and stderr.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "npu/hw_config/hw_config.hpp"

namespace npu {
namespace {

struct TempFile {
  std::string path;
  explicit TempFile(const std::string& content = "") {
    char name[] = "/tmp/npu_config_test_XXXXXX";
    const int fd = mkstemp(name);
    EXPECT_GE(fd, 0);
    if (fd >= 0) {
      if (!content.empty()) {
        EXPECT_EQ(write(fd, content.data(), content.size()), ssize_t(content.size()));
      }
      close(fd);
    }
    path = name;
  }
  ~TempFile() { std::remove(path.c_str()); }
  std::string read() const {
    std::ifstream in(path);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
  }
};

struct ToolRun {
  int status = -1;
  std::string out, err;
};

/// Runs `npu <args>` (fixed, trusted arguments) with stdout and stderr captured.
ToolRun run_tool(const std::string& args) {
  TempFile out, err;
  const std::string cmd = std::string(NPU_TOOL_PATH) + " " + args + " >" + out.path + " 2>" + err.path;
  const int raw = std::system(cmd.c_str());
  ToolRun r;
  r.status = WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
  r.out = out.read();
  r.err = err.read();
  return r;
}

std::string slurp_config(const std::string& path) {
  std::ifstream in(path);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

TEST(NpuConfigCheck, AFixedMemoryGivesTheBalanceAndStreamOfThatMemory) {
  // gemmini-8x8: 8 x 8 PEs x 1 MAC x 1000 MHz = 64e9 MAC/s against the fixed memory's
  // 16 GB/s: 4 MAC/B (not 2.5, the unused ddr section's 25.6 GB/s); one stream reaches 16 GB/s.
  const ToolRun r = run_tool("config check configs/gemmini-8x8.yaml");
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("#   memory               fixed: 100 ns, 16 GB/s"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("#   machine balance      4 MAC/B"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("#   sequential stream    16 GB/s of the 16 peak"), std::string::npos) << r.out;
}

TEST(NpuConfigCheck, EdgePresetPrintsDerivedFigures) {
  const ToolRun r = run_tool("config check configs/edge-npu-ddr4.yaml");
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.err, "");
  // 32 x 32 x 1 GHz = 1.024e12 MAC/s; 3200 MT/s x 8 B = 25.6 GB/s; ratio 40 MAC/B;
  // tCK = 2000 / 3200 = 0.625 ns; 2 ranks x 16 banks x 65536 x 1024 x 8 B = 16 GiB.
  EXPECT_NE(r.out.find("#   peak MAC/s           1.024e+12  = 32 x 32 PEs x 1 MAC x 1000 MHz\n"), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("#   peak DDR GB/s        25.6  = 3200 MT/s x 8 B x 1 channel(s)\n"), std::string::npos);
  EXPECT_NE(r.out.find("#   machine balance      40 MAC/B"), std::string::npos);
  EXPECT_NE(r.out.find("#   SRAM                 1 MiB (1048576 B)"), std::string::npos);
  EXPECT_NE(r.out.find("#   DDR capacity         16 GiB (17179869184 B)\n"), std::string::npos);
  EXPECT_NE(r.out.find("#   tCK                  0.625 ns"), std::string::npos);
  // 34 address bits = 16 row + 0 channel + 1 rank + 2 bank + 2 bank group + 7 column
  // (1024 columns / BL8 = 128 bursts) + 6 offset (64 B burst), as in DRAMSim3's DDR4 mapping.
  EXPECT_NE(r.out.find("ro[33:18] ch[-] ra[17] ba[16:15] bg[14:13] co[12:6] offset[5:0]"), std::string::npos);
}

TEST(NpuConfigCheck, EveryPresetPassesAndItsOutputReloads) {
  for (const char* name : {"edge-npu-ddr4", "mobile-npu-lpddr4", "tpu-v1-like"}) {
    const std::string path = std::string("configs/") + name + ".yaml";
    const ToolRun r = run_tool("config check " + path);
    EXPECT_EQ(r.status, 0) << name << ": " << r.err;
    // The text output is the resolved config plus comments: it loads as the same config.
    const HwConfig from_output = parse_hw_config(r.out, "stdout");
    EXPECT_EQ(hw_config_to_yaml(from_output), hw_config_to_yaml(load_hw_config(path))) << name;
  }
}

TEST(NpuConfigCheck, JsonOutputForTools) {
  const ToolRun r = run_tool("config check --json configs/mobile-npu-lpddr4.yaml");
  ASSERT_EQ(r.status, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j.at("source"), "configs/mobile-npu-lpddr4.yaml");
  EXPECT_EQ(j.at("config").at("ddr").at("standard"), "LPDDR4");
  EXPECT_EQ(j.at("config").at("ddr").at("timing_ck").at("tRCD"), 29);
  EXPECT_EQ(j.at("config").at("mac_array").at("depthwise_mapping"), "scalesim");  // the default
  // 3200 MT/s x 2 B x 2 channels = 12.8 GB/s; 16 x 16 x 800 MHz = 204.8e9 MAC/s.
  EXPECT_DOUBLE_EQ(j.at("derived").at("peak_ddr_gbps").get<double>(), 12.8);
  EXPECT_DOUBLE_EQ(j.at("derived").at("peak_macs_per_s").get<double>(), 204.8e9);
  EXPECT_EQ(j.at("derived").at("sram_bytes"), 524288);
}

TEST(NpuConfigCheck, MisspeltSectionExitsOneWithSuggestion) {
  const ToolRun r = run_tool("config check tests/isa/data/configs/misspelt-section.yaml");
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err,
            "tests/isa/data/configs/misspelt-section.yaml:5:1: error: unknown key 'mac_aray' in the top-level map\n"
            "  did you mean 'mac_array'? (allowed: npu, mac_array, sram, act_unit, ddr, dma, energy, host, accumulator, memory)\n");
}

TEST(NpuConfigCheck, MalformedYamlExitsOneWithPosition) {
  const ToolRun r = run_tool("config check tests/isa/data/configs/malformed.yaml");
  EXPECT_EQ(r.status, 1);
  // The tab on line 4 (after "npu:" on line 3) is where yaml-cpp stops.
  EXPECT_EQ(r.err.rfind("tests/isa/data/configs/malformed.yaml:4:", 0), 0u) << r.err;
  EXPECT_NE(r.err.find(": error: malformed YAML: "), std::string::npos) << r.err;
}

TEST(NpuConfigCheck, ImpossibleTimingExitsOne) {
  // The edge preset with tRC lowered below tRAS + tRP = 52 + 22 = 74.
  std::string text = slurp_config("configs/edge-npu-ddr4.yaml");
  const auto pos = text.find("    tRC: 74 ");
  ASSERT_NE(pos, std::string::npos);
  text.replace(pos, 12, "    tRC: 60 ");
  TempFile bad(text);
  const ToolRun r = run_tool("config check " + bad.path);
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find(": error: timing cannot hold: tRC = 60 < tRAS + tRP = 52 + 22 = 74 tCK\n"), std::string::npos)
      << r.err;
  EXPECT_EQ(r.err.rfind(bad.path + ":", 0), 0u) << r.err;
}

TEST(NpuConfigCheck, MissingFileExitsOne) {
  const ToolRun r = run_tool("config check configs/does-not-exist.yaml");
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.err.rfind("configs/does-not-exist.yaml: error: cannot open the hardware config file\n", 0), 0u) << r.err;
}

}  // namespace
}  // namespace npu
