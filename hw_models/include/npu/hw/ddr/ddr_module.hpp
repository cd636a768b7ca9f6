// SystemC/TLM-2.0 wrapper of the DDR timing core (see docs/ddr.md, "TLM target").
#pragma once

#include <systemc>
#include <tlm>
#include <tlm_utils/multi_passthrough_target_socket.h>

#include <string>
#include <vector>

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
class DdrModule : public sc_core::sc_module {
 public:
  tlm_utils::multi_passthrough_target_socket<DdrModule> socket;

  /// Throws ConfigError for an invalid config (validate_ddr_config).
  DdrModule(sc_core::sc_module_name name, const npu::DdrConfig& cfg);

  const DdrStats& stats() const { return core_.stats(); }
  void set_trace_sink(DdrTraceSink* sink) { core_.set_trace_sink(sink); }
  const DdrSystem& core() const { return core_; }

  /// DRAM clock period.
  sc_core::sc_time tck() const { return tck_; }

 private:
  void b_transport(int id, tlm::tlm_generic_payload& gp, sc_core::sc_time& delay);
  unsigned int transport_dbg(int id, tlm::tlm_generic_payload& gp);

  DdrSystem core_;
  std::vector<DdrSystem::Offered> offered_bursts_;  ///< b_transport's bursts, reused (b_transport never waits)
  sc_core::sc_time tck_;
  double tck_ps_;
  bool ps_resolution_;  ///< the simulation's time resolution is 1 ps (SystemC's default)
};

}  // namespace npu::hw
