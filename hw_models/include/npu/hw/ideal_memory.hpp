// Ideal TLM memory target: answers every request at once (or after a fixed latency and a
// bandwidth limit, for tests), enforcing only the capacity. Used by `--ideal-memory` in place
// of the DDR model, and to test the DMA without the DDR model.
#pragma once

#include <cstdint>

#include <systemc>
#include <tlm>
#include <tlm_utils/multi_passthrough_target_socket.h>

namespace npu::hw {

struct IdealMemoryStats {
  std::uint64_t read_bytes = 0, write_bytes = 0, requests = 0;
};

class IdealMemory : public sc_core::sc_module {
 public:
  tlm_utils::multi_passthrough_target_socket<IdealMemory> socket;

  /// `latency_ps` per request; `bytes_per_ns` > 0 serialises requests on one shared bus at
  /// that rate (0 = unlimited). Addresses at or past `capacity_bytes` get
  /// TLM_ADDRESS_ERROR_RESPONSE.
  IdealMemory(sc_core::sc_module_name name, std::uint64_t capacity_bytes, std::uint64_t latency_ps = 0,
              double bytes_per_ns = 0);

  const IdealMemoryStats& stats() const { return stats_; }

 private:
  void b_transport(int id, tlm::tlm_generic_payload& gp, sc_core::sc_time& delay);
  std::uint64_t capacity_, latency_ps_;
  double bytes_per_ns_;
  std::uint64_t bus_free_ps_ = 0;
  IdealMemoryStats stats_;
};

}  // namespace npu::hw
