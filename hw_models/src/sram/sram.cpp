#include "npu/hw/sram/sram.hpp"

#include <cmath>

namespace npu::hw {

Sram::Sram(sc_core::sc_module_name name, const SramConfig& cfg, double core_period_ps, bool ideal)
    : sc_core::sc_module(name), socket("socket"), timing_(cfg, ideal), period_ps_(core_period_ps) {
  socket.register_b_transport(this, &Sram::b_transport);
}

std::uint64_t Sram::cycle_at(std::uint64_t ps) const {
  return std::uint64_t(std::ceil(double(ps) / period_ps_ - 1e-9));
}

std::uint64_t Sram::ps_at(std::uint64_t cycle) const { return std::uint64_t(std::llround(double(cycle) * period_ps_)); }

SramTimedAccess Sram::access(std::uint64_t request_ps, std::uint64_t addr, std::uint64_t bytes, bool write) {
  const std::uint64_t c = cycle_at(request_ps);
  const SramAccessResult r = timing_.access(c, addr, bytes, write);
  SramTimedAccess out;
  out.ok = r.ok;
  out.conflict_cycles = r.conflict_cycles;
  out.done_ps = r.done_cycle == c ? request_ps : ps_at(r.done_cycle);
  return out;
}

void Sram::b_transport(int, tlm::tlm_generic_payload& gp, sc_core::sc_time& delay) {
  const std::uint64_t now_ps = std::uint64_t(sc_core::sc_time_stamp().value());
  const std::uint64_t req_ps = now_ps + std::uint64_t(delay.value());
  const SramTimedAccess r = access(req_ps, gp.get_address(), gp.get_data_length(), gp.is_write());
  if (!r.ok) {
    gp.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
    return;
  }
  delay = sc_core::sc_time::from_value(r.done_ps - now_ps);
  gp.set_response_status(tlm::TLM_OK_RESPONSE);
}

}  // namespace npu::hw
