// A HOST instruction (the host CPU runs a network partition) through `npu run` as a user
// runs it: the latency grows by exactly the HOST's cycles, the simulated DDR bytes do not
// include the host's analytic rd/wr, and run.json, layers.csv, the summary and the timeline
// report the host separately (docs/timing.md, "Run statistics").
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "npu/hw_config/hw_config.hpp"
#include "tool_runner.hpp"

namespace {

// A 4 KiB tensor through the edge preset (1 GHz, DDR4-3200): LOAD, ReLU, STORE, in program
// order (no tokens), optionally followed by a HOST partition of 1e6 MACs over 5120 bytes.
std::string program(bool with_host) {
  std::string p =
      ".npuasm 1\n"
      ".program name=host-demo dtype=int8\n"
      ".tensor x kind=input ddr=0x0 bytes=4096\n"
      ".tensor y kind=output ddr=0x10000 bytes=4096\n"
      "\n"
      "LOAD    layer=backbone tensor=x ddr=0x0 sram=0x0 extent=4096\n"
      "ACT     layer=backbone op=relu in=0x0 out=0x1000 elems=4096\n"
      "STORE   layer=backbone tensor=y ddr=0x10000 sram=0x1000 extent=4096\n";
  if (with_host) p += "HOST    layer=nms cycles=52084 macs=1000000 rd=4096 wr=1024 nodes=5\n";
  return p;
}

struct RunOutput {
  nlohmann::json json;
  std::string layers_csv, summary;
};

RunOutput run(const std::string& dir, bool with_host, const std::vector<std::string>& extra = {}) {
  const std::string prog = dir + "/prog.npuasm";
  std::ofstream(prog) << program(with_host);
  std::vector<std::string> args{"run", prog, "--hw", "configs/edge-npu-ddr4.yaml", "--out", dir};
  args.insert(args.end(), extra.begin(), extra.end());
  const auto r = npu::test::run_npu(args);
  EXPECT_EQ(r.status, 0) << r.output;
  return {npu::test::read_json(dir + "/run.json"), npu::test::read_file(dir + "/layers.csv"), r.output};
}

}  // namespace

TEST(HostRun, CyclesComeFromTheHostModel) {
  // Edge preset host (8 GB/s, 19.2 GMAC/s, NPU at 1000 MHz): memory 5120 B x 1000 / (8 x 1e3)
  // = 640 cycles, compute 1e6 x 1000 / (19.2 x 1e3) = 52083.33 cycles -> ceil = 52084, the
  // `cycles` of the program above.
  const npu::HwConfig hw = npu::load_hw_config(std::string(NPU_SOURCE_DIR) + "/configs/edge-npu-ddr4.yaml");
  EXPECT_EQ(npu::host_cycles(hw, 1000000, 4096 + 1024), 52084u);
}

TEST(HostRun, LatencyGrowsByExactlyTheHostCyclesAndDdrBytesExcludeTheHost) {
  const RunOutput without = run(npu::test::fresh_dir("host-without"), false);
  const RunOutput with = run(npu::test::fresh_dir("host-with"), true, {"--trace", "timeline,vcd"});
  // The HOST runs last, after the STORE: 52084 cycles x 1 ns = 52084 ns more, exactly.
  EXPECT_EQ(with.json.at("total_cycles").get<std::uint64_t>() - without.json.at("total_cycles").get<std::uint64_t>(),
            52084u);
  EXPECT_NEAR(with.json.at("total_ns").get<double>() - without.json.at("total_ns").get<double>(), 52084.0, 1e-6);
  // Simulated DDR: the LOAD's 4096 B read and the STORE's 4096 B written (64 B bursts,
  // aligned), with or without the host: rd=4096 / wr=1024 are not in them.
  for (const RunOutput* r : {&without, &with}) {
    EXPECT_EQ(r->json.at("ddr_read_bytes"), 4096);
    EXPECT_EQ(r->json.at("ddr_write_bytes"), 4096);
    EXPECT_EQ(r->json.at("ddr_model").at("bytes_read"), 4096);
    EXPECT_EQ(r->json.at("ddr_model").at("bytes_written"), 4096);
  }
  const auto& host = with.json.at("host");
  EXPECT_EQ(host.at("instructions"), 1);
  EXPECT_EQ(host.at("cycles"), 52084);
  EXPECT_EQ(host.at("macs"), 1000000);
  EXPECT_EQ(host.at("nodes"), 5);
  EXPECT_EQ(host.at("ddr_read_bytes"), 4096);
  EXPECT_EQ(host.at("ddr_write_bytes"), 1024);
  // Share of the latency: 52084 / total cycles (rounded to 6 decimals in run.json).
  const double total = with.json.at("total_cycles").get<double>();
  EXPECT_NEAR(host.at("latency_share").get<double>(), 52084.0 / total, 1e-6);
  EXPECT_EQ(without.json.at("host").at("cycles"), 0);
  EXPECT_EQ(with.json.at("units").at("host").at("busy_cycles"), 52084);

  // The nms layer: host time and bytes, bound by the host, no simulated DDR bytes.
  const auto& layers = with.json.at("layers");
  ASSERT_EQ(layers.size(), 2u);
  EXPECT_EQ(layers[1].at("name"), "nms");
  EXPECT_EQ(layers[1].at("cycles"), 52084);
  EXPECT_EQ(layers[1].at("host_cycles"), 52084);
  EXPECT_EQ(layers[1].at("host_ddr_read_bytes"), 4096);
  EXPECT_EQ(layers[1].at("host_ddr_write_bytes"), 1024);
  EXPECT_EQ(layers[1].at("ddr").at("total_bytes"), 0);
  EXPECT_EQ(layers[1].at("bound"), "host");
  EXPECT_EQ(layers[0].at("host_cycles"), 0);

  // layers.csv: the documented host columns at the end; 4096 B = 0.004096 MB.
  std::istringstream csv(with.layers_csv);
  std::string header, backbone, nms;
  std::getline(csv, header);
  std::getline(csv, backbone);
  std::getline(csv, nms);
  EXPECT_NE(header.find(",bound,host_cycles,host_ddr_read_mb,host_ddr_write_mb"), std::string::npos) << header;
  const auto f = npu::test::split_csv(nms);
  // 22 + ddr_kv_cache_mb (issue 26) after ddr_intermediate_mb + exclusive_cycles (issue 27) after cycles
  ASSERT_EQ(f.size(), 24u) << nms;
  EXPECT_EQ(f[0], "nms");
  EXPECT_EQ(f[20], "host");
  EXPECT_EQ(f[21], "52084");
  EXPECT_EQ(f[22], "0.004096");
  EXPECT_EQ(f[23], "0.001024");

  // Summary: the host line says the bytes are analytic; without a HOST there is no host line.
  EXPECT_NE(with.summary.find("host             52084 cycles"), std::string::npos) << with.summary;
  EXPECT_NE(with.summary.find("(analytic, not simulated, not in DDR above)"), std::string::npos) << with.summary;
  EXPECT_EQ(without.summary.find("\n  host "), std::string::npos) << without.summary;
}

TEST(HostRun, TimelineAndVcdShowTheHost) {
  const std::string dir = npu::test::fresh_dir("host-traces");
  run(dir, true, {"--trace", "timeline,vcd"});
  const auto tl = npu::test::read_json(dir + "/timeline.json");
  bool track = false, slice = false;
  for (const auto& e : tl.at("traceEvents")) {
    if (e.at("ph") == "M" && e.at("name") == "thread_name" && e.at("args").at("name") == "host") track = true;
    if (e.at("ph") == "X" && e.at("cat") == "HOST") {
      slice = true;
      EXPECT_EQ(e.at("tid"), 5);
      EXPECT_DOUBLE_EQ(e.at("dur").get<double>(), 52.084);  // us
      EXPECT_EQ(e.at("args").at("host_ddr_read_bytes"), 4096);
    }
  }
  EXPECT_TRUE(track);
  EXPECT_TRUE(slice);
  EXPECT_NE(npu::test::read_file(dir + "/waves.vcd").find("host_busy"), std::string::npos);
}
