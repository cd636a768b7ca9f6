// SystemC DMA engine: executes LOAD (DDR -> SRAM) and STORE (SRAM -> DDR) descriptors as
// DDR bursts through a TLM initiator socket (the DDR model, or the ideal memory), or by a direct
// call with the same answers where the model offers one (BurstTimingTarget), issuing up to
// requests_per_cycle requests per core cycle and keeping up to max_outstanding in flight per
// DDR channel (dma_sizing.hpp: both derived from the config unless set). Every burst carries a
// TrafficTag (layer, tensor, instruction index; the direct call passes the layer and tensor). The NPU has two engines, one per queue, so
// LOAD and STORE traffic contend in the DDR model.
//
// SRAM side: the engine moves SRAM data in lines of sram.bytes_per_cycle bytes (one port
// cycle). When a line is wider than a burst, a LOAD combines the bursts that fill a line into
// one SRAM write (issued when the last of them has arrived) and a STORE reads a line once for
// the bursts it feeds; otherwise every burst is its own SRAM access (docs/timing.md, "DMA").
//
// Loosely timed: bursts are offered ahead of simulation time (the DDR model keeps its own
// per-bank and per-bus timelines) and the engine synchronises with wait() once per
// kDecouplingQuantumPs of run-ahead and once at the end of the descriptor.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>

#include <memory>

#include "npu/hw/burst_timing_target.hpp"
#include "npu/hw/controller/exec_record.hpp"
#include "npu/hw/ddr/address_mapper.hpp"
#include "npu/hw/dma/dma_sizing.hpp"
#include "npu/hw/dma/bandwidth_windows.hpp"
#include "npu/hw/dma/dma_timing.hpp"
#include "npu/hw/sram/sram.hpp"
#include "npu/hw/traffic_tag.hpp"
#include "npu/hw_config/hw_config.hpp"
#include "npu/isa/instruction.hpp"

namespace npu::hw {

class Dma : public sc_core::sc_module {
 public:
  /// Run-ahead limit of the loosely-timed burst loop (1 us of simulated time).
  static constexpr std::uint64_t kDecouplingQuantumPs = 1000000;

  tlm_utils::simple_initiator_socket<Dma> ddr_socket;
  sc_core::sc_signal<bool> busy;           ///< high while a descriptor is in flight (VCD)
  sc_core::sc_signal<double> bandwidth_gbps;  ///< mean GB/s of the descriptor in flight (VCD)

  /// `ideal`: no issue interval (with an ideal memory and SRAM a descriptor takes no time).
  /// Throws ConfigError for a ddr.address_mapping the DDR model would reject (several channels).
  Dma(sc_core::sc_module_name name, const HwConfig& hw, Sram& sram, SimError& error, bool ideal);

  /// The resolved issue width and window (dma_sizing(hw)).
  const DmaSizing& sizing() const { return sizing_; }

  /// Execute LOAD or STORE `inst` (index `index` of the program); blocks (wait) until the
  /// last burst completes. Fills the DMA fields of `rec`. On a DDR address error or an SRAM
  /// range error it raises `error` (the controller adds the instruction), calls sc_stop() and returns.
  void execute(const isa::Instruction& inst, std::size_t index, ExecRecord& rec);
  /// Optional: every DDR request's bytes are added at its completion time (VCD bandwidth).
  void set_bandwidth_windows(BandwidthWindows* windows) { windows_ = windows; }
  /// Times bursts by a direct call to `target` (the model ddr_socket is bound to) instead of a
  /// TLM transaction: the same answers (burst_timing_target.hpp); nullptr goes back to the socket.
  void set_timing_target(BurstTimingTarget* target) { target_ = target; }

 private:
  BandwidthWindows* windows_ = nullptr;
  BurstTimingTarget* target_ = nullptr;
  const HwConfig& hw_;
  Sram& sram_;
  SimError& error_;
  bool ideal_;
  DmaSizing sizing_;
  std::unique_ptr<AddressMapper> mapper_;  // channel of a request; null with one channel
  OutstandingWindow window_;
  tlm::tlm_generic_payload gp_;
  TrafficTag* tag_;  // owned by gp_
  std::vector<unsigned char> scratch_;
  std::uint64_t dram_burst_bytes_;  // bytes of one DRAM burst (0: no DRAM geometry), dram_bytes_touched()

  // One descriptor in flight (execute()); times in ps.
  struct Transfer {
    Transfer(bool is_load, std::uint64_t start, ExecRecord& record, SramLines sram_lines);
    bool load;
    std::uint64_t start_ps;
    ExecRecord& rec;
    SramLines lines;
    LoadLineBuffer pending;                 // LOAD: arrived bursts waiting for their SRAM line write
    SramRange store_line;                   // STORE: the SRAM range read last
    std::uint64_t store_line_ready_ps = 0;  // STORE: when store_line's data are ready
    DmaStallSplit stalls;
    std::uint64_t dram_bytes = 0;           // DRAM bytes moved (dram_bytes_touched of every burst)
  };
  // Each returns false after raising error_ (the caller stops).
  // Issue burst `b`: wait for the window, read its SRAM line (STORE), send it to DDR, record it.
  bool issue_burst(Transfer& x, const DmaBurst& b);
  // Earliest issue time of the next request to `channel` (issue_ps) and the simulation time
  // (now_ps); wait()s first when that lies more than kDecouplingQuantumPs ahead.
  bool wait_for_issue(Transfer& x, int channel, std::uint64_t& issue_ps, std::uint64_t& now_ps);
  // STORE: read the SRAM line that feeds burst `b`, from issue_ps.
  bool read_store_line(Transfer& x, const DmaBurst& b, std::uint64_t issue_ps);
  // LOAD: write the buffered bursts' line to SRAM and complete them at its done time.
  bool flush_load_line(Transfer& x);
  // Send `b` to DDR at req_ps (simulation time now_ps); done_ps is when the DDR is done with it.
  bool transport(bool load, const DmaBurst& b, std::uint64_t req_ps, std::uint64_t now_ps, std::uint64_t& done_ps);
  // A request to `channel` of `bytes` (`dram_bytes` in DRAM) completed at done_ps.
  void completed(Transfer& x, int channel, std::uint64_t done_ps, std::uint64_t bytes, std::uint64_t dram_bytes);
  // wait() for the last completion, then fill the record's bytes, end time and stall split.
  void finish(Transfer& x, std::uint64_t bytes_total);
};

}  // namespace npu::hw
