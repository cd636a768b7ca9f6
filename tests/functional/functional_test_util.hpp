// Helpers for the data-path tests: an fp32 config, a forked run with or without data whose
// outputs and timing come back through a pipe (SystemC elaborates once per process), and
// the relative error used by the acceptance rules.
#pragma once

#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "npu/compiler/driver/compiler.hpp"
#include "npu/compiler/quantize/calibration.hpp"
#include "npu/compiler/quantize/ptq.hpp"
#include "npu/compiler/transforms/strategy.hpp"
#include "npu/hw/ddr/ddr_trace.hpp"
#include "npu/sim/run/run_with_data.hpp"
#include "npu/sim/verify/verify.hpp"
#include "test_compile_graphs.hpp"

namespace npu::test {

/// The edge preset (configs/edge-npu-ddr4.yaml: 32x32 array at 1 GHz, DDR4-3200) with an fp32
/// MAC array and `sram` bytes of SRAM.
inline HwConfig fp32_hw(std::uint64_t sram = 1u << 20) {
  HwConfig hw = load_hw_config(std::string(NPU_SOURCE_DIR) + "/configs/edge-npu-ddr4.yaml");
  hw.mac_array.dtype = DType::Fp32;
  hw.sram.capacity_bytes = sram;
  return hw;
}

struct ForkedRun {
  bool ok = false;
  std::string error;
  std::map<std::string, std::vector<float>> outputs;
  std::uint64_t total_cycles = 0, ddr_read = 0, ddr_write = 0, sram_read = 0, sram_write = 0, macs = 0;
  std::vector<std::uint64_t> instr_cycles;  ///< start, end, ddr bytes of every instruction
  std::uint64_t ddr_pages = 0;
};

/// Runs `c` on `hw` in a child: with data (`inputs` given to run_with_data) when `with_data`,
/// else timing only (run_program). `trace_csv`: DDR trace path ("" none); `ideal_memory`:
/// DDR and SRAM answer at once (RunOptions::ideal_memory).
inline ForkedRun run_forked(const compiler::CompileResult& c, const HwConfig& hw,
                            const std::map<std::string, std::vector<float>>& inputs, bool with_data,
                            const std::string& trace_csv = "", bool ideal_memory = false) {
  int fds[2];
  if (pipe(fds) != 0) std::abort();
  const pid_t pid = fork();
  if (pid == 0) {
    close(fds[0]);
    std::string blob;
    auto u64 = [&](std::uint64_t v) { blob.append(reinterpret_cast<const char*>(&v), 8); };
    std::string err;
    sim::DataRunResult r;
    try {
      sim::RunOptions opt;
      opt.ideal_memory = ideal_memory;
      std::unique_ptr<hw::CsvDdrTraceWriter> tw;
      if (!trace_csv.empty()) {
        tw = std::make_unique<hw::CsvDdrTraceWriter>(trace_csv);
        opt.ddr_trace = tw.get();
      }
      if (with_data) r = sim::run_with_data(c, hw, inputs, opt);
      else r.run = sim::run_program(c.program, hw, opt);
    } catch (const std::exception& e) {
      err = e.what();
    }
    u64(err.size());
    blob += err;
    u64(r.outputs.size());
    for (const auto& [name, v] : r.outputs) {
      u64(name.size());
      blob += name;
      u64(v.size());
      blob.append(reinterpret_cast<const char*>(v.data()), v.size() * 4);
    }
    for (std::uint64_t x : {r.run.total_cycles, r.run.ddr.read_bytes, r.run.ddr.write_bytes, r.run.sram.read_bytes,
                            r.run.sram.write_bytes, r.run.macs, r.ddr_pages_touched})
      u64(x);
    u64(r.run.instructions.size());
    for (const auto& is : r.run.instructions) {
      u64(is.start_cycle);
      u64(is.end_cycle);
      u64(is.ddr_bytes);
    }
    const char* p = blob.data();
    std::size_t len = blob.size();
    while (len > 0) {
      const ssize_t w = write(fds[1], p, len);
      if (w <= 0) _exit(3);
      p += w;
      len -= std::size_t(w);
    }
    close(fds[1]);
    _exit(0);
  }
  close(fds[1]);
  std::string blob;
  char buf[65536];
  for (ssize_t got; (got = read(fds[0], buf, sizeof buf)) > 0;) blob.append(buf, std::size_t(got));
  close(fds[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  ForkedRun out;
  std::size_t pos = 0;
  auto u64 = [&]() {
    std::uint64_t v = 0;
    if (pos + 8 <= blob.size()) std::memcpy(&v, blob.data() + pos, 8);
    pos += 8;
    return v;
  };
  auto str = [&](std::uint64_t n) {
    std::string s = pos + n <= blob.size() ? blob.substr(pos, n) : std::string();
    pos += n;
    return s;
  };
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || blob.size() < 16) {
    out.error = "child failed (status " + std::to_string(status) + ")";
    return out;
  }
  out.error = str(u64());
  const std::uint64_t n_out = u64();
  for (std::uint64_t i = 0; i < n_out; ++i) {
    const std::string name = str(u64());
    const std::uint64_t n = u64();
    std::vector<float> v(n);
    const std::string raw = str(n * 4);
    if (raw.size() == n * 4) std::memcpy(v.data(), raw.data(), raw.size());
    out.outputs[name] = std::move(v);
  }
  out.total_cycles = u64();
  out.ddr_read = u64();
  out.ddr_write = u64();
  out.sram_read = u64();
  out.sram_write = u64();
  out.macs = u64();
  out.ddr_pages = u64();
  const std::uint64_t ni = u64();
  for (std::uint64_t i = 0; i < 3 * ni; ++i) out.instr_cycles.push_back(u64());
  out.ok = out.error.empty() && pos <= blob.size();
  return out;
}

/// max |a - ref| / max |ref| (relative to the tensor's scale; max |a - ref| when ref is all 0).
inline double rel_err(const std::vector<float>& a, const std::vector<double>& ref) {
  double e = 0, m = 0;
  for (std::size_t i = 0; i < a.size() && i < ref.size(); ++i) {
    e = std::max(e, std::fabs(double(a[i]) - ref[i]));
    m = std::max(m, std::fabs(ref[i]));
  }
  return m > 0 ? e / m : e;
}

inline std::vector<double> to_double(const std::vector<float>& v) { return std::vector<double>(v.begin(), v.end()); }

/// Seeded U(lo, hi) values.
inline std::vector<float> random_values(std::size_t n, unsigned seed, float lo = -1.0f, float hi = 1.0f) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> d(lo, hi);
  std::vector<float> v(n);
  for (float& x : v) x = d(rng);
  return v;
}

/// A float graph quantised by PTQ (4 seeded calibration samples, seed 5) and compiled with the
/// `depth-first` strategy for the int8 edge preset (configs/edge-npu-ddr4.yaml) with `sram`
/// bytes of SRAM (and DDR at `ddr_mtps` MT/s if non-zero), with one seeded input (seed 6).
struct Int8DepthFirst {
  HwConfig hw;
  compiler::Graph qg;
  compiler::CompileResult c;
  compiler::RefTensorMap in;
  /// sim::check_int8_execution's verdict ("bit-exact" when the program equals the integer
  /// reference interpreter).
  std::string status() const { return sim::check_int8_execution(c, hw, qg, in).status; }
};

inline Int8DepthFirst int8_depth_first(const compiler::Graph& g, std::uint64_t sram, int ddr_mtps = 0,
                                       const std::string& ddr_mapping = "") {
  Int8DepthFirst r;
  r.hw = load_hw_config(std::string(NPU_SOURCE_DIR) + "/configs/edge-npu-ddr4.yaml");
  r.hw.sram.capacity_bytes = sram;
  if (ddr_mtps > 0) r.hw.ddr.data_rate_mtps = ddr_mtps;
  if (!ddr_mapping.empty()) r.hw.ddr.address_mapping = ddr_mapping;
  const compiler::Strategy st = compiler::builtin_strategy("depth-first");
  r.qg = compiler::quantize_graph(g, st, compiler::generate_calibration(g, 5, 4)).graph;
  r.c = compiler::compile(r.qg, r.hw, st);
  r.in = compiler::generate_calibration(g, 6, 1).at(0);
  return r;
}

}  // namespace npu::test
