// safe_file_name(): names from inputs never become paths outside their folder (issue 27).
#include <gtest/gtest.h>

#include "npu/base/safe_file_name.hpp"

namespace {

TEST(SafeFileName, PathSeparatorsAndDotDotStayInsideTheFolder) {
  EXPECT_EQ(npu::safe_file_name("../../x"), "_._.._x");  // '.'->'_' only when leading; '/'->'_'
  EXPECT_EQ(npu::safe_file_name(".."), "_.");
  EXPECT_EQ(npu::safe_file_name("."), "_");
  EXPECT_EQ(npu::safe_file_name("/etc/passwd"), "_etc_passwd");
  EXPECT_EQ(npu::safe_file_name("a\\..\\b"), "a_.._b");
  EXPECT_EQ(npu::safe_file_name("C:\\x"), "C__x");
  EXPECT_EQ(npu::safe_file_name(".hidden"), "_hidden");
}

TEST(SafeFileName, SpacesQuotesControlAndNonAsciiBecomeUnderscores) {
  EXPECT_EQ(npu::safe_file_name("my \"out\"'s"), "my__out__s");
  EXPECT_EQ(npu::safe_file_name(std::string("a\nb\tc\0d", 7)), "a_b_c_d");
  EXPECT_EQ(npu::safe_file_name("caf\xc3\xa9"), "caf__");  // U+00E9 is two UTF-8 bytes
  EXPECT_EQ(npu::safe_file_name(""), "_");
}

TEST(SafeFileName, OrdinaryNamesAreUnchanged) {
  EXPECT_EQ(npu::safe_file_name("output"), "output");
  EXPECT_EQ(npu::safe_file_name("edge-npu-ddr4__capacity-256KiB"), "edge-npu-ddr4__capacity-256KiB");
  EXPECT_EQ(npu::safe_file_name("resnet18.v1+x"), "resnet18.v1+x");
}

TEST(SafeFileName, LongNamesAreBoundedAndKeepTheirTailApart) {
  // 96 bytes at most: 87 kept + '~' + 8 hex digits of FNV-1a 32 (hashes computed with Python:
  // h = 2166136261; h = ((h ^ byte) * 16777619) mod 2^32 over the bytes).
  const std::string a100(100, 'a');
  const std::string b = std::string(99, 'a') + "b";
  EXPECT_EQ(npu::safe_file_name(a100), std::string(87, 'a') + "~0a0bb1d9");
  EXPECT_EQ(npu::safe_file_name(b), std::string(87, 'a') + "~070bad20");
  EXPECT_EQ(npu::safe_file_name(a100).size(), npu::kSafeFileNameMaxBytes);
  EXPECT_EQ(npu::safe_file_name(std::string(96, 'a')), std::string(96, 'a'));  // at the limit: kept
}

TEST(SafeFileName, CollisionsAreMadeUniqueInSortedOrder) {
  // "a/b" < "a:b" < "a_b" (ASCII '/' 0x2f < ':' 0x3a < '_' 0x5f): the first takes "a_b".
  const auto m = npu::safe_file_names({"a_b", "a:b", "a/b", "a/b"});
  ASSERT_EQ(m.size(), 3u);
  EXPECT_EQ(m.at("a/b"), "a_b");
  EXPECT_EQ(m.at("a:b"), "a_b~2");
  EXPECT_EQ(m.at("a_b"), "a_b~3");
  // The same set in another order gives the same names.
  EXPECT_EQ(npu::safe_file_names({"a/b", "a_b", "a:b"}), m);
}

TEST(SafeFileName, NamesThatDifferOnlyInCaseDoNotShareAFile) {
  const auto m = npu::safe_file_names({"Out", "out"});
  EXPECT_EQ(m.at("Out"), "Out");  // 'O' (0x4f) sorts before 'o' (0x6f)
  EXPECT_EQ(m.at("out"), "out~2");
}

}  // namespace
