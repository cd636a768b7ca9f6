// Loading a hardware config from a YAML document already parsed (yaml-cpp): for callers that
// edit one document many times, as `npu sweep` planning its config points.
#pragma once

#include <string>

#include <yaml-cpp/yaml.h>

#include "npu/hw_config/hw_config.hpp"

namespace npu {

/// Same as parse_hw_config on a parsed document, without printing and re-parsing it. Messages
/// name `source` without line:col where a value has no mark (a value set by the caller).
/// Throws ConfigError as parse_hw_config does.
HwConfig parse_hw_config_node(const YAML::Node& root, const std::string& source);

}  // namespace npu
