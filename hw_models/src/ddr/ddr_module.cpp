#include "npu/hw/ddr/ddr_module.hpp"

#include <algorithm>
#include <cmath>

#include "npu/hw/traffic_tag.hpp"

namespace npu::hw {

DdrModule::DdrModule(sc_core::sc_module_name name, const npu::DdrConfig& cfg)
    : sc_core::sc_module(name),
      socket("socket"),
      core_(cfg, std::string(this->name())),
      tck_(cfg.tck_ns(), sc_core::SC_NS),
      tck_ps_(cfg.tck_ns() * 1000.0),
      ps_resolution_(sc_core::sc_get_time_resolution() == sc_core::sc_time(1, sc_core::SC_PS)),
      burst_bytes_(std::uint64_t(core_.config().burst_bytes())),
      burst_mask_((burst_bytes_ & (burst_bytes_ - 1)) == 0 ? ~(burst_bytes_ - 1) : 0) {
  // One transaction is served per call: let the next one's PRE/ACT overlap this one's
  // column commands, as a queue-based controller would (docs/ddr.md, "TLM target").
  core_.set_overlap_row_commands(true);
  // One request port per channel (docs/ddr.md, "TLM target"): with one channel as before.
  core_.set_frontend_per_channel(true);
  socket.register_b_transport(this, &DdrModule::b_transport);
  socket.register_transport_dbg(this, &DdrModule::transport_dbg);
}

void DdrModule::b_transport(int /*id*/, tlm::tlm_generic_payload& gp, sc_core::sc_time& delay) {
  const tlm::tlm_command cmd = gp.get_command();
  if (cmd == tlm::TLM_IGNORE_COMMAND) {
    gp.set_response_status(tlm::TLM_OK_RESPONSE);
    return;
  }
  if (cmd != tlm::TLM_READ_COMMAND && cmd != tlm::TLM_WRITE_COMMAND) {
    gp.set_response_status(tlm::TLM_COMMAND_ERROR_RESPONSE);
    return;
  }
  const std::uint64_t addr = gp.get_address();
  const std::uint64_t len = gp.get_data_length();
  if (len == 0) {
    gp.set_response_status(tlm::TLM_OK_RESPONSE);
    return;
  }
  if (!inside_capacity(addr, len)) {
    gp.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
    return;
  }
  const std::string* layer = nullptr;
  const std::string* tensor = nullptr;
  if (auto* tag = gp.get_extension<TrafficTag>()) {
    layer = tag->layer;
    tensor = tag->tensor;
  }
  const sc_core::sc_time offered = sc_core::sc_time_stamp() + delay;
  const Tick done = serve_span(addr, len, cmd == tlm::TLM_WRITE_COMMAND, ready_tick(offered), layer, tensor);
  const sc_core::sc_time done_time = sc_core::sc_time::from_value(done_time_ps(done));
  const sc_core::sc_time now = sc_core::sc_time_stamp();
  delay = done_time > now ? done_time - now : sc_core::SC_ZERO_TIME;
  gp.set_response_status(tlm::TLM_OK_RESPONSE);
}

bool DdrModule::time_burst(bool is_write, std::uint64_t ddr_addr, std::uint32_t bytes, std::uint64_t offered_ps,
                           std::uint64_t now_ps, const std::string* layer, const std::string* tensor,
                           std::uint64_t& done_ps) {
  if (!ps_resolution_ || bytes == 0 || !inside_capacity(ddr_addr, bytes)) return false;
  if (offered_ps != last_offered_value_) {
    last_ready_ = ready_tick(offered_ps_of(offered_ps));
    last_offered_value_ = offered_ps;
  }
  const Tick done = serve_span(ddr_addr, bytes, is_write, last_ready_, layer, tensor);
  done_ps = std::max(done_time_ps(done), now_ps);  // b_transport's delay is never negative
  return true;
}

double DdrModule::offered_ps_of(std::uint64_t value) {
  // sc_time::to_seconds() is value x time_resolution x 1e-15 with time_resolution = 1000 (fs) at a
  // 1 ps resolution (SystemC 2.3.4, sc_time.cpp), then x 1e12 as b_transport did: the same three
  // products in the same order give the same double, without the simulation-context lookup.
  return double(value) * 1000.0 * 1e-15 * 1e12;
}

Tick DdrModule::ready_tick(const sc_core::sc_time& offered) const {
  return ready_tick(ps_resolution_ ? offered_ps_of(offered.value()) : offered.to_seconds() * 1e12);
}

Tick DdrModule::ready_tick(double offered_ps) const {
  // Round the offer up to a DRAM clock edge (tolerating the 1 ps resolution of tCK).
  return Tick(std::ceil(offered_ps / tck_ps_ - 1e-6));
}

bool DdrModule::inside_capacity(std::uint64_t addr, std::uint64_t len) const {
  const std::uint64_t capacity = core_.capacity_bytes();
  return addr < capacity && len <= capacity - addr;
}

Tick DdrModule::serve_span(std::uint64_t addr, std::uint64_t len, bool is_write, Tick ready,
                           const std::string* layer, const std::string* tensor) {
  const std::uint64_t burst = burst_bytes_;
  // The burst's first byte: a mask for a power-of-two burst (every preset), else a division.
  const std::uint64_t first = burst_mask_ != 0 ? addr & burst_mask_ : addr / burst * burst;
  const std::uint64_t last = burst_mask_ != 0 ? (addr + len - 1) & burst_mask_ : (addr + len - 1) / burst * burst;
  if (first == last)  // one burst (a DMA burst no wider than the DRAM's): offer + complete in one call
    return std::max(ready, core_.serve(first, is_write, ready, layer, tensor));
  // Offer every burst first (the front end takes one per tCK), then run until each is served.
  offered_bursts_.clear();
  for (std::uint64_t a = first; a <= last; a += burst)
    offered_bursts_.push_back(core_.offer(a, is_write, ready, layer, tensor, /*track=*/true));
  Tick done = ready;
  for (const auto& o : offered_bursts_) done = std::max(done, core_.complete(o));
  return done;
}

std::uint64_t DdrModule::done_time_ps(Tick done) const {
  // sc_time(v, SC_PS) stores int64(v x scale + 0.5) with scale = 1 at a 1 ps resolution
  // (SystemC 2.3.4, sc_time.cpp): the same value without the constructor's context lookups.
  const double done_ps = double(done) * tck_ps_;
  return ps_resolution_ && done_ps > 0 ? std::uint64_t(std::int64_t(done_ps + 0.5))
                                       : std::uint64_t(sc_core::sc_time(done_ps, sc_core::SC_PS).value());
}

unsigned int DdrModule::transport_dbg(int /*id*/, tlm::tlm_generic_payload& gp) {
  // Timing model only: no data are stored, so debug access moves nothing.
  gp.set_response_status(tlm::TLM_OK_RESPONSE);
  return 0;
}

}  // namespace npu::hw

// libsystemc's main() references sc_main; programs using DdrModule are driven from their
// own main() (GoogleTest, the npu tool), so a weak stub satisfies the reference when the
// program does not define sc_main itself (same device as npu_top.cpp).
__attribute__((weak)) int sc_main(int, char*[]) { return 1; }
