// Dependency tokens from memory hazards: the depth-first emitter writes a stack as a
// straight-line list of instructions (program order is a valid sequential order) and this
// pass adds the cross-queue tokens that keep every conflicting pair in that order.
//
// Token matching (docs/isa.md): the n-th wait of token p2q in queue q consumes the n-th push
// of p2q by queue p. Here every added wait in q is paired with a push on an instruction of p
// strictly later in p than the previous pair's, so the n-th wait meets exactly its own push.
// Every dependency points backwards in program order, so the queues cannot deadlock.
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
  std::array<std::vector<std::size_t>, kQueues> history;  // instruction indices per queue
  std::vector<std::vector<Range>> acc(code.size());
  // covered[p][q]: position in p's history up to which queue q has already waited (+1).
  std::array<std::array<std::size_t, kQueues>, kQueues> covered{};
  for (std::size_t i = 0; i < code.size(); ++i) {
    acc[i] = accesses(code[i], dtype);
    const int q = int(code[i].queue());
    for (int p = 0; p < kQueues; ++p) {
      if (p == q) continue;
      const auto& h = history[std::size_t(p)];
      std::size_t& cov = covered[std::size_t(p)][std::size_t(q)];
      for (std::size_t pos = h.size(); pos > cov; --pos) {
        const std::size_t j = h[pos - 1];
        if (!conflict(acc[j], acc[i])) continue;
        const isa::Token t{isa::Queue(p), isa::Queue(q)};
        code[j].push.push_back(t);
        code[i].wait.push_back(t);
        cov = pos;
        break;
      }
    }
    history[std::size_t(q)].push_back(i);
  }
}

}  // namespace npu::compiler::depth_first
