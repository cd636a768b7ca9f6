// Dependency tokens from memory hazards: the depth-first emitter writes a stack as a
// straight-line list of instructions (program order is a valid sequential order) and this
// pass adds the cross-queue tokens that keep every conflicting pair in that order.
//
// Token matching (docs/isa.md): the n-th wait of token p2q in queue q consumes the n-th push
// of p2q by queue p. Here every added wait in q is paired with a push on an instruction of p
// strictly later in p than the previous pair's, so the n-th wait meets exactly its own push.
// Every dependency points backwards in program order, so the queues cannot deadlock.
//
// A LOAD that must follow a STORE (a skip tensor read back within the band) does not use
// st2ld: a compute-queue SYNC waits for the STORE (st2cp) and releases the LOAD (cp2ld). The
// st2ld token stays reserved for the layer fences and for cross-layer pipelining
// (pipeline.hpp), which pairs its own st2ld pushes and waits by order across layers.
#include <algorithm>
#include <array>

#include "depth_first/stack_plan.hpp"

namespace npu::compiler::depth_first {

namespace {

struct Range {
  bool sram = true;  // SRAM byte offsets, else DDR byte addresses
  std::uint64_t lo = 0, hi = 0;
  bool write = false;
};

std::vector<Range> accesses(const isa::Instruction& in, DType dtype) {
  std::vector<Range> out;
  for (const isa::SramOperand& op : isa::sram_operands(in, dtype))
    if (op.bytes > 0) out.push_back({true, op.addr, std::uint64_t(op.addr) + op.bytes, op.write});
  if (in.op == isa::Opcode::Load || in.op == isa::Opcode::Store) {
    const auto& d = std::get<isa::DmaDesc>(in.params);
    out.push_back({false, d.ddr_addr, d.ddr_addr + d.ddr_span_bytes(), in.op == isa::Opcode::Store});
  }
  return out;
}

bool conflict(const std::vector<Range>& a, const std::vector<Range>& b) {
  for (const Range& x : a)
    for (const Range& y : b)
      if (x.sram == y.sram && (x.write || y.write) && x.lo < y.hi && y.lo < x.hi) return true;
  return false;
}

}  // namespace

void add_hazard_tokens(std::vector<isa::Instruction>& code, DType dtype) {
  constexpr int kQueues = 3;
  const int ld = int(isa::Queue::Load), cp = int(isa::Queue::Compute), st = int(isa::Queue::Store);
  std::vector<isa::Instruction> out;
  out.reserve(code.size() + code.size() / 8);
  std::vector<std::vector<Range>> acc;                    // per instruction of `out`
  std::array<std::vector<std::size_t>, kQueues> history;  // indices into `out` per queue
  // covered[p][q]: positions of p's history (+1) that queue q has already waited for.
  std::array<std::array<std::size_t, kQueues>, kQueues> covered{};
  auto pair = [&](int p, int q, std::size_t pos_in_p, isa::Instruction& waiter) {
    const isa::Token t{isa::Queue(p), isa::Queue(q)};
    out[history[std::size_t(p)][pos_in_p - 1]].push.push_back(t);
    waiter.wait.push_back(t);
    covered[std::size_t(p)][std::size_t(q)] = pos_in_p;
  };
  for (isa::Instruction& in : code) {
    std::vector<Range> a = accesses(in, dtype);
    const int q = int(in.queue());
    for (int p = 0; p < kQueues; ++p) {
      if (p == q) continue;
      const auto& h = history[std::size_t(p)];
      std::size_t found = 0;  // position (+1) of the latest conflicting instruction of p
      for (std::size_t pos = h.size(); pos > covered[std::size_t(p)][std::size_t(q)]; --pos)
        if (conflict(acc[h[pos - 1]], a)) {
          found = pos;
          break;
        }
      if (!found) continue;
      if (p == st && q == ld) {
        // STORE -> SYNC (compute queue) -> LOAD.
        isa::Instruction sync;
        sync.op = isa::Opcode::Sync;
        sync.layer = in.layer;
        sync.params = isa::SyncParams{isa::Queue::Compute};
        if (found > covered[std::size_t(st)][std::size_t(cp)]) pair(st, cp, found, sync);
        out.push_back(std::move(sync));
        acc.emplace_back();
        history[std::size_t(cp)].push_back(out.size() - 1);
        pair(cp, ld, history[std::size_t(cp)].size(), in);
        covered[std::size_t(st)][std::size_t(ld)] = found;
        continue;
      }
      pair(p, q, found, in);
    }
    out.push_back(std::move(in));
    acc.push_back(std::move(a));
    history[std::size_t(q)].push_back(out.size() - 1);
  }
  code = std::move(out);
}

}  // namespace npu::compiler::depth_first
