#include "npu/sim/experiment/compile_warnings.hpp"

#include <map>

#include <fmt/format.h>

namespace npu::sim {

bool shown_by_host_or_ladder_lines(const std::string& warning) {
  // The texts of compiler.cpp's host and ladder warnings.
  const bool host_share =
      warning.find(" % of the MACs (") != std::string::npos && warning.find("run on the host") != std::string::npos;
  return host_share ||
         warning.find("host tensor(s) have a size known only at run time") != std::string::npos ||
         warning.find("compiled for the configured SRAM only, not its smaller-SRAM plans") != std::string::npos;
}

std::string without_source(const std::string& warning) {
  for (const char* kind : {": warning: ", ": note: "}) {
    const auto at = warning.find(kind);
    if (at != std::string::npos) return warning.substr(at + 2);
  }
  return warning;
}

std::string compile_warning_lines(const std::vector<const RunSummary*>& runs,
                                  const std::function<std::string(const RunSummary&)>& model_name) {
  std::map<std::string, int> runs_of;
  for (const RunSummary* r : runs) {
    if (!r->ok) continue;
    for (const std::string& w : r->compile_warnings) runs_of[fmt::format("compile: {}: {}", model_name(*r), w)] += 1;
  }
  std::string lines;
  for (const auto& [line, n] : runs_of) lines += fmt::format("{} ({} run(s))\n", line, n);
  return lines;
}

}  // namespace npu::sim
