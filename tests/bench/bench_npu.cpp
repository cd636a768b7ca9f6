// Speed of the NPU model: a 1-million-instruction double-buffered LOAD/CONV/STORE program
// on the edge preset, with the DDR model and with ideal memory. Prints instructions per
// second and simulated cycles per second. SystemC elaborates once per process, so every
// iteration runs in a forked child and reports its wall time (manual timing).
#include <benchmark/benchmark.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <string>

#include "npu/hw_config/hw_config.hpp"
#include "npu/sim/run/run_program.hpp"

namespace {

using namespace npu;

isa::Program million_program(int tiles) {
  isa::Program p;
  p.name = "bench-1M";
  constexpr std::uint32_t kIn = 8 * 8 * 8, kOut = 8 * 8 * 8, kBank = 128 * 1024;
  p.tensors.push_back({"in", isa::TensorKind::Input, 0x0, std::uint64_t(tiles) * kIn});
  p.tensors.push_back({"out", isa::TensorKind::Output, 0x10000000, std::uint64_t(tiles) * kOut});
  const isa::Token ld2cp{isa::Queue::Load, isa::Queue::Compute}, cp2ld{isa::Queue::Compute, isa::Queue::Load},
      cp2st{isa::Queue::Compute, isa::Queue::Store}, st2cp{isa::Queue::Store, isa::Queue::Compute};
  auto dma = [&](isa::Opcode op, const char* tensor, std::uint64_t ddr, std::uint32_t sram, std::uint32_t bytes) {
    isa::Instruction in;
    in.op = op;
    in.layer = "conv";
    in.tensor = tensor;
    isa::DmaDesc d;
    d.ddr_addr = ddr;
    d.sram_addr = sram;
    d.extent = {bytes, 1, 1};
    in.params = d;
    return in;
  };
  auto load = [&](int i) {
    isa::Instruction in = dma(isa::Opcode::Load, "in", std::uint64_t(i) * kIn, std::uint32_t(i % 2) * kBank, kIn);
    if (i >= 2) in.wait = {cp2ld};
    in.push = {ld2cp};
    return in;
  };
  for (int i = 0; i < 2 && i < tiles; ++i) p.instructions.push_back(load(i));
  for (int i = 0; i < tiles; ++i) {
    isa::Instruction c;
    c.op = isa::Opcode::Conv;
    c.layer = "conv";
    isa::ConvParams cp;
    cp.c_in = cp.c_out = 8;
    cp.h_in = cp.w_in = 8;
    cp.kh = cp.kw = 3;
    cp.pad_top = cp.pad_left = cp.pad_bottom = cp.pad_right = 1;
    cp.in_addr = std::uint32_t(i % 2) * kBank;
    cp.w_addr = 4 * kBank;
    cp.out_addr = std::uint32_t(2 + i % 2) * kBank;
    c.params = cp;
    c.wait = {ld2cp};
    if (i >= 2) c.wait.push_back(st2cp);
    c.push = {cp2st};
    if (i + 2 < tiles) c.push.push_back(cp2ld);
    p.instructions.push_back(c);
    isa::Instruction s = dma(isa::Opcode::Store, "out", 0x10000000 + std::uint64_t(i) * kOut,
                             std::uint32_t(2 + i % 2) * kBank, kOut);
    s.wait = {cp2st};
    if (i + 2 < tiles) s.push = {st2cp};
    p.instructions.push_back(s);
    if (i + 2 < tiles) p.instructions.push_back(load(i + 2));
  }
  return p;
}

struct ChildTimes {
  double wall_s = 0;
  double cycles = 0;
  double instructions = 0;
};

ChildTimes run_forked(bool ideal) {
  int fds[2];
  if (pipe(fds) != 0) std::abort();
  const pid_t pid = fork();
  if (pid == 0) {
    close(fds[0]);
    const HwConfig hw = load_hw_config(std::string(NPU_SOURCE_DIR) + "/configs/edge-npu-ddr4.yaml");
    const isa::Program p = million_program(333334);  // 1,000,002 instructions
    sim::RunOptions opt;
    opt.ideal_memory = ideal;
    const auto t0 = std::chrono::steady_clock::now();
    const sim::RunResult r = sim::run_program(p, hw, opt);
    ChildTimes t;
    t.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    t.cycles = double(r.total_cycles);
    t.instructions = double(r.instruction_count);
    if (write(fds[1], &t, sizeof t) != sizeof t) _exit(2);
    _exit(0);
  }
  close(fds[1]);
  ChildTimes t;
  if (read(fds[0], &t, sizeof t) != sizeof t) t.wall_s = -1;
  close(fds[0]);
  int st = 0;
  waitpid(pid, &st, 0);
  return t;
}

void run_bench(benchmark::State& state, bool ideal) {
  ChildTimes last;
  for (auto _ : state) {
    last = run_forked(ideal);
    if (last.wall_s < 0) {
      state.SkipWithError("simulation child failed");
      return;
    }
    state.SetIterationTime(last.wall_s);
  }
  state.counters["instructions"] = last.instructions;
  state.counters["sim_cycles"] = last.cycles;
  state.counters["instructions_per_s"] = last.instructions / last.wall_s;
  state.counters["sim_cycles_per_s"] = last.cycles / last.wall_s;
}

void BM_MillionInstructions_Ddr(benchmark::State& state) { run_bench(state, false); }
void BM_MillionInstructions_IdealMemory(benchmark::State& state) { run_bench(state, true); }

}  // namespace

BENCHMARK(BM_MillionInstructions_Ddr)->UseManualTime()->Iterations(1)->Unit(benchmark::kSecond);
BENCHMARK(BM_MillionInstructions_IdealMemory)->UseManualTime()->Iterations(1)->Unit(benchmark::kSecond);
BENCHMARK_MAIN();
