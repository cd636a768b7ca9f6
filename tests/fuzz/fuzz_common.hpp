// Shared by the libFuzzer targets (tests/fuzz/fuzz_*.cpp; docs/validation.md, "Fuzzing").
//
// A target feeds the fuzzer's bytes to one input reader. The readers document one error
// type for bad input, npu::ConfigError, and the harness swallows exactly that. Anything else
// -- another exception (std::bad_alloc, std::out_of_range, YAML::Exception, ...), a crash,
// an AddressSanitizer/UndefinedBehaviorSanitizer report, a leak, a time-out -- reaches
// libFuzzer and is a finding. A broken round-trip property is reported with fuzz_fail().
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "npu/hw_config/hw_config.hpp"

namespace npu::fuzz {

inline std::string as_text(const std::uint8_t* data, std::size_t size) {
  return std::string(reinterpret_cast<const char*>(data), size);
}

/// Reports a broken property (e.g. a round trip that changed the value) and aborts, so
/// libFuzzer saves the input as a crash.
[[noreturn]] inline void fuzz_fail(const char* what, const std::string& detail) {
  std::fprintf(stderr, "fuzz property failed: %s\n%s\n", what, detail.c_str());
  std::abort();
}

/// Runs `body`; swallows npu::ConfigError only (the documented bad-input error).
template <typename Body>
int run_one(Body&& body) {
  try {
    body();
  } catch (const npu::ConfigError&) {
  }
  return 0;
}

}  // namespace npu::fuzz
