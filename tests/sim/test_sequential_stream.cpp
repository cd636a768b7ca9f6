// The simulator's rate for one sequential LOAD against isa::sequential_stream_gbps, the bound
// the compiler's depth-first estimates use for weight loads: on every preset the simulated
// DMA + DDR never beats it, and on the edge preset (the case the bound exists for: DDR4 with
// the column bits lowest, tCCD_L-bound) it is within 5 % of it (refresh and the first
// request's latency, which the bound leaves out). A 256 KiB LOAD (it fits every
// preset's SRAM) with `npu run`; rate = bytes / simulated ns.
#include <gtest/gtest.h>

#include <fstream>

#include "npu/isa/ddr_stream.hpp"
#include "npu/isa/hw_config.hpp"
#include "tool_runner.hpp"

namespace {

double simulated_load_gbps(const std::string& preset) {
  const std::string dir = npu::test::fresh_dir("sequential-stream-" + preset);
  const std::uint64_t bytes = 256 * 1024;
  std::ofstream(dir + "/load.npuasm") << ".npuasm 1\n.program name=stream strategy=none dtype=int8\n"
                                      << ".tensor w kind=weight ddr=0x0 bytes=" << bytes << "\n"
                                      << "LOAD layer=l tensor=w ddr=0x0 sram=0x0 extent=" << bytes << "\n";
  const auto r = npu::test::run_npu({"run", dir + "/load.npuasm", "--hw",
                                     std::string(NPU_SOURCE_DIR) + "/configs/" + preset + ".yaml", "--out", dir + "/out"});
  EXPECT_EQ(r.status, 0) << r.output;
  if (r.status != 0) return 0;
  const auto j = npu::test::read_json(dir + "/out/run.json");
  EXPECT_EQ(j.at("ddr_read_bytes").get<std::uint64_t>(), bytes);
  return double(bytes) / j.at("total_ns").get<double>();
}

class SequentialStreamSim : public ::testing::TestWithParam<std::string> {};

TEST_P(SequentialStreamSim, OneLoadNeverBeatsTheBound) {
  const double bound = npu::isa::sequential_stream_gbps(
      npu::load_hw_config(std::string(NPU_SOURCE_DIR) + "/configs/" + GetParam() + ".yaml"));
  const double sim = simulated_load_gbps(GetParam());
  std::cout << GetParam() << ": simulated " << sim << " GB/s, bound " << bound << " GB/s\n";
  EXPECT_LE(sim, bound);
  if (GetParam() == "edge-npu-ddr4") EXPECT_GE(sim, 0.95 * bound);
}

INSTANTIATE_TEST_SUITE_P(Presets, SequentialStreamSim,
                         ::testing::Values("edge-npu-ddr4", "mobile-npu-lpddr4", "tpu-v1-like", "hbm2-npu"),
                         [](const auto& info) {
                           std::string n = info.param;
                           for (char& c : n)
                             if (c == '-') c = '_';
                           return n;
                         });

}  // namespace
