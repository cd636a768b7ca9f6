#include "npu/sim/run/run_program.hpp"
#include "npu/sim/run/exclusive_cycles.hpp"
#include "npu/sim/io/output_files.hpp"

#include <algorithm>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cmath>
#include <cstdlib>
#include <map>
#include <memory>
#include <stdexcept>

#include <systemc>

#include "npu/hw/npu_top.hpp"
#include "npu/isa/check/program_check.hpp"
#include "npu/isa/check/dataflow_check.hpp"
#include "npu/isa/check/sram_race_check.hpp"
#include "npu/sim/io/timeline.hpp"
#include "npu/base/temp_files.hpp"

namespace npu::sim {

namespace {
bool g_ran = false;

int kind_index(isa::TensorKind k) { return int(k); }

std::uint64_t to_cycles(std::uint64_t ps, double period_ps) {
  return std::uint64_t(std::llround(double(ps) / period_ps));
}
std::uint64_t to_cycles_ceil(std::uint64_t ps, double period_ps) {
  return std::uint64_t(std::ceil(double(ps) / period_ps - 1e-9));
}

// The run's identity and peak rates, from the program, the config and the elaborated top.
RunResult run_header(const isa::Program& program, const HwConfig& hw, const RunOptions& opt, hw::NpuTop& top) {
  RunResult r;
  r.program = program.name;
  r.strategy = program.strategy;
  r.hw = config_label(hw);
  r.npu_name = hw.npu.name;
  r.hw_source = hw.source;
  r.ideal_memory = opt.ideal_memory;
  r.decoupled = top.controller.decoupled();
  r.core_clock_mhz = hw.npu.clock_mhz;
  r.instruction_count = program.instructions.size();
  r.peak_macs_per_cycle = double(hw.mac_array.rows) * hw.mac_array.cols * hw.mac_array.macs_per_pe_per_cycle;
  r.peak_ddr_gbps = hw.ddr.data_rate_mtps > 0 ? hw.ddr.peak_gbps() : 0.0;
  // memory.model fixed: the memory's bus is the peak (docs/config.md "memory").
  if (hw.memory.model == MemoryModel::Fixed && !opt.ideal_memory) r.peak_ddr_gbps = hw.memory.bandwidth_gbps;
  return r;
}

// Accumulates a run's totals, per-unit, per-tensor, per-layer and (optionally) per-instruction
// statistics from the controller's execution records, in execution order. Record times are in
// ps; statistics are in core cycles of `period_ps`.
class RecordCollector {
 public:
  RecordCollector(const isa::Program& program, RunResult& r, double period_ps, bool keep_instructions)
      : program_(program), r_(r), period_ps_(period_ps), keep_instructions_(keep_instructions) {
    for (const isa::TensorDecl& t : program.tensors) kinds_[t.name] = t.kind;
    for (int u = 0; u < hw::kNumUnits; ++u) units_[std::size_t(u)].name = hw::to_string(hw::Unit(u));
  }

  void add(const hw::ExecRecord& rec) {
    const isa::Instruction& in = program_.instructions[rec.index];
    const std::uint64_t dur_cycles = to_cycles(rec.end_ps - rec.start_ps, period_ps_);
    add_to_totals(rec, in, dur_cycles);
    const bool is_dma = rec.unit == hw::Unit::DmaLoad || rec.unit == hw::Unit::DmaStore;
    const int kind = is_dma ? add_to_tensor(rec, in) : -1;
    add_to_layer(layer_of(rec, in), rec, kind, dur_cycles);
    if (in.op != isa::Opcode::Sync) owned_.push_back({rec.index, to_cycles(rec.end_ps, period_ps_), last_layer_pos_});
    if (keep_instructions_) r_.instructions.push_back(instruction_stats(rec, in, dur_cycles));
  }

  // total_cycles rounds the run's end up (a started cycle counts) where layer spans round to
  // the nearest cycle: the layer(s) ending last end at total_cycles, so the cycle the run counts
  // is in their span. (Otherwise the last layer's exclusive cycles, which take the run's tail and
  // sum with the others' to total_cycles, exceeded its span by 1: gpt2 /head/Gemm 3587484 > 3587483.)
  void end_last_layers_with_the_run() {
    std::uint64_t last = 0;
    for (const LayerStats& ls : r_.layers) last = std::max(last, ls.end_cycle);
    for (LayerStats& ls : r_.layers)
      if (ls.end_cycle == last) ls.end_cycle = std::max(ls.end_cycle, r_.total_cycles);
  }

  // Layer cycles, utilisation and bound; unit utilisation; stall cycles.
  void finish() {
    const std::vector<std::uint64_t> exclusive = exclusive_cycles(std::move(owned_), r_.total_cycles, r_.layers.size());
    for (std::size_t i = 0; i < r_.layers.size(); ++i) r_.layers[i].exclusive_cycles = exclusive[i];
    end_last_layers_with_the_run();
    for (LayerStats& ls : r_.layers) {
      ls.cycles = ls.end_cycle - ls.start_cycle;
      ls.mac_utilisation = ls.cycles > 0 && r_.peak_macs_per_cycle > 0
                               ? double(ls.macs) / (r_.peak_macs_per_cycle * double(ls.cycles))
                               : 0.0;
      // The activation unit counts as compute: a MaxPool kept it busy 3x its DMA time and was
      // called memory-bound when only the MAC array counted.
      const std::uint64_t compute_busy = std::max(ls.mac_busy_cycles, ls.act_busy_cycles);
      if (ls.host_cycles > 0 && ls.host_cycles >= compute_busy && ls.host_cycles >= ls.dma_busy_cycles)
        ls.bound = "host";
      else
        ls.bound = compute_busy >= ls.dma_busy_cycles ? "compute" : "memory";
    }
    for (UnitStats& us : units_) {
      us.utilisation = r_.total_cycles > 0 ? double(us.busy_cycles) / double(r_.total_cycles) : 0.0;
      r_.units.push_back(us);
    }
    r_.stalls.token_wait_cycles = to_cycles(token_wait_ps_, period_ps_);
    for (std::size_t q = 0; q < 3; ++q)
      r_.stalls.token_wait_cycles_by_queue[q] = to_cycles(token_wait_q_[q], period_ps_);
    r_.stalls.ddr_latency_cycles = to_cycles(ddr_lat_ps_, period_ps_);
    r_.stalls.ddr_bandwidth_cycles = to_cycles(ddr_bw_ps_, period_ps_);
  }

 private:
  void add_to_totals(const hw::ExecRecord& rec, const isa::Instruction& in, std::uint64_t dur_cycles) {
    if (rec.unit != hw::Unit::None) {
      UnitStats& us = units_[std::size_t(rec.unit)];
      us.busy_cycles += dur_cycles;
      ++us.instructions;
    }
    token_wait_ps_ += rec.token_wait_ps;
    token_wait_q_[std::size_t(in.queue())] += rec.token_wait_ps;
    ddr_lat_ps_ += rec.ddr_latency_ps;
    ddr_bw_ps_ += rec.ddr_bandwidth_stall_ps;
    r_.stalls.sram_conflict_cycles += rec.sram_conflict_cycles;
    r_.ddr.read_bytes += rec.ddr_read_bytes;
    r_.ddr.write_bytes += rec.ddr_write_bytes;
    r_.sram.read_bytes += rec.sram_read_bytes;
    r_.sram.write_bytes += rec.sram_write_bytes;
    r_.macs += rec.macs;
    if (rec.unit == hw::Unit::Host) {
      ++r_.host.instructions;
      r_.host.cycles += dur_cycles;
      r_.host.macs += rec.host_macs;
      r_.host.nodes += rec.host_nodes;
      r_.host.ddr.read_bytes += rec.host_read_bytes;
      r_.host.ddr.write_bytes += rec.host_write_bytes;
    }
  }

  // A DMA record's DDR bytes by tensor and by tensor kind; returns the kind's index.
  int add_to_tensor(const hw::ExecRecord& rec, const isa::Instruction& in) {
    if (last_tensor_ == nullptr || *last_tensor_ != in.tensor) {
      last_tensor_traffic_ = &r_.ddr_by_tensor[in.tensor];
      auto it = kinds_.find(in.tensor);
      last_kind_ = kind_index(it != kinds_.end() ? it->second : isa::TensorKind::Intermediate);
      last_tensor_ = &in.tensor;
    }
    last_tensor_traffic_->read_bytes += rec.ddr_read_bytes;
    last_tensor_traffic_->write_bytes += rec.ddr_write_bytes;
    r_.ddr_by_kind[std::size_t(last_kind_)].read_bytes += rec.ddr_read_bytes;
    r_.ddr_by_kind[std::size_t(last_kind_)].write_bytes += rec.ddr_write_bytes;
    return last_kind_;
  }

  // The record's layer (created at its first record), its span widened to the record's.
  LayerStats& layer_of(const hw::ExecRecord& rec, const isa::Instruction& in) {
    // Consecutive instructions usually share a layer: skip the map lookup then.
    if (last_layer_ == nullptr || *last_layer_ != in.layer) {
      auto found = layer_index_.find(in.layer);
      if (found == layer_index_.end()) found = layer_index_.emplace(in.layer, r_.layers.size()).first;
      last_layer_pos_ = found->second;
      last_layer_ = &in.layer;
    }
    const bool fresh = last_layer_pos_ == r_.layers.size();
    if (fresh) {
      LayerStats ls;
      ls.name = in.layer;
      ls.start_cycle = to_cycles(rec.start_ps, period_ps_);
      ls.end_cycle = to_cycles(rec.end_ps, period_ps_);
      r_.layers.push_back(ls);
    }
    LayerStats& ls = r_.layers[last_layer_pos_];
    // A SYNC does no work: it only orders the queues at a layer boundary, and a store-queue
    // SYNC may run long before the layer's work starts (e.g. while the host runs the previous
    // partition), so it does not stretch the layer's span; a layer of SYNCs alone keeps theirs.
    const bool is_sync = in.op == isa::Opcode::Sync;
    if (fresh) sync_only_.push_back(is_sync);
    const std::uint64_t s0 = to_cycles(rec.start_ps, period_ps_), s1 = to_cycles(rec.end_ps, period_ps_);
    if (!is_sync && sync_only_[last_layer_pos_]) {
      sync_only_[last_layer_pos_] = false;
      ls.start_cycle = s0;
      ls.end_cycle = s1;
    } else if (!is_sync || sync_only_[last_layer_pos_]) {
      ls.start_cycle = std::min(ls.start_cycle, s0);
      ls.end_cycle = std::max(ls.end_cycle, s1);
    }
    return ls;
  }

  // `kind`: the DDR tensor kind's index of a DMA record, -1 for other records.
  static void add_to_layer(LayerStats& ls, const hw::ExecRecord& rec, int kind, std::uint64_t dur_cycles) {
    ls.macs += rec.macs;
    ls.ddr.read_bytes += rec.ddr_read_bytes;
    ls.ddr.write_bytes += rec.ddr_write_bytes;
    if (kind >= 0) {
      ls.ddr_by_kind[std::size_t(kind)].read_bytes += rec.ddr_read_bytes;
      ls.ddr_by_kind[std::size_t(kind)].write_bytes += rec.ddr_write_bytes;
    }
    ls.sram.read_bytes += rec.sram_read_bytes;
    ls.sram.write_bytes += rec.sram_write_bytes;
    if (rec.unit == hw::Unit::MacArray) ls.mac_busy_cycles += dur_cycles;
    if (rec.unit == hw::Unit::ActUnit) ls.act_busy_cycles += dur_cycles;
    if (kind >= 0) ls.dma_busy_cycles += dur_cycles;
    if (rec.unit == hw::Unit::Host) {
      ls.host_cycles += dur_cycles;
      ls.host_ddr.read_bytes += rec.host_read_bytes;
      ls.host_ddr.write_bytes += rec.host_write_bytes;
    }
    ++ls.instructions;
  }

  InstructionStats instruction_stats(const hw::ExecRecord& rec, const isa::Instruction& in,
                                     std::uint64_t dur_cycles) const {
    InstructionStats is;
    is.index = rec.index;
    is.source_line = in.source_line;
    is.op = in.op;
    is.unit = hw::to_string(rec.unit);
    is.layer = in.layer;
    is.tensor = in.tensor;
    is.start_cycle = to_cycles(rec.start_ps, period_ps_);
    is.end_cycle = to_cycles(rec.end_ps, period_ps_);
    is.start_ns = double(rec.start_ps) / 1000.0;
    is.end_ns = double(rec.end_ps) / 1000.0;
    is.ddr_bytes = rec.ddr_read_bytes + rec.ddr_write_bytes;
    is.sram_bytes = rec.sram_read_bytes + rec.sram_write_bytes;
    is.macs = rec.macs;
    is.token_wait_cycles = to_cycles(rec.token_wait_ps, period_ps_);
    is.host_cycles = rec.unit == hw::Unit::Host ? dur_cycles : 0;
    is.host_read_bytes = rec.host_read_bytes;
    is.host_write_bytes = rec.host_write_bytes;
    return is;
  }

  const isa::Program& program_;
  RunResult& r_;
  double period_ps_;
  bool keep_instructions_;
  std::map<std::string, isa::TensorKind> kinds_;
  std::array<UnitStats, hw::kNumUnits> units_;
  std::map<std::string, std::size_t> layer_index_;
  const std::string* last_layer_ = nullptr;
  std::size_t last_layer_pos_ = 0;
  std::vector<bool> sync_only_;  // per layer: only SYNCs seen so far
  const std::string* last_tensor_ = nullptr;
  Traffic* last_tensor_traffic_ = nullptr;
  int last_kind_ = 0;
  std::uint64_t token_wait_ps_ = 0;
  std::array<std::uint64_t, 3> token_wait_q_{};
  std::uint64_t ddr_lat_ps_ = 0, ddr_bw_ps_ = 0;
  std::vector<OwnedInstruction> owned_;  // the instructions that do work, for the exclusive cycles
};

// Whole-run ratios (utilisation, achieved GB/s, DDR over compulsory bytes) and energy.
void add_run_ratios(RunResult& r, const isa::Program& program, const HwConfig& hw) {
  r.host.latency_share = r.total_cycles > 0 ? double(r.host.cycles) / double(r.total_cycles) : 0.0;
  r.mac_utilisation =
      r.total_cycles > 0 && r.peak_macs_per_cycle > 0 ? double(r.macs) / (r.peak_macs_per_cycle * double(r.total_cycles)) : 0.0;
  r.achieved_ddr_gbps = r.total_ns > 0 ? double(r.ddr.total()) / r.total_ns : 0.0;
  r.ddr_bw_utilisation = r.peak_ddr_gbps > 0 ? r.achieved_ddr_gbps / r.peak_ddr_gbps : 0.0;
  r.compulsory_bytes = isa::compulsory_bytes(program);
  r.ddr_over_compulsory = r.compulsory_bytes > 0 ? double(r.ddr.total()) / double(r.compulsory_bytes) : 0.0;
  if (hw.energy.present) {
    r.energy.present = true;
    r.energy.mac_pj = double(r.macs) * hw.energy.pj_per_mac;
    r.energy.sram_pj = double(r.sram.total()) * hw.energy.pj_per_sram_byte;
    r.energy.ddr_pj = double(r.ddr.total()) * hw.energy.pj_per_ddr_byte;
  }
}

// The DDR model's own statistics (row hits, latency), when the run used it.
void add_ddr_model_stats(RunResult& r, hw::NpuTop& top) {
#if NPU_HAVE_DDR_MODULE
  if (hw::DdrModule* ddr = top.ddr()) {
    const hw::DdrStats& s = ddr->stats();
    r.ddr_model.present = true;
    r.ddr_model.requests = s.requests();
    r.ddr_model.bytes_read = s.bytes_read;
    r.ddr_model.bytes_written = s.bytes_written;
    r.ddr_model.row_hits = s.row_hits;
    r.ddr_model.row_misses = s.row_misses;
    r.ddr_model.row_conflicts = s.row_conflicts;
    r.ddr_model.achieved_gbps = s.achieved_gbps();
    r.ddr_model.mean_read_latency_ns = s.mean_read_latency_ns();
    r.ddr_model.p99_read_latency_ns = s.read_latency_percentile_ns(99.0);
    r.ddr_model.row_hit_rate = s.row_hit_rate();
  }
#else
  (void)r;
  (void)top;
#endif
}

RunResult collect(const isa::Program& program, const HwConfig& hw, const RunOptions& opt, hw::NpuTop& top) {
  const double period_ps = 1e6 / hw.npu.clock_mhz;
  RunResult r = run_header(program, hw, opt, top);
  const auto& recs = top.controller.records();
  std::uint64_t end_ps = 0;
  for (const hw::ExecRecord& rec : recs) end_ps = std::max(end_ps, rec.end_ps);
  r.total_cycles = to_cycles_ceil(end_ps, period_ps);
  r.total_ns = double(end_ps) / 1000.0;

  if (opt.keep_instructions) r.instructions.reserve(recs.size());
  RecordCollector records(program, r, period_ps, opt.keep_instructions);
  for (const hw::ExecRecord& rec : recs) records.add(rec);
  records.finish();
  add_run_ratios(r, program, hw);
  add_ddr_model_stats(r, top);
  return r;
}

// The static checks of `npu asm check` (SRAM and DDR ranges, tensor overlaps, token balance,
// deadlock, DDR data flow, SRAM races) first: a program they reject is not simulated, and every issue is
// reported in asm check's format (the controller's own SRAM check below would name only the first).
// Throws ConfigError listing every issue, or the first SRAM overflow.
void check_before_simulating(const isa::Program& program, const HwConfig& hw, const RunOptions& opt) {
  std::vector<isa::CheckIssue> issues = isa::check_program(program, hw);
  for (isa::CheckIssue& issue : isa::check_dataflow(program)) issues.push_back(std::move(issue));
  for (isa::CheckIssue& issue : isa::check_sram_races(program)) issues.push_back(std::move(issue));
  if (!issues.empty()) {
    const std::string prog = opt.program_source.empty() ? std::string("program") : opt.program_source;
    std::string msg;
    for (const isa::CheckIssue& issue : issues) {
      if (!msg.empty()) msg += "\n";
      msg += issue.source_line > 0 ? prog + ":" + std::to_string(issue.source_line) + ": error: " + issue.message
                                   : prog + ": error: " + issue.message;
    }
    msg += "\n" + prog + ": " + std::to_string(issues.size()) + (issues.size() == 1 ? " issue" : " issues") +
           " against " + hw.source +
           "\n  fix: correct the program (`npu asm check PROGRAM --hw CONFIG` lists the same issues); it is not "
           "simulated";
    throw ConfigError(msg);
  }
  const std::string overflow = hw::find_sram_overflow(program, hw, opt.program_source);
  if (!overflow.empty()) throw ConfigError(overflow);
}

// Builds the SystemC model of the NPU for `program` on `hw`; a config NpuTop refuses becomes
// a ConfigError naming the config.
std::unique_ptr<hw::NpuTop> elaborate(const isa::Program& program, const HwConfig& hw, const RunOptions& opt) {
  hw::NpuTopOptions top_opt;
  top_opt.ideal_memory = opt.ideal_memory;
  top_opt.ddr_trace = opt.ddr_trace;
  top_opt.program_source = opt.program_source;
  top_opt.ddr_data = opt.ddr_data;
  try {
    return std::make_unique<hw::NpuTop>("npu", hw, program, top_opt);
  } catch (const std::invalid_argument& e) {
    throw ConfigError(hw.source + ": error: " + e.what());
  }
}

// The VCD of one run (--trace vcd): SystemC writes BASE.tmp.<pid>.vcd; it becomes BASE.vcd
// only when the run succeeds (publish()), and the temporary VCD of a run that fails is removed.
class VcdTrace {
 public:
  // Opens the trace of `top`'s signals; nothing when `vcd_path` is empty.
  VcdTrace(const std::string& vcd_path, hw::NpuTop& top) {
    if (vcd_path.empty()) return;
    const std::string base = vcd_base_name(vcd_path);
    final_ = base + ".vcd";
    check_writable(final_, "VCD file");  // fail early, before simulating
    const std::string tmp_base = base + ".tmp." + std::to_string(::getpid());
    file_ = tmp_base + ".vcd";
    npu::register_temp_file(file_);  // removed if a signal ends the run (temp_files.hpp)
    tf_ = sc_core::sc_create_vcd_trace_file(tmp_base.c_str());
    tf_->set_time_unit(1, sc_core::SC_PS);
    top.trace(tf_);
  }
  ~VcdTrace() {
    if (file_.empty()) return;
    std::remove(file_.c_str());
    npu::unregister_temp_file(file_);
  }
  VcdTrace(const VcdTrace&) = delete;
  VcdTrace& operator=(const VcdTrace&) = delete;
  // Closes the trace file after the simulation.
  void close() {
    if (tf_) sc_core::sc_close_vcd_trace_file(tf_);
  }
  // Moves the finished trace to BASE.vcd, made reproducible.
  void publish() {
    if (!file_.empty()) make_vcd_reproducible(file_, final_);
  }

 private:
  sc_core::sc_trace_file* tf_ = nullptr;
  std::string file_, final_;
};
}  // namespace

RunResult run_program(const isa::Program& program, const HwConfig& hw, const RunOptions& opt) {
  if (g_ran) {
    throw std::logic_error("run_program: SystemC elaborates once per process; run each simulation in its own process");
  }
  g_ran = true;
  if (!(hw.npu.clock_mhz > 0)) throw ConfigError(hw.source + ": error: npu.clock_mhz must be positive");
  const auto wall_check = std::chrono::steady_clock::now();
  check_before_simulating(program, hw, opt);
  const double check_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_check).count();

  ::setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 0);
  sc_core::sc_report_handler::set_actions(sc_core::SC_INFO, sc_core::SC_DO_NOTHING);
  sc_core::sc_report_handler::set_actions("/IEEE_Std_1666/deprecated", sc_core::SC_DO_NOTHING);
  const auto wall0 = std::chrono::steady_clock::now();
  std::unique_ptr<hw::NpuTop> top = elaborate(program, hw, opt);
  VcdTrace vcd(opt.vcd_path, *top);
  const auto wall_elab = std::chrono::steady_clock::now();
  sc_core::sc_start();
  const auto wall_sim = std::chrono::steady_clock::now();
  vcd.close();

  if (top->error.set) throw ConfigError(top->error.message);
  const std::string deadlock = top->controller.deadlock_report();
  if (!deadlock.empty()) throw ConfigError(deadlock);
#if NPU_HAVE_DDR_MODULE
  if (opt.ddr_trace) opt.ddr_trace->finish();  // file traces are renamed into place only now
#endif

  RunResult r = collect(program, hw, opt, *top);
  r.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
  if (std::getenv("NPU_PROFILE")) {
    std::fprintf(stderr, "run_program: check %.3f s, elaborate %.3f s, simulate %.3f s, collect %.3f s\n", check_s,
                 std::chrono::duration<double>(wall_elab - wall0).count(),
                 std::chrono::duration<double>(wall_sim - wall_elab).count(),
                 std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_sim).count());
  }
  vcd.publish();
  if (!opt.timeline_path.empty()) write_timeline(r, opt.timeline_path);
  return r;
}

}  // namespace npu::sim
