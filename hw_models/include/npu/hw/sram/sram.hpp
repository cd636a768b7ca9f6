// SystemC wrapper of the SRAM scratchpad: a TLM-2.0 target around SramTiming.
#pragma once

#include <systemc>
#include <tlm>
#include <tlm_utils/multi_passthrough_target_socket.h>

#include "npu/hw/sram/sram_timing.hpp"

namespace npu::hw {

/// Result of an access in simulated time (picoseconds).
struct SramTimedAccess {
  bool ok = true;
  std::uint64_t done_ps = 0;
  std::uint64_t conflict_cycles = 0;
};

class Sram : public sc_core::sc_module {
 public:
  /// Loosely-timed target: b_transport annotates the delay until the access is done and
  /// answers TLM_ADDRESS_ERROR_RESPONSE past the capacity. Data is not stored (timing mode).
  /// Binding it is optional: the NPU's own units use access() directly.
  tlm_utils::multi_passthrough_target_socket<Sram, 32, tlm::tlm_base_protocol_types, 0, sc_core::SC_ZERO_OR_MORE_BOUND>
      socket;

  /// `core_period_ps`: core clock period; `ideal`: accesses complete at once.
  Sram(sc_core::sc_module_name name, const SramConfig& cfg, double core_period_ps, bool ideal);

  /// Direct access for the units of this NPU (same timing as b_transport): requested at
  /// `request_ps` (>= current simulation time).
  SramTimedAccess access(std::uint64_t request_ps, std::uint64_t addr, std::uint64_t bytes, bool write);

  SramTiming& timing() { return timing_; }
  const SramTiming& timing() const { return timing_; }
  double core_period_ps() const { return period_ps_; }

  /// Cycle containing `ps` rounded up, and the start of cycle `c`, in picoseconds.
  std::uint64_t cycle_at(std::uint64_t ps) const;
  std::uint64_t ps_at(std::uint64_t cycle) const;

 private:
  void b_transport(int id, tlm::tlm_generic_payload& gp, sc_core::sc_time& delay);
  SramTiming timing_;
  double period_ps_;
};

}  // namespace npu::hw
