// DDR data-flow check (dataflow_check.hpp): happens-before from queue order and tokens, then
// byte coverage of every LOAD of stored data by the STOREs before it.
#include "npu/isa/check/dataflow_check.hpp"

#include "npu/isa/check/happens_before.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
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
    if (too_many_) {
      issues_.clear();
      issues_.push_back({0, 0,
                         fmt::format("the program's LOADs and STOREs have more than {} DDR rows (extent[1] x "
                                     "extent[2] summed); the data-flow check stops there: split the program (real "
                                     "networks have well under 10^5)",
                                     kMaxRows),
                         CheckKind::Dataflow});
      return std::move(issues_);
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

  /// The DDR rows of instruction i (LOAD/STORE), counted against kMaxRows.
  std::vector<Interval> rows_of(std::size_t i) {
    const auto& d = std::get<DmaDesc>(p_.instructions[i].params);
    const std::uint64_t rows = std::uint64_t(d.extent[1]) * std::uint64_t(d.extent[2]);
    if (rows > kMaxRows - rows_seen_) {
      too_many_ = true;
      return {};
    }
    rows_seen_ += rows;
    std::vector<Interval> iv = ddr_rows(d);
    // A range outside its tensor is check_program's tensor-region issue: not checked here.
    const TensorDecl* t = tensor_of(p_.instructions[i]);
    for (const Interval& r : iv)
      if (!t || r.second < r.first || r.first < t->ddr_addr || r.second - t->ddr_addr > t->bytes) return {};
    return iv;
  }

  /// LOADs in the order of how many STOREs happen before them, the STOREs added to each
  /// tensor's written set in store-queue order: O((rows) log rows) for the whole program.
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
      std::optional<std::uint64_t> gap;
      const std::vector<Interval> rows = rows_of(i);
      std::uint64_t lo = UINT64_MAX, hi = 0;
      for (const Interval& need : rows) {
        lo = std::min(lo, need.first);
        hi = std::max(hi, need.second);
        const auto g = written_[in.tensor].first_missing(need.first, need.second);
        if (g && (!gap || *g < *gap)) gap = g;
      }
      if (too_many_) return;
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
    IntervalSet& w = written_[in.tensor];
    for (const Interval& r : rows_of(i)) w.add(r.first, r.second);
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
  static constexpr std::uint64_t kMaxRows = std::uint64_t(1) << 22;
  std::uint64_t rows_seen_ = 0;
  bool too_many_ = false;
  std::vector<CheckIssue> issues_;
};

}  // namespace

std::vector<CheckIssue> check_dataflow(const Program& program) { return DataflowChecker(program).run(); }

std::vector<std::pair<std::uint64_t, std::uint64_t>> ddr_rows(const DmaDesc& d) {
  std::vector<std::pair<std::uint64_t, std::uint64_t>> out;
  if (d.extent[0] == 0 || d.extent[1] == 0 || d.extent[2] == 0 || d.elem_bytes <= 0) return out;
  const std::uint64_t row = std::uint64_t(d.extent[0]) * std::uint64_t(d.elem_bytes);
  for (std::uint64_t k = 0; k < d.extent[2]; ++k)
    for (std::uint64_t j = 0; j < d.extent[1]; ++j) {
      const std::uint64_t b = d.ddr_addr + k * d.ddr_stride_bytes[1] + j * d.ddr_stride_bytes[0];
      if (!out.empty() && out.back().second == b) out.back().second = b + row;
      else out.emplace_back(b, b + row);
    }
  return out;
}

std::uint64_t ddr_burst_bytes(const DmaDesc& d, std::uint64_t burst) {
  if (burst == 0) return 0;
  std::uint64_t n = 0;
  for (const auto& [lo, hi] : ddr_rows(d)) n += ((hi + burst - 1) / burst - lo / burst) * burst;
  return n;
}

}  // namespace npu::isa
