// Einsum's output shape and loop size from its equation (einsum_shape.hpp).
#include "npu/compiler/transforms/canonicalize/einsum_shape.hpp"

#include <map>

namespace npu::compiler {

namespace {

std::string without_spaces(const std::string& s) {
  std::string out;
  for (char c : s)
    if (c != ' ') out += c;
  return out;
}

std::vector<std::string> split_terms(const std::string& lhs) {
  std::vector<std::string> terms(1);
  for (char c : lhs) {
    if (c == ',') terms.emplace_back();
    else terms.back() += c;
  }
  return terms;
}

}  // namespace

std::optional<EinsumShape> einsum_shape(const std::string& equation, const std::vector<std::vector<std::int64_t>>& inputs) {
  const std::string eq = without_spaces(equation);
  const auto arrow = eq.find("->");
  if (arrow == std::string::npos || eq.find('.') != std::string::npos) return std::nullopt;
  const std::vector<std::string> terms = split_terms(eq.substr(0, arrow));
  if (terms.size() != inputs.size()) return std::nullopt;
  std::map<char, std::int64_t> size;
  for (std::size_t k = 0; k < terms.size(); ++k) {
    if (terms[k].size() != inputs[k].size()) return std::nullopt;
    for (std::size_t d = 0; d < terms[k].size(); ++d) {
      const char letter = terms[k][d];
      const std::int64_t n = inputs[k][d];
      if (n < 0) return std::nullopt;
      auto [it, fresh] = size.emplace(letter, n);
      if (!fresh && it->second != n) {  // broadcasting: a size of 1 takes the other
        if (it->second != 1 && n != 1) return std::nullopt;
        it->second = std::max(it->second, n);
      }
    }
  }
  EinsumShape out;
  for (char letter : eq.substr(arrow + 2)) {
    const auto it = size.find(letter);
    if (it == size.end()) return std::nullopt;
    out.output.push_back(it->second);
  }
  out.loop_size = 1;
  for (const auto& [letter, n] : size) out.loop_size *= std::uint64_t(n);
  return out;
}

std::optional<EinsumShape> einsum_shape(const Graph& g, const Node& n) {
  std::vector<std::vector<std::int64_t>> shapes;
  for (const std::string& in : n.inputs) {
    if (in.empty() || !g.has_tensor(in) || !g.tensor(in).shape_known()) return std::nullopt;
    shapes.push_back(g.tensor(in).shape);
  }
  return einsum_shape(n.attr_string("equation", ""), shapes);
}

}  // namespace npu::compiler
