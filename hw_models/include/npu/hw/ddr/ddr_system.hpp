// The DDR timing core: address mapping, a front end, and one controller per channel.
// Used by the stand-alone trace mode (ddr_trace_file.hpp) and by the SystemC DdrModule.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "npu/hw/ddr/address_mapper.hpp"
#include "npu/hw/ddr/ddr_controller.hpp"
#include "npu/hw/ddr/ddr_stats.hpp"
#include "npu/hw/ddr/ddr_trace.hpp"

namespace npu::hw {

/// Plain C++ DDR model (no SystemC). Requests are single bursts (burst_bytes each).
///
/// Front end: requests are accepted in the order offered, at most one per DRAM clock,
/// never before their ready tick, and not while the target channel's read (or write)
/// queue is full (the front end then waits for the controller to free a slot; a slot
/// freed by a column command at tick t can be taken by a request at tick t).
///
/// Time advances per command, never per idle clock: offering a request first lets the
/// target channel issue every command due up to the request's tick.
class DdrSystem {
 public:
  /// Validates `cfg` (validate_ddr_config); `source` names it in error messages.
  explicit DdrSystem(const DdrConfig& cfg, const std::string& source = "<config>");

  struct Offered {
    std::uint64_t id = 0;
    int channel = 0;
    Tick accepted_ck = 0;  ///< tick the front end accepted the request
  };

  /// Offer one burst at byte address `addr` (must be < capacity_bytes(); otherwise
  /// std::out_of_range), ready at `ready_ck`. `layer` / `tensor` label the trace
  /// records (interned strings that outlive the run, or null). With `track`, the done
  /// tick is kept for complete().
  Offered offer(std::uint64_t addr, bool is_write, Tick ready_ck, const std::string* layer = nullptr,
                const std::string* tensor = nullptr, bool track = false);

  /// Run the request's channel until `req` (offered with track = true) is served;
  /// returns the tick its last data beat leaves the bus (reads: data returned; writes:
  /// data written). Later offers cannot overtake commands issued here.
  Tick complete(const Offered& req);

  /// complete(offer(addr, is_write, ready_ck, layer, tensor, true)) in one call: the same
  /// commands, ticks and statistics (tests/ddr/command_trace_golden_test.cpp checks it). A row
  /// hit offered to an idle channel is served without the queue (the TLM target's usual case:
  /// one DMA burst at a time streaming through an open row).
  Tick serve(std::uint64_t addr, bool is_write, Tick ready_ck, const std::string* layer = nullptr,
             const std::string* tensor = nullptr);

  /// Serve everything still queued in every channel.
  void drain();

  const DdrStats& stats() const { return stats_; }
  const DdrConfig& config() const { return cfg_; }
  const AddressMapper& mapper() const { return mapper_; }
  std::uint64_t capacity_bytes() const { return mapper_.capacity_bytes(); }
  /// Earliest tick the front end can accept the next request.
  Tick frontend_next_ck() const { return frontend_next_; }

  /// Transaction-at-a-time use (the TLM target): let a later request's PRE/ACT use free
  /// command-bus slots before an earlier request's RD/WR (ChannelState::set_split_cursors).
  /// Off by default: the trace mode sees its whole queue and issues in time order.
  void set_overlap_row_commands(bool on);

  /// Front end with one port per channel (the TLM target): each channel accepts at most one
  /// request per DRAM clock, independently of the others, so N channels take N requests per
  /// clock (a multi-channel controller has one request port per channel, e.g. HBM's per-channel
  /// AXI ports). A channel still accepts its own requests in order. Off by default: the trace
  /// mode's front end is DRAMSim3's trace CPU, one request per clock over all channels.
  void set_frontend_per_channel(bool on) { per_channel_frontend_ = on; }

  void set_trace_sink(DdrTraceSink* sink);
  void set_command_log(std::vector<DdrCommandRecord>* log);

 private:
  /// A burst request for `addr` (decoded, numbered); throws std::out_of_range past capacity.
  DdrRequest request(std::uint64_t addr, bool is_write, const std::string* layer, const std::string* tensor,
                     bool track);
  /// The front end accepts `req` (one per tick; waits while the queue is full): sets and
  /// returns req.arrival.
  Tick accept(DdrRequest& req, Tick ready_ck);
  DdrConfig cfg_;
  AddressMapper mapper_;
  DdrStats stats_;
  std::vector<std::unique_ptr<ChannelController>> channels_;
  int bank_groups_, banks_per_group_;
  std::uint64_t burst_mask_;
  std::uint64_t next_id_ = 1;
  Tick frontend_next_ = 0;
  bool per_channel_frontend_ = false;
  std::vector<Tick> channel_next_;  // per-channel front end: earliest tick of the next accept
};

/// Closed-form unloaded read latency on a quiet controller, in tCK, with the model's
/// one controller clock: row hit CL + BL/2 + 1; closed bank tRCD + CL + BL/2 + 1; row
/// conflict tRP + tRCD + CL + BL/2 + 1 (the conflict assumes tRAS/tRTP already met).
enum class RowState { Hit, Closed, Conflict };
Tick unloaded_read_latency_ck(const DdrConfig& cfg, RowState state);

}  // namespace npu::hw
