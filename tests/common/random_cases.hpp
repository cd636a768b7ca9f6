// How many seeded cases a differential (random) test runs: the given count in a plain build,
// the first quarter of them under AddressSanitizer + UndefinedBehaviorSanitizer, or the count
// an environment variable names (e.g. NPU_RANDOM_GRAPHS=1000) in either build.
// Why a quarter: the instrumented code runs 3-5x slower (docs/validation.md, "Sanitizers"), CI
// runs the sanitizer build after the plain build has checked every case's numbers, and what the
// sanitizers look for (a memory or undefined-behaviour error in the code a case reaches) needs
// the code reached, not every seed; the plain run keeps the full count.
#pragma once

#include <algorithm>
#include <cstdlib>

#include "under_sanitizer.hpp"

namespace npu::test {

/// Seeded cases to run: `env`'s value if set (at least 1), else `full` in a plain build and
/// max(1, full / 4) under the sanitizers.
inline int random_cases(const char* env, int full) {
  if (const char* e = env ? std::getenv(env) : nullptr) return std::max(1, std::atoi(e));
  return kUnderAddressSanitizer ? std::max(1, full / 4) : full;
}

}  // namespace npu::test
