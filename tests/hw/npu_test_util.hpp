// Helpers for the NPU-core tests: program builders and a runner that elaborates NpuTop in a
// forked child (SystemC elaborates once per process), so one test can compare several runs.
#pragma once

#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <string>
#include <type_traits>
#include <vector>

#include <systemc>

#include "npu/hw/npu_top.hpp"
#include "npu/hw_config/hw_config.hpp"
#include "npu/isa/instruction.hpp"

namespace npu::test {

inline isa::Token tok(isa::Queue from, isa::Queue to) { return isa::Token{from, to}; }
constexpr isa::Queue LD = isa::Queue::Load, CP = isa::Queue::Compute, ST = isa::Queue::Store;

inline isa::Instruction dma(isa::Opcode op, const std::string& layer, const std::string& tensor, std::uint64_t ddr,
                            std::uint32_t sram, std::uint32_t bytes) {
  isa::Instruction in;
  in.op = op;
  in.layer = layer;
  in.tensor = tensor;
  isa::DmaDesc d;
  d.ddr_addr = ddr;
  d.sram_addr = sram;
  d.extent = {bytes, 1, 1};
  in.params = d;
  return in;
}

inline isa::Instruction with_tokens(isa::Instruction in, std::vector<isa::Token> wait, std::vector<isa::Token> push) {
  in.wait = std::move(wait);
  in.push = std::move(push);
  return in;
}

struct ChildResult {
  bool ok = false;
  std::uint64_t end_ps = 0;
  std::vector<hw::ExecRecord> records;
  std::string error;  ///< SimError message or deadlock report
};

/// Elaborate NpuTop for `p` on `hw` in a forked child, run to completion, return the records.
inline ChildResult run_in_child(const isa::Program& p, const HwConfig& hw, const hw::NpuTopOptions& options) {
  static_assert(std::is_trivially_copyable_v<hw::ExecRecord>);
  int fds[2];
  if (pipe(fds) != 0) std::abort();
  const pid_t pid = fork();
  if (pid == 0) {
    close(fds[0]);
    ::setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 1);
    auto* top = new hw::NpuTop("npu", hw, p, options);
    sc_core::sc_start();
    std::string err = top->error.set ? top->error.message : top->controller.deadlock_report();
    const auto& recs = top->controller.records();
    const std::uint64_t n = recs.size(), e = err.size();
    auto put = [&](const void* data, std::size_t len) {
      const char* c = static_cast<const char*>(data);
      while (len > 0) {
        const ssize_t w = write(fds[1], c, len);
        if (w <= 0) _exit(3);
        c += w;
        len -= std::size_t(w);
      }
    };
    put(&n, sizeof n);
    put(recs.data(), n * sizeof(hw::ExecRecord));
    put(&e, sizeof e);
    put(err.data(), e);
    close(fds[1]);
    _exit(0);
  }
  close(fds[1]);
  ChildResult r;
  auto get = [&](void* data, std::size_t len) {
    char* c = static_cast<char*>(data);
    while (len > 0) {
      const ssize_t got = read(fds[0], c, len);
      if (got <= 0) return false;
      c += got;
      len -= std::size_t(got);
    }
    return true;
  };
  std::uint64_t n = 0, e = 0;
  bool ok = get(&n, sizeof n);
  if (ok) {
    r.records.resize(n);
    ok = get(r.records.data(), n * sizeof(hw::ExecRecord)) && get(&e, sizeof e);
  }
  if (ok) {
    r.error.resize(e);
    ok = get(r.error.data(), e);
  }
  close(fds[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  r.ok = ok && WIFEXITED(status) && WEXITSTATUS(status) == 0 && r.error.empty();
  for (const auto& rec : r.records) r.end_ps = std::max(r.end_ps, rec.end_ps);
  return r;
}

/// run_in_child with the default options, the DDR model or (ideal) the ideal memory.
inline ChildResult run_in_child(const isa::Program& p, const HwConfig& hw, bool ideal) {
  hw::NpuTopOptions opt;
  opt.ideal_memory = ideal;
  return run_in_child(p, hw, opt);
}

/// The edge preset (configs/edge-npu-ddr4.yaml): 32x32 WS int8 at 1 GHz, 1 MiB SRAM in 8 banks
/// of 32 B/cycle, DDR4-3200 x64 (25.6 GB/s peak), 64 B bursts, 32 outstanding.
inline HwConfig edge_preset() { return load_hw_config(std::string(NPU_SOURCE_DIR) + "/configs/edge-npu-ddr4.yaml"); }

}  // namespace npu::test
