// The tables' "DDR saved" cell (summary_figures.hpp saved_percent_text): a strategy that moves
// slightly more (or fewer) bytes than `none` is not shown as "-0.0 %", no change (new-user
// finding on gpt2_tiny decode, conv-bn-act: -0.0211 %).
#include <gtest/gtest.h>

#include "npu/sim/experiment/summary_figures.hpp"

namespace {

using npu::sim::saved_percent_text;

TEST(SummaryTable, ASmallSavingOrLossIsNotPrintedAsZero) {
  EXPECT_EQ(saved_percent_text(48.4234), "48.4 %");  // one decimal, as before
  EXPECT_EQ(saved_percent_text(-3.25), "-3.2 %");    // fmt rounds half to even on the binary value (-3.25 is exact)
  EXPECT_EQ(saved_percent_text(0.0), "0.0 %");       // the same bytes: no change
  EXPECT_EQ(saved_percent_text(-0.0211), "-0.021 %");
  EXPECT_EQ(saved_percent_text(0.049), "0.049 %");   // would round to 0.0 with one decimal
  EXPECT_EQ(saved_percent_text(0.05), "0.1 %");      // from 0.05 on, one decimal does not read as 0
  EXPECT_EQ(saved_percent_text(0.0001), "<0.001 %");
  EXPECT_EQ(saved_percent_text(-0.0001), ">-0.001 %");
  EXPECT_EQ(saved_percent_text(std::nullopt), "");  // no baseline
}

}  // namespace
