// SystemC/TLM-2.0 wrapper of the DDR timing core (see docs/ddr.md, "TLM target").
#pragma once

#include <systemc>
#include <tlm>
#include <tlm_utils/multi_passthrough_target_socket.h>

#include <string>
#include <vector>

#include "npu/hw/burst_timing_target.hpp"
#include "npu/hw/ddr/ddr_stats.hpp"
#include "npu/hw/ddr/ddr_system.hpp"
#include "npu/hw/ddr/ddr_trace.hpp"
#include "npu/hw_config/hw_config.hpp"

namespace npu::hw {

/// A TLM target in front of DdrSystem. Several initiators bind `socket`.
///
/// b_transport(id, gp, delay): the request covers gp.get_data_length() bytes at
/// gp.get_address(); it is split into burst-aligned DRAM bursts (burst_bytes each),
/// offered at sc_time_stamp() + delay rounded up to a DRAM clock. The call does not
/// wait(): it runs the timing core until the last burst is served and adds to `delay`
/// so that sc_time_stamp() + delay is the completion time (read data returned, write
/// data written). The core keeps its own per-bank and per-bus timelines, so requests of
/// several initiators contend for banks and buses.
///
/// Ordering: requests are served in the order b_transport is called. An offer whose
/// time is earlier than a request already accepted (an initiator running behind another
/// under temporal decoupling) is accepted at the front end's current tick instead (it
/// cannot overtake committed DRAM commands); its latency still counts from its own
/// offer time. Keep initiator quanta short for faithful contention.
///
/// Errors: an address range past the capacity -> TLM_ADDRESS_ERROR_RESPONSE; a command
/// other than read/write -> TLM_COMMAND_ERROR_RESPONSE (IGNORE -> OK, no time).
/// An npu::hw::TrafficTag extension labels the trace records with layer / tensor.
/// Data are not stored (timing model only).
class DdrModule : public sc_core::sc_module, public BurstTimingTarget {
 public:
  tlm_utils::multi_passthrough_target_socket<DdrModule> socket;

  /// Throws ConfigError for an invalid config (validate_ddr_config).
  DdrModule(sc_core::sc_module_name name, const npu::DdrConfig& cfg);

  const DdrStats& stats() const { return core_.stats(); }
  void set_trace_sink(DdrTraceSink* sink) { core_.set_trace_sink(sink); }
  const DdrSystem& core() const { return core_; }

  /// DRAM clock period.
  sc_core::sc_time tck() const { return tck_; }

  /// An sc_time value at a 1 ps resolution as ps in double, equal bit for bit to
  /// sc_time::from_value(value).to_seconds() * 1e12 (what the offer's rounding to a DRAM clock
  /// edge started from), computed without SystemC's context lookups.
  static double offered_ps_of(std::uint64_t value);

  /// BurstTimingTarget: b_transport's timing by a direct call (the DMA's per-burst path). Needs
  /// the 1 ps time resolution (NpuTop's); with another it returns false and the caller uses the
  /// socket.
  bool time_burst(bool is_write, std::uint64_t ddr_addr, std::uint32_t bytes, std::uint64_t offered_ps,
                  std::uint64_t now_ps, const std::string* layer, const std::string* tensor,
                  std::uint64_t& done_ps) override;

 private:
  void b_transport(int id, tlm::tlm_generic_payload& gp, sc_core::sc_time& delay);
  unsigned int transport_dbg(int id, tlm::tlm_generic_payload& gp);
  /// [addr, addr + len) lies inside the DDR capacity (else an address error).
  bool inside_capacity(std::uint64_t addr, std::uint64_t len) const;
  /// The DRAM clock edge at or after an offer (tolerating the 1 ps resolution of tCK).
  Tick ready_tick(const sc_core::sc_time& offered) const;
  Tick ready_tick(double offered_ps) const;
  /// Serves [addr, addr + len) (inside the capacity, len > 0) from tick `ready`; its done tick.
  Tick serve_span(std::uint64_t addr, std::uint64_t len, bool is_write, Tick ready, const std::string* layer,
                  const std::string* tensor);
  /// The done tick as an sc_time value (ps at a 1 ps resolution), as sc_time(done x tCK, SC_PS).
  std::uint64_t done_time_ps(Tick done) const;

  DdrSystem core_;
  std::vector<DdrSystem::Offered> offered_bursts_;  ///< b_transport's bursts, reused (b_transport never waits)
  sc_core::sc_time tck_;
  double tck_ps_;
  bool ps_resolution_;  ///< the simulation's time resolution is 1 ps (SystemC's default)
  std::uint64_t burst_bytes_;  ///< one DRAM burst (config().burst_bytes())
  std::uint64_t burst_mask_;   ///< ~(burst_bytes_ - 1) for a power-of-two burst, else 0 (divide)
  /// time_burst's last offer (an sc_time value) and its ready tick: the DMA offers up to
  /// requests_per_cycle bursts at one time, and ready_tick is a pure function of the offer, so
  /// the division and ceil are done once per distinct offer.
  std::uint64_t last_offered_value_ = ~std::uint64_t(0);
  Tick last_ready_ = 0;
};

}  // namespace npu::hw
