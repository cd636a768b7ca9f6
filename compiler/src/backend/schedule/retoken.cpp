// Dependency tokens from memory conflicts (retoken.hpp): for a depth-first stack's code and
// for a whole program after SRAM residency.
#include "npu/compiler/backend/schedule/retoken.hpp"

#include <algorithm>
#include <array>
#include <cstdint>
#include <iterator>
#include <map>
#include <utility>
#include <vector>

#include "npu/isa/check/dataflow_check.hpp"
#include "npu/hw_config/hw_config.hpp"

namespace npu::compiler {

namespace {

/// Per byte range [lo, hi), the latest position (1-based, in one queue's order) that touched
/// it; positions only grow, so an assignment replaces what was there.
class LastAccess {
 public:
  void assign(std::uint64_t lo, std::uint64_t hi, std::size_t pos) {
    if (lo >= hi) return;
    split(lo);
    split(hi);
    segs_.erase(segs_.lower_bound(lo), segs_.lower_bound(hi));
    segs_.emplace(lo, Seg{hi, pos});
  }
  /// The latest position over [lo, hi), 0 if none.
  std::size_t latest(std::uint64_t lo, std::uint64_t hi) const {
    std::size_t best = 0;
    if (lo >= hi) return best;
    auto it = segs_.upper_bound(lo);
    if (it != segs_.begin()) --it;
    for (; it != segs_.end() && it->first < hi; ++it)
      if (it->second.end > lo) best = std::max(best, it->second.pos);
    return best;
  }

 private:
  struct Seg {
    std::uint64_t end;
    std::size_t pos;
  };
  /// Makes `at` a segment boundary.
  void split(std::uint64_t at) {
    auto it = segs_.upper_bound(at);
    if (it == segs_.begin()) return;
    --it;
    if (it->first < at && at < it->second.end) {
      const Seg right{it->second.end, it->second.pos};
      it->second.end = at;
      segs_.emplace(at, right);
    }
  }
  std::map<std::uint64_t, Seg> segs_;
};

constexpr int kQueues = 3;
constexpr int kLd = int(isa::Queue::Load), kCp = int(isa::Queue::Compute), kSt = int(isa::Queue::Store);

}  // namespace

void derive_tokens(std::vector<isa::Instruction>& code, DType dtype, const TokenRules& rules) {
  std::vector<isa::Instruction> out;
  out.reserve(code.size() + (rules.store_to_load_via_sync ? code.size() / 8 : 0));
  std::array<std::vector<std::size_t>, kQueues> history;  // indices into `out`, per queue
  // covered[p][q]: the position (1-based) in p's history that q has already waited for.
  std::array<std::array<std::size_t, kQueues>, kQueues> covered{};
  std::array<LastAccess, kQueues> sram_read, sram_write;
  LastAccess ddr_read, ddr_write;  // LOAD (load queue) and STORE (store queue) positions
  std::size_t host = 0;            // compute-queue position of the latest HOST
  // p's instruction at position `pos` pushes p2q, `waiter` waits on it.
  auto pair = [&](int p, int q, std::size_t pos, isa::Instruction& waiter) {
    const isa::Token t{isa::Queue(p), isa::Queue(q)};
    out[history[std::size_t(p)][pos - 1]].push.push_back(t);
    waiter.wait.push_back(t);
    covered[std::size_t(p)][std::size_t(q)] = pos;
  };
  for (isa::Instruction& in : code) {
    const int q = int(in.queue());
    const std::vector<isa::SramOperand> ops = isa::sram_operands(in, dtype);
    std::vector<std::pair<std::uint64_t, std::uint64_t>> rows;
    if (in.op == isa::Opcode::Load || in.op == isa::Opcode::Store) {
      const auto& d = std::get<isa::DmaDesc>(in.params);
      // A gather LOAD may read any row of its table (docs/isa.md "LOAD gather"): its whole span.
      if (rules.ddr_by_span || d.gather) rows = {{d.ddr_addr, d.ddr_addr + d.ddr_span_bytes()}};
      else rows = isa::ddr_rows(d);
    }
    for (int p = 0; p < kQueues; ++p) {
      if (p == q) continue;
      const std::size_t up = std::size_t(p);
      std::size_t found = 0;  // position (1-based) of the latest conflicting instruction of p
      if (in.op == isa::Opcode::Host) {
        found = history[up].size();  // everything before it
      } else {
        for (const isa::SramOperand& op : ops) {
          if (op.bytes == 0) continue;
          const std::uint64_t lo = op.addr, hi = std::uint64_t(op.addr) + op.bytes;
          found = std::max(found, sram_write[up].latest(lo, hi));
          if (op.write) found = std::max(found, sram_read[up].latest(lo, hi));
        }
        for (const auto& [lo, hi] : rows) {
          if (q == kLd && p == kSt) found = std::max(found, ddr_write.latest(lo, hi));
          if (q == kSt && p == kLd) found = std::max(found, ddr_read.latest(lo, hi));
        }
        if (p == kCp) found = std::max(found, host);
      }
      if (found <= covered[up][std::size_t(q)]) continue;
      if (rules.store_to_load_via_sync && p == kSt && q == kLd) {
        // STORE -> SYNC (compute queue) -> LOAD.
        isa::Instruction sync;
        sync.op = isa::Opcode::Sync;
        sync.layer = in.layer;
        sync.params = isa::SyncParams{isa::Queue::Compute};
        if (found > covered[std::size_t(kSt)][std::size_t(kCp)]) pair(kSt, kCp, found, sync);
        out.push_back(std::move(sync));
        history[std::size_t(kCp)].push_back(out.size() - 1);
        pair(kCp, kLd, history[std::size_t(kCp)].size(), in);
        covered[std::size_t(kSt)][std::size_t(kLd)] = found;
        continue;
      }
      pair(p, q, found, in);
    }
    out.push_back(std::move(in));
    auto& h = history[std::size_t(q)];
    h.push_back(out.size() - 1);
    const std::size_t pos = h.size();
    if (out.back().op == isa::Opcode::Host) host = pos;
    for (const isa::SramOperand& op : ops)
      if (op.bytes > 0) (op.write ? sram_write : sram_read)[std::size_t(q)].assign(op.addr, std::uint64_t(op.addr) + op.bytes, pos);
    for (const auto& [lo, hi] : rows) (q == kLd ? ddr_read : ddr_write).assign(lo, hi, pos);
  }
  code = std::move(out);
}

void retoken(isa::Program& program) {
  std::vector<isa::Instruction> code;
  code.reserve(program.instructions.size());
  for (isa::Instruction& in : program.instructions) {
    if (in.op == isa::Opcode::Sync) continue;
    in.wait.clear();
    in.push.clear();
    code.push_back(std::move(in));
  }
  derive_tokens(code, program.dtype, TokenRules{});
  program.instructions = std::move(code);
}

}  // namespace npu::compiler
