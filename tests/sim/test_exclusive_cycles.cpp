// Exclusive per-layer cycles (issue 27 item 3): once layers are pipelined their spans overlap
// and the per-layer `cycles` add up to more than the run; `exclusive_cycles` gives each cycle
// to one layer (the layer of the oldest unfinished instruction) and sums to the total exactly.
#include <gtest/gtest.h>

#include <cstdint>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "npu/sim/run/exclusive_cycles.hpp"
#include "tool_runner.hpp"

using npu::sim::exclusive_cycles;
using npu::sim::OwnedInstruction;

namespace {

TEST(ExclusiveCycles, OverlappingLayersShareNoCycle) {
  // Layer 0: instructions 0 (ends at 10) and 2 (ends at 30); layer 1: instruction 1 (ends at
  // 25) and 3 (ends at 40), total 40. Oldest unfinished: [0,10) #0 -> layer 0; [10,25) #1 ->
  // layer 1; [25,30) #2 -> layer 0; [30,40) #3 -> layer 1. Layer 0: 10 + 5 = 15, layer 1:
  // 15 + 10 = 25; 15 + 25 = 40 = total, though the spans (0..30 and 0..40) sum to 70.
  const auto c = exclusive_cycles({{0, 10, 0}, {1, 25, 1}, {2, 30, 0}, {3, 40, 1}}, 40, 2);
  EXPECT_EQ(c, (std::vector<std::uint64_t>{15, 25}));
}

TEST(ExclusiveCycles, RecordsInAnyOrderAndTheTailGoToTheRightLayer) {
  // The same four in execution order (by end), and a total 2 cycles past the last end (the
  // run's total is rounded up from ps): the tail goes to the layer of instruction 3.
  const auto c = exclusive_cycles({{0, 10, 0}, {1, 25, 1}, {2, 30, 0}, {3, 40, 1}}, 42, 2);
  EXPECT_EQ(c, (std::vector<std::uint64_t>{15, 27}));
  // An older instruction that ends later keeps every cycle until it ends: #0 ends at 50, so
  // layer 0 holds [0, 50) although #1 (layer 1) ended at 20.
  EXPECT_EQ(exclusive_cycles({{1, 20, 1}, {0, 50, 0}}, 50, 2), (std::vector<std::uint64_t>{50, 0}));
}

TEST(ExclusiveCycles, NothingToAttributeAndBadOwners) {
  EXPECT_EQ(exclusive_cycles({}, 100, 3), (std::vector<std::uint64_t>{0, 0, 0}));
  EXPECT_THROW(exclusive_cycles({{0, 10, 2}}, 10, 2), std::invalid_argument);
}

// The run's total cycles (run_summary.json) and the sums of layers.csv's cycles and
// exclusive_cycles columns.
struct Sums {
  std::uint64_t total = 0, spans = 0, exclusive = 0;
};

/// The rows of DIR/layers.csv, each as column name -> field.
std::vector<std::map<std::string, std::string>> layer_rows(const std::string& dir) {
  std::istringstream csv(npu::test::read_file(dir + "/layers.csv"));
  std::string line;
  std::getline(csv, line);
  const auto head = npu::test::split_csv(line);
  std::vector<std::map<std::string, std::string>> rows;
  while (std::getline(csv, line)) {
    const auto f = npu::test::split_csv(line);
    auto& row = rows.emplace_back();
    for (std::size_t i = 0; i < head.size() && i < f.size(); ++i) row[head[i]] = f[i];
  }
  return rows;
}

Sums sums_of(const std::string& dir) {
  Sums s;
  s.total = npu::test::read_json(dir + "/run_summary.json").at("cycles").get<std::uint64_t>();
  for (const auto& row : layer_rows(dir)) {
    s.spans += std::stoull(row.at("cycles"));
    s.exclusive += std::stoull(row.at("exclusive_cycles"));
  }
  return s;
}

TEST(ExclusiveCycles, LayersCsvSumsToTheRunTotalUnderEveryStrategy) {
  const std::string dir = npu::test::fresh_dir("exclusive-cycles");
  for (const char* s : {"none", "residual", "depth-first"}) {
    const auto r = npu::test::run_npu({"simulate", "--model", "tests/data/tiny_convnet.onnx", "--hw",
                                       "configs/edge-npu-ddr4.yaml", "--strategy", s, "--out", dir + "/" + s, "-q"});
    ASSERT_EQ(r.status, 0) << r.output;
    const Sums sums = sums_of(dir + "/" + s);
    EXPECT_EQ(sums.exclusive, sums.total) << s;
    // Pipelined layers overlap (cross-layer pipelining is on by default): the spans add up to more.
    EXPECT_GT(sums.spans, sums.total) << s;
  }
}

}  // namespace

// A layer's exclusive cycles are part of its span: never more than its `cycles`. The run's
// total rounds its end up (ceil) and the spans round to nearest; the last layer took the
// difference as a tail and exceeded its span by 1 (gpt2 decode on edge: /head/Gemm). Both
// properties at once: every row exclusive <= cycles, and the exclusive column sums to the total.
TEST(ExclusiveCycles, NoLayerHasMoreExclusiveCyclesThanItsSpan) {
  const std::string dir = npu::test::fresh_dir("exclusive-le-span");
  const auto r = npu::test::run_npu({"simulate", "--model", "gpt2:decode=8", "--hw", "configs/edge-npu-ddr4.yaml",
                                     "--strategy", "none", "--out", dir, "-q"});
  ASSERT_EQ(r.status, 0) << r.output;
  const auto rows = layer_rows(dir);
  for (const auto& row : rows)
    EXPECT_LE(std::stoull(row.at("exclusive_cycles")), std::stoull(row.at("cycles"))) << row.at("layer");
  EXPECT_GT(rows.size(), 100u);
  const Sums sums = sums_of(dir);
  EXPECT_EQ(sums.exclusive, sums.total);
}
