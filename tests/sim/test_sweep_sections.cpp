// Sweep config points loaded section by section (config_sections.hpp): every point's key
// state, name and validity (with the loader's message) must be what the planner computed
// before, when it set the point's values in a fresh copy of the base, printed it and parsed
// the text (main at 5899fee) -- recomputed here that way, independently of ConfigSpace.
#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

#include <yaml-cpp/yaml.h>

#include "npu/base/config_error.hpp"
#include "npu/hw_config/hw_config.hpp"
#include "npu/sim/experiment/cell_key.hpp"
#include "npu/sim/experiment/sweep_configs.hpp"
#include "npu/sim/experiment/sweep_spec.hpp"

namespace {

using Values = std::vector<std::pair<std::string, std::string>>;

npu::sim::SweepSpec parse(const std::string& text) { return npu::sim::parse_sweep_spec(text, "spec.yaml", NPU_SOURCE_DIR); }

/// What the planner kept of a point before, computed the old way.
struct Reference {
  std::uint64_t key_state = 0;
  std::string invalid;
};

/// The loader's message as the plan shows it (docs/sweep.md): after "error: ", lines trimmed
/// and joined with "; ".
std::string summary_line(const std::string& what) {
  std::istringstream lines(what.substr(what.find("error: ") + 7));
  std::string flat, line;
  while (std::getline(lines, line)) {
    const auto b = line.find_first_not_of(' ');
    if (b != std::string::npos) flat += (flat.empty() ? "" : "; ") + line.substr(b);
  }
  return flat;
}

/// The base preset with `values` then npu.name set, printed and parsed on its own.
Reference reference(const Values& values, const std::string& name) {
  YAML::Node doc = YAML::LoadFile(std::string(NPU_SOURCE_DIR) + "/configs/edge-npu-ddr4.yaml");
  for (const auto& [path, value] : values) {
    const auto dot = path.find('.');
    doc[path.substr(0, dot)][path.substr(dot + 1)] = value;  // every path here is section.key
  }
  doc["npu"]["name"] = name;
  YAML::Emitter out;
  out << doc;
  Reference r;
  try {
    npu::HwConfig cfg = npu::parse_hw_config(out.c_str(), name);
    cfg.npu.name = "-";
    r.key_state = npu::sim::cell_key_config_state(npu::hw_config_to_yaml(cfg));
  } catch (const npu::ConfigError& e) {
    r.invalid = summary_line(e.what());
    r.key_state = npu::sim::cell_key_config_state(std::string(out.c_str()) + "\n");
  }
  return r;
}

TEST(SweepSections, EveryPointIsThePrintedAndParsedConfig) {
  // Axes in four sections and npu, with values that fail in a section's own reader (queue depth
  // 0, clock 20000 MHz) and only across sections: a 1 KiB SRAM holds the 16 x 8 array's minimal
  // tile (2 x 16 x 8 + 16 + 8 x 4 = 304 bytes) but not the 32 x 32 one's (2208 bytes); 3 banks
  // divide 3 MiB but not 256 KiB or 1 MiB; a 96-byte DMA burst is not whole 64-byte DDR bursts.
  const std::vector<std::string> capacity = {"1KiB", "256KiB", "1 MiB", "3MiB"}, banks = {"8", "3"},
                                  burst = {"64", "96", "128"}, depth = {"0", "2", "32"}, clock = {"1000", "20000"};
  const std::vector<std::pair<std::string, std::string>> shape = {{"16", "8"}, {"32", "32"}};
  const auto spec = parse(
      "base: edge-npu-ddr4\nmodels: [resnet18]\nstrategies: [none]\n"
      "axes:\n  sram.capacity: [1KiB, 256KiB, '1 MiB', 3MiB]\n  sram.banks: [8, 3]\n  dma.burst_bytes: [64, 96, 128]\n"
      "  ddr.queue_depth: [0, 2, 32]\n  npu.clock_mhz: [1000, 20000]\n"
      "zip: {mac_array.rows: [16, 32], mac_array.cols: [8, 32]}\n");
  const auto points = npu::sim::plan_config_points(spec);
  ASSERT_EQ(points.size(), 4u * 2u * 3u * 3u * 2u * 2u);
  std::size_t k = 0, valid = 0;
  for (const auto& c : capacity)
    for (const auto& b : banks)
      for (const auto& u : burst)
        for (const auto& d : depth)
          for (const auto& f : clock)
            for (const auto& [rows, cols] : shape) {
              const Values v = {{"sram.capacity", c}, {"sram.banks", b},       {"dma.burst_bytes", u},
                                {"ddr.queue_depth", d}, {"npu.clock_mhz", f}, {"mac_array.rows", rows},
                                {"mac_array.cols", cols}};
              const std::string name = "edge-npu-ddr4__capacity-" + std::string(c == "1 MiB" ? "1MiB" : c) + "__banks-" +
                                       b + "__burst_bytes-" + u + "__queue_depth-" + d + "__clock_mhz-" + f +
                                       "__rows-" + rows + "__cols-" + cols;
              const Reference r = reference(v, name);
              EXPECT_EQ(points[k].hw_name, name);
              EXPECT_EQ(points[k].invalid, r.invalid) << name;
              EXPECT_EQ(points[k].key_state, r.key_state) << name;
              valid += r.invalid.empty();
              ++k;
            }
  // Valid (capacity, banks, shape): 1 KiB x 8 banks x 16 x 8; 256 KiB and 1 MiB x 8 banks x
  // both shapes; 3 MiB x both bank counts x both shapes: 1 + 2 + 2 + 4 = 9; times 2 bursts
  // (64, 128), 2 depths (2, 32) and one clock (1000).
  EXPECT_EQ(valid, 9u * 2u * 2u * 1u);
  EXPECT_EQ(points[0].invalid,
            "'ddr.queue_depth' must be >= 1, got 0; allowed: a positive whole number (zero and negative values are "
            "not meaningful)");
}

TEST(SweepSections, AnInvalidSectionNoAxisChangesMakesEveryPointInvalid) {
  // `set` breaks the DDR section (a zero channel count): no point loads, each with the
  // loader's message, as before.
  const auto spec = parse("base: edge-npu-ddr4\nmodels: [resnet18]\nstrategies: [none]\nset: {ddr.channels: 0}\n"
                          "axes: {sram.capacity: [256KiB, 1MiB]}\n");
  const auto points = npu::sim::plan_config_points(spec);
  ASSERT_EQ(points.size(), 2u);
  for (std::size_t k = 0; k < 2; ++k) {
    const std::string value = k == 0 ? "256KiB" : "1MiB";
    // The name carries the set value first (docs/sweep.md "Cells").
    const Reference r =
        reference({{"ddr.channels", "0"}, {"sram.capacity", value}}, "edge-npu-ddr4__channels-0__capacity-" + value);
    EXPECT_FALSE(points[k].invalid.empty());
    EXPECT_EQ(points[k].invalid, r.invalid);
    EXPECT_EQ(points[k].key_state, r.key_state);
  }
}

}  // namespace
