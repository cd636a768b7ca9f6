#include "npu/hw/npu_top.hpp"

#include <cmath>
#include <stdexcept>

namespace npu::hw {

namespace {
double period_ps(const HwConfig& hw) {
  if (!(hw.npu.clock_mhz > 0)) throw std::invalid_argument("npu.clock_mhz must be positive");
  return 1e6 / hw.npu.clock_mhz;
}
}  // namespace

NpuTop::NpuTop(sc_core::sc_module_name name, const HwConfig& hw, const isa::Program& program,
               const NpuTopOptions& opt)
    : sc_core::sc_module(name), sram("sram", hw.sram, period_ps(hw), opt.ideal_memory),
      dma_load("dma_load", hw, sram, error, opt.ideal_memory),
      dma_store("dma_store", hw, sram, error, opt.ideal_memory),
      mac_array("mac_array", hw, program.dtype, sram, error), act_unit("act_unit", hw, program.dtype, sram, error),
      controller("controller", program, opt.program_source, dma_load, dma_store, mac_array, act_unit, error,
                 hw.npu.clock_mhz),
      ddr_gbps("ddr_gbps"), ddr_window_gbps("ddr_window_gbps") {
  if (sc_core::sc_get_time_resolution() != sc_core::sc_time(1, sc_core::SC_PS)) {
    throw std::logic_error("NpuTop needs the SystemC time resolution of 1 ps");
  }
  // memory.model: fixed -- a fixed latency and one bus of fixed bandwidth in place of the DDR
  // model (docs/config.md "memory"); the DMA and SRAM keep their own timing.
  const bool fixed_memory = !opt.ideal_memory && hw.memory.model == MemoryModel::Fixed;
#if NPU_HAVE_DDR_MODULE
  if (!opt.ideal_memory && !fixed_memory) {
    auto ddr = std::make_unique<DdrModule>("ddr", hw.ddr);
    ddr_ = ddr.get();
    ddr_owner_ = std::move(ddr);
    if (opt.ddr_trace) ddr_->set_trace_sink(opt.ddr_trace);
    dma_load.ddr_socket.bind(ddr_->socket);
    dma_store.ddr_socket.bind(ddr_->socket);
    if (opt.direct_burst_timing) {  // per-burst direct calls, same timing (docs/performance.md)
      dma_load.set_timing_target(ddr_);
      dma_store.set_timing_target(ddr_);
    }
  }
#endif
  if (!ddr_) {
    const std::uint64_t cap = hw.ddr.capacity_bytes() > 0 ? hw.ddr.capacity_bytes() : ~std::uint64_t(0);
    ideal_ = fixed_memory ? std::make_unique<IdealMemory>("fixed_memory", cap,
                                                          std::uint64_t(std::llround(hw.memory.latency_ns * 1000.0)),
                                                          hw.memory.bandwidth_gbps)
                          : std::make_unique<IdealMemory>("ideal_memory", cap);
    dma_load.ddr_socket.bind(ideal_->socket);
    dma_store.ddr_socket.bind(ideal_->socket);
  }
  if (opt.ddr_data) {
    data_ = std::make_unique<DataPath>(*opt.ddr_data, hw.sram.capacity_bytes, program.dtype);
    controller.set_data_path(data_.get());
  }
  SC_METHOD(ddr_bandwidth_method);
  sensitive << dma_load.bandwidth_gbps << dma_store.bandwidth_gbps;
  dont_initialize();
  SC_THREAD(ddr_window_thread);
}

NpuTop::~NpuTop() = default;

bool NpuTop::has_ddr_model() const { return ddr_ != nullptr; }

void NpuTop::ddr_bandwidth_method() { ddr_gbps.write(dma_load.bandwidth_gbps.read() + dma_store.bandwidth_gbps.read()); }

void NpuTop::ddr_window_thread() {
  if (!windows_) return;  // no VCD: no sampling
  const sc_core::sc_time window = sc_core::sc_time::from_value(kBandwidthWindowPs);
  // At the end of window k every request completing in it is known: a DMA issues a request
  // at a simulation time no later than its issue time, and completion follows issue.
  for (std::size_t k = 0;; ++k) {
    wait(window);
    ddr_window_gbps.write(windows_->gbps(k));
    // Stop once the program is done (or stuck: nothing else is scheduled, as in a token
    // deadlock, which the driver then reports) and every recorded window was written.
    const bool idle = controller.finished() || error.set || !sc_core::sc_pending_activity();
    if (idle && k + 1 >= windows_->windows()) break;
  }
  wait(window);
  ddr_window_gbps.write(0.0);
}

void NpuTop::trace(sc_core::sc_trace_file* tf) {
  if (!windows_) {
    windows_ = std::make_unique<BandwidthWindows>(kBandwidthWindowPs);
    dma_load.set_bandwidth_windows(windows_.get());
    dma_store.set_bandwidth_windows(windows_.get());
  }
  sc_core::sc_trace(tf, ddr_window_gbps, "ddr_window_gbps");
  sc_core::sc_trace(tf, dma_load.busy, "dma_load_busy");
  sc_core::sc_trace(tf, dma_store.busy, "dma_store_busy");
  sc_core::sc_trace(tf, mac_array.busy, "mac_array_busy");
  sc_core::sc_trace(tf, act_unit.busy, "act_unit_busy");
  // Only programs with a HOST instruction get the host signal, so the VCD of every other
  // program is unchanged (traces/tiny_convnet/waves.vcd is a byte-exact golden sample).
  if (controller.has_host()) sc_core::sc_trace(tf, controller.host_busy, "host_busy");
  sc_core::sc_trace(tf, dma_load.bandwidth_gbps, "dma_load_gbps");
  sc_core::sc_trace(tf, dma_store.bandwidth_gbps, "dma_store_gbps");
  sc_core::sc_trace(tf, ddr_gbps, "ddr_gbps");
}

}  // namespace npu::hw

// libsystemc's main() references sc_main; this library is driven from ordinary main()s (the
// npu tool, the tests), so provide a weak one that is never called.
__attribute__((weak)) int sc_main(int, char*[]) { return 1; }
