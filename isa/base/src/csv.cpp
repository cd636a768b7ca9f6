#include "npu/base/csv.hpp"

#include "npu/base/user_text.hpp"

namespace npu {

std::string csv_field(std::string_view v_in) {
  // Bytes that are not UTF-8 are written as \xNN (as in the JSON outputs), so a CSV file
  // stays UTF-8 text that spreadsheet and pandas readers accept.
  const std::string v = utf8_escaped(v_in);
  if (v.find_first_of(",\"\r\n") == std::string::npos) return v;
  std::string q = "\"";
  for (char c : v) {
    if (c == '"') q.push_back('"');
    q.push_back(c);
  }
  q.push_back('"');
  return q;
}

}  // namespace npu
