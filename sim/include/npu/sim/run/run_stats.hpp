// Statistics of one program run on the NPU model, and their writers (run.json, layers.csv,
// the terminal summary). Every field's meaning and unit: docs/timing.md, "Run statistics".
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "npu/isa/instruction.hpp"

namespace npu::sim {

struct Traffic {
  std::uint64_t read_bytes = 0;
  std::uint64_t write_bytes = 0;
  std::uint64_t total() const { return read_bytes + write_bytes; }
};

/// Busy time of one unit ("dma_load", "dma_store", "mac_array", "act_unit", "host").
struct UnitStats {
  std::string name;
  std::uint64_t busy_cycles = 0;  ///< sum of its instructions' durations (core cycles)
  double utilisation = 0;         ///< busy_cycles / total_cycles
  std::uint64_t instructions = 0;
};

/// Stall cycles by cause (core cycles; definitions in docs/timing.md).
struct StallStats {
  std::uint64_t ddr_latency_cycles = 0;    ///< DMA: first-burst latency beyond its peak transfer time
  std::uint64_t ddr_bandwidth_cycles = 0;  ///< DMA: time beyond bytes / peak DDR bandwidth, minus latency
  std::uint64_t token_wait_cycles = 0;     ///< all queues: blocked on dependency tokens
  std::array<std::uint64_t, 3> token_wait_cycles_by_queue{};  ///< ld, cp, st
  std::uint64_t sram_conflict_cycles = 0;  ///< waits for busy SRAM bank ports
};

struct EnergyStats {
  bool present = false;  ///< the config has an energy section
  double mac_pj = 0, sram_pj = 0, ddr_pj = 0;
  double total_pj() const { return mac_pj + sram_pj + ddr_pj; }
};

/// What the DDR model itself reports (present only with the DDR model).
struct DdrModelStats {
  bool present = false;
  std::uint64_t requests = 0, bytes_read = 0, bytes_written = 0;
  std::uint64_t row_hits = 0, row_misses = 0, row_conflicts = 0;
  double achieved_gbps = 0, mean_read_latency_ns = 0, p99_read_latency_ns = 0, row_hit_rate = 0;
};

/// What HOST instructions cost: the host CPU running network partitions the NPU cannot.
/// The DDR traffic is the compiler's analytic figure (HOST rd/wr): it is NOT simulated through
/// the DDR model and NOT part of RunResult::ddr / LayerStats::ddr.
struct HostStats {
  std::uint64_t instructions = 0;  ///< HOST instructions executed
  std::uint64_t cycles = 0;        ///< sum of their durations (core cycles)
  double latency_share = 0;        ///< cycles / total_cycles (0..1)
  std::uint64_t macs = 0;          ///< host MACs (informational, not in RunResult::macs)
  std::uint64_t nodes = 0;         ///< ONNX nodes the host ran
  Traffic ddr;                     ///< analytic host DDR bytes (rd, wr)
};

/// Index of a TensorKind in per-kind arrays (input, weight, output, intermediate, kv_cache).
inline constexpr int kNumTensorKinds = 5;

struct LayerStats {
  std::string name;
  std::uint64_t start_cycle = 0, end_cycle = 0;
  std::uint64_t cycles = 0;  ///< end - start: the span of the layer's instructions
  /// The cycles attributed to this layer alone (exclusive_cycles.hpp: each cycle to the layer of
  /// the oldest unfinished instruction); over the layers they sum to the run's total_cycles.
  std::uint64_t exclusive_cycles = 0;
  std::uint64_t macs = 0;
  Traffic ddr;
  std::array<Traffic, kNumTensorKinds> ddr_by_kind{};
  Traffic sram;
  std::uint64_t mac_busy_cycles = 0, act_busy_cycles = 0, dma_busy_cycles = 0;
  std::uint64_t host_cycles = 0;  ///< HOST time in the layer (core cycles)
  Traffic host_ddr;               ///< analytic host DDR bytes of its HOST instructions (not in `ddr`)
  double mac_utilisation = 0;  ///< macs / (peak MACs per cycle x cycles)
  /// "host" if HOST time >= the compute units' and the DMA's busy time (and > 0), else
  /// "compute" if the busier compute unit (MAC array or activation unit: a MaxPool or an Add
  /// keeps only the latter busy) is at least as busy as the DMA, else "memory". The compile
  /// report's bound hint counts vector layers as compute alike.
  std::string bound;
  std::uint64_t instructions = 0;
};

struct InstructionStats {
  std::size_t index = 0;
  int source_line = 0;
  isa::Opcode op = isa::Opcode::Sync;
  const char* unit = "none";  ///< "dma_load" | "dma_store" | "mac_array" | "act_unit" | "host" | "none" (static)
  std::string layer, tensor;
  std::uint64_t start_cycle = 0, end_cycle = 0;
  double start_ns = 0, end_ns = 0;
  std::uint64_t ddr_bytes = 0, sram_bytes = 0, macs = 0;
  std::uint64_t token_wait_cycles = 0;
  std::uint64_t host_cycles = 0, host_read_bytes = 0, host_write_bytes = 0;  ///< HOST only
};

struct RunResult {
  std::string program;   ///< Program::name
  std::string strategy;  ///< Program::strategy
  std::string hw;        ///< config_label(): the config file's stem (npu.name for a config from text)
  std::string npu_name;  ///< HwConfig npu.name
  std::string hw_source; ///< file the config came from
  bool ideal_memory = false;
  bool decoupled = true;  ///< the program used tokens (queues overlapped)
  double core_clock_mhz = 0;
  std::uint64_t total_cycles = 0;  ///< last completion, core cycles
  double total_ns = 0;
  std::uint64_t instruction_count = 0;
  std::vector<UnitStats> units;  ///< dma_load, dma_store, mac_array, act_unit, host
  StallStats stalls;
  Traffic ddr;
  /// The program's compulsory DDR bytes: every input, weight/parameter and output tensor
  /// (TensorKind other than Intermediate) moved once, at its declared size. No schedule of
  /// this program can move less; ddr.total() / compulsory_bytes says how far a run is from
  /// that bound (1.0 = only compulsory traffic; intermediates and re-reads add to it).
  std::uint64_t compulsory_bytes = 0;
  double ddr_over_compulsory = 0;  ///< ddr.total() / compulsory_bytes (0 when there is none)
  std::map<std::string, Traffic> ddr_by_tensor;  ///< by LOAD/STORE tensor name (sorted)
  std::array<Traffic, kNumTensorKinds> ddr_by_kind{};
  Traffic sram;
  std::uint64_t macs = 0;
  double peak_macs_per_cycle = 0;
  double mac_utilisation = 0;      ///< macs / (peak MACs per cycle x total_cycles)
  double peak_ddr_gbps = 0;
  double achieved_ddr_gbps = 0;    ///< DDR bytes / total_ns
  double ddr_bw_utilisation = 0;   ///< achieved / peak
  EnergyStats energy;
  HostStats host;  ///< HOST instructions (host CPU partitions); DDR bytes analytic, not in `ddr`
  DdrModelStats ddr_model;
  std::vector<LayerStats> layers;  ///< in order of first appearance in the program
  std::vector<InstructionStats> instructions;
  double wall_s = 0;  ///< host time of the simulation (not part of the deterministic outputs)
};

/// run.json content (docs/timing.md). `with_instructions`: include per-instruction records.
/// Deterministic: no wall time, keys in fixed order.
nlohmann::ordered_json to_json(const RunResult& r, bool with_instructions = true);

/// Writes `to_json(r)` to `path` (2-space indent), the records streamed (run_json_writer.cpp:
/// the same bytes as json_dump(to_json(r, with_instructions)) + newline). Throws ConfigError
/// when it cannot.
void write_run_json(const RunResult& r, const std::string& path, bool with_instructions = true);

/// layers.csv: one row per layer (columns in docs/timing.md). Throws ConfigError when it cannot.
void write_layers_csv(const RunResult& r, const std::string& path);

/// The terminal summary: totals, units, stalls, traffic, energy, then the per-layer table.
std::string format_summary(const RunResult& r);

/// A core-cycle count as time for text output: cycles / clock_mhz microseconds with 3
/// decimals ("8820 cycles" at 1000 MHz -> "8.820 us"), so the printed time always matches
/// the printed cycles. (run.json's total_ns is the exact last completion, which can be up to
/// one core cycle earlier than total_cycles x period: total_cycles rounds it up.)
std::string cycles_as_time(std::uint64_t cycles, double clock_mhz);

}  // namespace npu::sim
