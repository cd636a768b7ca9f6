#include "npu/hw/ideal_memory.hpp"

#include <algorithm>
#include <cmath>

namespace npu::hw {

IdealMemory::IdealMemory(sc_core::sc_module_name name, std::uint64_t capacity_bytes, std::uint64_t latency_ps,
                         double bytes_per_ns)
    : sc_core::sc_module(name), socket("socket"), capacity_(capacity_bytes), latency_ps_(latency_ps),
      bytes_per_ns_(bytes_per_ns) {
  socket.register_b_transport(this, &IdealMemory::b_transport);
}

void IdealMemory::b_transport(int, tlm::tlm_generic_payload& gp, sc_core::sc_time& delay) {
  const std::uint64_t addr = gp.get_address(), len = gp.get_data_length();
  if (addr > capacity_ || len > capacity_ - addr) {
    gp.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
    return;
  }
  ++stats_.requests;
  (gp.is_write() ? stats_.write_bytes : stats_.read_bytes) += len;
  const std::uint64_t now_ps = std::uint64_t(sc_core::sc_time_stamp().value());
  std::uint64_t t = now_ps + std::uint64_t(delay.value());
  if (bytes_per_ns_ > 0) {
    const std::uint64_t start = std::max(t, bus_free_ps_);
    bus_free_ps_ = start + std::uint64_t(std::llround(double(len) * 1000.0 / bytes_per_ns_));
    t = bus_free_ps_;
  }
  t += latency_ps_;
  delay = sc_core::sc_time::from_value(t - now_ps);
  gp.set_response_status(tlm::TLM_OK_RESPONSE);
}

}  // namespace npu::hw
