// Ordering of tensors that share DDR bytes (shared_regions.hpp): per tensor, the last
// instruction of each queue that names it and the earliest clock among its instructions.
#include "npu/isa/check/shared_regions.hpp"

#include <algorithm>
#include <array>
#include <limits>
#include <map>
#include <string>

#include "npu/isa/check/happens_before.hpp"

namespace npu::isa {

namespace {

constexpr std::size_t kNone = std::numeric_limits<std::size_t>::max();

/// A tensor's LOAD/STOREs: per queue, the last one (instruction index, kNone if none), and
/// per queue the least clock over all of them with the instruction that has it.
struct Accesses {
  std::array<std::size_t, 3> last{kNone, kNone, kNone};
  std::array<std::size_t, 3> min_clock{kNone, kNone, kNone};
  std::array<std::size_t, 3> min_at{kNone, kNone, kNone};
};

/// The first pair (i in a, j in b) with i not before j, or nullopt when all of a precede all of b.
std::optional<std::pair<std::size_t, std::size_t>> not_before(const Accesses& a, const Accesses& b,
                                                              const HappensBefore& hb) {
  for (std::size_t q = 0; q < 3; ++q) {
    if (a.last[q] == kNone) continue;
    if (b.min_at[q] == kNone) return std::nullopt;  // b has no instruction: nothing to order
    if (b.min_clock[q] <= hb.position[a.last[q]]) return std::make_pair(a.last[q], b.min_at[q]);
  }
  return std::nullopt;
}

}  // namespace

std::vector<std::optional<std::pair<std::size_t, std::size_t>>> unordered_accesses(
    const Program& p, const std::vector<std::pair<std::size_t, std::size_t>>& pairs) {
  std::vector<std::optional<std::pair<std::size_t, std::size_t>>> out(pairs.size());
  if (pairs.empty()) return out;
  const HappensBefore hb = happens_before(p);
  if (!hb.complete) {
    for (auto& o : out) o = std::make_pair(std::size_t(0), std::size_t(0));
    return out;
  }
  std::map<std::string, std::size_t> index;
  for (std::size_t t = 0; t < p.tensors.size(); ++t) index[p.tensors[t].name] = t;
  std::vector<Accesses> acc(p.tensors.size());
  for (std::size_t i = 0; i < p.instructions.size(); ++i) {
    const Instruction& in = p.instructions[i];
    if (in.op != Opcode::Load && in.op != Opcode::Store) continue;
    const auto it = index.find(in.tensor);
    if (it == index.end()) continue;
    Accesses& a = acc[it->second];
    a.last[std::size_t(in.queue())] = i;
    for (std::size_t q = 0; q < 3; ++q)
      if (a.min_at[q] == kNone || hb.before[i][q] < a.min_clock[q]) {
        a.min_clock[q] = hb.before[i][q];
        a.min_at[q] = i;
      }
  }
  for (std::size_t k = 0; k < pairs.size(); ++k) {
    const Accesses& a = acc[pairs[k].first];
    const Accesses& b = acc[pairs[k].second];
    const auto ab = not_before(a, b, hb);
    if (!ab) continue;
    const auto ba = not_before(b, a, hb);
    if (ba) out[k] = ab;
  }
  return out;
}

}  // namespace npu::isa
