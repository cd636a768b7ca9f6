// YAML nested too deep is refused before yaml-cpp recurses (issue 27: 100000 levels gave
// "malformed YAML: bad file"), naming the limit and the place.
#include <gtest/gtest.h>

#include <string>

#include "npu/base/config_error.hpp"
#include "npu/base/yaml_depth.hpp"

namespace {

std::string depth_error(const std::string& text) {
  try {
    npu::check_yaml_depth(text, "f.yaml", "test YAML");
  } catch (const npu::ConfigError& e) {
    return e.what();
  }
  return "<no error>";
}

std::string flow(std::size_t n) { return "a: " + std::string(n, '[') + std::string(n, ']') + "\n"; }

std::string block(std::size_t n) {  // key a (level 1) holds k2 ... kn, each one space deeper
  std::string s = "a:\n";
  for (std::size_t i = 2; i <= n; ++i) s += std::string(i - 1, ' ') + "k" + std::to_string(i) + ":\n";
  return s;
}

TEST(YamlDepth, FlowNestingCountsBracketsAfterTheBlockLevel) {
  // "a:" opens block level 1, so 63 brackets make 64 levels (the limit) and 64 make 65.
  EXPECT_EQ(depth_error(flow(63)), "<no error>");
  EXPECT_EQ(depth_error(flow(64)),
            "f.yaml:1:67: error: YAML nested more than 64 levels deep here (the limit of a test YAML)\n"
            "  fix: a test YAML nests a few levels (section: key: value); flatten the file, or give the file it was "
            "meant to be");  // column: "a: " is 3 characters, the 64th '[' is character 3 + 64 = 67
}

TEST(YamlDepth, BlockNestingCountsIndentationLevels) {
  EXPECT_EQ(depth_error(block(64)), "<no error>");
  EXPECT_NE(depth_error(block(65)).find("f.yaml:65:65: error: YAML nested more than 64 levels"), std::string::npos);
}

TEST(YamlDepth, QuotesAndCommentsDoNotCount) {
  EXPECT_EQ(depth_error("a: '" + std::string(100, '[') + "'\n"), "<no error>");
  EXPECT_EQ(depth_error("a: \"" + std::string(100, '{') + "\"\n"), "<no error>");
  EXPECT_EQ(depth_error("a: 1  # " + std::string(100, '[') + "\n"), "<no error>");
  EXPECT_EQ(depth_error("name: it's [fine]\n"), "<no error>");  // an apostrophe inside a plain scalar
}

TEST(YamlDepth, SequenceDashesOpenLevels) {
  std::string s = "a:\n  " ;
  for (int i = 0; i < 70; ++i) s += "- ";
  s += "x\n";
  EXPECT_NE(depth_error(s).find("YAML nested more than 64 levels"), std::string::npos);
  EXPECT_EQ(depth_error("a:\n  - x: 1\n    y: 2\n  - z\n"), "<no error>");
}

TEST(YamlDepth, LineOfOnlyDashesEndsCleanly) {
  // Found by fuzz_hw_config under UBSan: "- - " ran the dash scan past the end of the line
  // (npos + 1 wrapped to 0 and indexed line[npos]). Three dashes on one line open three levels.
  EXPECT_EQ(depth_error("- - \n"), "<no error>");
  EXPECT_EQ(depth_error("a:\n  - - -   \n"), "<no error>");
  std::string s;
  for (int i = 0; i < 70; ++i) s += "- ";
  EXPECT_NE(depth_error(s + "\n").find("f.yaml:1:"), std::string::npos);  // 70 levels, no value after them
}

}  // namespace
