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
#include "npu/isa/check/dataflow_check.hpp"
#include "npu/isa/cost/dma_time.hpp"

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

/// The keep-resident decision a program with HOST partitions gets, if it has one: a HOST
/// partition reads and writes DDR tensors the program does not name.
std::optional<Decision> host_partition_decision(const isa::Program& p) {
  for (const auto& in : p.instructions)
    if (in.op == isa::Opcode::Host) {
      Decision d;
      d.pass = "keep-resident";
      d.label = p.name;
      d.reason = "the program has HOST partitions, which read and write DDR tensors it does not name; every "
                 "intermediate stays in DDR";
      return d;
    }
  return std::nullopt;
}

/// The intermediates the program's LOADs and STOREs move, by name, with their accesses and
/// DDR bytes; why_not says why one is no candidate. `e`: the program's element bytes;
/// `cap`: sram.capacity in bytes.
std::map<std::string, Resident> find_residents(const isa::Program& p, int e, std::uint64_t cap) {
  const auto& ins = p.instructions;
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
    if (d.gather)  // a MOVE cannot choose rows by data
      c.why_not = "a gather LOAD reads it (rows chosen by indices at run time)";
    else if (d.elem_bytes != e || d.ddr_stride_bytes[0] % std::uint64_t(e) != 0 || d.ddr_stride_bytes[1] % std::uint64_t(e) != 0)
      c.why_not = fmt::format("{} moves {}-byte elements; MOVE copies elements of the program's dtype ({} B)",
                              to_string(ins[i].op), d.elem_bytes, e);
  }
  for (auto& [name, c] : by_name) {
    if (c.why_not.empty() && ins[c.accesses.front()].op != isa::Opcode::Store)
      c.why_not = "it is read before it is written";
    if (c.why_not.empty() && p.tensors[c.decl].bytes > cap)
      c.why_not = fmt::format("its {} B exceed sram.capacity {} B", p.tensors[c.decl].bytes, cap);
  }
  return by_name;
}

struct LayerTime {
  double compute_ns = 0, memory_ns = 0;
};

/// The cost rule (sram_residency.hpp): a roofline estimate per layer (compute and DDR time, ns)
/// of what turning a tensor's LOADs and STOREs into MOVEs changes, against the time budget and
/// traffic_weight x the DDR time saved. Not costed without compute times or DDR bandwidth.
class ResidencyCost {
 public:
  ResidencyCost(const isa::Program& p, const HwConfig& hw, const std::map<std::string, double>* compute_ns,
                double traffic_weight, double time_budget_ns)
      : ins_(p.instructions), e_(dtype_bytes(p.dtype)), costed_(compute_ns != nullptr),
        weight_(traffic_weight > 0 ? traffic_weight : 0.0),  // (and -0 prints as 0)
        budget_ns_(time_budget_ns), dma_(isa::dma_stream_model(hw)),
        burst_(std::uint64_t(std::max(1, hw.ddr.burst_bytes()))),
        period_ns_(hw.npu.clock_mhz > 0 ? hw.core_period_ns() : 1.0),
        lanes_(std::uint64_t(std::max(1, hw.act_unit.lanes))) {
    const auto lat = hw.act_unit.op_latency_cycles.find("identity");
    move_latency_ =
        std::uint64_t(lat != hw.act_unit.op_latency_cycles.end() ? lat->second : hw.act_unit.default_latency_cycles);
    if (!costed_) return;
    for (const auto& [layer, ns] : *compute_ns) time_[layer].compute_ns = ns;
    for (const auto& in : ins_)
      if (in.op == isa::Opcode::Load || in.op == isa::Opcode::Store) time_[in.layer].memory_ns += dram_ns(in);
  }

  bool costed() const { return costed_; }

  /// Estimates keeping `c` in SRAM: `after` receives the changed layers' times and `delta_ns`
  /// the change of the spanned layers' time. Returns why it stays in DDR, "" when it may stay.
  std::string decline(const Resident& c, std::map<std::string, LayerTime>& after, double& delta_ns) {
    delta_ns = 0;
    if (!costed_ || !dma_.valid()) return "";
    double saved_ns = 0;
    for (std::size_t i : c.accesses) {
      const auto& dma = std::get<isa::DmaDesc>(ins_[i].params);
      const std::uint64_t elems = dma.bytes() / std::uint64_t(e_);
      auto it = after.find(ins_[i].layer);
      if (it == after.end()) it = after.emplace(ins_[i].layer, time_[ins_[i].layer]).first;
      it->second.compute_ns += double((elems + lanes_ - 1) / lanes_ + move_latency_) * period_ns_;
      it->second.memory_ns -= dram_ns(ins_[i]);
      saved_ns += dram_ns(ins_[i]);
    }
    delta_ns = window_delta_ns(c.accesses.front(), c.accesses.back(), after);
    if (delta_ns > 0 && spent_ns_ + delta_ns > budget_ns_)
      return fmt::format("stays in DDR: its MOVEs would add {:.0f} ns to the estimated time of the layers it "
                         "spans, and only {:.0f} ns are left of the {:.0f} ns the stacks saved against their "
                         "layers one by one (depth-first keeps no slower than them)",
                         delta_ns, std::max(budget_ns_ - spent_ns_, 0.0), budget_ns_);
    if (delta_ns > weight_ * saved_ns)
      return fmt::format("stays in DDR: its MOVEs would add {:.0f} ns to the estimated time of the layers it spans, more "
                         "than traffic_weight {} x the {:.0f} ns its traffic keeps the DDR busy = {:.0f} ns",
                         delta_ns, weight_, saved_ns, weight_ * saved_ns);
    return "";
  }

  /// A tensor was kept: its layers' times become `after`, its delta_ns is spent.
  void commit(const std::map<std::string, LayerTime>& after, double delta_ns) {
    spent_ns_ += delta_ns;
    for (const auto& [layer, t] : after) time_[layer] = t;
  }
  /// Estimated time the kept tensors' MOVEs added (net), ns.
  double spent_ns() const { return spent_ns_; }

 private:
  double dram_ns(const isa::Instruction& in) const {
    // One descriptor at the achievable stream rate with its first-burst latency (dma_time.hpp).
    return isa::dma_descriptor_ns(dma_, isa::ddr_burst_bytes(std::get<isa::DmaDesc>(in.params), burst_));
  }

  // The layers that run while it lives (instructions first..last) overlap (the tokens order
  // only conflicting accesses): their time is max(sum of compute, sum of DDR time) before and after.
  double window_delta_ns(std::size_t first, std::size_t last, const std::map<std::string, LayerTime>& after) {
    std::set<std::string> window;
    for (std::size_t i = first; i <= last; ++i) window.insert(ins_[i].layer);
    double c0 = 0, m0 = 0, c1 = 0, m1 = 0;
    for (const std::string& l : window) {
      const LayerTime& was = time_[l];
      const auto a = after.find(l);
      const LayerTime& now = a == after.end() ? was : a->second;
      c0 += was.compute_ns, m0 += was.memory_ns;
      c1 += now.compute_ns, m1 += std::max(now.memory_ns, 0.0);
    }
    return std::max(c1, m1) - std::max(c0, m0);
  }

  const std::vector<isa::Instruction>& ins_;
  int e_;
  bool costed_;
  double weight_, budget_ns_;
  isa::DmaStreamModel dma_;
  std::uint64_t burst_;
  double period_ns_;
  std::uint64_t lanes_, move_latency_ = 0;
  std::map<std::string, LayerTime> time_;
  double spent_ns_ = 0;
};

/// Every instruction's SRAM ranges.
std::vector<std::vector<Range>> sram_ranges(const isa::Program& p) {
  std::vector<std::vector<Range>> used(p.instructions.size());
  for (std::size_t i = 0; i < p.instructions.size(); ++i)
    for (const isa::SramOperand& op : isa::sram_operands(p.instructions[i], p.dtype))
      if (op.bytes > 0) used[i].emplace_back(op.addr, std::uint64_t(op.addr) + op.bytes);
  return used;
}

struct SramFit {
  std::optional<std::uint64_t> lo;  ///< start of the best-fitting gap, none when no gap fits
  std::uint64_t largest = 0;        ///< bytes of the largest (aligned) gap
};

/// Best fit of `bytes` among the (kAlign-aligned) gaps of [0, cap) between the `busy` ranges.
SramFit best_fit(std::vector<Range> busy, std::uint64_t bytes, std::uint64_t cap) {
  std::sort(busy.begin(), busy.end());
  SramFit fit;
  std::uint64_t best_gap = UINT64_MAX, at = 0;
  auto gap = [&](std::uint64_t lo, std::uint64_t hi) {
    lo = align_up(lo);
    if (hi <= lo) return;
    fit.largest = std::max(fit.largest, hi - lo);
    if (hi - lo >= bytes && hi - lo < best_gap) {
      best_gap = hi - lo;
      fit.lo = lo;
    }
  };
  for (const Range& r : busy) {
    if (r.first > at) gap(at, std::min(r.first, cap));
    at = std::max(at, r.second);
  }
  if (at < cap) gap(at, cap);
  return fit;
}

/// The SRAM ranges instructions first..last use, and those of the kept tensors alive then.
std::vector<Range> busy_ranges(const std::vector<std::vector<Range>>& used, const std::vector<Kept>& kept,
                               std::size_t first, std::size_t last) {
  std::vector<Range> busy;
  for (std::size_t i = first; i <= last; ++i) busy.insert(busy.end(), used[i].begin(), used[i].end());
  for (const Kept& k : kept)
    if (k.first <= last && first <= k.last) busy.emplace_back(k.lo, k.hi);
  return busy;
}

/// The applied decision's text: the SRAM range, the span and the traffic saved.
std::string kept_reason(const std::vector<isa::Instruction>& ins, const Resident& c, std::uint64_t lo,
                        std::uint64_t bytes, const std::string& span) {
  int stores = 0, loads = 0;
  for (std::size_t i : c.accesses) (ins[i].op == isa::Opcode::Store ? stores : loads) += 1;
  return fmt::format("SRAM [{:#x}, {:#x}) {}: {} B of DDR traffic saved ({} STORE{} and {} LOAD{} now MOVEs)", lo,
                     lo + bytes, span, c.saved, stores, stores == 1 ? "" : "s", loads, loads == 1 ? "" : "s");
}

/// Rewrites the kept tensors' LOADs and STOREs as MOVEs to and from their SRAM copies (`base`),
/// drops their declarations and re-derives the tokens.
void rewrite_as_moves(isa::Program& p, const std::map<std::string, Resident>& by_name,
                      const std::map<std::string, std::uint64_t>& base) {
  const int e = dtype_bytes(p.dtype);
  for (const auto& [name, at] : base) {
    const Resident& c = by_name.at(name);
    const std::uint64_t ddr = p.tensors[c.decl].ddr_addr;
    for (std::size_t i : c.accesses) {
      isa::Instruction& in = p.instructions[i];
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
}

}  // namespace

std::vector<Decision> keep_resident(isa::Program& p, const HwConfig& hw,
                                    const std::map<std::string, double>* compute_ns, double traffic_weight,
                                    double time_budget_ns, double* added_ns) {
  if (added_ns) *added_ns = 0;
  if (std::optional<Decision> host = host_partition_decision(p)) return {*host};
  const auto& ins = p.instructions;
  const std::uint64_t cap = hw.sram.capacity_bytes;
  std::map<std::string, Resident> by_name = find_residents(p, dtype_bytes(p.dtype), cap);
  std::vector<std::pair<std::string, Resident*>> order;
  for (auto& [name, c] : by_name) order.emplace_back(name, &c);
  std::stable_sort(order.begin(), order.end(), [](const auto& a, const auto& b) { return a.second->saved > b.second->saved; });
  const std::vector<std::vector<Range>> used = sram_ranges(p);
  ResidencyCost cost(p, hw, compute_ns, traffic_weight, time_budget_ns);
  std::vector<Decision> out;
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
    std::map<std::string, LayerTime> after;
    double delta_ns = 0;
    d.reason = c->why_not.empty() ? cost.decline(*c, after, delta_ns) : "stays in DDR: " + c->why_not;
    const std::uint64_t bytes = align_up(p.tensors[c->decl].bytes);
    const SramFit fit = d.reason.empty() ? best_fit(busy_ranges(used, kept, first, last), bytes, cap) : SramFit{};
    if (d.reason.empty() && !fit.lo)
      d.reason = fmt::format("stays in DDR: no free SRAM range of {} B {} (largest free: {} B)", bytes, span, fit.largest);
    if (!d.reason.empty()) {
      out.push_back(std::move(d));
      continue;
    }
    kept.push_back({*fit.lo, *fit.lo + bytes, first, last});
    cost.commit(after, delta_ns);
    if (added_ns) *added_ns = cost.spent_ns();
    base[name] = *fit.lo;
    d.outcome = DecisionOutcome::Applied;
    d.verb = "kept in SRAM";
    d.reason = kept_reason(ins, *c, *fit.lo, bytes, span);
    if (cost.costed()) d.reason += fmt::format("; estimated time {:+.0f} ns", delta_ns);
    out.push_back(std::move(d));
  }
  if (!kept.empty()) rewrite_as_moves(p, by_name, base);
  return out;
}

}  // namespace npu::compiler
