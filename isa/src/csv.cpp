#include "npu/isa/csv.hpp"

namespace npu {

std::string csv_field(std::string_view v) {
  if (v.find_first_of(",\"\r\n") == std::string_view::npos) return std::string(v);
  std::string q = "\"";
  for (char c : v) {
    if (c == '"') q.push_back('"');
    q.push_back(c);
  }
  q.push_back('"');
  return q;
}

}  // namespace npu
