// The run driver: elaborate the NPU model for one program and one config, run it to
// completion, and collect the statistics. Used by `npu run` and by the experiment runner.
//
// SystemC elaborates once per process: call run_program() at most once per process (a
// second call throws std::logic_error). Sweeps run one process per simulation.
#pragma once

#include <string>

#include "npu/hw_config/hw_config.hpp"
#include "npu/isa/instruction.hpp"
#include "npu/sim/run/run_stats.hpp"

namespace npu::hw {
class DdrTraceSink;
class BackingStore;
}

namespace npu::sim {

struct RunOptions {
  /// DDR and SRAM answer at once (pure compute timing, comparable with SCALE-Sim's
  /// stall-free figures). No DDR trace in this mode.
  bool ideal_memory = false;
  /// Receives one record per DDR burst (e.g. hw::CsvDdrTraceWriter, hw::Dramsim3DdrTraceWriter
  /// or a hw::TeeDdrTraceSink of both); finish() is called at the end of the run.
  hw::DdrTraceSink* ddr_trace = nullptr;
  std::string timeline_path;  ///< Chrome trace-event JSON (Perfetto), written when not empty
  std::string vcd_path;       ///< VCD waveforms (GTKWave), written when not empty
  std::string program_source = "<program>";  ///< names the program in error messages (its path)
  bool keep_instructions = true;  ///< fill RunResult::instructions
  /// Functional mode (docs/functional.md, "Data path"): the DDR contents the program reads
  /// and writes (e.g. filled from compiler::ddr_image, outputs read back after the run). The
  /// run's timing, bytes and traces are the same with or without it. Only fp32 programs.
  hw::BackingStore* ddr_data = nullptr;
};

/// Runs `program` on `hw`. Throws npu::ConfigError (the tool exits 1) for: an SRAM operand
/// past the capacity (names instruction index, line and layer, before simulating), a DDR
/// address error, a token deadlock (instruction and queue states), an unwritable trace
/// path. Throws std::logic_error when called a second time in one process.
RunResult run_program(const isa::Program& program, const HwConfig& hw, const RunOptions& opt = {});

}  // namespace npu::sim
