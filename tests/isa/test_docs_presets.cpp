// docs/config.md names every preset: each configs/**/*.yaml appears as `configs/<path>`.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace fs = std::filesystem;

TEST(DocsPresets, ConfigPageNamesEveryPresetFile) {
  const fs::path root(NPU_SOURCE_DIR);
  std::ifstream in(root / "docs" / "config.md");
  ASSERT_TRUE(in) << "docs/config.md missing";
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string page = ss.str();
  int presets = 0;
  for (const auto& e : fs::recursive_directory_iterator(root / "configs")) {
    if (!e.is_regular_file() || e.path().extension() != ".yaml") continue;
    ++presets;
    const std::string name = "`" + fs::relative(e.path(), root).generic_string() + "`";
    EXPECT_NE(page.find(name), std::string::npos) << name << " is not named in docs/config.md";
  }
  // 4 NPU presets (edge, mobile, tpu-v1-like, hbm2) + 4 DDR-only presets in configs/ddr/.
  EXPECT_GE(presets, 8);
}
