// --trace ddr size estimate (printed before a large trace) and --trace-compress (ddr.csv.gz):
// the compressed file inflates, with zlib itself, to exactly the plain trace's bytes.
#include <gtest/gtest.h>
#include <zlib.h>

#include <filesystem>
#include <string>

#include "npu/isa/assembly.hpp"
#include "npu/hw_config/hw_config.hpp"
#include "npu/sim/io/ddr_trace_files.hpp"
#include "tool_runner.hpp"

namespace fs = std::filesystem;
using npu::test::read_file;
using npu::test::run_npu;

namespace {

const std::string kProgram = "tests/isa/data/double_buffered_conv.npuasm";
const std::string kCompressEdge = "configs/edge-npu-ddr4.yaml";

std::string gunzip(const std::string& path) {
  gzFile f = gzopen(path.c_str(), "rb");
  if (!f) return "<cannot open " + path + ">";
  std::string out;
  char buf[1 << 15];
  int n;
  while ((n = gzread(f, buf, sizeof buf)) > 0) out.append(buf, std::size_t(n));
  gzclose(f);
  return out;
}

std::size_t lines(const std::string& s) {
  std::size_t n = 0;
  for (char c : s) n += c == '\n';
  return n;
}

// Bursts of the worked example (docs/isa.md), 64 B bursts (edge preset: DMA 64 B, DDR4 x64
// BL8 64 B); a row of L bytes at DDR offset a spans floor((a+L-1)/64) - floor(a/64) + 1 bursts:
//   W 4608 B at 0x0: 72; bias 128 B at 0x1200: 2;
//   input rows of 288 B at 0x10000 (aligned): 5 x 16 rows = 80;
//   320 B at 0x100e0 (a mod 64 = 32): (32+319)/64 + 1 = 6 x 16 = 96; 320 B at 0x101e0: 96;
//   288 B at 0x102e0 (a mod 64 = 32): (32+287)/64 + 1 = 5 x 16 = 80;
//   4 STOREs of 32 rows x 256 B, aligned: 4 x 32 x 4 = 512.
//   Total 72 + 2 + 80 + 96 + 96 + 80 + 512 = 938.
constexpr std::uint64_t kBursts = 938;

TEST(DdrTraceEstimate, CountsEveryBurstOfTheProgram) {
  const auto program = npu::isa::read_program_file(std::string(NPU_SOURCE_DIR) + "/" + kProgram);
  const auto hw = npu::load_hw_config(std::string(NPU_SOURCE_DIR) + "/" + kCompressEdge);
  const auto est = npu::sim::estimate_ddr_trace(program, hw);
  EXPECT_EQ(est.bursts, kBursts);
  EXPECT_EQ(est.trace_bytes, kBursts * 24);
  // The real files of that run: one CSV row per burst (+ header), within 15 % of the estimate.
  const std::string dir = npu::test::fresh_dir("trace-estimate");
  auto r = run_npu({"run", kProgram, "--hw", kCompressEdge, "--trace", "ddr", "--out", dir});
  ASSERT_EQ(r.status, 0) << r.output;
  const std::string csv = read_file(dir + "/ddr.csv");
  EXPECT_EQ(lines(csv), kBursts + 1);
  EXPECT_NEAR(double(est.csv_bytes), double(csv.size()), 0.15 * double(csv.size()));
  EXPECT_EQ(r.output.find("warning: --trace ddr"), std::string::npos);  // far below 100 MB
}

TEST(DdrTraceEstimate, WarnsAboveTheThresholdAndSuggestsCompression) {
  npu::sim::DdrTraceEstimate est;
  est.bursts = 2'000'000;
  est.csv_bytes = 160'000'000;
  est.trace_bytes = 48'000'000;
  const std::string w = npu::sim::ddr_trace_size_warning(est, false);
  EXPECT_NE(w.find("warning: --trace ddr will write about 208 MB: 2000000 DDR bursts, ddr.csv ~160 MB, ddr.trace "
                   "~48 MB; add --trace-compress"),
            std::string::npos)
      << w;
  EXPECT_NE(npu::sim::ddr_trace_size_warning(est, true).find("before compression (written as ddr.csv.gz)"),
            std::string::npos);
  est.csv_bytes = 52'000'000;  // 52 + 48 = 100 MB: not above the threshold
  EXPECT_EQ(npu::sim::ddr_trace_size_warning(est, false), "");
}

TEST(TraceCompress, GzipTraceInflatesToThePlainTrace) {
  const std::string plain = npu::test::fresh_dir("trace-plain"), packed = npu::test::fresh_dir("trace-gz");
  auto a = run_npu({"run", kProgram, "--hw", kCompressEdge, "--trace", "ddr", "--out", plain});
  ASSERT_EQ(a.status, 0) << a.output;
  auto b = run_npu({"run", kProgram, "--hw", kCompressEdge, "--trace", "ddr", "--trace-compress", "--out", packed});
  ASSERT_EQ(b.status, 0) << b.output;
  EXPECT_FALSE(fs::exists(packed + "/ddr.csv"));
  ASSERT_TRUE(fs::exists(packed + "/ddr.csv.gz"));
  const std::string gz = read_file(packed + "/ddr.csv.gz");
  ASSERT_GE(gz.size(), 10u);
  EXPECT_EQ(gz.substr(0, 2), std::string("\x1f\x8b", 2));  // gzip magic (RFC 1952)
  const std::string csv = read_file(plain + "/ddr.csv");
  EXPECT_EQ(gunzip(packed + "/ddr.csv.gz"), csv);
  EXPECT_LT(gz.size(), csv.size() / 3);  // a CSV of repetitive numbers compresses well
  // The DRAMSim3 trace stays plain (DRAMSim3 and `npu ddr run` read text) and identical.
  EXPECT_EQ(read_file(packed + "/ddr.trace"), read_file(plain + "/ddr.trace"));
  // Deterministic: no time stamp in the gzip header.
  const std::string again = npu::test::fresh_dir("trace-gz2");
  ASSERT_EQ(run_npu({"run", kProgram, "--hw", kCompressEdge, "--trace", "ddr", "--trace-compress", "--out", again}).status, 0);
  EXPECT_EQ(read_file(again + "/ddr.csv.gz"), gz);
  // pandas.read_csv reads .csv.gz directly (when python3-pandas is installed).
  if (npu::test::run_shell("/usr/bin/python3 -c 'import pandas' ").status == 0) {
    auto p = npu::test::run_shell("/usr/bin/python3 -c \"import pandas as pd; d = pd.read_csv('" + packed +
                                  "/ddr.csv.gz'); print(len(d), list(d.columns)[:3])\"");
    EXPECT_EQ(p.status, 0) << p.output;
    EXPECT_NE(p.output.find(std::to_string(kBursts) + " ['cycle', 'time_ns', 'channel']"), std::string::npos)
        << p.output;
  }
}

TEST(TraceCompress, WithoutDdrTraceIsAnError) {
  const std::string dir = npu::test::fresh_dir("trace-gz-err");
  auto r = run_npu({"run", kProgram, "--hw", kCompressEdge, "--trace-compress", "--out", dir});
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.output.find("--trace-compress: error: it compresses the DDR trace; add --trace ddr"), std::string::npos)
      << r.output;
}

// --trace may be repeated (as in `npu experiment`): `--trace timeline --trace vcd,ddr` writes
// all three, where CLI11 used to answer "--trace: At Most 1 required but received 2".
TEST(TraceOptions, RepeatedTraceOptionsAccumulateInRunAndSimulate) {
  const std::string out = npu::test::fresh_dir("trace-repeated");
  auto r = run_npu({"run", kProgram, "--hw", kCompressEdge, "--trace", "timeline", "--trace", "vcd,ddr", "--out", out + "/run"});
  ASSERT_EQ(r.status, 0) << r.output;
  for (const char* f : {"timeline.json", "waves.vcd", "ddr.csv", "ddr.trace"})
    EXPECT_TRUE(fs::exists(out + "/run/" + f)) << f;
  r = run_npu({"simulate", "--model", "tests/data/tiny_convnet.onnx", "--hw", kCompressEdge, "--out", out + "/sim", "--trace",
               "timeline", "--trace", "vcd", "-q"});  // a kind given twice is refused (test_experiment_tool)
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_TRUE(fs::exists(out + "/sim/timeline.json"));
  EXPECT_TRUE(fs::exists(out + "/sim/waves.vcd"));
  EXPECT_FALSE(fs::exists(out + "/sim/ddr.csv"));  // not asked for
}

}  // namespace

