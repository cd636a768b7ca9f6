#include "npu/sim/run/trace_kinds.hpp"
#include "npu/sim/run/simulate.hpp"
#include "npu/compiler/transforms/pass_effect.hpp"
#include "npu/isa/cost/ddr_stream.hpp"
#include "npu/base/json_text.hpp"

#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <set>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "npu/base/csv.hpp"
#include "npu/base/files.hpp"
#include "npu/sim/io/output_files.hpp"

#include <iostream>

#include "npu/compiler/driver/compiler.hpp"
#include "npu/compiler/frontend/model_loader.hpp"
#include "npu/hw/ddr/ddr_trace.hpp"
#include "npu/sim/io/ddr_trace_files.hpp"
#include "npu/isa/assembly.hpp"
#include "npu/sim/experiment/experiment.hpp"
#include "npu/sim/run/run_program.hpp"
#include "npu/sim/run/simulate_data.hpp"

namespace npu::sim {
namespace fs = std::filesystem;

namespace {

double mb(std::uint64_t bytes) { return double(bytes) / 1e6; }

}  // namespace

std::string layers_csv(const std::string& model, const std::string& hw, const std::string& strategy,
                       const compiler::CompileReport& report, const RunResult& run, double stream_gbps) {
  std::map<std::string, const compiler::LayerReport*> by_name;
  for (const auto& l : report.layers) by_name[l.layer] = &l;
  const double period_ns = run.core_clock_mhz > 0 ? 1000.0 / run.core_clock_mhz : 0;
  std::string out =
      "model,hw,strategy,layer,nodes,macs,compulsory_mb,planned_mb,ddr_read_mb,ddr_write_mb,ddr_total_mb,"
      "ddr_input_mb,ddr_weight_mb,ddr_output_mb,ddr_intermediate_mb,ddr_kv_cache_mb,cycles,exclusive_cycles,latency_ms,mac_utilisation,ddr_gbps,peak_ddr_gbps,stream_ddr_gbps,bound,"
      "host_cycles,host_ddr_read_mb,host_ddr_write_mb,stack,band_rows,overlap,weights\n";
  for (const auto& l : run.layers) {
    const compiler::LayerReport* rep = by_name.count(l.name) ? by_name[l.name] : nullptr;
    std::string nodes;
    if (rep)
      for (const auto& n : rep->covers) nodes += (nodes.empty() ? "" : ";") + n;
    out += fmt::format("{},{},{},{},{},{},{:.6f},{:.6f},{:.6f},{:.6f},{:.6f},{:.6f},{:.6f},{:.6f},{:.6f},{:.6f},{},{},{:.6f},{:.6f},{:.6f},"
                       "{:.6f},{:.6f},{},"
                       "{},{:.6f},{:.6f},{},{},{},{}\n",
                       csv_field(model), csv_field(hw), csv_field(strategy), csv_field(l.name), csv_field(nodes), l.macs,
                       rep ? mb(rep->compulsory_bytes()) : 0.0,
                       rep ? mb(rep->planned_bytes()) : 0.0, mb(l.ddr.read_bytes), mb(l.ddr.write_bytes),
                       mb(l.ddr.total()), mb(l.ddr_by_kind[0].total()), mb(l.ddr_by_kind[1].total()),
                       mb(l.ddr_by_kind[2].total()), mb(l.ddr_by_kind[3].total()), mb(l.ddr_by_kind[4].total()), l.cycles,
                       l.exclusive_cycles, double(l.cycles) * period_ns * 1e-6, l.mac_utilisation,
                       l.cycles > 0 && period_ns > 0 ? double(l.ddr.total()) / (double(l.cycles) * period_ns) : 0.0,
                       run.peak_ddr_gbps, stream_gbps, l.bound, l.host_cycles,
                       mb(l.host_ddr.read_bytes), mb(l.host_ddr.write_bytes),
                       rep && rep->stack >= 0 ? std::to_string(rep->stack) : std::string(),
                       rep && rep->stack >= 0 ? std::to_string(rep->band_rows) : std::string(),
                       rep ? rep->overlap : std::string(), rep ? rep->weights : std::string());
  }
  return out;
}

namespace {

// Removes a reused run folder's previous results, so a failure at any step (config, model,
// compile, simulation) never leaves them looking like this run's.
void remove_stale_outputs(const std::string& out_dir) {
  std::error_code ec;
  remove_stale_run_outputs(out_dir);  // what npu run writes; then what the compile wrote
  for (const char* stale : {"compile_report.csv", "program.npuasm"}) fs::remove(fs::path(out_dir) / stale, ec);
  // outputs/: only what --with-data writes there (NAME.npy and NAME.pb); a file of the user's
  // stays, and so does the folder then (a newcomer's file in it was deleted with the folder).
  const fs::path outputs = fs::path(out_dir) / "outputs";
  if (!fs::is_directory(fs::symlink_status(outputs, ec))) return;
  for (const auto& e : fs::directory_iterator(outputs, ec))
    if (e.is_regular_file(ec) && (e.path().extension() == ".npy" || e.path().extension() == ".pb"))
      fs::remove(e.path(), ec);
  fs::remove(outputs, ec);  // only when now empty
}

// The trace kinds of --trace, checked (ddr, timeline, vcd; --trace-compress needs ddr).
std::set<std::string> checked_traces(const SimulateOptions& opt) {
  std::set<std::string> traces;
  for (const auto& t : opt.traces) {
    check_trace_kind(t);
    if (!traces.insert(t).second)
      throw ConfigError(fmt::format("--trace '{}': error: given twice; give each trace kind once", t));
  }
  if (opt.trace_compress && !traces.count("ddr"))
    throw ConfigError("--trace-compress: error: it compresses the DDR trace; add --trace ddr or drop it");
  return traces;
}

// Points `ro` at the trace files of `traces` in `dir`; the DDR trace's files are returned.
std::unique_ptr<DdrTraceFiles> set_up_traces(const std::set<std::string>& traces, const SimulateOptions& opt,
                                             const compiler::CompileResult& compiled, const HwConfig& hw,
                                             const fs::path& dir, RunOptions& ro) {
  std::unique_ptr<DdrTraceFiles> ddr_files;
  for (const auto& t : traces) {
    if (t == "ddr") {
      const std::string big = ddr_trace_size_warning(estimate_ddr_trace(compiled.program, hw), opt.trace_compress);
      if (!big.empty()) std::cerr << big << "\n";
      ddr_files = std::make_unique<DdrTraceFiles>(opt.out_dir, opt.trace_compress);
      ro.ddr_trace = ddr_files->sink();
    } else if (t == "timeline") {
      ro.timeline_path = (dir / "timeline.json").string();
      ro.keep_instructions = true;
    } else if (t == "vcd") {
      ro.vcd_path = (dir / "waves.vcd").string();
    }
  }
  return ddr_files;
}

// Adds run_summary.json's keys on what was compiled, "passes" to "resident_tensors".
void add_strategy_keys(nlohmann::ordered_json& s, const SimulateOptions& opt, const compiler::Strategy& strategy,
                       const compiler::CompileResult& compiled) {
  // What the name stands for: its passes and, with fuse-layers, the depth-first keys (two
  // strategy files of one name may differ in them; the sweep's cell key tells them apart too).
  s["passes"] = strategy.passes;
  // What each of them did (--explain's decisions counted): the experiment summary's line on
  // why a strategy changed nothing (docs/experiment.md).
  nlohmann::ordered_json effects = nlohmann::ordered_json::array();
  for (const compiler::PassEffect& e : compiler::pass_effects(compiled.decisions, strategy))
    effects.push_back({{"pass", e.pass}, {"applied", e.applied}, {"declined", e.declined}, {"verb", e.verb},
                       {"first_decline", e.first_decline}, {"summary", e.summary}});
  s["pass_effects"] = effects;
  if (strategy.uses("fuse-layers")) {
    s["overlap"] = compiler::to_string(strategy.overlap);
    s["traffic_weight"] = strategy.traffic_weight;
  }
  // Cross-layer pipelining (off with --no-pipeline) and, with fuse-layers, how many DDR
  // intermediates SRAM residency kept on chip (docs/compiler.md): two runs of one strategy
  // differ in them.
  s["pipeline"] = !opt.no_pipeline;
  // The SRAM the program was compiled for: the config's, or a smaller one whose plan the
  // estimates rank no worse (compiler/sram_plans.hpp; the same program on any larger SRAM).
  s["plan_sram_bytes"] = compiled.plan_sram_bytes;
  if (strategy.uses("fuse-layers")) {
    int kept = 0;
    for (const auto& d : compiled.decisions)
      kept += d.pass == "keep-resident" && d.outcome == compiler::DecisionOutcome::Applied;
    s["resident_tensors"] = kept;
  }
}

// Adds run_summary.json's run figures, "cycles" to "stream_ddr_gbps".
void add_run_figures(nlohmann::ordered_json& s, const RunResult& run, const HwConfig& hw) {
  const double latency_ms = run.total_ns * 1e-6;
  s["cycles"] = run.total_cycles;
  s["latency_ms"] = latency_ms;
  s["ddr_read_bytes"] = run.ddr.read_bytes;
  s["ddr_write_bytes"] = run.ddr.write_bytes;
  s["compulsory_bytes"] = run.compulsory_bytes;  // inputs, weights, outputs once (docs/experiment.md)
  s["mac_utilisation"] = run.mac_utilisation;
  s["ddr_bw_utilisation"] = run.ddr_bw_utilisation;
  s["energy_mj"] = run.energy.present ? nlohmann::ordered_json(run.energy.total_pj() * 1e-9) : nlohmann::ordered_json(nullptr);
  s["macs"] = run.macs;
  s["instructions"] = run.instruction_count;
  s["peak_macs_per_s"] = hw.peak_macs_per_s();
  s["peak_ddr_gbps"] = run.peak_ddr_gbps > 0 ? run.peak_ddr_gbps : hw.ddr.peak_gbps();  // memory.model fixed: its bus
  // One sequential stream's bound (docs/timing.md "Sequential streams"): on the edge preset
  // half the peak, so ddr_bw_utilisation (of the peak) reads low for memory-bound layers.
  s["stream_ddr_gbps"] = isa::sequential_stream_gbps(hw);
}

// Adds run_summary.json's host placement keys, "host_nodes" to "host_ddr_write_bytes".
void add_host_keys(nlohmann::ordered_json& s, const compiler::CompileResult& compiled, const RunResult& run) {
  // Host placement (docs/experiment.md): nodes, MACs and the time the NPU waited for the host
  // model; the host's DDR bytes are analytic and not in ddr_*_bytes.
  const std::uint64_t all_macs = compiled.npu_macs + compiled.host_macs;
  s["host_nodes"] = compiled.host_nodes;
  s["host_macs"] = compiled.host_macs;
  s["host_unsized_tensors"] = compiled.host_unsized;  // their host work is not costed
  s["host_mac_share"] = all_macs ? double(compiled.host_macs) / double(all_macs) : 0.0;
  s["host_cycles"] = run.host.cycles;
  s["host_time_share"] = run.host.latency_share;
  s["host_ddr_read_bytes"] = run.host.ddr.read_bytes;
  s["host_ddr_write_bytes"] = run.host.ddr.write_bytes;
}

}  // namespace

SimulateResult simulate(const SimulateOptions& opt) {
  const auto wall0 = std::chrono::steady_clock::now();
  remove_stale_outputs(opt.out_dir);
  const HwConfig hw = load_hw_config(opt.hw);
  compiler::LoadOptions load;
  for (const auto& spec : opt.input_shapes) compiler::add_input_shape(load, spec);
  load.dynamic_size = opt.dynamic_size;
  load.dropout_as_identity = opt.dropout_as_identity;
  const compiler::Graph graph = compiler::load_model(opt.model, load);
  const compiler::Strategy strategy = resolve_strategy(opt.strategy);
  const std::set<std::string> traces = checked_traces(opt);
  if (traces.count("ddr")) require_ddr_model_for_trace(hw);  // before anything is written

  create_output_folder(opt.out_dir);
  const fs::path dir(opt.out_dir);

  compiler::CompileOptions co;
  co.npu_only = opt.npu_only;
  co.pipeline = !opt.no_pipeline;
  co.smaller_sram_plans = !opt.no_smaller_sram_plans;
  if (opt.max_instructions > 0) co.tiling.max_program_instructions = opt.max_instructions;
  compiler::CompileResult compiled = compiler::compile(graph, hw, strategy, co);
  for (const auto& w : compiled.warnings) std::cerr << w << "\n";
  write_file_atomic((dir / "program.npuasm").string(), isa::write_program(compiled.program));
  write_file_atomic((dir / "compile_report.csv").string(), compiler::report_csv(compiled.report));

  RunOptions ro;
  ro.program_source = (dir / "program.npuasm").string();
  ro.keep_instructions = false;  // per-instruction records only when the timeline needs them
  std::unique_ptr<DdrTraceFiles> ddr_files = set_up_traces(traces, opt, compiled, hw, dir, ro);
  SimulateResult result{compiled.report, {}, {}, compiled.plan_sram_bytes, hw.sram.capacity_bytes};
  if (opt.with_data) result.run = simulate_with_data(opt, compiled, hw, ro, result.output_files);
  else result.run = run_program(compiled.program, hw, ro);
  if (ddr_files) ddr_files->close();
  const RunResult& run = result.run;
  write_run_json(run, (dir / "run.json").string(), /*with_instructions=*/false);
  const std::string model = stem_of(opt.model), hw_name = stem_of(opt.hw);
  write_file_atomic((dir / "layers.csv").string(),
                    layers_csv(model, hw_name, strategy.name, compiled.report, run, isa::sequential_stream_gbps(hw)));

  nlohmann::ordered_json s;
  s["model"] = model;
  s["hw"] = hw_name;
  s["strategy"] = strategy.name;
  add_strategy_keys(s, opt, strategy, compiled);
  add_run_figures(s, run, hw);
  add_host_keys(s, compiled, run);
  s["warnings"] = compiled.warnings;
  // Read by `npu experiment` / `npu llm` to say in their summary that the ladder was skipped.
  if (compiled.ladder_skipped_params > 0) s["sram_ladder_skipped_params"] = compiled.ladder_skipped_params;
  // Wall-clock seconds of this whole run (load, compile, simulate, outputs so far): the one
  // value of a run folder that differs between identical runs.
  s["wall_s"] = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
  write_file_atomic((dir / "run_summary.json").string(), npu::json_dump(s) + "\n");
  return result;
}

}  // namespace npu::sim
