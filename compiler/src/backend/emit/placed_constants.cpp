// Where the program's constants live in DDR (placed_constants.hpp).
#include "backend/emit/placed_constants.hpp"

#include <algorithm>
#include <map>
#include <stdexcept>

namespace npu::compiler {

std::uint64_t placed_ddr_addr(const CompileResult& r, const std::string& t) {
  const auto it = r.lowered.place.find(t);
  if (it == r.lowered.place.end()) throw std::logic_error("ddr_image: tensor '" + t + "' has no DDR place");
  for (const isa::TensorDecl& d : r.program.tensors)
    if (d.name == it->second.root) return d.ddr_addr + it->second.offset;
  throw std::logic_error("ddr_image: tensor '" + t + "' lives in undeclared region '" + it->second.root + "'");
}

std::pair<std::string, std::uint64_t> constant_of_place(const Graph& g, const std::string& place_name) {
  if (g.has_tensor(place_name)) return {g.tensor(place_name).is_constant ? place_name : "", 0};
  const std::size_t at = place_name.rfind('@');
  if (at == std::string::npos) return {"", 0};
  const std::string base = place_name.substr(0, at);
  if (!g.has_tensor(base) || !g.tensor(base).is_constant) return {"", 0};
  const std::string digits = place_name.substr(at + 1, place_name.find('+', at) - at - 1);
  if (digits.empty() || digits.find_first_not_of("0123456789") != std::string::npos)
    throw std::logic_error("ddr_image: place '" + place_name + "' is no subview NAME@OFFSET+BYTES of constant '" +
                           base + "'");
  return {base, std::stoull(digits)};
}

std::vector<PlacedConstant> placed_constants(const CompileResult& r) {
  std::map<std::string, std::uint64_t> addr;
  for (const auto& [name, place] : r.lowered.place) {
    (void)place;
    const auto [constant, offset] = constant_of_place(r.graph, name);
    if (constant.empty()) continue;
    const std::uint64_t a = placed_ddr_addr(r, name) - offset;
    const auto [it, fresh] = addr.emplace(constant, a);
    if (!fresh && it->second != a)
      throw std::logic_error("ddr_image: constant '" + constant + "' is placed at two DDR addresses");
  }
  std::vector<PlacedConstant> out;
  for (const auto& [name, a] : addr) out.push_back({name, a});
  return out;
}

void check_every_weight_written(const CompileResult& r, const std::vector<DdrSegment>& image) {
  for (const isa::TensorDecl& d : r.program.tensors) {
    if (d.kind != isa::TensorKind::Weight || d.bytes == 0) continue;
    const bool written = std::any_of(image.begin(), image.end(), [&](const DdrSegment& s) {
      return !s.bytes.empty() && s.ddr_addr < d.ddr_addr + d.bytes && d.ddr_addr < s.ddr_addr + s.bytes.size();
    });
    if (!written)
      throw std::logic_error("ddr_image: weight region '" + d.name + "' (" + std::to_string(d.bytes) +
                             " B) gets no data: the program would read zeros (a compiler bug)");
  }
}

}  // namespace npu::compiler
