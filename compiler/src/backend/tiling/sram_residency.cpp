// SRAM residency of DDR intermediates (sram_residency.hpp).
#include "npu/compiler/backend/tiling/sram_residency.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>

#include "npu/compiler/backend/schedule/retoken.hpp"
#include "npu/isa/dataflow_check.hpp"

namespace npu::compiler {

namespace {

constexpr std::uint64_t kAlign = 64;  // the DMA alignment codegen gives every SRAM buffer

using Range = std::pair<std::uint64_t, std::uint64_t>;  // [lo, hi)

std::uint64_t align_up(std::uint64_t v) { return (v + kAlign - 1) / kAlign * kAlign; }

struct Resident {
  std::size_t decl = 0;                ///< index into Program::tensors
  std::vector<std::size_t> accesses;   ///< its LOAD/STORE instructions, in program order
  std::uint64_t saved = 0;             ///< DDR bytes of those accesses
  std::string why_not;                 ///< non-empty: not a candidate (said in the decision)
};

struct Kept {
  std::uint64_t lo = 0, hi = 0;
  std::size_t first = 0, last = 0;
};

/// A LOAD/STORE as the MOVE between its packed SRAM tile and the tensor's SRAM copy at `base`
/// (DDR byte ddr_addr + k at base + k).
isa::MoveParams as_move(const isa::Instruction& in, std::uint64_t tensor_ddr, std::uint64_t base, int e) {
  const auto& d = std::get<isa::DmaDesc>(in.params);
  isa::MoveParams m;
  m.rank = 3;
  const std::uint32_t packed = d.sram_addr;
  const auto copy = std::uint32_t(base + (d.ddr_addr - tensor_ddr));
  std::array<std::uint32_t, isa::MoveParams::kMaxDims> packed_stride{1, d.extent[0], d.extent[0] * d.extent[1], 0, 0, 0};
  std::array<std::uint32_t, isa::MoveParams::kMaxDims> copy_stride{
      1, std::uint32_t(d.ddr_stride_bytes[0] / std::uint64_t(e)), std::uint32_t(d.ddr_stride_bytes[1] / std::uint64_t(e)),
      0, 0, 0};
  for (int k = 0; k < 3; ++k) m.extent[std::size_t(k)] = d.extent[std::size_t(k)];
  const bool store = in.op == isa::Opcode::Store;
  m.in_addr = store ? packed : copy;
  m.out_addr = store ? copy : packed;
  m.in_stride = store ? packed_stride : copy_stride;
  m.out_stride = store ? copy_stride : packed_stride;
  return m;
}

}  // namespace

std::vector<Decision> keep_resident(isa::Program& p, const HwConfig& hw,
                                    const std::map<std::string, double>* compute_ns, double traffic_weight,
                                    double time_budget_ns, double* added_ns) {
  if (added_ns) *added_ns = 0;
  std::vector<Decision> out;
  auto& ins = p.instructions;
  for (const auto& in : ins)
    if (in.op == isa::Opcode::Host) {
      Decision d;
      d.pass = "keep-resident";
      d.label = p.name;
      d.reason = "the program has HOST partitions, which read and write DDR tensors it does not name; every "
                 "intermediate stays in DDR";
      return {d};
    }
  const int e = dtype_bytes(p.dtype);
  const std::uint64_t cap = hw.sram.capacity_bytes;
  std::map<std::string, std::size_t> decl;
  for (std::size_t t = 0; t < p.tensors.size(); ++t) decl[p.tensors[t].name] = t;
  std::map<std::string, Resident> by_name;
  for (std::size_t i = 0; i < ins.size(); ++i) {
    if (ins[i].op != isa::Opcode::Load && ins[i].op != isa::Opcode::Store) continue;
    const auto t = decl.find(ins[i].tensor);
    if (t == decl.end() || p.tensors[t->second].kind != isa::TensorKind::Intermediate) continue;
    Resident& c = by_name[ins[i].tensor];
    c.decl = t->second;
    c.accesses.push_back(i);
    const auto& d = std::get<isa::DmaDesc>(ins[i].params);
    c.saved += d.bytes();
    if (d.elem_bytes != e || d.ddr_stride_bytes[0] % std::uint64_t(e) != 0 || d.ddr_stride_bytes[1] % std::uint64_t(e) != 0)
      c.why_not = fmt::format("{} moves {}-byte elements; MOVE copies elements of the program's dtype ({} B)",
                              to_string(ins[i].op), d.elem_bytes, e);
  }
  std::vector<std::pair<std::string, Resident*>> order;
  for (auto& [name, c] : by_name) {
    if (c.why_not.empty() && ins[c.accesses.front()].op != isa::Opcode::Store)
      c.why_not = "it is read before it is written";
    if (c.why_not.empty() && p.tensors[c.decl].bytes > cap)
      c.why_not = fmt::format("its {} B exceed sram.capacity {} B", p.tensors[c.decl].bytes, cap);
    order.emplace_back(name, &c);
  }
  std::stable_sort(order.begin(), order.end(), [](const auto& a, const auto& b) { return a.second->saved > b.second->saved; });
  // Every instruction's SRAM ranges.
  std::vector<std::vector<Range>> used(ins.size());
  for (std::size_t i = 0; i < ins.size(); ++i)
    for (const isa::SramOperand& op : isa::sram_operands(ins[i], p.dtype))
      if (op.bytes > 0) used[i].emplace_back(op.addr, std::uint64_t(op.addr) + op.bytes);
  // The cost rule's figures (sram_residency.hpp): per layer its compute and DDR time.
  const bool costed = compute_ns != nullptr;
  const double weight = traffic_weight > 0 ? traffic_weight : 0.0;  // (and -0 prints as 0)
  const double ddr_bytes_per_ns = hw.ddr.peak_gbps();
  const std::uint64_t burst = std::uint64_t(std::max(1, hw.ddr.burst_bytes()));
  auto dram_ns = [&](const isa::Instruction& in) {
    const std::uint64_t n = isa::ddr_burst_bytes(std::get<isa::DmaDesc>(in.params), burst);
    return ddr_bytes_per_ns > 0 ? double(n) / ddr_bytes_per_ns : 0.0;
  };
  struct LayerTime {
    double compute_ns = 0, memory_ns = 0;
  };
  std::map<std::string, LayerTime> time;
  if (costed) {
    for (const auto& [layer, ns] : *compute_ns) time[layer].compute_ns = ns;
    for (const auto& in : ins)
      if (in.op == isa::Opcode::Load || in.op == isa::Opcode::Store) time[in.layer].memory_ns += dram_ns(in);
  }
  const double period_ns = hw.npu.clock_mhz > 0 ? hw.core_period_ns() : 1.0;
  const std::uint64_t lanes = std::uint64_t(std::max(1, hw.act_unit.lanes));
  const auto lat = hw.act_unit.op_latency_cycles.find("identity");
  const std::uint64_t move_latency =
      std::uint64_t(lat != hw.act_unit.op_latency_cycles.end() ? lat->second : hw.act_unit.default_latency_cycles);
  double spent_ns = 0;  // estimated time the kept tensors' MOVEs added (net)
  std::vector<Kept> kept;
  std::map<std::string, std::uint64_t> base;  // kept tensor -> its SRAM copy
  for (auto& [name, c] : order) {
    const std::size_t first = c->accesses.front(), last = c->accesses.back();
    Decision d;
    d.pass = "keep-resident";
    d.nodes = {ins[first].layer};
    d.label = name;
    const std::string span = ins[first].layer == ins[last].layer
                                 ? "in " + ins[first].layer
                                 : "from " + ins[first].layer + " to " + ins[last].layer;
    if (!c->why_not.empty()) {
      d.reason = "stays in DDR: " + c->why_not;
      out.push_back(std::move(d));
      continue;
    }
    // Roofline estimate of the layers it spans with and without it in SRAM.
    std::map<std::string, LayerTime> after;
    double saved_ns = 0, delta_ns = 0;
    if (costed && ddr_bytes_per_ns > 0) {
      for (std::size_t i : c->accesses) {
        const auto& dma = std::get<isa::DmaDesc>(ins[i].params);
        const std::uint64_t elems = dma.bytes() / std::uint64_t(e);
        auto it = after.find(ins[i].layer);
        if (it == after.end()) it = after.emplace(ins[i].layer, time[ins[i].layer]).first;
        it->second.compute_ns += double((elems + lanes - 1) / lanes + move_latency) * period_ns;
        it->second.memory_ns -= dram_ns(ins[i]);
        saved_ns += dram_ns(ins[i]);
      }
      // The layers that run while it lives overlap (the tokens order only conflicting
      // accesses): their time is max(sum of compute, sum of DDR time) before and after.
      std::set<std::string> window;
      for (std::size_t i = first; i <= last; ++i) window.insert(ins[i].layer);
      double c0 = 0, m0 = 0, c1 = 0, m1 = 0;
      for (const std::string& l : window) {
        const LayerTime& was = time[l];
        const auto a = after.find(l);
        const LayerTime& now = a == after.end() ? was : a->second;
        c0 += was.compute_ns, m0 += was.memory_ns;
        c1 += now.compute_ns, m1 += std::max(now.memory_ns, 0.0);
      }
      delta_ns = std::max(c1, m1) - std::max(c0, m0);
      if (delta_ns > 0 && spent_ns + delta_ns > time_budget_ns) {
        d.reason = fmt::format("stays in DDR: its MOVEs would add {:.0f} ns to the estimated time of the layers it "
                               "spans, and only {:.0f} ns are left of the {:.0f} ns the stacks saved against their "
                               "layers one by one (depth-first keeps no slower than them)",
                               delta_ns, std::max(time_budget_ns - spent_ns, 0.0), time_budget_ns);
        out.push_back(std::move(d));
        continue;
      }
      if (delta_ns > weight * saved_ns) {
        d.reason = fmt::format("stays in DDR: its MOVEs would add {:.0f} ns to the estimated time of the layers it spans, more "
                               "than traffic_weight {} x the {:.0f} ns its traffic keeps the DDR busy = {:.0f} ns",
                               delta_ns, weight, saved_ns, weight * saved_ns);
        out.push_back(std::move(d));
        continue;
      }
    }
    const std::uint64_t bytes = align_up(p.tensors[c->decl].bytes);
    std::vector<Range> busy;
    for (std::size_t i = first; i <= last; ++i) busy.insert(busy.end(), used[i].begin(), used[i].end());
    for (const Kept& k : kept)
      if (k.first <= last && first <= k.last) busy.emplace_back(k.lo, k.hi);
    std::sort(busy.begin(), busy.end());
    // Best fit among the gaps of [0, cap) between the busy ranges.
    std::optional<std::uint64_t> best;
    std::uint64_t best_gap = UINT64_MAX, largest = 0, at = 0;
    auto gap = [&](std::uint64_t lo, std::uint64_t hi) {
      lo = align_up(lo);
      if (hi <= lo) return;
      largest = std::max(largest, hi - lo);
      if (hi - lo >= bytes && hi - lo < best_gap) {
        best_gap = hi - lo;
        best = lo;
      }
    };
    for (const Range& r : busy) {
      if (r.first > at) gap(at, std::min(r.first, cap));
      at = std::max(at, r.second);
    }
    if (at < cap) gap(at, cap);
    if (!best) {
      d.reason = fmt::format("stays in DDR: no free SRAM range of {} B {} (largest free: {} B)", bytes, span, largest);
      out.push_back(std::move(d));
      continue;
    }
    kept.push_back({*best, *best + bytes, first, last});
    spent_ns += delta_ns;
    if (added_ns) *added_ns = spent_ns;
    for (const auto& [layer, t] : after) time[layer] = t;
    base[name] = *best;
    int stores = 0, loads = 0;
    for (std::size_t i : c->accesses) (ins[i].op == isa::Opcode::Store ? stores : loads) += 1;
    d.outcome = DecisionOutcome::Applied;
    d.verb = "kept in SRAM";
    d.reason = fmt::format("SRAM [{:#x}, {:#x}) {}: {} B of DDR traffic saved ({} STORE{} and {} LOAD{} now MOVEs)",
                           *best, *best + bytes, span, c->saved, stores, stores == 1 ? "" : "s", loads,
                           loads == 1 ? "" : "s");
    if (costed) d.reason += fmt::format("; estimated time {:+.0f} ns", delta_ns);
    out.push_back(std::move(d));
  }
  if (kept.empty()) return out;
  for (const auto& [name, at] : base) {
    const Resident& c = by_name.at(name);
    const std::uint64_t ddr = p.tensors[c.decl].ddr_addr;
    for (std::size_t i : c.accesses) {
      isa::Instruction& in = ins[i];
      in.params = as_move(in, ddr, at, e);
      in.op = isa::Opcode::Move;
      in.tensor.clear();
    }
  }
  std::vector<isa::TensorDecl> left;
  for (auto& t : p.tensors)
    if (!base.count(t.name)) left.push_back(std::move(t));
  p.tensors = std::move(left);
  retoken(p);
  return out;
}

}  // namespace npu::compiler
