// Issue 11: latency never increases when the SRAM grows, and DDR bytes only by the bounded
// share a faster plan may add (issue 28: latency first). A network on the edge
// preset with only sram.capacity changed (8 banks and the default 64-B bank interleave
// throughout), one built-in strategy per test case; each simulation is its own `npu simulate`
// process (SystemC elaborates once per process). The asserted values are relations between
// neighbouring sizes, not numbers.
//
// Before interleaving (contiguous banks), bigger banks meant a large buffer spanned fewer
// banks: ResNet-50 conv-bn-act took 9.99 ms at 1 MiB but 10.56 ms at 8 MiB, MobileNetV2 with
// `none` 6.38 ms at 128 KiB and 6.80 ms at 8 MiB (docs/compiler.md "SRAM placement").
#include <gtest/gtest.h>

#include <cctype>
#include <fstream>
#include <regex>
#include <tuple>

#include "tool_runner.hpp"

namespace {

/// Simulates `model` under `strategy` at each SRAM size (KiB, ascending) and checks that
/// latency_ms never rises from one size to the next by more than 0.1 % (the estimate's noise),
/// and DDR read + write bytes rise only where latency falls, by no larger a share.
void expect_monotone(const std::string& model, const std::string& strategy, const std::vector<std::uint64_t>& kib_sizes) {
  std::string label = model + "-" + strategy;
  for (char& c : label)
    if (c == '/' || c == '.') c = '_';
  const std::string dir = npu::test::fresh_dir("sram-monotone-" + label);
  const std::string base = npu::test::read_file(std::string(NPU_SOURCE_DIR) + "/configs/edge-npu-ddr4.yaml");
  const std::regex capacity_line("\n  capacity: [^\n]*");
  ASSERT_TRUE(std::regex_search(base, capacity_line)) << "edge preset has no sram capacity line";
  double prev_ms = -1;
  std::uint64_t prev_bytes = 0, prev_kib = 0;
  for (std::uint64_t kib : kib_sizes) {
    const std::string hw = dir + "/hw_" + std::to_string(kib) + "k.yaml";
    std::ofstream(hw) << std::regex_replace(base, capacity_line, "\n  capacity: " + std::to_string(kib) + " KiB",
                                            std::regex_constants::format_first_only);
    const std::string out = dir + "/run_" + std::to_string(kib);
    const auto r = npu::test::run_npu(
        {"simulate", "--model", model, "--hw", hw, "--strategy", strategy, "--out", out, "--quiet"});
    ASSERT_EQ(r.status, 0) << r.output;
    const auto j = npu::test::read_json(out + "/run_summary.json");
    const double ms = j.at("latency_ms").get<double>();
    const std::uint64_t bytes = j.at("ddr_read_bytes").get<std::uint64_t>() + j.at("ddr_write_bytes").get<std::uint64_t>();
    if (prev_ms >= 0) {
      // The SRAM-plan ladder and the tiler choose by estimated time; the simulated overlap of a
      // pipelined program may differ from the estimate by a few hundredths of a percent (ResNet-50
      // residual, 1 -> 2 MiB: the 2 MiB plan estimated 1.5 % faster, simulated 7.59534 ->
      // 7.59678 ms, +0.019 %, spread over layers by +-3,700 cycles each). A rise up to 0.1 % is
      // that noise; anything larger is a wrong choice (ResNet-18 at 32 KiB was 14x slower than at
      // 16 KiB before the input-channel split competed by time).
      EXPECT_LE(ms, prev_ms * 1.001) << model << " " << strategy << ": latency rose from " << prev_kib << " KiB to "
                                     << kib << " KiB";
      // Latency first (sram_plans.hpp improves_on): a larger SRAM's plan may move more DDR bytes
      // only where it is faster, by no larger a share than it saves in time (estimated; here
      // simulated, with the same 0.1 % of noise).
      if (bytes > prev_bytes) {
        EXPECT_LT(ms, prev_ms) << model << " " << strategy << ": DDR bytes rose from " << prev_kib << " KiB to " << kib
                               << " KiB without a lower latency";
        EXPECT_LE(double(bytes) / double(prev_bytes) - 1, 1 - ms / prev_ms + 0.001)
            << model << " " << strategy << ": DDR bytes rose by a larger share than the latency fell from " << prev_kib
            << " KiB to " << kib << " KiB";
      }
    }
    prev_ms = ms;
    prev_bytes = bytes;
    prev_kib = kib;
  }
}

std::string test_name(std::string n) {
  for (char& c : n)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  return n;
}

const std::vector<std::string> kMonotoneStrategies = {"none", "conv-bn", "conv-act", "conv-bn-act", "residual", "depth-first"};

// tiny_convnet from 64 KiB to 8 MiB (its minimal tiles fit 64 KiB).
class SramMonotone : public ::testing::TestWithParam<std::string> {};

TEST_P(SramMonotone, LatencyAndDdrBytesNeverRiseAsTheSramGrows) {
  expect_monotone("tests/data/tiny_convnet.onnx", GetParam(), {64, 128, 256, 512, 1024, 2048, 4096, 8192});
}

INSTANTIATE_TEST_SUITE_P(AllStrategies, SramMonotone, ::testing::ValuesIn(kMonotoneStrategies),
                         [](const auto& info) { return test_name(info.param); });

// The acceptance grid: ResNet-50, MobileNetV2 and YOLOv5s (built-in zoo, the same
// layers as ../shared/models) over 128 KiB .. 8 MiB under every built-in strategy, one ctest
// case per network and strategy (7 simulations each; the suite runs them in parallel, about
// 5 min of CPU in all; the sanitizer run leaves them out, .ci/run). Monotone by construction
// where the compiler's estimates cannot rank two SRAM sizes' programs (a tie keeps the smaller
// SRAM's program, compiler/sram_plans.hpp); what this checks is that where they do rank a
// larger SRAM's program better, the simulation agrees. Before that, with only per-layer
// candidates: MobileNetV2 `none` and `conv-act` 6.391 -> 6.397 ms (512 KiB -> 1 MiB, BatchNorm
// channel tiles rounded up to whole bursts once they fitted), YOLOv5s `conv-bn` 24.493 ->
// 24.501 ms (1 -> 2 MiB, one more layer pair pipelined). ResNet-50 `depth-first` rose 6.611 ->
// 6.614 ms (2 -> 4 MiB: a 52-layer one-band stack whose array waited 125 us for layer4 weights
// that a sequential LOAD brings at 12.2 GB/s, not the 25.6 GB/s peak) until streamed weights
// came in output-channel groups (depth_first/stack_plan.hpp): 6.501 ms at 4 MiB.
class SramMonotoneZoo : public ::testing::TestWithParam<std::tuple<std::string, std::string>> {};

TEST_P(SramMonotoneZoo, LatencyAndDdrBytesNeverRiseFrom128KiBTo8MiB) {
  const auto& [model, strategy] = GetParam();
  expect_monotone(model, strategy, {128, 256, 512, 1024, 2048, 4096, 8192});
}

INSTANTIATE_TEST_SUITE_P(EdgePreset, SramMonotoneZoo,
                         ::testing::Combine(::testing::Values("resnet50", "mobilenet_v2", "yolov5s"),
                                            ::testing::Values("none", "conv-bn", "conv-act", "conv-bn-act",
                                                              "residual", "depth-first")),
                         [](const auto& info) {
                           return test_name(std::string(std::get<0>(info.param)) + "_" + std::get<1>(info.param));
                         });

}  // namespace
