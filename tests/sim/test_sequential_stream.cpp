// The simulator's rate for one sequential LOAD against isa::sequential_stream_gbps, the bound
// the compiler's depth-first estimates use for weight loads: on every preset the simulated
// DMA + DDR never beats it, and on the edge preset (the case the bound exists for: DDR4 with
// the column bits lowest, tCCD_L-bound) it is within 5 % of it (refresh and the first
// request's latency, which the bound leaves out). On every preset it also reaches at least the
// floor stream_floor_gbps derives from the preset's own timing (below). A 256 KiB LOAD (it fits
// every preset's SRAM) with `npu run`; rate = bytes / simulated ns.
#include <gtest/gtest.h>

#include "preset_params.hpp"

#include <cmath>
#include <fstream>

#include <nlohmann/json.hpp>

#include "npu/isa/cost/ddr_stream.hpp"
#include "npu/hw_config/hw_config.hpp"
#include "tool_runner.hpp"

namespace {

const std::uint64_t kLoadBytes = 256 * 1024;

double simulated_load_gbps(const std::string& preset) {
  const std::string dir = npu::test::fresh_dir("sequential-stream-" + preset);
  const std::uint64_t bytes = kLoadBytes;
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

/// Field `f` of the address mapping (MSB -> LSB) lies below the column bits.
bool below_column(const std::string& mapping, const std::string& f) {
  const auto co = mapping.find("co"), at = mapping.find(f);
  return co != std::string::npos && at != std::string::npos && at % 2 == 0 && at > co;
}

/// A floor for one sequential LOAD of `bytes`: the time the bound gives, plus what it leaves out,
/// each taken at its worst, from the preset's timing:
///  - row pages: every row page the stream opens costs at most one loaded access latency that
///    nothing overlaps, L = (tRP + tRCD + CL + data + 1 controller cycle) x tCK + (SRAM latency
///    + 1 port cycle + 1 issue cycle) core cycles (the loaded latency the presets' DMA windows
///    are sized with by Little's law, configs/hbm2-npu.yaml "dma"); data = BL/2 per channel burst
///    of the request. Pages whose selector lies below the column bits (channels, bank groups)
///    are opened side by side, so only bytes / (page bytes x those ways) pages are serial;
///  - refresh: rank r is first due at tREFI (r + 1) / R and then every tREFI (staggered,
///    hw_models/src/ddr/channel_state.cpp), so from t = 0 the ranks of a channel refresh at most
///    R x T / tREFI times in T, each taking the rank for tRP (precharge all) + tRFC:
///    at most a fraction R (tRP + tRFC) / tREFI of the time, whichever rank the stream is on.
///  T_max = (bytes / bound + serial pages x L) / (1 - R (tRP + tRFC) / tREFI); floor = bytes / T_max.
/// Reads only: no write-to-read turnaround. Per preset (256 KiB):
///   edge   20480 ns + 32 pages x 48.4 ns (71 tCK + 4 ns), refresh 2 x 582 / 12480 = 9.3 %
///          -> 10.79 GB/s, 84.3 % of 12.8;
///   mobile 20480 ns + 128 x 69.4 ns (103 tCK: BL/2 x 2 channel bursts; + 4 x 1.25 ns at
///          800 MHz), 317 / 6246 = 5.1 % -> 8.48 GB/s, 66.2 % of 12.8;
///   tpu    7681 ns + 32 x 49.8 ns (47 x 0.9376 + 4 x 1.43 at 700 MHz), 292 / 8315 = 3.5 %
///          -> 27.27 GB/s, 79.9 % of 34.13;
///   hbm2   426.7 ns + 256 pages / (16 channels x 4 groups) = 4 x 49 ns, 329 / 4680 = 7.0 %
///          -> 391.4 GB/s, 63.7 % of 614.4.
double stream_floor_gbps(const npu::HwConfig& hw, std::uint64_t bytes) {
  const npu::DdrConfig& d = hw.ddr;
  const npu::DdrTimingCk& t = d.timing;
  const double burst = double(hw.dma.burst_bytes);
  const int data_ck = int(std::ceil(burst / d.burst_bytes())) * d.burst_length / 2;
  const double latency_ns = (t.t_rp + t.t_rcd + t.cl + data_ck + 1) * d.tck_ns() +
                            (hw.sram.latency_cycles + 2) * hw.core_period_ns();
  const double page_bytes = double(d.columns) * d.bus_width_bits / 8;
  double side_by_side = 1;
  if (below_column(d.address_mapping, "ch")) side_by_side *= d.channels;
  if (below_column(d.address_mapping, "bg")) side_by_side *= d.bank_groups;
  const double serial_pages = std::ceil(double(bytes) / (page_bytes * side_by_side));
  const double refresh_share = double(d.ranks) * (t.t_rp + t.t_rfc) / t.t_refi;
  const double t_max_ns =
      (double(bytes) / npu::isa::sequential_stream_gbps(hw) + serial_pages * latency_ns) / (1 - refresh_share);
  return double(bytes) / t_max_ns;
}

class SequentialStreamSim : public ::testing::TestWithParam<std::string> {};

TEST_P(SequentialStreamSim, OneLoadNeverBeatsTheBoundAndReachesTheFloor) {
  const npu::HwConfig hw = npu::load_hw_config(std::string(NPU_SOURCE_DIR) + "/configs/" + GetParam() + ".yaml");
  const double bound = npu::isa::sequential_stream_gbps(hw);
  const double floor_gbps = stream_floor_gbps(hw, kLoadBytes);
  const double sim = simulated_load_gbps(GetParam());
  std::cout << GetParam() << ": simulated " << sim << " GB/s, floor " << floor_gbps << ", bound " << bound << " GB/s\n";
  EXPECT_LE(sim, bound);
  EXPECT_GE(sim, floor_gbps);
  // Edge, closer: the stream stays in one rank at a time (rochrababgco: 128 KiB per rank) and
  // each 8 KiB page is a new bank, opened while the previous page streams (32 requests x 5 ns
  // = 160 ns ahead > tRCD 13.75 ns), so only the refresh of the rank in use stalls it:
  // (tRP + tRFC) / tREFI = 582 / 12480 = 4.7 %, so at least 0.95 of the bound.
  if (GetParam() == "edge-npu-ddr4") {
    EXPECT_GE(sim, 0.95 * bound);
  }
}

INSTANTIATE_TEST_SUITE_P(Presets, SequentialStreamSim, npu::test::four_presets(), npu::test::preset_test_name);

}  // namespace

namespace {

// Issue 27 item 2: `npu config check` prints the sequential-stream rate beside the peak, and the
// loaded DMA latency the model gives beside the unloaded one Little's law sizes the window with.
// Edge preset, by hand: one channel, the window W = 32 requests of 64 B kept full by a stream
// that the bank group holds at 64 B / (tCCD_L 8 x 0.625 ns) = 12.8 GB/s, so by Little's law
// each request is in flight 32 x 64 B / 12.8 GB/s = 160 ns (the unloaded latency: (tRP 22 +
// tRCD 22 + CL 22 + BL/2 4 + 1) x 0.625 ns + (SRAM 2 + 64/32 + 1) x 1 ns = 49.375 ns).
TEST(SequentialStreamSim, ConfigCheckPrintsTheStreamRateAndTheLoadedLatency) {
  const auto r = npu::test::run_npu({"config", "check", "configs/edge-npu-ddr4.yaml"});
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("#   sequential stream    12.8 GB/s of the 25.6 peak"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("bound by tCCD_L"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("sized with the unloaded 49.375 ns"), std::string::npos) << r.output;
  const auto j = npu::test::run_npu({"config", "check", "configs/edge-npu-ddr4.yaml", "--json"});
  ASSERT_EQ(j.status, 0) << j.output;
  const auto derived = nlohmann::json::parse(j.output).at("derived");
  EXPECT_DOUBLE_EQ(derived.at("stream_ddr_gbps").get<double>(), 12.8);
  EXPECT_NEAR(derived.at("dma_simulated_latency_ns").at("mean").get<double>(), 160.0, 160.0 * 0.05);
  // hbm2-npu: the stream reaches the peak (ch and bg below co: every channel and group at once).
  const auto h = npu::test::run_npu({"config", "check", "configs/hbm2-npu.yaml"});
  EXPECT_NE(h.output.find("614.4 GB/s of the 614.4 peak: one LOAD in address order, bound by the peak"), std::string::npos)
      << h.output;
}

}  // namespace
