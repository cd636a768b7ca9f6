// Text helpers shared by the SCALE-Sim topology and .cfg readers (topology.cpp, config.cpp).
#pragma once

#include <string>

namespace npu::compiler::scalesim_text {

/// `s` without leading and trailing white space.
std::string trim(const std::string& s);
/// `s` in ASCII lower case (keys and headers are case-insensitive).
std::string lower(std::string s);
/// The whole of the file at `path`. Throws ConfigError "PATH: error: ..." when it is a
/// directory, a device or cannot be opened; `what` names the file kind ("topology").
std::string read_file(const std::string& path, const char* what);

}  // namespace npu::compiler::scalesim_text
