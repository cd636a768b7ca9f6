// The terminal table's DDR MB cells: a KB-sized model's traffic is not printed as 0.00 MB.
#include <gtest/gtest.h>

#include "npu/sim/experiment/summary_figures.hpp"

namespace {

TEST(SummaryTable, KilobyteTrafficIsNotPrintedAsZeroMegabytes) {
  // 4200 B = 0.0042 MB: 2 decimals would print "0.00"; 2 significant digits keep 0.0042.
  EXPECT_EQ(npu::sim::mb_cell(4200 / 1e6), "0.0042");
  EXPECT_EQ(npu::sim::mb_cell(123 / 1e6), "0.00012");  // 123 B
  EXPECT_EQ(npu::sim::mb_cell(0.0), "0.00");           // no traffic at all
  EXPECT_EQ(npu::sim::mb_cell(12.3456), "12.35");      // 0.01 MB and above: 2 decimals, as before
  EXPECT_EQ(npu::sim::mb_cell(0.01), "0.01");
}

}  // namespace
