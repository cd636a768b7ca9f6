// Presentation of DDR model statistics: terminal text and JSON (keys in docs/ddr.md).
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "npu/hw/ddr/ddr_stats.hpp"
#include "npu/hw_config/hw_config.hpp"

namespace npu::sim {

/// One-line description of a DDR config: standard, rate, organisation, mapping, policy.
std::string describe_ddr_config(const DdrConfig& cfg);

/// Multi-line statistics for the terminal (bandwidth, latency, row buffer, commands;
/// energy when pj_per_ddr_byte > 0).
std::string format_ddr_stats(const hw::DdrStats& s, double pj_per_ddr_byte = 0);

/// The statistics as JSON: traffic, bandwidth, latency (ns and tCK), row buffer,
/// commands, per-bank counts with their coordinates, and energy when configured.
nlohmann::json ddr_stats_to_json(const hw::DdrStats& s, const DdrConfig& cfg, double pj_per_ddr_byte = 0);

}  // namespace npu::sim
