#include "npu/sim/llm/llm_out_folder.hpp"

#include <filesystem>
#include <fstream>
#include <regex>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "npu/base/config_error.hpp"

namespace npu::sim {

namespace {
// What a plan.json's cells say the folder holds: "" when they are all npu llm's runs.
std::string other_tools_cells(const nlohmann::json& plan) {
  if (plan.value("kind", "") == "sweep") return "a sweep";
  static const std::regex llm_run(".*__(prefill|decode)[0-9]+$");
  for (const auto& cell : plan.value("cells", nlohmann::json::array())) {
    const std::string run_dir = cell.is_object() ? cell.value("run_dir", "") : "";
    if (!std::regex_match(run_dir, llm_run)) return "an experiment";
  }
  return "";
}
}  // namespace

void refuse_other_tools_folder(const std::string& out_dir) {
  const std::filesystem::path plan_path = std::filesystem::path(out_dir) / "plan.json";
  std::ifstream in(plan_path);
  if (!in) return;
  const nlohmann::json plan = nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
  if (!plan.is_object()) return;
  const std::string what = other_tools_cells(plan);
  if (what.empty()) return;
  throw ConfigError(fmt::format("--out {}: error: the folder holds {} ({}), whose summary.csv/json/md npu llm would "
                                "replace with its own runs'; give npu llm a folder of its own",
                                out_dir, what, plan_path.string()));
}

void refuse_llm_folder(const std::string& out_dir, const std::string& tool) {
  std::error_code ec;
  const std::filesystem::path llm = std::filesystem::path(out_dir) / "llm.json";
  if (!std::filesystem::exists(llm, ec)) return;
  throw ConfigError(fmt::format("--out {}: error: the folder holds an npu llm run ({}), whose summary.csv/json/md and "
                                "plan.json {} would replace; give {} a folder of its own",
                                out_dir, llm.string(), tool, tool));
}

}  // namespace npu::sim
