// DDR data-flow check (dataflow_check.hpp): happens-before from queue order and tokens, then
// byte coverage of every LOAD of stored data by the STOREs before it.
#include "npu/isa/check/dataflow_check.hpp"

#include "npu/isa/check/happens_before.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <exception>
#include <map>
#include <optional>
#include <string>
#include <utility>

namespace npu::isa {

namespace {

using Interval = std::pair<std::uint64_t, std::uint64_t>;  // [begin, end) DDR bytes
using Clock = HappensBefore::Clock;

/// A union of byte ranges: disjoint, non-adjacent [begin, end) kept in a map by begin.
class IntervalSet {
 public:
  void add(std::uint64_t b, std::uint64_t e) {
    if (b >= e) return;
    auto it = set_.upper_bound(b);
    if (it != set_.begin() && std::prev(it)->second >= b) {  // joins the one before
      --it;
      b = it->first;
      e = std::max(e, it->second);
      it = set_.erase(it);
    }
    while (it != set_.end() && it->first <= e) {  // swallows the ones it reaches
      e = std::max(e, it->second);
      it = set_.erase(it);
    }
    set_.emplace(b, e);
  }
  /// First byte of [b, e) not in the set, if any.
  std::optional<std::uint64_t> first_missing(std::uint64_t b, std::uint64_t e) const {
    if (b >= e) return std::nullopt;
    auto it = set_.upper_bound(b);
    if (it == set_.begin() || std::prev(it)->second <= b) return b;
    const std::uint64_t covered_to = std::prev(it)->second;
    if (covered_to >= e) return std::nullopt;
    return covered_to;  // intervals are non-adjacent: the next one starts later
  }

 private:
  std::map<std::uint64_t, std::uint64_t> set_;
};

class DataflowChecker {
 public:
  explicit DataflowChecker(const Program& p) : p_(p) {
    for (std::size_t t = 0; t < p_.tensors.size(); ++t) tensor_index_[p_.tensors[t].name] = t;
  }

  std::vector<CheckIssue> run() {
    std::vector<std::size_t> store_queue;  // the store queue's instructions (STOREs, SYNCs) in order
    for (std::size_t i = 0; i < p_.instructions.size(); ++i)
      if (p_.instructions[i].queue() == Queue::Store) store_queue.push_back(i);
    if (happens_before()) {
      check_loads(store_queue);
    } else {  // no order to check against: the outputs only
      for (std::size_t i : store_queue) add_store(i);
    }
    check_outputs();
    return std::move(issues_);
  }

 private:
  /// Fills before_[i] for every instruction; false when the queues cannot all complete.
  bool happens_before() {
    HappensBefore hb = isa::happens_before(p_);
    before_ = std::move(hb.before);
    return hb.complete;
  }

  const TensorDecl* tensor_of(const Instruction& in) const {
    auto it = tensor_index_.find(in.tensor);
    return it == tensor_index_.end() ? nullptr : &p_.tensors[it->second];
  }

  /// Whether every DDR row of instruction i (LOAD/STORE) lies inside its tensor. A range
  /// outside its tensor is check_program's tensor-region issue: such an instruction is not
  /// checked here. O(1) through the byte hull [ddr_addr, ddr_addr + span) when that fits in
  /// 64 bits (every row inside the hull, and the hull's two ends are rows' ends); else row by row.
  bool rows_inside(std::size_t i) const {
    const auto& d = std::get<DmaDesc>(p_.instructions[i].params);
    const TensorDecl* t = tensor_of(p_.instructions[i]);
    if (!t) return false;
    auto inside = [&](std::uint64_t b, std::uint64_t e) {
      return !(e < b || b < t->ddr_addr || e - t->ddr_addr > t->bytes);
    };
    if (const auto h = hull(d)) return inside(h->first, h->second);
    bool all = true;
    for_each_ddr_row(d, [&](std::uint64_t b, std::uint64_t e) { all = all && inside(b, e); });
    return all;
  }

  /// [ddr_addr, ddr_addr + span) of a descriptor with rows, if it fits in 64 bits.
  static std::optional<Interval> hull(const DmaDesc& d) {
    if (d.extent[0] == 0 || d.extent[1] == 0 || d.extent[2] == 0 || d.elem_bytes <= 0) return std::nullopt;
    std::uint64_t span = 0;
    try {
      span = d.ddr_span_bytes();
    } catch (const std::exception&) {
      return std::nullopt;
    }
    if (span > UINT64_MAX - d.ddr_addr) return std::nullopt;
    return Interval{d.ddr_addr, d.ddr_addr + span};
  }

  /// LOADs in the order of how many STOREs happen before them, the STOREs added to each
  /// tensor's written set in store-queue order: O((rows) log rows) for the whole program, a LOAD
  /// whose hull is written in O(log rows).
  void check_loads(const std::vector<std::size_t>& store_queue) {
    std::vector<std::pair<std::size_t, std::size_t>> loads;  // (stores before it, instruction)
    for (std::size_t i = 0; i < p_.instructions.size(); ++i) {
      const Instruction& in = p_.instructions[i];
      const TensorDecl* t = in.op == Opcode::Load ? tensor_of(in) : nullptr;
      // A kv_cache tensor holds the past rows before the run (the past graph input lives in it).
      if (t && t->kind != TensorKind::Input && t->kind != TensorKind::Weight && t->kind != TensorKind::KvCache)
        loads.emplace_back(before_[i][int(Queue::Store)], i);
    }
    std::stable_sort(loads.begin(), loads.end());
    std::size_t added = 0;
    std::vector<CheckIssue> found;
    for (const auto& [stores_before, i] : loads) {
      for (; added < stores_before && added < store_queue.size(); ++added) add_store(store_queue[added]);
      const Instruction& in = p_.instructions[i];
      const TensorDecl& t = *tensor_of(in);
      if (!rows_inside(i)) continue;
      const IntervalSet& written = written_[in.tensor];
      const auto& d = std::get<DmaDesc>(in.params);
      // Written over the whole hull: every row is (the common case, one look-up).
      const std::optional<Interval> h = hull(d);
      if (h && !written.first_missing(h->first, h->second)) continue;
      std::optional<std::uint64_t> gap;
      std::uint64_t lo = UINT64_MAX, hi = 0;
      for_each_ddr_row(d, [&](std::uint64_t b, std::uint64_t e) {
        lo = std::min(lo, b);
        hi = std::max(hi, e);
        const auto g = written.first_missing(b, e);
        if (g && (!gap || *g < *gap)) gap = g;
      });
      if (!gap) continue;
      found.push_back(
          {in.source_line, i,
           fmt::format("instruction #{} LOAD{}: reads {} tensor '{}' (bytes at offset {} to {}) but no STORE that "
                       "happens before it wrote offset {}; a STORE of those bytes must come first in the store queue "
                       "and be ordered before this LOAD by tokens (or the program order of a program without tokens)",
                       i, in.layer.empty() ? std::string() : fmt::format(" (layer {})", in.layer), to_string(t.kind),
                       t.name, lo - t.ddr_addr, hi - t.ddr_addr, *gap - t.ddr_addr),
           CheckKind::Dataflow});
    }
    for (; added < store_queue.size(); ++added) add_store(store_queue[added]);
    std::sort(found.begin(), found.end(), [](const CheckIssue& a, const CheckIssue& b) { return a.index < b.index; });
    for (CheckIssue& issue : found) issues_.push_back(std::move(issue));
  }

  void add_store(std::size_t i) {
    const Instruction& in = p_.instructions[i];
    if (in.op != Opcode::Store || !tensor_of(in)) return;
    if (!rows_inside(i)) return;
    IntervalSet& w = written_[in.tensor];
    for_each_ddr_row(std::get<DmaDesc>(in.params), [&](std::uint64_t b, std::uint64_t e) { w.add(b, e); });
  }

  void check_outputs() {
    for (std::size_t t = 0; t < p_.tensors.size(); ++t) {
      const TensorDecl& d = p_.tensors[t];
      if (d.kind != TensorKind::Output || d.bytes == 0) continue;
      if (d.bytes > UINT64_MAX - d.ddr_addr) continue;  // check_program's ddr-range issue
      const std::optional<std::uint64_t> gap = written_[d.name].first_missing(d.ddr_addr, d.ddr_addr + d.bytes);
      if (!gap) continue;
      issues_.push_back({d.source_line, t,
                         fmt::format("output tensor '{}' ({} bytes): offset {} is never written by a STORE; every "
                                     "byte of a program output must be stored (a fusion that drops a graph output "
                                     "is illegal)",
                                     d.name, d.bytes, *gap - d.ddr_addr),
                         CheckKind::Dataflow});
    }
  }

  const Program& p_;
  std::map<std::string, std::size_t> tensor_index_;
  std::vector<Clock> before_;
  std::map<std::string, IntervalSet> written_;  // per tensor: bytes the STOREs added so far wrote
  std::vector<CheckIssue> issues_;
};

}  // namespace

std::vector<CheckIssue> check_dataflow(const Program& program) { return DataflowChecker(program).run(); }

std::vector<std::pair<std::uint64_t, std::uint64_t>> ddr_rows(const DmaDesc& d) {
  std::vector<std::pair<std::uint64_t, std::uint64_t>> out;
  for_each_ddr_row(d, [&](std::uint64_t b, std::uint64_t e) { out.emplace_back(b, e); });
  return out;
}

namespace {

/// ddr_burst_bytes() in O(extent[2]) for rows that stay apart (stride[0] is not the row, the
/// last row of one k does not run into the next k's first) and all start at the same offset
/// inside a burst for one k (stride[0] a multiple of the burst): each k adds extent[1] times
/// its first row's bursts. nullopt when that does not hold or an address would wrap.
std::optional<std::uint64_t> separate_rows_burst_bytes(const DmaDesc& d, std::uint64_t burst) {
  if (d.extent[0] == 0 || d.extent[1] == 0 || d.extent[2] == 0 || d.elem_bytes <= 0) return std::uint64_t(0);
  const unsigned __int128 row = (unsigned __int128)d.extent[0] * unsigned(d.elem_bytes);
  const unsigned __int128 s0 = d.ddr_stride_bytes[0], s1 = d.ddr_stride_bytes[1];
  if (s0 == row || s0 % burst != 0) return std::nullopt;
  if (d.extent[2] > 1 && s1 == (d.extent[1] - 1) * s0 + row) return std::nullopt;
  if (d.ddr_addr + (d.extent[2] - 1) * s1 + (d.extent[1] - 1) * s0 + row + burst > UINT64_MAX) return std::nullopt;
  unsigned __int128 n = 0;
  for (std::uint64_t k = 0; k < d.extent[2]; ++k) {
    const unsigned __int128 lo = d.ddr_addr + k * s1;
    n += ((lo + row + burst - 1) / burst - lo / burst) * burst * d.extent[1];
  }
  if (n > UINT64_MAX) return std::nullopt;
  return std::uint64_t(n);
}

}  // namespace

std::uint64_t ddr_burst_bytes(const DmaDesc& d, std::uint64_t burst) {
  if (burst == 0) return 0;
  if (const auto fast = separate_rows_burst_bytes(d, burst)) return *fast;
  std::uint64_t n = 0;
  for_each_ddr_row(d, [&](std::uint64_t lo, std::uint64_t hi) { n += ((hi + burst - 1) / burst - lo / burst) * burst; });
  return n;
}

}  // namespace npu::isa
