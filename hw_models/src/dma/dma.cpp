#include "npu/hw/dma/dma.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>

namespace npu::hw {

namespace {
std::string hex(std::uint64_t v) {
  std::ostringstream os;
  os << "0x" << std::hex << v;
  return os.str();
}
}  // namespace

Dma::Dma(sc_core::sc_module_name name, const HwConfig& hw, Sram& sram, SimError& error, bool ideal)
    : sc_core::sc_module(name), ddr_socket("ddr_socket"), busy("busy"), bandwidth_gbps("bandwidth_gbps"), hw_(hw),
      sram_(sram), error_(error), ideal_(ideal), sizing_(dma_sizing(hw)),
      mapper_(hw.ddr.channels > 1 ? std::make_unique<AddressMapper>(hw.ddr, hw.source) : nullptr),
      window_(sizing_.outstanding_per_channel, ideal ? 0 : std::uint64_t(std::llround(sram.core_period_ps())),
              sizing_.requests_per_cycle, std::max(1, hw.ddr.channels)),
      tag_(new TrafficTag), scratch_(std::size_t(std::max(1, hw.dma.burst_bytes)), 0) {
  gp_.set_extension(tag_);
  gp_.set_byte_enable_ptr(nullptr);
  gp_.set_byte_enable_length(0);
  gp_.set_dmi_allowed(false);
}

void Dma::execute(const isa::Instruction& inst, std::size_t index, ExecRecord& rec) {
  const auto& desc = std::get<isa::DmaDesc>(inst.params);
  const bool load = inst.op == isa::Opcode::Load;
  const std::uint64_t start_ps = std::uint64_t(sc_core::sc_time_stamp().value());
  const std::uint64_t bytes_total = desc.bytes();
  rec.start_ps = start_ps;
  busy.write(true);

  tag_->layer = &inst.layer;
  tag_->tensor = &inst.tensor;
  tag_->instruction_index = int(index);
  gp_.set_command(load ? tlm::TLM_READ_COMMAND : tlm::TLM_WRITE_COMMAND);

  window_.reset(start_ps);
  const std::uint32_t burst_bytes = std::uint32_t(std::max(1, hw_.dma.burst_bytes));
  BurstSplitter split(desc, burst_bytes);
  DmaBurst b;
  std::uint64_t first_done_ps = 0, first_bytes = 0;
  bool first = true;
  std::uint64_t served = 0;
  const std::uint64_t dram_burst = hw_.ddr.bus_width_bits > 0 && hw_.ddr.burst_length > 0
                                       ? std::uint64_t(hw_.ddr.burst_bytes()) : 0;
  // SRAM lines (see dma.hpp): combining only when a port cycle moves more than a burst.
  const std::uint64_t line_bytes = std::uint64_t(std::max(1, hw_.sram.bytes_per_cycle));
  const bool combine = line_bytes > burst_bytes;
  const std::uint64_t sram_end = desc.sram_addr + bytes_total;

  // LOAD: bursts whose SRAM write is combined into one line, in issue order.
  struct Arrived {
    int channel;
    std::uint32_t bytes;
    std::uint64_t served;
  };
  std::vector<Arrived> pending;
  std::uint64_t pending_sram = 0, pending_bytes = 0, pending_ready_ps = 0;
  const auto flush = [&]() -> bool {
    if (pending.empty()) return true;
    const SramTimedAccess s = sram_.access(pending_ready_ps, pending_sram, pending_bytes, true);
    if (!s.ok) {
      error_.raise("SRAM write [" + std::to_string(pending_sram) + ", " + std::to_string(pending_sram + pending_bytes) +
                   ") is past sram.capacity_bytes " + std::to_string(sram_.timing().config().capacity_bytes));
      return false;
    }
    rec.sram_conflict_cycles = std::max(rec.sram_conflict_cycles, s.conflict_cycles);
    for (const Arrived& a : pending) {
      if (first) {
        first = false;
        first_done_ps = s.done_ps;
        first_bytes = a.bytes;
      }
      window_.completed(a.channel, s.done_ps);
      if (windows_) windows_->add(s.done_ps, a.served);
    }
    pending.clear();
    pending_bytes = 0;
    pending_ready_ps = 0;
    return true;
  };
  // STORE: the SRAM line read last, [line_lo, line_hi), and when its data are ready.
  std::uint64_t line_lo = 0, line_hi = 0, line_ready_ps = 0;

  while (split.next(b)) {
    const int channel = mapper_ ? mapper_->decode(b.ddr_addr).channel : 0;
    if (window_.needs_completion(channel) && !flush()) break;
    std::uint64_t t = window_.next_issue_ps(channel);
    std::uint64_t now_ps = std::uint64_t(sc_core::sc_time_stamp().value());
    if (t > now_ps + kDecouplingQuantumPs) {
      if (!flush()) break;  // SRAM accesses before the calendar retires the past
      t = window_.next_issue_ps(channel);
      wait(sc_core::sc_time::from_value(t - now_ps));
      now_ps = t;
      sram_.timing().retire_before(sram_.cycle_at(now_ps));
    }
    std::uint64_t ddr_req_ps = t;
    if (!load) {  // STORE reads the SRAM first (a line at a time), then writes DDR
      if (b.sram_addr < line_lo || b.sram_addr + b.bytes > line_hi) {
        line_lo = b.sram_addr;
        line_hi = combine ? std::min(sram_end, b.sram_addr + std::max<std::uint64_t>(line_bytes, b.bytes))
                          : b.sram_addr + b.bytes;
        const SramTimedAccess s = sram_.access(t, line_lo, line_hi - line_lo, false);
        if (!s.ok) {
          error_.raise("SRAM read [" + std::to_string(line_lo) + ", " + std::to_string(line_hi) +
                       ") is past sram.capacity_bytes " + std::to_string(sram_.timing().config().capacity_bytes));
          break;
        }
        rec.sram_conflict_cycles = std::max(rec.sram_conflict_cycles, s.conflict_cycles);
        line_ready_ps = s.done_ps;
      }
      ddr_req_ps = std::max(t, line_ready_ps);
    }
    gp_.set_address(b.ddr_addr);
    gp_.set_data_ptr(scratch_.data());
    gp_.set_data_length(b.bytes);
    gp_.set_streaming_width(b.bytes);
    gp_.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
    sc_core::sc_time delay = sc_core::sc_time::from_value(ddr_req_ps - now_ps);
    ddr_socket->b_transport(gp_, delay);
    if (gp_.get_response_status() != tlm::TLM_OK_RESPONSE) {
      error_.raise(std::string("DDR ") + (load ? "read" : "write") + " of " + std::to_string(b.bytes) +
                   " B at address " + hex(b.ddr_addr) + " failed (" + gp_.get_response_string() +
                   "): the address is outside the DDR capacity of " + hex(hw_.ddr.capacity_bytes()) +
                   " bytes; fix the tensor's address or the descriptor's extents/strides");
      break;
    }
    const std::uint64_t done_ps = now_ps + std::uint64_t(delay.value());
    window_.issued(channel, t);
    ++rec.ddr_bursts;
    // DRAM moves whole bursts: count the DRAM bursts this request touches (docs/timing.md).
    const std::uint64_t burst_served =
        dram_burst > 0 ? (((b.ddr_addr + b.bytes - 1) / dram_burst) - (b.ddr_addr / dram_burst) + 1) * dram_burst
                       : b.bytes;
    served += burst_served;
    if (load) {
      if (pending.empty()) pending_sram = b.sram_addr;
      pending.push_back({channel, b.bytes, burst_served});
      pending_bytes += b.bytes;
      pending_ready_ps = std::max(pending_ready_ps, done_ps);
      if ((!combine || pending_bytes >= line_bytes) && !flush()) break;
    } else {
      if (first) {
        first = false;
        first_done_ps = done_ps;
        first_bytes = b.bytes;
      }
      window_.completed(channel, done_ps);
      if (windows_) windows_->add(done_ps, burst_served);
    }
  }
  if (!error_.set) flush();
  if (error_.set) {
    busy.write(false);
    sc_core::sc_stop();
    return;
  }
  const std::uint64_t end_ps = window_.all_done_ps();
  const std::uint64_t now_ps = std::uint64_t(sc_core::sc_time_stamp().value());
  const std::uint64_t dur_ps = end_ps - start_ps;
  bandwidth_gbps.write(dur_ps > 0 ? double(bytes_total) * 1000.0 / double(dur_ps) : 0.0);
  if (end_ps > now_ps) wait(sc_core::sc_time::from_value(end_ps - now_ps));
  busy.write(false);
  bandwidth_gbps.write(0.0);

  rec.end_ps = end_ps;
  (load ? rec.ddr_read_bytes : rec.ddr_write_bytes) = served;
  (load ? rec.sram_write_bytes : rec.sram_read_bytes) = bytes_total;
  // Stall split (docs/timing.md): at peak bandwidth the descriptor would take bytes/peak;
  // the first burst's wait beyond its own peak transfer time is latency, the rest bandwidth.
  if (!ideal_ && bytes_total > 0) {
    const double peak_bytes_per_ps = hw_.ddr.peak_gbps() / 1000.0;
    const auto at_peak = [&](std::uint64_t bytes) { return std::uint64_t(std::llround(double(bytes) / peak_bytes_per_ps)); };
    const std::uint64_t first_wait = first_done_ps - start_ps;
    rec.ddr_latency_ps = first_wait > at_peak(first_bytes) ? first_wait - at_peak(first_bytes) : 0;
    const std::uint64_t ideal_ps = at_peak(bytes_total) + rec.ddr_latency_ps;
    rec.ddr_bandwidth_stall_ps = dur_ps > ideal_ps ? dur_ps - ideal_ps : 0;
  }
}

}  // namespace npu::hw
