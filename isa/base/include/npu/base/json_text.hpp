// The one way this project turns JSON into text (run.json, run_summary.json, summary.json,
// compile reports, ddr_stats.json, `--json` output): strings with bytes that are not UTF-8
// (a layer, node or config name from a user's file) are written with those bytes as \xNN
// (npu::utf8_escaped), as the CSV files write them, instead of throwing nlohmann's
// type_error 316 halfway through a file.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace npu {

/// j.dump(indent) with every string value and key made valid UTF-8 (utf8_escaped).
std::string json_dump(const nlohmann::json& j, int indent = 2);
std::string json_dump(const nlohmann::ordered_json& j, int indent = 2);

}  // namespace npu
