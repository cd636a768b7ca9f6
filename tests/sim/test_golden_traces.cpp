// Golden sample traces (traces/README.md): the tiny network's four traces are regenerated
// and must be byte-identical to the committed samples; the formats are checked against
// what traces/README.md documents.
#include <gtest/gtest.h>

#include <filesystem>
#include <set>

#include "tool_runner.hpp"

namespace {

std::string golden(const std::string& file) { return std::string(NPU_SOURCE_DIR) + "/traces/tiny_convnet/" + file; }

class GoldenTraces : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = npu::test::fresh_dir("golden");
    auto r = npu::test::run_npu({"simulate", "--model", "tests/data/tiny_convnet.onnx", "--hw",
                                 "configs/edge-npu-ddr4.yaml", "--strategy", "conv-bn-act", "--out", dir_, "--trace",
                                 "ddr,timeline,vcd", "--quiet"});
    ASSERT_EQ(r.status, 0) << r.output;
  }
  static std::string dir_;
};
std::string GoldenTraces::dir_;

}  // namespace

TEST_F(GoldenTraces, AllFourTracesAreByteIdenticalToTheSamples) {
  for (const std::string f : {"ddr.csv", "ddr.trace", "timeline.json", "waves.vcd"}) {
    const std::string now = npu::test::read_file(dir_ + "/" + f);
    ASSERT_FALSE(now.empty()) << f;
    EXPECT_TRUE(now == npu::test::read_file(golden(f)))
        << f << " differs from traces/tiny_convnet/" << f
        << "; if the change is deliberate run scripts/update_golden_traces.sh and review the diff";
  }
}

TEST_F(GoldenTraces, DdrCsvHasTheDocumentedColumns) {
  std::ifstream in(golden("ddr.csv"));
  std::string header, row;
  std::getline(in, header);
  EXPECT_EQ(header, "cycle,time_ns,channel,rank,bankgroup,bank,row,column,addr,cmd,bytes,layer,tensor");
  ASSERT_TRUE(std::getline(in, row));
  auto f = npu::test::split_csv(row);
  ASSERT_EQ(f.size(), 13u);
  // time_ns = cycle x tCK, tCK = 2000 / 3200 MT/s = 0.625 ns (DDR4-3200).
  EXPECT_NEAR(std::stod(f[1]), std::stod(f[0]) * 0.625, 1e-3);
  EXPECT_TRUE(f[9] == "READ" || f[9] == "WRITE");
  EXPECT_EQ(f[10], "64");  // DDR4 x64 BL8 burst = 8 B x 8 beats
  EXPECT_EQ(f[8].rfind("0x", 0), 0u);
}

TEST_F(GoldenTraces, DramsimTraceLinesParseAndAreSortedByCycle) {
  std::ifstream in(golden("ddr.trace"));
  std::string addr, cmd;
  long long cycle = 0, last = -1, lines = 0;
  while (in >> addr >> cmd >> cycle) {
    EXPECT_EQ(addr.rfind("0x", 0), 0u);
    EXPECT_TRUE(cmd == "READ" || cmd == "WRITE");
    EXPECT_GE(cycle, last);
    last = cycle;
    ++lines;
  }
  // One line per burst, as in ddr.csv (rows minus the header).
  std::ifstream csv(golden("ddr.csv"));
  long long rows = -1;
  for (std::string l; std::getline(csv, l);) ++rows;
  EXPECT_EQ(lines, rows);
}

TEST_F(GoldenTraces, TimelineHasOneTrackPerUnitAndSlicesInMicroseconds) {
  auto j = npu::test::read_json(golden("timeline.json"));
  std::set<std::string> tracks;
  std::size_t slices = 0;
  for (const auto& e : j.at("traceEvents")) {
    if (e.at("ph") == "M" && e.at("name") == "thread_name") tracks.insert(e.at("args").at("name").get<std::string>());
    if (e.at("ph") == "X") {
      ++slices;
      // 1 GHz core: 1000 cycles per microsecond. start/end_cycle are whole cycles of the
      // same instants, so they may differ from ts/dur by up to one cycle (1 ns) of rounding.
      const double cycles = e["args"]["end_cycle"].get<double>() - e["args"]["start_cycle"].get<double>();
      EXPECT_NEAR(e.at("dur").get<double>(), cycles / 1000.0, 1e-3 + 1e-9);
    }
  }
  EXPECT_EQ(tracks, (std::set<std::string>{"DMA load", "DMA store", "MAC array", "activation unit"}));
  EXPECT_GT(slices, 10u);
}

TEST_F(GoldenTraces, VcdDeclaresTheDocumentedSignals) {
  const std::string vcd = npu::test::read_file(golden("waves.vcd"));
  for (const char* s : {"dma_load_busy", "dma_store_busy", "mac_array_busy", "act_unit_busy", "dma_load_gbps",
                        "dma_store_gbps", "ddr_gbps", "ddr_window_gbps"})
    EXPECT_NE(vcd.find(std::string(" ") + s + " "), std::string::npos) << s;
  EXPECT_NE(vcd.find("$timescale\n     1 ps"), std::string::npos);
}

TEST_F(GoldenTraces, WindowedBandwidthIntegratesToTheTraceBytes) {
  // ddr_window_gbps holds, for each 1 us window, bytes completed in it / 1 us. Summing
  // value x 1 us over all windows gives the run's DDR bytes: GB/s x 1e-6 s x 1e9 = value x 1e3 B.
  const std::string vcd = npu::test::read_file(golden("waves.vcd"));
  // "$var real 1 <id> ddr_window_gbps $end": the id is the fourth word.
  std::string id;
  {
    std::istringstream lines(vcd);
    for (std::string line; std::getline(lines, line);)
      if (line.find(" ddr_window_gbps ") != std::string::npos) {
        std::istringstream words(line);
        std::string w[4];
        words >> w[0] >> w[1] >> w[2] >> w[3];
        id = w[3];
        break;
      }
  }
  ASSERT_FALSE(id.empty());
  double bytes = 0;
  std::istringstream in(vcd);
  for (std::string line; std::getline(in, line);) {
    if (line.size() > id.size() + 2 && line[0] == 'r' && line.compare(line.size() - id.size(), id.size(), id) == 0 &&
        line[line.size() - id.size() - 1] == ' ')
      bytes += std::stod(line.substr(1)) * 1e3;
  }
  std::ifstream csv(golden("ddr.csv"));
  std::string l;
  std::getline(csv, l);
  double trace_bytes = 0;
  while (std::getline(csv, l)) trace_bytes += std::stod(npu::test::split_csv(l).at(10));
  EXPECT_NEAR(bytes, trace_bytes, 1.0);
}
