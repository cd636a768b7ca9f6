#include "npu/base/json_text.hpp"

#include "npu/base/user_text.hpp"

namespace npu {

namespace {

template <typename J>
J sanitised(const J& j) {
  if (j.is_string()) return J(utf8_escaped(j.template get_ref<const std::string&>()));
  if (j.is_array()) {
    J out = J::array();
    for (const auto& e : j) out.push_back(sanitised(e));
    return out;
  }
  if (j.is_object()) {
    J out = J::object();
    for (auto it = j.begin(); it != j.end(); ++it) out[utf8_escaped(it.key())] = sanitised(it.value());
    return out;
  }
  return j;
}

template <typename J>
std::string dump(const J& j, int indent) {
  try {
    return j.dump(indent);  // the common case: every string is already UTF-8
  } catch (const nlohmann::json::type_error&) {
    return sanitised(j).dump(indent);
  }
}

}  // namespace

std::string json_dump(const nlohmann::json& j, int indent) { return dump(j, indent); }
std::string json_dump(const nlohmann::ordered_json& j, int indent) { return dump(j, indent); }

}  // namespace npu
