// `npu ddr gen` / `npu ddr run` end to end through the tool binary (NPU_TOOL_PATH):
// output figures, the JSON/CSV files of --out, and bad input -> exit status 1 + message.
#include <gtest/gtest.h>

#include "tool_runner.hpp"
#include <sys/wait.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

using npu::test::run_tool;

namespace {


std::string temp(const std::string& name) { return testing::TempDir() + "/" + name; }

std::string slurp(const std::string& path) {
  std::ifstream f(path);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

TEST(DdrTool, GenThenRunSeqReadOnTheEdgeConfig) {
  const std::string trace = temp("seq.trace");
  npu::test::ToolResult g = run_tool("ddr gen seq-read --hw configs/edge-npu-ddr4.yaml -n 3000 -o " + trace);
  ASSERT_EQ(g.status, 0) << g.output;
  npu::test::ToolResult r = run_tool("ddr run --hw configs/edge-npu-ddr4.yaml --trace " + trace + " --mapping rochracobabg --out " +
                      temp("out"));
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("requests        3000 (reads 3000, writes 0)"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("% of peak 25.60 GB/s"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("M requests/s"), std::string::npos) << r.output;
  // --out: JSON statistics and one CSV row per request (+ header).
  // (ddr_tests does not link a JSON library: check the pretty-printed keys as text.)
  const std::string j = slurp(temp("out") + "/ddr_stats.json");
  EXPECT_NE(j.find("\"reads\": 3000,"), std::string::npos) << j.substr(0, 400);
  EXPECT_NE(j.find("\"bytes_read\": 192000,"), std::string::npos);  // 3000 x 64 B
  EXPECT_NE(j.find("\"address_mapping\": \"rochracobabg\""), std::string::npos);
  // per_bank: 2 ranks x 4 groups x 4 banks = 32 entries, each with an "activates" key.
  std::size_t banks = 0;
  for (std::size_t at = j.find("\"activates\""); at != std::string::npos; at = j.find("\"activates\"", at + 1)) ++banks;
  EXPECT_EQ(banks, 32u);
  std::string csv = slurp(temp("out") + "/ddr_trace.csv");
  EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 3001);
  EXPECT_EQ(csv.rfind("cycle,time_ns,channel,rank,bankgroup,bank,row,column,addr,cmd,bytes,layer,tensor\n", 0), 0u);
  // The DRAMSim3 copy replays the same offered stream: cycle stamps 0, 1, 2, ... here.
  std::string ds3 = slurp(temp("out") + "/ddr_trace.dramsim3.trace");
  EXPECT_EQ(ds3.rfind("0x0 READ 0\n0x40 READ 1\n", 0), 0u);
}

TEST(DdrTool, MalformedTraceLineExitsOneWithFileAndLine) {
  const std::string trace = temp("bad.trace");
  std::ofstream(trace) << "0x0 READ 0\n0x40 RAED 1\n";
  npu::test::ToolResult r = run_tool("ddr run --preset ddr4-3200 --trace " + trace);
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_NE(r.output.find(trace + ":2:6: error: unknown command 'RAED'"), std::string::npos) << r.output;
}

TEST(DdrTool, AddressPastCapacityExitsOne) {
  const std::string trace = temp("cap.trace");
  std::ofstream(trace) << "0x400000000 READ 0\n";
  npu::test::ToolResult r = run_tool("ddr run --preset ddr4-3200 --trace " + trace);
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_NE(r.output.find(trace + ":1:1: error: address 0x400000000 is past the DDR capacity"), std::string::npos)
      << r.output;
}

TEST(DdrTool, UnknownMappingFieldExitsOne) {
  const std::string trace = temp("ok.trace");
  std::ofstream(trace) << "0x0 READ 0\n";
  npu::test::ToolResult r = run_tool("ddr run --preset ddr4-3200 --trace " + trace + " --mapping rochrababgqq");
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_NE(r.output.find("unknown field 'qq' at column 11"), std::string::npos) << r.output;
}

TEST(DdrTool, ImpossibleTimingsInTheYamlExitOne) {
  // tRC 60 < tRAS 52 + tRP 22 = 74: rejected when the config is loaded.
  std::string yaml = slurp(std::string(NPU_SOURCE_DIR) + "/configs/edge-npu-ddr4.yaml");
  const std::string from = "tRC: 74", to = "tRC: 60";
  ASSERT_NE(yaml.find(from), std::string::npos);
  yaml.replace(yaml.find(from), from.size(), to);
  const std::string cfg = temp("bad-trc.yaml");
  std::ofstream(cfg) << yaml;
  const std::string trace = temp("ok2.trace");
  std::ofstream(trace) << "0x0 READ 0\n";
  npu::test::ToolResult r = run_tool("ddr run --hw " + cfg + " --trace " + trace);
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_NE(r.output.find(cfg), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("tRC"), std::string::npos) << r.output;
}

TEST(DdrTool, UnknownPatternAndMissingSourceExitOne) {
  npu::test::ToolResult r = run_tool("ddr gen zigzag --preset ddr4-3200 -n 10 -o " + temp("z.trace"));
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_NE(r.output.find("unknown trace pattern 'zigzag'"), std::string::npos) << r.output;
  r = run_tool("ddr gen seq-read -n 10 -o " + temp("z.trace"));
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_NE(r.output.find("give exactly one of --hw CONFIG or --preset NAME"), std::string::npos) << r.output;
}

TEST(DdrTool, QueueDepthOverrideIsValidatedLikeTheYamlKey) {
  const std::string trace = temp("qd.trace");
  std::ofstream(trace) << "0x0 READ 0\n";
  for (const char* depth : {"0", "-3"}) {
    npu::test::ToolResult r =
        run_tool("ddr run --hw configs/edge-npu-ddr4.yaml --trace " + trace + " --queue-depth " + depth);
    EXPECT_EQ(r.status, 1) << depth << ": " << r.output;
    EXPECT_NE(r.output.find(std::string("--queue-depth: error: must be from 1 to 4096, got ") + depth), std::string::npos)
        << r.output;
    // The edge config's ddr.queue_depth is 32; the fix line names it.
    EXPECT_NE(r.output.find("omit it to keep the config's ddr.queue_depth = 32"), std::string::npos) << r.output;
  }
  npu::test::ToolResult ok = run_tool("ddr run --hw configs/edge-npu-ddr4.yaml --trace " + trace + " --queue-depth 1");
  EXPECT_EQ(ok.status, 0) << ok.output;
}

TEST(DdrTool, NegativeRequestCountIsRejected) {
  // -5 used to wrap to 2^64 - 5 requests.
  npu::test::ToolResult r = run_tool("ddr gen seq-read --hw configs/edge-npu-ddr4.yaml -n -5 -o " + temp("neg.trace"));
  EXPECT_EQ(r.status, 1) << r.output;
  // Refused by the option's range check (sim/tool/integer_option.hpp) before gen_ddr's own.
  EXPECT_NE(r.output.find("-n: '-5' is not an integer from 1 to 1000000000000 (requests to write, e.g. -n 100000)"),
            std::string::npos)
      << r.output;
}

TEST(DdrTool, DirectoryGivenAsTraceOrConfigIsRejected) {
  const std::string dir = testing::TempDir();
  const std::string trace = temp("dir_ok.trace");
  std::ofstream(trace) << "0x0 READ 0\n";
  npu::test::ToolResult r = run_tool("ddr run --hw configs/edge-npu-ddr4.yaml --trace " + dir);
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_NE(r.output.find(dir + ": error: is a directory, expected a file"), std::string::npos) << r.output;
  r = run_tool("ddr run --hw " + dir + " --trace " + trace);
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_NE(r.output.find(dir + ": error: is a directory, expected a file"), std::string::npos) << r.output;
}

TEST(DdrTool, DecreasingAndHugeCycleStampsExitOne) {
  const std::string dec = temp("dec.trace"), huge = temp("huge_cycle.trace");
  std::ofstream(dec) << "0x0 READ 5\n0x40 READ 1\n";
  std::ofstream(huge) << "0x0 READ 18446744073709551615\n";
  npu::test::ToolResult r = run_tool("ddr run --preset ddr4-3200 --trace " + dec);
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_NE(r.output.find(dec + ":2:11: error: cycle 1 is before the previous request's cycle 5 (line 1): cycle "
                                "stamps must not decrease"),
            std::string::npos)
      << r.output;
  r = run_tool("ddr run --preset ddr4-3200 --trace " + huge);
  EXPECT_EQ(r.status, 1) << r.output;
  // "0x0 READ " is 9 characters: the cycle starts at column 10.
  EXPECT_NE(r.output.find(huge + ":1:10: error: cycle 18446744073709551615 is out of range (max 100000000000000000"),
            std::string::npos)
      << r.output;
}

TEST(DdrTool, MultiChannelRunNamesTheFrontEndsBound) {
  // hbm2-2stack: 16 channels of 38.4 GB/s = 614.4 GB/s (docs/ddr.md), tCK = 0.8333 ns. The
  // trace front end offers one 64-byte request a tCK over all channels: 64 / 0.8333 = 76.8 GB/s,
  // 12.5 % of the peak, which a sequential read reaches and cannot pass.
  const std::string trace = temp("seq2stack.trace");
  ASSERT_EQ(run_tool("ddr gen seq-read --preset hbm2-2stack -n 20000 -o " + trace).status, 0);
  npu::test::ToolResult r = run_tool("ddr run --preset hbm2-2stack --trace " + trace);
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("note            the trace front end offers at most one request a tCK over all channels "
                          "(DRAMSim3's), 64 B / 0.833 ns = 76.80 GB/s = 12.5 % of the 614.40 GB/s peak"),
            std::string::npos)
      << r.output;
  // One channel: the front end is the channel's own command rate; no note.
  npu::test::ToolResult one = run_tool("ddr run --preset ddr4-3200 --trace " + trace);
  ASSERT_EQ(one.status, 0) << one.output;
  EXPECT_EQ(one.output.find("note "), std::string::npos) << one.output;
}

TEST(DdrTool, RandomReadOnTooSmallADdrSaysThePatternsSpanNotFewerRequests) {
  // random-read draws 64-byte addresses from [0, 1 GiB) whatever -n is; hbm2 holds 512 MiB.
  npu::test::ToolResult r = run_tool("ddr gen random-read --preset hbm2 -n 10 -o " + temp("rr.trace"));
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_NE(r.output.find("error: pattern random-read spans 1073741824 bytes of DDR for any number of requests, "
                          "more than the capacity of 536870912 bytes"),
            std::string::npos)
      << r.output;
  EXPECT_EQ(r.output.find("fewer requests"), std::string::npos) << r.output;
}

TEST(DdrTool, MappingOverrideIgnoresCaseAsTheYamlKeyDoes) {
  // docs/config.md: the mapping's case is ignored (RoChRaBaBgCo = rochrababgco).
  const std::string trace = temp("case.trace");
  ASSERT_EQ(run_tool("ddr gen seq-read --preset ddr4-3200 -n 10 -o " + trace).status, 0);
  npu::test::ToolResult r = run_tool("ddr run --preset ddr4-3200 --mapping RoChRaBaBgCo --trace " + trace);
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("mapping rochrababgco"), std::string::npos) << r.output;
}

TEST(DdrTool, WriteOnlyTraceHasNoReadLatency) {
  // A seq-write trace has no reads: its read latency is "n/a", not "mean 0.0 ns" (new-user finding).
  const std::string trace = temp("writes.trace");
  ASSERT_EQ(run_tool("ddr gen seq-write --preset ddr4-3200 -n 100 -o " + trace).status, 0);
  npu::test::ToolResult r = run_tool("ddr run --preset ddr4-3200 --trace " + trace);
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("requests        100 (reads 0, writes 100)\nbytes"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("read latency    n/a (no reads)\n"), std::string::npos) << r.output;
}

}  // namespace
