// memory.model fixed: the DDR bytes reported are the bytes its bus was busy for, so the
// bandwidth utilisation cannot exceed 100 % (docs/timing.md, "DMA"). Before, the DMA charged
// the ddr section's 64-byte DRAM bursts, which the fixed memory does not have.
#include <gtest/gtest.h>

#include "bad_input_cases.hpp"
#include "tool_runner.hpp"

namespace {

TEST(FixedMemoryUtilisation, HalfBurstRowsReportTheirOwnBytesAndAtMostThePeak) {
  // One LOAD of 1024 rows of 32 bytes at stride 64 from DDR 0x20: each row is the upper half of
  // one 64-byte DDR4 burst (64-bit bus x BL8). Edge preset with a fixed memory of 1 GB/s
  // (1 B/ns) and 100 ns latency:
  //   bytes moved  = 1024 x 32 = 32768 B (the old count: 1024 x 64 = 65536, 199 % of the peak)
  //   time        >= 32768 B / 1 B/ns + 100 ns = 32868 ns (one bus; the last request's latency)
  //   utilisation <= 32768 / 32868 = 0.99696; the DMA keeps 32 requests in flight (32 x 32 ns
  //   of bus time queued, far more than the 100 ns latency), so the bus stays busy from the
  //   first request to the last: utilisation > 0.99.
  const std::string dir = npu::test::fresh_dir("fixed-memory-util");
  const std::string cfg = dir + "/fixed.yaml";
  npu::test::write_bytes(cfg, npu::test::read_file(std::string(NPU_SOURCE_DIR) + "/configs/edge-npu-ddr4.yaml") +
                                  "memory:\n  model: fixed\n  latency_ns: 100\n  bandwidth_gbps: 1\n");
  npu::test::write_bytes(dir + "/p.npuasm",
                         ".npuasm 1\n.program name=half-bursts strategy=none dtype=int8\n"
                         ".tensor input kind=input ddr=0x0 bytes=65536\n"
                         "LOAD layer=l0 tensor=input ddr=0x20 sram=0x0 extent=32,1024 stride=64\n");
  const auto r = npu::test::run_npu({"run", dir + "/p.npuasm", "--hw", cfg, "--out", dir + "/out"});
  ASSERT_EQ(r.status, 0) << r.output;
  const auto j = npu::test::read_json(dir + "/out/run.json");
  EXPECT_EQ(j.at("ddr").at("read_bytes").get<std::uint64_t>(), 32768u) << j.dump();
  const double util = j.at("ddr_bw_utilisation").get<double>();
  EXPECT_LE(util, 32768.0 / 32868.0 + 1e-6) << j.dump();
  EXPECT_GT(util, 0.99) << j.dump();
  EXPECT_NE(r.output.find("% of 1.0 GB/s peak"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("199."), std::string::npos) << r.output;
}

}  // namespace

namespace {

TEST(IdealMemoryLine, TheDdrLineNamesTheIdealMemoryInsteadOfAShareOfThePeak) {
  // --ideal-memory: transfers take no time, so bytes / run time may pass the DDR's peak (a new
  // user's 1x1 conv read "110.7 % of 25.6 GB/s peak"). Edge preset: DDR4-3200 x64 = 3200 MT/s x
  // 8 B = 25.6 GB/s (configs/edge-npu-ddr4.yaml).
  const std::string dir = npu::test::fresh_dir("ideal-memory-line");
  npu::test::write_bytes(dir + "/p.npuasm",
                         ".npuasm 1\n.program name=one-load strategy=none dtype=int8\n"
                         ".tensor input kind=input ddr=0x0 bytes=4096\n"
                         "LOAD layer=l0 tensor=input ddr=0x0 sram=0x0 extent=4096\n");
  const auto r = npu::test::run_npu(
      {"run", dir + "/p.npuasm", "--hw", "configs/edge-npu-ddr4.yaml", "--ideal-memory", "--out", dir + "/out"});
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("GB/s (ideal memory: not bounded by the config's 25.6 GB/s DDR peak)"), std::string::npos)
      << r.output;
  EXPECT_EQ(r.output.find("% of 25.6 GB/s peak"), std::string::npos) << r.output;
}

}  // namespace
