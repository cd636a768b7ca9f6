// NpuTop: the whole NPU built from one parsed hardware config -- SRAM, two DMA engines
// (load and store queues), MAC array, activation unit and controller -- bound to the DDR
// model (npu::hw::DdrModule) or, with `ideal_memory`, to an IdealMemory that answers at once
// (then the SRAM also answers at once: pure compute timing).
//
// SystemC elaborates once per process: build one NpuTop, run sc_start(), read the results.
#pragma once

#include <memory>
#include <string>

#include <systemc>

#include "npu/hw/act_unit/act_unit.hpp"
#include "npu/hw/controller/controller.hpp"
#include "npu/hw/dma/dma.hpp"
#include "npu/hw/ideal_memory.hpp"
#include "npu/hw/mac_array/mac_array.hpp"
#include "npu/hw/sram/sram.hpp"

#if __has_include("npu/hw/ddr/ddr_module.hpp")
#include "npu/hw/ddr/ddr_module.hpp"
#define NPU_HAVE_DDR_MODULE 1
#else
#define NPU_HAVE_DDR_MODULE 0
#endif

namespace npu::hw {

class DdrTraceSink;
class DdrModule;

struct NpuTopOptions {
  bool ideal_memory = false;
  DdrTraceSink* ddr_trace = nullptr;  ///< per-burst records from the DDR model (not with ideal memory)
  std::string program_source = "<program>";  ///< names the program in messages
  /// Functional mode (docs/functional.md): the DDR contents, read and written by the program's
  /// LOAD/STORE; the units compute real values. nullptr (default): timing only. Same timing
  /// either way. Must outlive the module.
  BackingStore* ddr_data = nullptr;
  /// The DMA engines time each burst by a direct call to the DDR model (BurstTimingTarget) instead
  /// of a TLM transaction: the same timing, less work per burst. false: every burst through the
  /// socket (tests compare the two).
  bool direct_burst_timing = true;
};

class NpuTop : public sc_core::sc_module {
 public:
  SC_HAS_PROCESS(NpuTop);

  /// `hw` and `program` must outlive the module. Throws std::invalid_argument on a config the
  /// units cannot be built from (zero SRAM bandwidth, no clock).
  NpuTop(sc_core::sc_module_name name, const HwConfig& hw, const isa::Program& program, const NpuTopOptions& opt);
  ~NpuTop() override;

  SimError error;
  Sram sram;
  Dma dma_load;
  Dma dma_store;
  MacArray mac_array;
  ActUnit act_unit;
  Controller controller;
  /// The data path in functional mode (NpuTopOptions::ddr_data), else nullptr.
  DataPath* data_path() { return data_.get(); }

  /// DDR bandwidth in GB/s: sum of the two engines' descriptor means, updated per descriptor.
  sc_core::sc_signal<double> ddr_gbps;
  /// DDR bandwidth per time window in GB/s: the bytes whose requests completed in the window
  /// [k w, (k+1) w) divided by w, written at the window's end ((k+1) w); w = kBandwidthWindowPs.
  /// Sampled only when trace() was called (one wake-up per window, not per clock).
  sc_core::sc_signal<double> ddr_window_gbps;
  static constexpr std::uint64_t kBandwidthWindowPs = 1000000;  ///< 1 us

  bool has_ddr_model() const;
  /// The DDR model, or nullptr with ideal memory or when this build has no DDR model.
  DdrModule* ddr() { return ddr_; }
  IdealMemory* ideal_memory() { return ideal_.get(); }

  /// Register unit busy signals and the DDR bandwidth signals with `tf` (call before sc_start).
  void trace(sc_core::sc_trace_file* tf);
  using sc_core::sc_module::trace;  // keep sc_object's const overload visible (clang -Woverloaded-virtual)

 private:
  void ddr_bandwidth_method();
  void ddr_window_thread();
  std::unique_ptr<BandwidthWindows> windows_;
  std::unique_ptr<DataPath> data_;
  std::unique_ptr<IdealMemory> ideal_;
  std::unique_ptr<sc_core::sc_module> ddr_owner_;
  DdrModule* ddr_ = nullptr;
};

}  // namespace npu::hw
