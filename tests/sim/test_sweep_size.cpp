// The sweep size bound (`npu sweep --max-cells`, sweep_size.hpp): a spec of 10^6 cells used to
// plan silently for ~100 minutes; it is now refused before planning, naming the product and
// the flag, and a raised --max-cells lets a sweep through.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <limits>

#include "npu/base/config_error.hpp"
#include "npu/sim/experiment/sweep_size.hpp"
#include "tool_runner.hpp"

namespace fs = std::filesystem;
using npu::test::run_npu;

namespace {

const std::string kSizeTiny = std::string(NPU_SOURCE_DIR) + "/tests/data/tiny_convnet.onnx";

std::string ten(const std::string& first) {
  std::string s = "[" + first;
  for (int i = 1; i < 10; ++i) s += ", " + first + std::to_string(i);
  return s + "]";
}

TEST(SweepSize, AMillionCellsAreRefusedBeforePlanning) {
  // 6 axes of 10 values x 1 model x 1 strategy = 10^6 cells > 20000 (the default).
  const std::string dir = npu::test::fresh_dir("sweep-size");
  std::ofstream(dir + "/spec.yaml") << "base: edge-npu-ddr4\naxes:\n"
                                    << "  sram.capacity: " << ten("1") << "\n  sram.banks: " << ten("2")
                                    << "\n  mac_array.rows: " << ten("3") << "\n  mac_array.cols: " << ten("4")
                                    << "\n  ddr.queue_depth: " << ten("5") << "\n  dma.max_outstanding: " << ten("6")
                                    << "\nmodels: [" << kSizeTiny << "]\nstrategies: [none]\n";
  const auto r = run_npu({"sweep", dir + "/spec.yaml", "--out", dir + "/out"});
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_NE(r.output.find("spec.yaml: error: the sweep has 1000000 cells (10 x 10 x 10 x 10 x 10 x 10 x 1 model(s) "
                          "x 1 strategy(ies)), above the limit of 20000 (--max-cells)"),
            std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("--max-cells 1000000 if you mean it"), std::string::npos) << r.output;
  EXPECT_FALSE(fs::exists(dir + "/out/plan.json"));  // refused before planning
}

TEST(SweepSize, MaxCellsLowersAndRaisesTheLimit) {
  // 3 capacities x 1 model x 2 strategies = 6 cells.
  const std::string dir = npu::test::fresh_dir("sweep-size-flag");
  std::ofstream(dir + "/spec.yaml") << "base: edge-npu-ddr4\naxes: {sram.capacity: [256KiB, 512KiB, 1MiB]}\n"
                                    << "models: [" << kSizeTiny << "]\nstrategies: [none, residual]\n";
  auto r = run_npu({"sweep", dir + "/spec.yaml", "--out", dir + "/out", "--max-cells", "5"});
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_NE(r.output.find("the sweep has 6 cells (3 x 1 model(s) x 2 strategy(ies)), above the limit of 5"),
            std::string::npos)
      << r.output;
  r = run_npu({"sweep", dir + "/spec.yaml", "--out", dir + "/out", "--max-cells", "6", "-j", "2"});
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("sweep: 6 cells planned"), std::string::npos) << r.output;
  r = run_npu({"sweep", dir + "/spec.yaml", "--out", dir + "/out", "--max-cells", "0"});
  EXPECT_EQ(r.status, 1) << r.output;
}

TEST(SweepSize, CountSaturatesInsteadOfWrapping) {
  // 70 axes of 2 values: 2^70 cells, more than a 64-bit count holds.
  npu::sim::SweepSpec spec;
  spec.source = "big.yaml";
  spec.models = {"m"};
  spec.strategies = {"none"};
  for (int i = 0; i < 70; ++i) spec.axes.push_back({{"k" + std::to_string(i)}, {{"a"}, {"b"}}});
  EXPECT_EQ(npu::sim::sweep_cell_count(spec), std::numeric_limits<std::size_t>::max());
  EXPECT_THROW(npu::sim::check_sweep_size(spec, 1u << 30), npu::ConfigError);
  try {
    npu::sim::check_sweep_size(spec, 100);
  } catch (const npu::ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("big.yaml: error: the sweep has at least 2^64 - 1 cells"), std::string::npos)
        << e.what();
  }
}

}  // namespace
