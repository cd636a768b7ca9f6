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

/// DDR byte rows of a LOAD/STORE (isa::ddr_rows), sorted for overlap().
std::vector<Interval> rows_of(const Instruction& in) {
  std::vector<Interval> out = isa::ddr_rows(std::get<isa::DmaDesc>(in.params));
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
    // Fences: a SYNC compute (push cp2ld) and a SYNC store (push st2ld) opening a layer.
    std::vector<std::size_t> fences;
    for (std::size_t i = 0; i + 1 < ins.size(); ++i)
      if (is_fence_compute(ins[i]) && is_fence_store(ins[i + 1]) && ins[i].layer == ins[i + 1].layer)
        fences.push_back(i);
    // Segments: [fence, next fence) belongs to the fence's layer; before the first fence,
    // the first layer. A segment's SRAM range is that of its instructions.
    std::vector<std::size_t> starts{0};
    for (std::size_t f : fences) starts.push_back(f);
    starts.push_back(ins.size());
    std::vector<Range> ranges(starts.size() - 1);
    std::vector<bool> host(starts.size() - 1, false);
    std::vector<std::optional<std::size_t>> last_store(starts.size() - 1);
    for (std::size_t s = 0; s + 1 < starts.size(); ++s)
      for (std::size_t i = starts[s]; i < starts[s + 1]; ++i) {
        host[s] = host[s] || ins[i].op == Opcode::Host;
        if (ins[i].op == Opcode::Store) last_store[s] = i;
        for (const auto& o : isa::sram_operands(ins[i], p_.dtype)) {
          if (o.bytes == 0) continue;
          ranges[s].lo = std::min<std::uint64_t>(ranges[s].lo, o.addr);
          ranges[s].hi = std::max<std::uint64_t>(ranges[s].hi, o.addr + o.bytes);
        }
      }
    const std::uint64_t cap = hw_.sram.capacity_bytes;
    // Preferred: move by whole banks (the bank of every buffer relative to the others stays
    // as codegen chose it); else by 64 B, the DMA alignment, when only that fits.
    const std::uint64_t bank = hw_.sram.banks > 0 ? std::max<std::uint64_t>(1, cap / std::uint64_t(hw_.sram.banks)) : 1;
    constexpr std::uint64_t kFine = 64;
    std::optional<std::size_t> waited;  // the latest STORE (instruction index) some LOAD waits for
    std::set<std::size_t> erase;
    std::vector<Decision> out;
    for (std::size_t s = 1; s + 1 < starts.size(); ++s) {
      const std::size_t f = starts[s];
      const std::string layer = ins[f].layer;
      const std::string prev = ins[starts[s - 1]].layer;
      Decision d;
      d.pass = "pipeline-layers";
      d.nodes = {layer};
      d.label = prev + " -> " + layer;
      auto keep = [&](const std::string& why) {
        d.outcome = DecisionOutcome::Declined;
        d.reason = why;
        out.push_back(d);
        waited = f + 1;  // the fence's SYNC store: every earlier STORE is done before it
      };
      // The first LOAD of the layer, waiting on the fence.
      std::optional<std::size_t> first;
      for (std::size_t i = f + 2; i < starts[s + 1] && !first; ++i)
        if (ins[i].op == Opcode::Load) first = i;
      if (!first || !has(ins[*first].wait, kCp2Ld) || !has(ins[*first].wait, kSt2Ld) || ins[*first].wait.size() != 2) {
        keep("fence of another form (the layer does not start with a LOAD waiting on it)");
        continue;
      }
      if (host[s] || host[s - 1]) {
        keep("a HOST layer on one side (the host's DDR traffic is not described by STOREs)");
        continue;
      }
      // Place the layer's SRAM range beside the previous layer's: where it is, at the top
      // (a whole number of banks below the capacity) or at the bottom.
      const Range pr = ranges[s - 1], r = ranges[s];
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
      if (!delta) {
        keep(fmt::format("SRAM: {} uses {} B and {} {} B of {} B", prev, pr.hi - pr.lo, layer, size, cap));
        continue;
      }
      Range moved;
      moved.lo = std::uint64_t(std::int64_t(r.lo) + *delta);
      moved.hi = std::uint64_t(std::int64_t(r.hi) + *delta);
      // SRAM reuse: the latest earlier layer whose range overlaps must be done first: its
      // last STORE done means its computes (which that STORE waited for) and LOADs are too.
      std::optional<std::size_t> need_first;
      bool storeless = false;
      for (std::size_t e = s - 1; e-- > 0;)
        if (ranges[e].overlaps(moved)) {
          need_first = last_store[e];
          storeless = !need_first;
          break;
        }
      if (storeless) {
        keep("SRAM: the earlier layer that used this range has no STORE to wait for");
        continue;
      }
      for (std::size_t i = f; i < starts[s + 1]; ++i) isa::relocate_sram(ins[i], *delta);
      ranges[s] = moved;
      // The fence goes; the LOADs wait for what they need.
      erase.insert(f);
      erase.insert(f + 1);
      auto& w = ins[*first].wait;
      w.clear();
      int waits = 0;
      for (std::size_t i = *first; i < starts[s + 1]; ++i) {
        if (ins[i].op != Opcode::Load) continue;
        std::optional<std::size_t> need = i == *first ? need_first : std::nullopt;
        const auto k = kind_.find(ins[i].tensor);
        if (k != kind_.end() && k->second != isa::TensorKind::Input && k->second != isa::TensorKind::Weight) {
          // The last STORE before the fence that wrote any byte this LOAD reads.
          const auto rows = rows_of(ins[i]);
          const auto& written = stores_[ins[i].tensor];
          for (auto w = written.rbegin(); w != written.rend(); ++w)
            if (w->first < f && overlap(rows, w->second)) {
              if (!need || w->first > *need) need = w->first;
              break;
            }
        }
        if (need && (!waited || *need > *waited)) {
          ins[*need].push.push_back(kSt2Ld);
          ins[i].wait.push_back(kSt2Ld);
          waited = need;
          ++waits;
        }
      }
      d.outcome = DecisionOutcome::Applied;
      d.verb = "pipelined";
      d.reason = fmt::format("{} at SRAM [{:#x}, {:#x}); {} LOAD{} wait{} for STOREs", layer, ranges[s].lo,
                             ranges[s].hi, waits, waits == 1 ? "" : "s", waits == 1 ? "s" : "");
      out.push_back(d);
    }
    std::vector<Instruction> kept;
    kept.reserve(ins.size() - erase.size());
    for (std::size_t i = 0; i < ins.size(); ++i)
      if (!erase.count(i)) kept.push_back(std::move(ins[i]));
    ins = std::move(kept);
    return out;
  }

 private:
  isa::Program& p_;
  const HwConfig& hw_;
  std::map<std::string, isa::TensorKind> kind_;
  /// Per tensor, its STOREs (instruction index, sorted DDR rows) in program order. Indices
  /// stay valid during run(): instructions are only erased at its end.
  std::map<std::string, std::vector<std::pair<std::size_t, std::vector<Interval>>>> stores_;
};

}  // namespace

std::vector<Decision> pipeline_layers(isa::Program& program, const HwConfig& hw) { return Pipeliner(program, hw).run(); }

}  // namespace npu::compiler
