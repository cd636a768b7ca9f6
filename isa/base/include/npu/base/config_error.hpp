// The error type every reader of user input throws (hardware configs, strategies, sweep
// specs, .npuasm programs, traces, models, output folders): the tool prints what() and exits 1.
#pragma once

#include <stdexcept>

namespace npu {

/// Bad user input in a config file (or any other input file). `what()` is the full,
/// user-facing message: "FILE:LINE:COL: error: ..." plus a hint on how to fix it.
class ConfigError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace npu
