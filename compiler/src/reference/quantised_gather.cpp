// The quantised reference's token-embedding Gather (quantised_rules.hpp, gather_rows): written
// from ONNX's Gather definition (axis 0: out[k, ...] = data[ids[k], ...]), independent of the
// NPU's gather LOAD.
#include <stdexcept>
#include <string>

#include "reference/quantised_rules.hpp"

namespace npu::compiler::qref {

std::vector<std::int8_t> gather_rows(const std::vector<std::int8_t>& table, std::int64_t rows, std::int64_t row,
                                     const std::vector<std::int64_t>& ids) {
  if (rows <= 0 || row <= 0 || std::int64_t(table.size()) != rows * row)
    throw std::invalid_argument("the table does not hold rows x row codes");
  std::vector<std::int8_t> out;
  out.reserve(ids.size() * std::size_t(row));
  for (std::size_t k = 0; k < ids.size(); ++k) {
    const std::int64_t id = ids[k];
    if (id < 0 || id >= rows)
      throw std::invalid_argument("index " + std::to_string(id) + " at element " + std::to_string(k) +
                                  " is outside [0, " + std::to_string(rows) + "), the table's rows");
    out.insert(out.end(), table.begin() + std::ptrdiff_t(id * row), table.begin() + std::ptrdiff_t((id + 1) * row));
  }
  return out;
}

}  // namespace npu::compiler::qref
