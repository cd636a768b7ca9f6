// parse_hw_config_node one section at a time (hw_config_node.hpp), as `npu sweep` loads its
// config points: the top-level check, every section, then the checks across sections must give
// parse_hw_config_node's config, and its first error where the document is invalid.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include <yaml-cpp/yaml.h>

#include "npu/base/config_error.hpp"
#include "npu/hw_config/hw_config.hpp"
#include "npu/hw_config/hw_config_node.hpp"

namespace npu {
namespace {

namespace fs = std::filesystem;

/// The three steps the header documents, in order.
HwConfig load_by_sections(const YAML::Node& root, const std::string& source) {
  check_hw_config_top(root, source);
  HwConfig cfg;
  cfg.source = source;
  for (std::size_t s = 0; s < hw_config_top_sections().size(); ++s) parse_hw_config_section(root, s, source, cfg);
  check_hw_config_cross_sections(cfg, source);
  return cfg;
}

/// The ConfigError message of `f()`, or "" when it throws none.
template <typename F>
std::string error_of(F f) {
  try {
    f();
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "";
}

TEST(HwConfigSections, TheLoaderReadsTheseSectionsInThisOrder) {
  // docs/config.md's order, which the messages of a config with several errors follow.
  EXPECT_EQ(hw_config_top_sections(), (std::vector<std::string>{"npu", "mac_array", "sram", "act_unit", "dma", "ddr",
                                                                "energy", "host", "accumulator", "memory"}));
}

TEST(HwConfigSections, EveryPresetLoadsToTheSameConfig) {
  int presets = 0;
  for (const auto& e : fs::directory_iterator(std::string(NPU_SOURCE_DIR) + "/configs")) {
    if (e.path().extension() != ".yaml") continue;
    const std::string path = e.path().string();
    const YAML::Node root = YAML::LoadFile(path);
    const HwConfig whole = parse_hw_config_node(root, path), parts = load_by_sections(root, path);
    EXPECT_EQ(hw_config_to_yaml(parts), hw_config_to_yaml(whole)) << path;
    EXPECT_EQ(parts.source, whole.source);
    ++presets;
  }
  EXPECT_GE(presets, 6);  // edge, hbm2, mobile, tpu-v1-like and the two gemmini presets at least
}

TEST(HwConfigSections, ASectionOnlyFillsItsOwnMember) {
  // Reading `sram` alone into a default config changes the SRAM and nothing else.
  const YAML::Node root = YAML::LoadFile(std::string(NPU_SOURCE_DIR) + "/configs/edge-npu-ddr4.yaml");
  const std::size_t sram = 2;
  ASSERT_EQ(hw_config_top_sections()[sram], "sram");
  HwConfig cfg;
  const HwConfig before = cfg;
  parse_hw_config_section(root, sram, "edge", cfg);
  EXPECT_EQ(cfg.sram.capacity_bytes, 1u << 20);  // "capacity: 1 MiB"
  EXPECT_EQ(cfg.sram.banks, 8);
  cfg.sram = before.sram;
  EXPECT_EQ(hw_config_to_yaml(cfg), hw_config_to_yaml(before));
  HwConfig copy;
  copy_hw_config_section(sram, HwConfig{}, copy);
  parse_hw_config_section(root, sram, "edge", copy);
  HwConfig other;
  copy_hw_config_section(sram, copy, other);
  EXPECT_EQ(other.sram.capacity_bytes, 1u << 20);
  EXPECT_THROW(parse_hw_config_section(root, 10, "edge", cfg), std::logic_error);  // ten sections: 0..9
}

TEST(HwConfigSections, InvalidDocumentsGiveTheWholeLoadersFirstError) {
  const std::string edge = std::string(NPU_SOURCE_DIR) + "/configs/edge-npu-ddr4.yaml";
  // Each edit breaks one step: the top level (an unknown section), a section (rows 0), the
  // checks across sections (a 1 KiB SRAM is smaller than the 32 x 32 array's minimal tile of
  // 2 x 32 x 32 + 32 + 32 x 4 = 2208 bytes; 7 banks do not divide 1 MiB), and two sections at
  // once (rows -1 and channels 0: the earlier section's error, as the whole loader gives).
  const std::vector<std::vector<std::pair<std::string, std::string>>> edits = {
      {{"bogus", ""}},
      {{"mac_array", "rows=0"}},
      {{"sram", "capacity=1KiB"}},
      {{"sram", "banks=7"}},
      {{"ddr", "channels=0"}, {"mac_array", "rows=-1"}}};
  for (const auto& edit : edits) {
    YAML::Node root = YAML::LoadFile(edge);
    for (const auto& [section, kv] : edit) {
      const auto eq = kv.find('=');
      if (eq == std::string::npos)
        root[section] = "1";
      else
        root[section][kv.substr(0, eq)] = kv.substr(eq + 1);
    }
    std::string whole = error_of([&] { parse_hw_config_node(root, "p.yaml"); });
    ASSERT_FALSE(whole.empty()) << edit.front().second;
    const bool across = edit.front().first == "sram";
    if (across) whole = "p.yaml" + whole.substr(whole.find(": error: "));  // no line:col across sections
    EXPECT_EQ(error_of([&] { load_by_sections(root, "p.yaml"); }), whole) << edit.front().second;
  }
}

}  // namespace
}  // namespace npu
