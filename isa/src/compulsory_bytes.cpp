// The program's compulsory DDR bytes (instruction.hpp compulsory_bytes).
#include <algorithm>
#include <map>
#include <string>

#include "npu/isa/instruction.hpp"

namespace npu::isa {

namespace {

/// Per tensor a LOAD or STORE names: the bytes its gather LOADs fetch, or -1 once a plain LOAD
/// or a STORE touches it (then the whole tensor is compulsory).
std::map<std::string, std::int64_t> gathered_bytes(const Program& p) {
  std::map<std::string, std::int64_t> g;
  for (const Instruction& inst : p.instructions) {
    if (inst.tensor.empty()) continue;
    const auto* d = std::get_if<DmaDesc>(&inst.params);
    if (!d) continue;
    std::int64_t& n = g[inst.tensor];
    if (inst.op != Opcode::Load || !d->gather) n = -1;
    else if (n >= 0) n += std::int64_t(d->bytes());
  }
  return g;
}

}  // namespace

std::uint64_t compulsory_bytes(const Program& p) {
  const std::map<std::string, std::int64_t> gathered = gathered_bytes(p);
  std::uint64_t n = 0;
  for (const TensorDecl& t : p.tensors) {
    if (t.kind == TensorKind::Intermediate) continue;
    const auto it = gathered.find(t.name);
    const bool only_gathered = it != gathered.end() && it->second >= 0 && t.kind != TensorKind::Output;
    n += only_gathered ? std::min(t.bytes, std::uint64_t(it->second)) : t.bytes;
  }
  return n;
}

}  // namespace npu::isa
