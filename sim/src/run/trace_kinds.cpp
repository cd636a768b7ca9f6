#include "npu/sim/run/trace_kinds.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "npu/base/closest_name.hpp"
#include "npu/base/config_error.hpp"
#include "npu/base/user_text.hpp"

namespace npu::sim {

const std::vector<std::string>& trace_kinds() {
  static const std::vector<std::string> kinds = {"ddr", "timeline", "vcd"};
  return kinds;
}

void check_trace_value(const std::string& value) {
  if (has_empty_entry(value))
    throw ConfigError(fmt::format("--trace '{}': error: empty entry; give one or more of ddr, timeline, vcd "
                                  "(comma-separated), or leave --trace out for no trace",
                                  value));
}

void check_trace_kind(const std::string& kind) {
  check_trace_value(kind);
  const auto& all = trace_kinds();
  if (std::find(all.begin(), all.end(), kind) != all.end()) return;
  const auto near = closest_name(kind, all);
  throw ConfigError(fmt::format("--trace '{}': error: unknown trace kind{}\n  allowed: ddr, timeline, vcd", kind,
                                near ? fmt::format(" (did you mean '{}'?)", *near) : std::string()));
}

}  // namespace npu::sim
