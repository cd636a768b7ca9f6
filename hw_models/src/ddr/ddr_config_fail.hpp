// The DDR config checks' error (address_mapper.cpp, ddr_config_check.cpp): one definition, so
// the two files can share a translation unit (a unity build) without two `fail`s.
#pragma once

#include <string>

#include "npu/base/config_error.hpp"

namespace npu::hw::ddr_detail {

/// Throws ConfigError "SOURCE: error: WHAT\n  fix: FIX" (SOURCE: the config file's name).
[[noreturn]] inline void fail(const std::string& source, const std::string& what, const std::string& fix) {
  throw ConfigError(source + ": error: " + what + "\n  fix: " + fix);
}

}  // namespace npu::hw::ddr_detail
