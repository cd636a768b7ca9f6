// Cross-layer pipelining: fences replaced by the real SRAM and DDR dependencies (pipeline.hpp).
#include "npu/compiler/backend/schedule/pipeline.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>

#include "npu/isa/check/dataflow_check.hpp"
#include "npu/isa/sram_relocate.hpp"

namespace npu::compiler {

namespace {

using isa::Instruction;
using isa::Opcode;
using isa::Queue;
using isa::Token;

using isa::kCp2Ld;
using isa::kSt2Ld;

using Interval = std::pair<std::uint64_t, std::uint64_t>;  // [begin, end)

bool has(const std::vector<Token>& v, Token t) { return std::find(v.begin(), v.end(), t) != v.end(); }

/// DDR byte rows of a LOAD/STORE (isa::ddr_rows), sorted for overlap(). A gather LOAD or
/// scatter STORE may touch any row of its table (rows chosen by data): its whole span.
std::vector<Interval> rows_of(const Instruction& in) {
  const auto& d = std::get<isa::DmaDesc>(in.params);
  if (d.gather) return {{d.ddr_addr, d.ddr_addr + d.ddr_span_bytes()}};
  std::vector<Interval> out = isa::ddr_rows(d);
  std::sort(out.begin(), out.end());
  return out;
}

bool overlap(const std::vector<Interval>& a, const std::vector<Interval>& b) {
  std::size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    if (a[i].second <= b[j].first) ++i;
    else if (b[j].second <= a[i].first) ++j;
    else return true;
  }
  return false;
}

/// Whether a row of descriptor d (isa::ddr_rows: [addr + k*s1 + j*s0, + row)) meets [lo, hi),
/// without listing the rows: per k, the first j whose row ends after lo, in O(extent[2]).
/// Addresses as ddr_rows computes them when they do not wrap; nullopt when they might.
std::optional<bool> touches(const isa::DmaDesc& d, std::uint64_t lo, std::uint64_t hi) {
  if (d.extent[0] == 0 || d.extent[1] == 0 || d.extent[2] == 0 || d.elem_bytes <= 0 || lo >= hi) return false;
  const unsigned __int128 row = (unsigned __int128)d.extent[0] * unsigned(d.elem_bytes);
  const unsigned __int128 s0 = d.ddr_stride_bytes[0], s1 = d.ddr_stride_bytes[1];
  const unsigned __int128 last = d.ddr_addr + (d.extent[2] - 1) * s1 + (d.extent[1] - 1) * s0 + row;
  if (last > UINT64_MAX) return std::nullopt;
  for (std::uint64_t k = 0; k < d.extent[2]; ++k) {
    const unsigned __int128 base = d.ddr_addr + k * s1;  // row j: [base + j*s0, base + j*s0 + row)
    unsigned __int128 j = 0;                              // first j with base + j*s0 + row > lo
    if (base + row <= lo) {
      if (s0 == 0) continue;
      j = (lo - base - row) / s0 + 1;
    }
    if (j < d.extent[1] && base + j * s0 < hi) return true;
  }
  return false;
}

/// overlap(rows_of(load), store_rows) for a LOAD, by touches() when the STORE has few rows
/// (each costs O(extent[2]) of the LOAD); the LOAD's rows are listed (once, into `rows`) only
/// when a STORE has many.
bool load_overlaps(const Instruction& load, std::optional<std::vector<Interval>>& rows,
                   const std::vector<Interval>& store_rows) {
  const auto& d = std::get<isa::DmaDesc>(load.params);
  if (d.gather) {  // rows chosen by data: it may read any row of its table (docs/isa.md "LOAD gather")
    const std::uint64_t lo = d.ddr_addr, hi = d.ddr_addr + d.ddr_span_bytes();
    for (const Interval& r : store_rows)
      if (r.first < hi && lo < r.second) return true;
    return false;
  }
  if (store_rows.size() <= 4) {
    bool all_known = true;
    for (const Interval& r : store_rows) {
      const std::optional<bool> t = touches(d, r.first, r.second);
      if (t && *t) return true;
      all_known = all_known && t.has_value();
    }
    if (all_known) return false;
  }
  if (!rows) rows = rows_of(load);
  return overlap(*rows, store_rows);
}

struct Range {
  std::uint64_t lo = UINT64_MAX, hi = 0;
  bool empty() const { return lo >= hi; }
  bool overlaps(const Range& o) const { return !empty() && !o.empty() && lo < o.hi && o.lo < hi; }
};

bool is_fence_compute(const Instruction& in) {
  const auto* s = std::get_if<isa::SyncParams>(&in.params);
  return in.op == Opcode::Sync && s && s->queue == Queue::Compute && in.wait.empty() &&
         in.push == std::vector<Token>{kCp2Ld};
}
bool is_fence_store(const Instruction& in) {
  const auto* s = std::get_if<isa::SyncParams>(&in.params);
  return in.op == Opcode::Sync && s && s->queue == Queue::Store && in.wait.empty() &&
         in.push == std::vector<Token>{kSt2Ld};
}

class Pipeliner {
 public:
  Pipeliner(isa::Program& p, const HwConfig& hw) : p_(p), hw_(hw) {
    for (const auto& t : p_.tensors) kind_[t.name] = t.kind;
    for (std::size_t i = 0; i < p_.instructions.size(); ++i)
      if (p_.instructions[i].op == Opcode::Store) stores_[p_.instructions[i].tensor].emplace_back(i, rows_of(p_.instructions[i]));
  }

  std::vector<Decision> run() {
    auto& ins = p_.instructions;
    find_segments();
    std::vector<Decision> out;
    for (std::size_t s = 1; s + 1 < starts_.size(); ++s) out.push_back(fence(s));
    std::vector<Instruction> kept;
    kept.reserve(ins.size() - erase_.size());
    for (std::size_t i = 0; i < ins.size(); ++i)
      if (!erase_.count(i)) kept.push_back(std::move(ins[i]));
    ins = std::move(kept);
    return out;
  }

 private:
  // Fences: a SYNC compute (push cp2ld) and a SYNC store (push st2ld) opening a layer.
  // Segments: [fence, next fence) belongs to the fence's layer; before the first fence,
  // the first layer. A segment's SRAM range is that of its instructions.
  void find_segments() {
    const auto& ins = p_.instructions;
    std::vector<std::size_t> fences;
    for (std::size_t i = 0; i + 1 < ins.size(); ++i)
      if (is_fence_compute(ins[i]) && is_fence_store(ins[i + 1]) && ins[i].layer == ins[i + 1].layer)
        fences.push_back(i);
    starts_ = {0};
    for (std::size_t f : fences) starts_.push_back(f);
    starts_.push_back(ins.size());
    ranges_.assign(starts_.size() - 1, Range{});
    host_.assign(starts_.size() - 1, false);
    last_store_.assign(starts_.size() - 1, std::nullopt);
    for (std::size_t s = 0; s + 1 < starts_.size(); ++s)
      for (std::size_t i = starts_[s]; i < starts_[s + 1]; ++i) {
        host_[s] = host_[s] || ins[i].op == Opcode::Host;
        if (ins[i].op == Opcode::Store) last_store_[s] = i;
        for (const auto& o : isa::sram_operands(ins[i], p_.dtype)) {
          if (o.bytes == 0) continue;
          ranges_[s].lo = std::min<std::uint64_t>(ranges_[s].lo, o.addr);
          ranges_[s].hi = std::max<std::uint64_t>(ranges_[s].hi, o.addr + o.bytes);
        }
      }
  }

  // The decision for the fence opening segment s: replaced by the real dependencies (its
  // layer's SRAM relocated, its LOADs waiting for the STOREs they need), or kept.
  Decision fence(std::size_t s) {
    auto& ins = p_.instructions;
    const std::size_t f = starts_[s];
    const std::string layer = ins[f].layer;
    const std::string prev = ins[starts_[s - 1]].layer;
    Decision d;
    d.pass = "pipeline-layers";
    d.nodes = {layer};
    d.label = prev + " -> " + layer;
    auto keep = [&](const std::string& why) {
      d.outcome = DecisionOutcome::Declined;
      d.reason = why;
      waited_ = f + 1;  // the fence's SYNC store: every earlier STORE is done before it
      return d;
    };
    // The first LOAD of the layer, waiting on the fence.
    std::optional<std::size_t> first;
    for (std::size_t i = f + 2; i < starts_[s + 1] && !first; ++i)
      if (ins[i].op == Opcode::Load) first = i;
    if (!first || !has(ins[*first].wait, kCp2Ld) || !has(ins[*first].wait, kSt2Ld) || ins[*first].wait.size() != 2)
      return keep("fence of another form (the layer does not start with a LOAD waiting on it)");
    if (host_[s] || host_[s - 1])
      return keep("a HOST layer on one side (the host's DDR traffic is not described by STOREs)");
    const Range pr = ranges_[s - 1], r = ranges_[s];
    const std::optional<std::int64_t> delta = placement(pr, r);
    if (!delta)
      return keep(fmt::format("SRAM: {} uses {} B and {} {} B of {} B", prev, pr.hi - pr.lo, layer, r.hi - r.lo,
                              hw_.sram.capacity_bytes));
    Range moved;
    moved.lo = std::uint64_t(std::int64_t(r.lo) + *delta);
    moved.hi = std::uint64_t(std::int64_t(r.hi) + *delta);
    // SRAM reuse: the latest earlier layer whose range overlaps must be done first: its
    // last STORE done means its computes (which that STORE waited for) and LOADs are too.
    std::optional<std::size_t> need_first;
    bool storeless = false;
    for (std::size_t e = s - 1; e-- > 0;)
      if (ranges_[e].overlaps(moved)) {
        need_first = last_store_[e];
        storeless = !need_first;
        break;
      }
    if (storeless) return keep("SRAM: the earlier layer that used this range has no STORE to wait for");
    for (std::size_t i = f; i < starts_[s + 1]; ++i) isa::relocate_sram(ins[i], *delta);
    ranges_[s] = moved;
    // The fence goes; the LOADs wait for what they need.
    erase_.insert(f);
    erase_.insert(f + 1);
    const int waits = add_waits(s, *first, need_first);
    d.outcome = DecisionOutcome::Applied;
    d.verb = "pipelined";
    d.reason = fmt::format("{} at SRAM [{:#x}, {:#x}); {} LOAD{} wait{} for STOREs", layer, ranges_[s].lo,
                           ranges_[s].hi, waits, waits == 1 ? "" : "s", waits == 1 ? "s" : "");
    return d;
  }

  // Place a layer's SRAM range `r` beside the previous layer's `pr`: where it is, at the top
  // (a whole number of banks below the capacity) or at the bottom. The shift in bytes, or none
  // when the two do not fit side by side.
  std::optional<std::int64_t> placement(const Range& pr, const Range& r) const {
    const std::uint64_t cap = hw_.sram.capacity_bytes;
    // Preferred: move by whole banks (the bank of every buffer relative to the others stays
    // as codegen chose it); else by 64 B, the DMA alignment, when only that fits.
    const std::uint64_t bank = hw_.sram.banks > 0 ? std::max<std::uint64_t>(1, cap / std::uint64_t(hw_.sram.banks)) : 1;
    constexpr std::uint64_t kFine = 64;
    const std::uint64_t size = r.hi - r.lo;
    std::optional<std::int64_t> delta;
    if (!r.overlaps(pr)) delta = 0;
    else if (size <= cap) {
      for (std::uint64_t align : {bank, kFine}) {
        const std::uint64_t top = (cap - size) / align * align;
        if (top >= pr.hi) delta = std::int64_t(top) - std::int64_t(r.lo);
        else if (size <= pr.lo) delta = -std::int64_t(r.lo);
        if (delta) break;
      }
    }
    return delta;
  }

  // Makes the LOADs of segment s (from its first LOAD `first`, whose fence waits are
  // replaced) wait for the STOREs they need: `first` for `need_first` (SRAM reuse), each LOAD
  // of stored data for the last STORE before the fence that wrote any byte it reads. Returns
  // the number of waits added.
  int add_waits(std::size_t s, std::size_t first, std::optional<std::size_t> need_first) {
    auto& ins = p_.instructions;
    const std::size_t f = starts_[s];
    ins[first].wait.clear();
    int waits = 0;
    for (std::size_t i = first; i < starts_[s + 1]; ++i) {
      if (ins[i].op != Opcode::Load) continue;
      std::optional<std::size_t> need = i == first ? need_first : std::nullopt;
      const auto k = kind_.find(ins[i].tensor);
      if (k != kind_.end() && k->second != isa::TensorKind::Input && k->second != isa::TensorKind::Weight) {
        // The last STORE before the fence that wrote any byte this LOAD reads.
        std::optional<std::vector<Interval>> rows;  // listed only if needed
        const auto& written = stores_[ins[i].tensor];
        for (auto w = written.rbegin(); w != written.rend(); ++w)
          if (w->first < f && load_overlaps(ins[i], rows, w->second)) {
            if (!need || w->first > *need) need = w->first;
            break;
          }
      }
      if (need && (!waited_ || *need > *waited_)) {
        ins[*need].push.push_back(kSt2Ld);
        ins[i].wait.push_back(kSt2Ld);
        waited_ = need;
        ++waits;
      }
    }
    return waits;
  }

  isa::Program& p_;
  const HwConfig& hw_;
  std::map<std::string, isa::TensorKind> kind_;
  /// Per tensor, its STOREs (instruction index, sorted DDR rows) in program order. Indices
  /// stay valid during run(): instructions are only erased at its end.
  std::map<std::string, std::vector<std::pair<std::size_t, std::vector<Interval>>>> stores_;
  // Per segment (find_segments): its first instruction (then the end), SRAM range, whether it
  // holds a HOST instruction, and its last STORE.
  std::vector<std::size_t> starts_;
  std::vector<Range> ranges_;
  std::vector<bool> host_;
  std::vector<std::optional<std::size_t>> last_store_;
  std::optional<std::size_t> waited_;  // the latest STORE (instruction index) some LOAD waits for
  std::set<std::size_t> erase_;        // the fences' SYNCs removed
};

}  // namespace

std::vector<Decision> pipeline_layers(isa::Program& program, const HwConfig& hw) { return Pipeliner(program, hw).run(); }

}  // namespace npu::compiler
