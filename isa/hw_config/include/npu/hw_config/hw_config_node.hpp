// Loading a hardware config from a YAML document already parsed (yaml-cpp): for callers that
// edit one document many times, as `npu sweep` planning its config points.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include <yaml-cpp/yaml.h>

#include "npu/hw_config/hw_config.hpp"

namespace npu {

/// Same as parse_hw_config on a parsed document, without printing and re-parsing it. Messages
/// name `source` without line:col where a value has no mark (a value set by the caller).
/// Throws ConfigError as parse_hw_config does.
HwConfig parse_hw_config_node(const YAML::Node& root, const std::string& source);

// parse_hw_config_node one step at a time, for a caller that loads many versions of one
// document differing only in a few keys and reads again only the sections they are in (`npu
// sweep`, docs/sweep.md "Size limit and planning progress"). parse_hw_config_node(root, s) is:
//   check_hw_config_top(root, s); HwConfig cfg; cfg.source = s;
//   for each section i: parse_hw_config_section(root, i, s, cfg);
//   check_hw_config_cross_sections(cfg, s);
// and each section's reader depends on nothing but the map under its key (the loader's
// one-file-per-section readers, load/<section>_section.cpp, each fill their own member).

/// The top-level sections in the order the loader reads them: npu, mac_array, sram, act_unit,
/// dma, ddr, energy, host, accumulator, memory (a section's index is its place here).
const std::vector<std::string>& hw_config_top_sections();

/// The checks of the top-level map: a non-empty map, known section names, each once, the
/// required sections present. Throws ConfigError as parse_hw_config_node does for them.
void check_hw_config_top(const YAML::Node& root, const std::string& source);

/// Reads top-level section `section` (an index into hw_config_top_sections()) of `root` into
/// its member of `cfg` (cfg.npu, cfg.mac_array, ...), as parse_hw_config_node does; nothing
/// when an optional section is absent; the other members are left as they are. Assumes
/// check_hw_config_top(root) passed. Throws ConfigError as parse_hw_config_node does for a
/// value of that section; std::logic_error for an index out of range.
void parse_hw_config_section(const YAML::Node& root, std::size_t section, const std::string& source, HwConfig& cfg);

/// Copies the member that section `section` fills from `from` into `to`.
void copy_hw_config_section(std::size_t section, const HwConfig& from, HwConfig& to);

/// The checks across sections that parse_hw_config_node runs after reading them (SRAM tile
/// and banks, DMA burst vs DDR burst); fills in the default sram.bank_interleave_bytes.
/// Throws ConfigError with parse_hw_config_node's message for them, but naming `source`
/// without line:col (where each value was is not kept from the steps before).
void check_hw_config_cross_sections(HwConfig& cfg, const std::string& source);

}  // namespace npu
