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

// Bytes of one DRAM burst, which every request is charged whole (dram_bytes_touched); 0 when
// requests are charged their own bytes: no DRAM geometry, or memory.model fixed, whose bus
// (IdealMemory) is busy for exactly a request's bytes: charging the ddr section's bursts there
// counted bytes no bus time was spent on (a strided LOAD of 32-byte rows at 1 GB/s reported
// 199 % of the peak).
std::uint64_t dram_burst_bytes(const HwConfig& hw) {
  if (hw.memory.model == MemoryModel::Fixed) return 0;
  return hw.ddr.bus_width_bits > 0 && hw.ddr.burst_length > 0 ? std::uint64_t(hw.ddr.burst_bytes()) : 0;
}

}  // namespace

Dma::Dma(sc_core::sc_module_name name, const HwConfig& hw, Sram& sram, SimError& error, bool ideal)
    : sc_core::sc_module(name), ddr_socket("ddr_socket"), busy("busy"), bandwidth_gbps("bandwidth_gbps"), hw_(hw),
      sram_(sram), error_(error), ideal_(ideal), sizing_(dma_sizing(hw)),
      mapper_(hw.ddr.channels > 1 ? std::make_unique<AddressMapper>(hw.ddr, hw.source) : nullptr),
      window_(sizing_.outstanding_per_channel, ideal ? 0 : std::uint64_t(std::llround(sram.core_period_ps())),
              sizing_.requests_per_cycle, std::max(1, hw.ddr.channels)),
      tag_(new TrafficTag), scratch_(std::size_t(std::max(1, hw.dma.burst_bytes)), 0),
      dram_burst_bytes_(dram_burst_bytes(hw)) {
  gp_.set_extension(tag_);
  gp_.set_byte_enable_ptr(nullptr);
  gp_.set_byte_enable_length(0);
  gp_.set_dmi_allowed(false);
}

Dma::Transfer::Transfer(bool is_load, std::uint64_t start, ExecRecord& record, SramLines sram_lines)
    : load(is_load), start_ps(start), rec(record), lines(sram_lines), stalls(start) {}

void Dma::execute(const isa::Instruction& inst, std::size_t index, ExecRecord& rec) {
  const auto& desc = std::get<isa::DmaDesc>(inst.params);
  const std::uint64_t start_ps = std::uint64_t(sc_core::sc_time_stamp().value());
  const std::uint64_t bytes_total = desc.bytes();
  rec.start_ps = start_ps;
  busy.write(true);

  tag_->layer = &inst.layer;
  tag_->tensor = &inst.tensor;
  tag_->instruction_index = int(index);
  const bool load = inst.op == isa::Opcode::Load;
  gp_.set_command(load ? tlm::TLM_READ_COMMAND : tlm::TLM_WRITE_COMMAND);

  window_.reset(start_ps);
  const std::uint32_t burst_bytes = std::uint32_t(std::max(1, hw_.dma.burst_bytes));
  const std::uint64_t line_bytes = std::uint64_t(std::max(1, hw_.sram.bytes_per_cycle));
  Transfer x(load, start_ps, rec, SramLines(line_bytes, burst_bytes, desc.sram_addr + bytes_total));
  BurstSplitter split(desc, burst_bytes);
  DmaBurst b;
  while (split.next(b) && issue_burst(x, b)) {
  }
  if (!error_.set) flush_load_line(x);
  if (error_.set) {
    busy.write(false);
    sc_core::sc_stop();
    return;
  }
  finish(x, bytes_total);
}

bool Dma::issue_burst(Transfer& x, const DmaBurst& b) {
  const int channel = mapper_ ? mapper_->decode(b.ddr_addr).channel : 0;
  if (window_.needs_completion(channel) && !flush_load_line(x)) return false;
  std::uint64_t issue_ps = 0, now_ps = 0;
  if (!wait_for_issue(x, channel, issue_ps, now_ps)) return false;
  std::uint64_t ddr_req_ps = issue_ps;
  if (!x.load) {  // STORE reads the SRAM first (a line at a time), then writes DDR
    if (!x.store_line.contains(b.sram_addr, b.bytes) && !read_store_line(x, b, issue_ps)) return false;
    ddr_req_ps = std::max(issue_ps, x.store_line_ready_ps);
  }
  std::uint64_t done_ps = 0;
  if (!transport(x.load, b, ddr_req_ps, now_ps, done_ps)) return false;
  window_.issued(channel, issue_ps);
  ++x.rec.ddr_bursts;
  const std::uint64_t dram_bytes = dram_bytes_touched(b.ddr_addr, b.bytes, dram_burst_bytes_);
  x.dram_bytes += dram_bytes;
  if (!x.load) {
    completed(x, channel, done_ps, b.bytes, dram_bytes);
    return true;
  }
  x.pending.add(channel, b, dram_bytes, done_ps);
  return !x.lines.load_line_full(x.pending.bytes()) || flush_load_line(x);
}

bool Dma::wait_for_issue(Transfer& x, int channel, std::uint64_t& issue_ps, std::uint64_t& now_ps) {
  issue_ps = window_.next_issue_ps(channel);
  now_ps = std::uint64_t(sc_core::sc_time_stamp().value());
  if (issue_ps <= now_ps + kDecouplingQuantumPs) return true;
  if (!flush_load_line(x)) return false;  // SRAM accesses before the calendar retires the past
  issue_ps = window_.next_issue_ps(channel);
  wait(sc_core::sc_time::from_value(issue_ps - now_ps));
  now_ps = issue_ps;
  sram_.timing().retire_before(sram_.cycle_at(now_ps));
  return true;
}

bool Dma::read_store_line(Transfer& x, const DmaBurst& b, std::uint64_t issue_ps) {
  x.store_line = x.lines.store_read(b);
  const SramRange& r = x.store_line;
  const SramTimedAccess s = sram_.access(issue_ps, r.lo, r.hi - r.lo, false);
  if (!s.ok) {
    error_.raise("SRAM read [" + std::to_string(r.lo) + ", " + std::to_string(r.hi) +
                 ") is past sram.capacity_bytes " + std::to_string(sram_.timing().config().capacity_bytes));
    return false;
  }
  x.rec.sram_conflict_cycles = std::max(x.rec.sram_conflict_cycles, s.conflict_cycles);
  x.store_line_ready_ps = s.done_ps;
  return true;
}

bool Dma::flush_load_line(Transfer& x) {
  const LoadLineBuffer& p = x.pending;
  if (p.empty()) return true;
  const SramTimedAccess s = sram_.access(p.ready_ps(), p.sram_addr(), p.bytes(), true);
  if (!s.ok) {
    error_.raise("SRAM write [" + std::to_string(p.sram_addr()) + ", " + std::to_string(p.sram_addr() + p.bytes()) +
                 ") is past sram.capacity_bytes " + std::to_string(sram_.timing().config().capacity_bytes));
    return false;
  }
  x.rec.sram_conflict_cycles = std::max(x.rec.sram_conflict_cycles, s.conflict_cycles);
  for (const LoadLineBuffer::Arrival& a : p.arrivals()) completed(x, a.channel, s.done_ps, a.bytes, a.dram_bytes);
  x.pending.clear();
  return true;
}

void Dma::completed(Transfer& x, int channel, std::uint64_t done_ps, std::uint64_t bytes, std::uint64_t dram_bytes) {
  x.stalls.completed(done_ps, bytes);
  window_.completed(channel, done_ps);
  if (windows_) windows_->add(done_ps, dram_bytes);
}

bool Dma::transport(bool load, const DmaBurst& b, std::uint64_t req_ps, std::uint64_t now_ps, std::uint64_t& done_ps) {
  if (target_ && target_->time_burst(!load, b.ddr_addr, b.bytes, req_ps, now_ps, tag_->layer, tag_->tensor, done_ps))
    return true;  // else the socket answers (an address outside the DDR: the error below)
  gp_.set_address(b.ddr_addr);
  gp_.set_data_ptr(scratch_.data());
  gp_.set_data_length(b.bytes);
  gp_.set_streaming_width(b.bytes);
  gp_.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
  sc_core::sc_time delay = sc_core::sc_time::from_value(req_ps - now_ps);
  ddr_socket->b_transport(gp_, delay);
  if (gp_.get_response_status() != tlm::TLM_OK_RESPONSE) {
    error_.raise(std::string("DDR ") + (load ? "read" : "write") + " of " + std::to_string(b.bytes) +
                 " B at address " + hex(b.ddr_addr) + " failed (" + gp_.get_response_string() +
                 "): the address is outside the DDR capacity of " + hex(hw_.ddr.capacity_bytes()) +
                 " bytes; fix the tensor's address or the descriptor's extents/strides");
    return false;
  }
  done_ps = now_ps + std::uint64_t(delay.value());
  return true;
}

void Dma::finish(Transfer& x, std::uint64_t bytes_total) {
  const std::uint64_t end_ps = window_.all_done_ps();
  const std::uint64_t now_ps = std::uint64_t(sc_core::sc_time_stamp().value());
  const std::uint64_t dur_ps = end_ps - x.start_ps;
  bandwidth_gbps.write(dur_ps > 0 ? double(bytes_total) * 1000.0 / double(dur_ps) : 0.0);
  if (end_ps > now_ps) wait(sc_core::sc_time::from_value(end_ps - now_ps));
  busy.write(false);
  bandwidth_gbps.write(0.0);

  ExecRecord& rec = x.rec;
  rec.end_ps = end_ps;
  (x.load ? rec.ddr_read_bytes : rec.ddr_write_bytes) = x.dram_bytes;
  (x.load ? rec.sram_write_bytes : rec.sram_read_bytes) = bytes_total;
  if (!ideal_ && bytes_total > 0) {
    const DmaStalls stalls = x.stalls.split(end_ps, bytes_total, hw_.ddr.peak_gbps());
    rec.ddr_latency_ps = stalls.latency_ps;
    rec.ddr_bandwidth_stall_ps = stalls.bandwidth_stall_ps;
  }
}

}  // namespace npu::hw
