// Speed of the DDR timing core: requests simulated per wall second, one core.
// Target (issue 3): >= 2 million requests/s on seq-read (DDR4-3200 preset, Release).
// The trace is generated in memory (no file parsing); each iteration replays 1,000,000
// requests through a fresh DdrSystem and drains it. `items_per_second` is requests per
// wall second (UseRealTime); compare the Time and CPU columns to see machine load.
// BM_Tlm_*: the TLM target's use (issue 29): configs/hbm2-npu.yaml's DDR (16 HBM2 channels),
// split cursors and one request port per channel, each 64-byte request offered and
// completed before the next, as DdrModule::b_transport serves a DMA burst.
#include <benchmark/benchmark.h>

#include <string>
#include <vector>

#include "npu/hw_config/ddr_presets.hpp"
#include "npu/hw_config/hw_config.hpp"
#include "npu/hw/ddr/ddr_system.hpp"
#include "npu/hw/ddr/ddr_trace_file.hpp"

namespace {

using npu::hw::TracePattern;

std::vector<npu::hw::TraceRequest> make_trace(TracePattern p, std::size_t n) {
  npu::hw::TraceGenerator gen(p, 64);
  std::vector<npu::hw::TraceRequest> out(n);
  for (auto& r : out) r = gen.next();
  return out;
}

// Requests per second of n requests an iteration, and the simulated bandwidth, as counters.
void report_rate(benchmark::State& state, std::size_t n, double gbps) {
  state.SetItemsProcessed(std::int64_t(state.iterations()) * std::int64_t(n));
  state.counters["requests_per_s"] =
      benchmark::Counter(double(state.iterations()) * double(n), benchmark::Counter::kIsRate);
  state.counters["simulated_GBps"] = gbps;
}

void replay(benchmark::State& state, TracePattern pattern, const std::string& mapping) {
  const std::size_t n = 1000000;
  const auto trace = make_trace(pattern, n);
  npu::DdrConfig cfg = npu::ddr4_3200();
  cfg.address_mapping = mapping;
  double gbps = 0;
  for (auto _ : state) {
    npu::hw::DdrSystem ddr(cfg);
    for (const auto& r : trace) ddr.offer(r.addr, r.is_write, r.cycle);
    ddr.drain();
    gbps = ddr.stats().achieved_gbps();
    benchmark::DoNotOptimize(gbps);
  }
  report_rate(state, n, gbps);
}

void replay_tlm(benchmark::State& state, TracePattern pattern) {
  const std::size_t n = 1000000;
  const auto trace = make_trace(pattern, n);
  const npu::DdrConfig cfg = npu::load_hw_config(std::string(NPU_SOURCE_DIR) + "/configs/hbm2-npu.yaml").ddr;
  double gbps = 0;
  for (auto _ : state) {
    npu::hw::DdrSystem ddr(cfg);
    ddr.set_overlap_row_commands(true);
    ddr.set_frontend_per_channel(true);
    for (const auto& r : trace) ddr.complete(ddr.offer(r.addr, r.is_write, r.cycle, nullptr, nullptr, true));
    gbps = ddr.stats().achieved_gbps();
    benchmark::DoNotOptimize(gbps);
  }
  report_rate(state, n, gbps);
}

void BM_SeqRead_rochrababgco(benchmark::State& s) { replay(s, TracePattern::SeqRead, "rochrababgco"); }
void BM_SeqRead_rochracobabg(benchmark::State& s) { replay(s, TracePattern::SeqRead, "rochracobabg"); }
void BM_SeqWrite_rochrababgco(benchmark::State& s) { replay(s, TracePattern::SeqWrite, "rochrababgco"); }
void BM_RandomRead_rochrababgco(benchmark::State& s) { replay(s, TracePattern::RandomRead, "rochrababgco"); }
void BM_Mixed_rochrababgco(benchmark::State& s) { replay(s, TracePattern::Mixed, "rochrababgco"); }
void BM_Tlm_SeqRead_hbm2npu(benchmark::State& s) { replay_tlm(s, TracePattern::SeqRead); }
void BM_Tlm_RandomRead_hbm2npu(benchmark::State& s) { replay_tlm(s, TracePattern::RandomRead); }

BENCHMARK(BM_SeqRead_rochrababgco)->Unit(benchmark::kMillisecond)->MinTime(1.0)->UseRealTime();
BENCHMARK(BM_SeqRead_rochracobabg)->Unit(benchmark::kMillisecond)->MinTime(1.0)->UseRealTime();
BENCHMARK(BM_SeqWrite_rochrababgco)->Unit(benchmark::kMillisecond)->MinTime(1.0)->UseRealTime();
BENCHMARK(BM_RandomRead_rochrababgco)->Unit(benchmark::kMillisecond)->MinTime(1.0)->UseRealTime();
BENCHMARK(BM_Mixed_rochrababgco)->Unit(benchmark::kMillisecond)->MinTime(1.0)->UseRealTime();
BENCHMARK(BM_Tlm_SeqRead_hbm2npu)->Unit(benchmark::kMillisecond)->MinTime(1.0)->UseRealTime();
BENCHMARK(BM_Tlm_RandomRead_hbm2npu)->Unit(benchmark::kMillisecond)->MinTime(1.0)->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
