// A memory model that times one DMA burst by a direct call, without a TLM transaction: the
// timing counterpart of TLM-2.0's direct memory interface (DMI), which hands an initiator a
// pointer to the target's storage so that a load or store skips the socket. Here the DMA keeps
// the same request and answer as b_transport (same offered time, same done time, same traffic
// tag) and skips only the payload set-up, the socket's virtual calls and the sc_time
// arithmetic, per 64-byte burst (docs/performance.md, "The DMA's direct burst call").
#pragma once

#include <cstdint>
#include <string>

namespace npu::hw {

class BurstTimingTarget {
 public:
  virtual ~BurstTimingTarget() = default;

  /// Times a request of `bytes` (> 0) DDR bytes at `ddr_addr`, offered at `offered_ps`
  /// (simulation time in ps; >= now_ps), as b_transport with delay = offered_ps - now_ps would.
  /// `layer` / `tensor` label the traffic (nullptr: unlabelled). On success sets `done_ps` to
  /// the time the target is done with it, never before `now_ps`, and returns true. Returns
  /// false, changing nothing, when the request lies outside the target's capacity: the caller
  /// then sends it through the socket, which answers TLM_ADDRESS_ERROR_RESPONSE.
  virtual bool time_burst(bool is_write, std::uint64_t ddr_addr, std::uint32_t bytes, std::uint64_t offered_ps,
                          std::uint64_t now_ps, const std::string* layer, const std::string* tensor,
                          std::uint64_t& done_ps) = 0;
};

}  // namespace npu::hw
