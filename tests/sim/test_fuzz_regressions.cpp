// Inputs found by the libFuzzer targets (tests/fuzz, docs/validation.md "Fuzzing"), each
// reduced to the part that mattered, with the exact error the reader now gives.
#include <gtest/gtest.h>

#include <functional>
#include <string>

#include "npu/compiler/frontend/scalesim/topology.hpp"
#include "npu/hw_config/hw_config.hpp"

namespace npu::compiler {
namespace {

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "(no error)";
}

const std::string kConvHeader =
    "Layer name, IFMAP Height, IFMAP Width, Filter Height, Filter Width, Channels, Num Filter, Strides,\n";

// fuzz_scalesim_topology (time-out): a "DP" (depthwise) row is split into one layer per
// channel; 10^9 channels of a 1x1 layer pass the 2^53-MAC limit (10^9 MACs) and made 10^9
// layers (the fuzzer's input had 51121 channels: seconds per input). Now at most 2^16 = 65536.
TEST(FuzzRegression, ScaleSimDepthwiseRowWithBillionChannels) {
  const std::string text = kConvHeader + "DP, 1, 1, 1, 1, 1000000000, 1, 1,\n";
  EXPECT_EQ(error_of([&] { parse_scalesim_topology(text, "fuzz.csv"); }),
            "fuzz.csv:2: error: layer 'DP' makes the topology longer than 65536 layers (its name contains \"DP\", "
            "so its 1000000000 channels become 1000000000 single-channel layers)\n"
            "  fix: check the row's numbers (a typo such as an extra digit?); split a larger topology into several "
            "files");
}

// The limit counts the layers already read: after three plain layers 65536 - 3 = 65533
// more fit, so a depthwise row of 65534 channels does not.
TEST(FuzzRegression, ScaleSimLayerLimitCountsEarlierRows) {
  const std::string row = "C, 4, 4, 1, 1, 1, 1, 1,\n";
  const std::string text = kConvHeader + row + row + row + "xDPx, 1, 1, 1, 1, 65534, 1, 1,\n";
  EXPECT_EQ(error_of([&] { parse_scalesim_topology(text, "fuzz.csv"); }),
            "fuzz.csv:5: error: layer 'xDPx' makes the topology longer than 65536 layers (its name contains "
            "\"DP\", so its 65534 channels become 65534 single-channel layers)\n"
            "  fix: check the row's numbers (a typo such as an extra digit?); split a larger topology into several "
            "files");
}

}  // namespace
}  // namespace npu::compiler
