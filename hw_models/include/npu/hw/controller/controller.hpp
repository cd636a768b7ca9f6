// The controller: fetches the program, dispatches each instruction to its queue (load,
// compute, store; isa::Instruction::queue()) and runs the three queues concurrently, one
// SC_THREAD each, in program order within a queue. Dependency tokens are counting
// semaphores between ordered queue pairs (decoupled access-execute, as in VTA): an
// instruction first takes each of its `wait` tokens (blocking while the count is 0), runs on
// its unit, then pushes its `push` tokens.
//
// A program with no tokens at all gives the hardware no licence to overlap anything, so it
// runs strictly in program order, one instruction at a time (docs/timing.md).
//
// HOST (the host CPU runs a network partition) runs on the compute queue: the controller
// waits host_duration_ps(cycles) once and records the host figures (no unit is involved).
//
// Deadlock: when every queue is finished or blocked on a token, no event is pending and the
// simulation ends by itself; deadlock_report() then names each queue's state. Never a hang.
#pragma once

#include <array>
#include <string>
#include <vector>

#include <systemc>

#include "npu/hw/act_unit/act_unit.hpp"
#include "npu/hw/controller/exec_record.hpp"
#include "npu/hw/dma/dma.hpp"
#include "npu/hw/functional/data_path.hpp"
#include "npu/hw/mac_array/mac_array.hpp"
#include "npu/isa/instruction.hpp"

namespace npu::hw {

/// "SOURCE:LINE: instruction #I (OPCODE, layer 'L'[, tensor 'T'])" (LINE omitted when 0).
std::string describe_instruction(const isa::Program& program, std::size_t index, const std::string& source);

/// Simulated time of a HOST instruction of `cycles` core cycles at `clock_mhz`:
/// round(cycles x 10^6 / clock_mhz) ps (exact for clocks whose period is whole picoseconds).
std::uint64_t host_duration_ps(std::uint64_t cycles, double clock_mhz);

/// First SRAM operand of any instruction that lies past sram.capacity_bytes, as a full
/// user-facing error message ("SOURCE:LINE: error: ... fix: ..."); empty when none.
std::string find_sram_overflow(const isa::Program& program, const HwConfig& hw, const std::string& source);

class Controller : public sc_core::sc_module {
 public:
  SC_HAS_PROCESS(Controller);

  /// `source` names the program in messages (its file path, or "<program>"); `clock_mhz` is
  /// the core clock (HOST waits its cycles at it).
  Controller(sc_core::sc_module_name name, const isa::Program& program, const std::string& source, Dma& dma_load,
             Dma& dma_store, MacArray& mac, ActUnit& act, SimError& error, double clock_mhz);

  sc_core::sc_signal<bool> host_busy;  ///< high while a HOST instruction runs (VCD)
  /// True when the program has a HOST instruction (NpuTop traces host_busy only then).
  bool has_host() const { return has_host_; }

  const std::vector<ExecRecord>& records() const { return records_; }
  /// True when every instruction ran.
  bool finished() const;
  /// Empty when finished(); otherwise the deadlock description (queues, tokens, fix).
  std::string deadlock_report() const;
  /// True when the program has tokens (queues overlap); false: strict program order.
  bool decoupled() const { return decoupled_; }
  /// Functional mode: every instruction is handed to `data` once its unit finished it (nullptr:
  /// timing only, the default). Set before sc_start().
  void set_data_path(DataPath* data) { data_ = data; }

 private:
  struct QueueState {
    std::vector<std::size_t> instructions;
    std::size_t pos = 0;
    bool done = false;
    bool blocked = false;
    isa::Token blocked_on;
  };

  void load_thread() { run_queue(0); }
  void compute_thread() { run_queue(1); }
  void store_thread() { run_queue(2); }
  void in_order_thread();
  void run_queue(int q);
  void acquire(int q, const isa::Token& t);
  void release(const isa::Token& t);
  bool execute(std::size_t index);  // false on error
  void execute_host(const isa::Instruction& in, ExecRecord& rec);

  const isa::Program& program_;
  std::string source_;
  Dma& dma_load_;
  Dma& dma_store_;
  MacArray& mac_;
  ActUnit& act_;
  DataPath* data_ = nullptr;
  SimError& error_;
  double clock_mhz_ = 0;
  bool decoupled_ = false;
  bool has_host_ = false;
  std::array<QueueState, 3> queues_;
  std::array<std::array<int, 3>, 3> tokens_{};
  std::array<std::array<sc_core::sc_event, 3>, 3> token_events_;
  std::vector<ExecRecord> records_;
  std::size_t executed_ = 0;
};

}  // namespace npu::hw
