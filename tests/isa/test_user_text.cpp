// The shared helpers for user text in messages (echo), JSON/CSV names (utf8_escaped) and
// checked size arithmetic. Expected strings are written out by hand from the rules in the
// headers.
#include <gtest/gtest.h>

#include <string>

#include "npu/base/checked_math.hpp"
#include "npu/base/csv.hpp"
#include "npu/hw_config/hw_config.hpp"
#include "npu/base/json_text.hpp"
#include "npu/base/user_text.hpp"

namespace npu {
namespace {

TEST(UserText, EchoKeepsShortPrintableText) { EXPECT_EQ(echo("conv1"), "conv1"); }

TEST(UserText, EchoEscapesControlsNulAndInvalidBytes) {
  EXPECT_EQ(echo(std::string("a\0b\x01\xff", 5)), "a\\x00b\\x01\\xff");
  EXPECT_EQ(echo("tab\there"), "tab\\x09here");
}

TEST(UserText, EchoKeepsValidUtf8) { EXPECT_EQ(echo("caf\xc3\xa9"), "caf\xc3\xa9"); }

TEST(UserText, EchoTruncatesLongInputTo80CharactersAndGivesTheSize) {
  // 1 MiB of 'a': 80 shown, then the size of the whole input.
  EXPECT_EQ(echo(std::string(1 << 20, 'a')), std::string(80, 'a') + "...(1048576 bytes)");
  EXPECT_EQ(echo(std::string(80, 'b')), std::string(80, 'b'));  // exactly 80: no suffix
  // Escapes count as one character each: 80 NULs show as 80 x "\x00" and a suffix for 81.
  EXPECT_EQ(echo(std::string(81, '\0')).size(), 80 * 4 + std::string("...(81 bytes)").size());
}

TEST(UserText, Utf8Validity) {
  EXPECT_TRUE(is_valid_utf8("plain"));
  EXPECT_TRUE(is_valid_utf8("\xe2\x82\xac"));        // U+20AC euro sign
  EXPECT_FALSE(is_valid_utf8("\xc0\xaf"));           // overlong '/'
  EXPECT_FALSE(is_valid_utf8("\xed\xa0\x80"));       // U+D800 surrogate
  EXPECT_FALSE(is_valid_utf8("\xf4\x90\x80\x80"));   // above U+10FFFF
  EXPECT_FALSE(is_valid_utf8("\xe2\x82"));           // truncated sequence
}

TEST(UserText, Utf8EscapedReplacesOnlyTheInvalidBytes) {
  EXPECT_EQ(utf8_escaped("conv\xff" "1"), "conv\\xff1");
  EXPECT_EQ(utf8_escaped("\xe2\x82\xac\xe2\x82"), "\xe2\x82\xac\\xe2\\x82");
}

TEST(UserText, CsvFieldEscapesInvalidUtf8AndStillQuotes) {
  EXPECT_EQ(csv_field("a\xfe,b"), "\"a\\xfe,b\"");
}

TEST(UserText, JsonDumpWritesInvalidBytesAsEscapes) {
  nlohmann::json j = {{"name", "bad\xff"}, {"k\xfe", 1}};
  // nlohmann's own dump throws type_error 316 here; ours writes the escape as text.
  EXPECT_THROW((void)j.dump(), nlohmann::json::type_error);
  EXPECT_EQ(json_dump(j, -1), "{\"k\\\\xfe\":1,\"name\":\"bad\\\\xff\"}");
}

TEST(CheckedMath, ProductsWithinTheLimitAreExact) {
  EXPECT_EQ(checked_mul(1ull << 32, (1ull << 32) - 1, "x"), 18446744069414584320ull);
  EXPECT_EQ(checked_product({16, 1073741824, 16}, "x"), 274877906944ull);  // 2^4 x 2^30 x 2^4 = 2^38
  EXPECT_EQ(checked_product({0, 1ull << 40, 1ull << 40}, "x"), 0u);     // exact product 0
}

TEST(CheckedMath, OverflowNamesOperandsAndLimit) {
  try {
    checked_product({16, 1073741824, 1073741824, 16}, "CONV input bytes");
    FAIL() << "no error";
  } catch (const ConfigError& e) {
    // 2^4 x 2^30 x 2^30 x 2^4 = 2^68 > 2^64 - 1.
    EXPECT_STREQ(e.what(),
                 "CONV input bytes: 16 x 1073741824 x 1073741824 x 16 exceeds the limit of 18446744073709551615 "
                 "(2^64 - 1)");
  }
  try {
    checked_mul(3, 1000, "queue bytes", 2048);
    FAIL() << "no error";
  } catch (const ConfigError& e) {
    EXPECT_STREQ(e.what(), "queue bytes: 3 x 1000 exceeds the limit of 2048 (2^11)");
  }
  EXPECT_THROW(checked_add(kU64Max, 1, "x"), ConfigError);
  EXPECT_THROW(checked_mul_i64(kI64Max, 2, "x"), ConfigError);
  EXPECT_THROW(checked_add_i64(kI64Max, 1, "x"), ConfigError);
  EXPECT_EQ(checked_mul_i64(-4, 5, "x"), -20);
}

}  // namespace
}  // namespace npu

namespace {

TEST(SummaryLine, AListIntroducedByAColonKeepsItsFirstItemAndCountsTheRest) {
  // The shape of ddr_image's refusal: a line ending in ':', indented reasons, a fix line.
  const std::string m = "m.onnx: error: the program cannot be executed with data:\n"
                        "  layer 'a' (Resize) is not computed\n"
                        "  layer 'b' (Pad) is not computed\n"
                        "  layer 'c' (Pad) is not computed\n"
                        "  fix: run it without data";
  EXPECT_EQ(npu::summary_line(m),
            "m.onnx: error: the program cannot be executed with data: layer 'a' (Resize) is not computed (and 2 more)");
  // One item: nothing to count; a plain first line is kept as it is, the rest dropped.
  EXPECT_EQ(npu::summary_line("e:\n  only\n  fix: f"), "e: only");
  EXPECT_EQ(npu::summary_line("error: bad value\n  fix: use 1"), "error: bad value");
  // An unindented line ends the list; a ':' line with no list stays as it is.
  EXPECT_EQ(npu::summary_line("e:\n  x\nnext message\n  y"), "e: x");
  EXPECT_EQ(npu::summary_line("e:"), "e:");
  EXPECT_EQ(npu::summary_line(""), "");
}

TEST(FirstUnexpectedChar, NamesTheInvisibleCharactersAPasteBrings) {
  // UTF-8: U+00A0 = C2 A0, U+200B = E2 80 8B, U+FEFF = EF BB BF (RFC 3629 encoding).
  EXPECT_EQ(npu::first_unexpected_char("1\xc2\xa0MiB"), "U+00A0 (no-break space) at character 2");
  EXPECT_EQ(npu::first_unexpected_char("\xef\xbb\xbf" "64"),
            "U+FEFF (zero width no-break space (byte order mark)) at character 1");
  EXPECT_EQ(npu::first_unexpected_char("3\xe2\x80\x8b" "2"), "U+200B (zero width space) at character 2");
  EXPECT_EQ(npu::first_unexpected_char("a\tb"), "U+0009 (tab) at character 2");
  // Positions count characters, not bytes: "\u00e9" is one character of two bytes.
  EXPECT_EQ(npu::first_unexpected_char("\xc3\xa9x"), "U+00E9 at character 1");
  EXPECT_EQ(npu::first_unexpected_char("x\xc3\xa9\xc2\xa0"), "U+00E9 at character 2");
  EXPECT_EQ(npu::first_unexpected_char("12\xff"), "byte 0xFF (not UTF-8) at character 3");
  EXPECT_EQ(npu::first_unexpected_char("1 MiB"), "");
  EXPECT_EQ(npu::first_unexpected_char(""), "");
}

}  // namespace
