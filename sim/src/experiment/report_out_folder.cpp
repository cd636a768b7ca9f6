// npu report's --out: never a folder whose summary belongs to another tool's runs.
#include <filesystem>
#include <system_error>

#include <fmt/format.h>

#include "npu/base/config_error.hpp"
#include "npu/sim/experiment/report.hpp"

namespace npu::sim {

void refuse_tool_folder_as_report_out(const std::string& out_dir) {
  namespace fs = std::filesystem;
  std::error_code ec;
  for (const char* marker : {"plan.json", "llm.json"}) {
    const fs::path p = fs::path(out_dir) / marker;
    if (!fs::exists(p, ec)) continue;
    fs::path name = fs::path(out_dir).lexically_normal();
    if (name.filename().empty()) name = name.parent_path();  // "exp/" -> "exp"
    throw ConfigError(fmt::format(
        "--out {}: error: the folder holds an experiment's, a sweep's or an npu llm run's results ({}); the report's "
        "summary.csv/json/md would replace that run's own\n  fix: give npu report a folder of its own, e.g. --out {}-report",
        out_dir, p.string(), name.string()));
  }
}

}  // namespace npu::sim
