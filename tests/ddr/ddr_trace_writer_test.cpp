// The CSV and DRAMSim3 trace writers against small golden files whose rows are derived
// by hand (tests/ddr/data/trace_golden.*).
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "npu/hw_config/ddr_presets.hpp"
#include "npu/hw/ddr/ddr_system.hpp"

namespace npu::hw {
namespace {

std::string read_file(const std::string& path) {
  std::ifstream f(path);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

// DDR4-3200 preset, rochrababgco. Three requests accepted at 0, 1, 2:
//   read 0x0    (rank 0, bg 0, bank 0, row 0, column 0): ACT 1, RD 1 + tRCD 22 = 23
//   read 0x40   (same row, column 8): RD 23 + tCCD_L 8 = 31
//   write 0x2000 (bit 13: bg 1, column 0): the read queue is served first; once it is
//     empty the write queue is served: ACT at 32 (the command bus after RD 31), WR at
//     32 + tRCD 22 = 54 (read-to-write CL + BL/2 + 2 - CWL = 12 after RD 31 allows 43).
// time_ns = cycle x 0.625. The tensor name "out,put" is quoted because of its comma.
// The DRAMSim3 file lists the requests by the tick they were offered.
TEST(DdrTraceWriters, MatchGoldenFiles) {
  DdrSystem d(ddr4_3200());
  std::ostringstream csv_out, ds3_out;
  CsvDdrTraceWriter csv(csv_out);
  Dramsim3DdrTraceWriter ds3(ds3_out);
  TeeDdrTraceSink tee;
  tee.add(&csv);
  tee.add(&ds3);
  d.set_trace_sink(&tee);
  static const std::string layer = "conv1", input = "input", output = "out,put";
  d.offer(0x0, false, 0, &layer, &input);
  d.offer(0x40, false, 0, &layer, &input);
  d.offer(0x2000, true, 0, &layer, &output);
  d.drain();
  tee.finish();
  const std::string dir = std::string(NPU_SOURCE_DIR) + "/tests/ddr/data/";
  EXPECT_EQ(csv_out.str(), read_file(dir + "trace_golden.csv"));
  EXPECT_EQ(ds3_out.str(), read_file(dir + "trace_golden.dramsim3.trace"));
}

TEST(DdrTraceWriters, UnwritablePathIsAConfigError) {
  EXPECT_THROW(CsvDdrTraceWriter("/nonexistent/dir/t.csv"), ConfigError);
  EXPECT_THROW(Dramsim3DdrTraceWriter("/nonexistent/dir/t.trace"), ConfigError);
}

}  // namespace
}  // namespace npu::hw
