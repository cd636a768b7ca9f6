// npu::format_text_table, the one printer of the terminal tables (issue 27 item 5: long hw
// names such as `edge-npu-ddr4__capacity-256KiB` pushed rows out of line). Expected text is
// written out by hand: each column as wide as its widest cell, two spaces between columns.
#include <gtest/gtest.h>

#include <stdexcept>

#include "npu/base/text_table.hpp"

using npu::format_text_table;
using npu::TextAlign;
using npu::TextColumn;

namespace {

TEST(TextTable, ColumnsTakeTheWidthOfTheirWidestCell) {
  // "edge-npu-ddr4__capacity-256KiB" is 30 characters, wider than the 20 the old fixed
  // format gave the hw column; "lat ms" (6) is wider than "7.150" (5), "12.479" ties it.
  const std::string t = format_text_table({{"model"}, {"hw"}, {"lat ms", TextAlign::Right}},
                                          {{"resnet50", "edge-npu-ddr4__capacity-256KiB", "12.479"},
                                           {"mobilenet_v2", "edge", "7.150"}});
  EXPECT_EQ(t,
            "model         hw                              lat ms\n"
            "resnet50      edge-npu-ddr4__capacity-256KiB  12.479\n"
            "mobilenet_v2  edge                             7.150\n");
}

TEST(TextTable, EveryLineOfAColumnStartsAtOneOffset) {
  const std::string t = format_text_table({{"a"}, {"b", TextAlign::Right}, {"c"}},
                                          {{"x", "1", "left"}, {"a-very-long-model-name.onnx", "123456", "y"}});
  // Column c starts after max(1, 27) + 2 + max(1, 1, 6) + 2 = 37 characters on every line.
  std::size_t start = 0;
  for (std::size_t nl; (nl = t.find('\n', start)) != std::string::npos; start = nl + 1) {
    const std::string line = t.substr(start, nl - start);
    ASSERT_GE(line.size(), 38u) << line;
    EXPECT_NE(line[37], ' ') << line;
    EXPECT_EQ(line.substr(35, 2), "  ") << line;
  }
}

TEST(TextTable, AShortRowRunsItsLastCellOnAndDoesNotWidenTheColumn) {
  const std::string t = format_text_table({{"model"}, {"hw"}, {"ms", TextAlign::Right}},
                                          {{"m", "edge", "1.0"}, {"m", "FAILED: a reason far wider than the column"}});
  EXPECT_EQ(t,
            "model  hw     ms\n"
            "m      edge  1.0\n"
            "m      FAILED: a reason far wider than the column\n");
}

TEST(TextTable, WidthCountsCodePointsNotBytes) {
  // "µs" is 3 bytes, 2 code points: the column is 2 wide, like "ab".
  EXPECT_EQ(npu::text_width("µs"), 2u);
  EXPECT_EQ(format_text_table({{"µs"}, {"x"}}, {{"ab", "1"}}), "µs  x\nab  1\n");
}

TEST(TextTable, ARowWiderThanTheTableIsAProgrammingError) {
  EXPECT_THROW(format_text_table({{"a"}}, {{"1", "2"}}), std::invalid_argument);
}

}  // namespace
