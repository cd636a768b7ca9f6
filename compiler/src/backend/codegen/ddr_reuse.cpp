// DDR reuse by lifetime (ddr_reuse.hpp): intermediates whose accesses lie between different
// fences share bytes; first fit over a free list, like an activation-memory planner.
#include "backend/codegen/ddr_reuse.hpp"

#include <algorithm>
#include <map>
#include <queue>
#include <tuple>
#include <vector>

#include "npu/base/checked_math.hpp"
#include "npu/compiler/backend/tiling/tiling.hpp"

namespace npu::compiler::codegen {

namespace {

bool is_fence(const isa::Instruction& in) {
  const auto* s = std::get_if<isa::SyncParams>(&in.params);
  return in.op == isa::Opcode::Sync && s && s->queue == isa::Queue::Store && in.push.size() == 1 &&
         in.push[0] == isa::kSt2Ld;
}

/// Per tensor: the first and last fence epoch (fences before the instruction) of its
/// LOADs/STOREs; first = -1 when no instruction names it.
std::vector<std::pair<long, long>> epochs(const isa::Program& p) {
  std::map<std::string, std::size_t> index;
  for (std::size_t t = 0; t < p.tensors.size(); ++t) index[p.tensors[t].name] = t;
  std::vector<std::pair<long, long>> e(p.tensors.size(), {-1, -1});
  long epoch = 0;
  for (const auto& in : p.instructions) {
    if (is_fence(in)) ++epoch;
    if (in.op != isa::Opcode::Load && in.op != isa::Opcode::Store) continue;
    auto it = index.find(in.tensor);
    if (it == index.end()) continue;
    auto& [first, last] = e[it->second];
    if (first < 0) first = epoch;
    last = epoch;
  }
  return e;
}

/// Free byte ranges [lo, hi) above the fixed tensors, coalesced; `top` is the high-water mark.
class FreeList {
 public:
  explicit FreeList(std::uint64_t base) : top_(base) {}
  std::uint64_t take(std::uint64_t bytes) {
    for (auto it = free_.begin(); it != free_.end(); ++it) {
      const auto [lo, hi] = *it;
      if (hi - lo >= bytes) {
        free_.erase(it);
        if (hi - lo > bytes) free_[lo + bytes] = hi;
        return lo;
      }
      if (hi == top_) {  // the last free range touches the top: grow it
        free_.erase(it);
        top_ = checked_add(lo, bytes, "error: DDR reuse end of a tensor (address + bytes)");
        return lo;
      }
    }
    const std::uint64_t lo = top_;
    top_ = checked_add(top_, bytes, "error: DDR reuse end of a tensor (address + bytes)");
    return lo;
  }
  void give(std::uint64_t lo, std::uint64_t hi) {
    auto next = free_.lower_bound(lo);
    if (next != free_.end() && next->first == hi) {
      hi = next->second;
      next = free_.erase(next);
    }
    if (next != free_.begin()) {
      auto prev = std::prev(next);
      if (prev->second == lo) {
        prev->second = hi;
        return;
      }
    }
    free_[lo] = hi;
  }
  std::uint64_t top() const { return top_; }

 private:
  std::map<std::uint64_t, std::uint64_t> free_;
  std::uint64_t top_;
};

}  // namespace

std::uint64_t reuse_ddr_by_lifetime(isa::Program& program, std::uint64_t align) {
  const auto life = epochs(program);
  const std::size_t n = program.tensors.size();
  auto reusable = [&](std::size_t t) {
    return program.tensors[t].kind == isa::TensorKind::Intermediate && life[t].first >= 0;
  };
  std::vector<std::uint64_t> base(n, 0);
  std::uint64_t fixed_end = 0;
  for (std::size_t t = 0; t < n; ++t)
    if (!reusable(t)) {
      base[t] = align_up(fixed_end, align);
      fixed_end = checked_add(base[t], program.tensors[t].bytes, "error: DDR reuse end of a tensor (address + bytes)");
    }
  std::vector<std::size_t> order;
  for (std::size_t t = 0; t < n; ++t)
    if (reusable(t)) order.push_back(t);
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return life[a].first < life[b].first; });
  FreeList heap(align_up(fixed_end, align));
  using Live = std::tuple<long, std::uint64_t, std::uint64_t>;  // last epoch, lo, hi
  std::priority_queue<Live, std::vector<Live>, std::greater<Live>> live;
  for (std::size_t t : order) {
    while (!live.empty() && std::get<0>(live.top()) < life[t].first) {
      heap.give(std::get<1>(live.top()), std::get<2>(live.top()));
      live.pop();
    }
    const std::uint64_t size = align_up(program.tensors[t].bytes, align);
    base[t] = heap.take(size);
    live.emplace(life[t].second, base[t], base[t] + size);
  }
  std::map<std::string, std::uint64_t> shift;  // added to every address of the tensor (mod 2^64)
  for (std::size_t t = 0; t < n; ++t) {
    shift[program.tensors[t].name] = base[t] - program.tensors[t].ddr_addr;
    program.tensors[t].ddr_addr = base[t];
  }
  for (auto& in : program.instructions)
    if (auto* d = std::get_if<isa::DmaDesc>(&in.params)) {
      auto it = shift.find(in.tensor);
      if (it != shift.end()) d->ddr_addr += it->second;
    }
  std::uint64_t end = fixed_end;
  for (std::size_t t : order) end = std::max(end, base[t] + program.tensors[t].bytes);
  return end;
}

}  // namespace npu::compiler::codegen
