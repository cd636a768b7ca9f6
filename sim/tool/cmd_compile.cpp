// `npu compile MODEL --hw CONFIG --strategy S -o OUT.npuasm [--report OUT.csv]
//  [--report-json OUT.json] [--graph OUT.{dot,svg,png}] [--explain] [--strategy-file S.yaml]
//  [--input-shape NAME=DIMS]`: compile a network (zoo name or .onnx path) for one fusion
// strategy and write the program (and/or the dataflow graph picture, docs/compiler.md).
// Every bad input (model, config, strategy, unwritable output) is a ConfigError: exit 1.
#include <cstdio>
#include <fstream>
#include <iostream>

#include "npu/sim/io/output_files.hpp"
#include <memory>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "command.hpp"
#include "npu/compiler/driver/compiler.hpp"
#include "npu/compiler/backend/tiling/sram_plans.hpp"
#include "npu/compiler/driver/graph_dot.hpp"
#include "npu/sim/io/graph_picture.hpp"
#include "npu/compiler/frontend/model_loader.hpp"
#include "npu/compiler/transforms/pass_manager.hpp"
#include "npu/isa/assembly.hpp"

namespace npu::tool {
namespace {

struct CompileArgs {
  std::string model, hw, strategy, strategy_file, out, report_csv, report_json, graph;
  std::vector<std::string> input_shapes;
  bool explain = false;
  bool quiet = false;
  bool npu_only = false;
  bool no_pipeline = false;
  bool no_smaller_sram_plans = false;
  std::uint64_t max_instructions = compiler::kMaxProgramInstructions;
  std::int64_t dynamic_size = 0;
  bool dropout_as_identity = false;
  bool strategy_given = false;  ///< --strategy appeared on the command line (even as "")
  bool strategy_file_given = false;  ///< --strategy-file appeared (even as "")
};

compiler::Strategy resolve_strategy(const CompileArgs& a) {
  if (a.strategy_file_given && a.strategy_file.empty())
    throw ConfigError("error: --strategy-file is empty; give a strategy .yaml file, or leave --strategy-file out");
  if (!a.strategy_file.empty()) {
    if (!a.strategy.empty())
      throw ConfigError("error: give either --strategy or --strategy-file, not both");
    return compiler::load_strategy_file(a.strategy_file);
  }
  if (a.strategy_given && a.strategy.empty()) {
    std::string names;
    for (const auto& n : compiler::builtin_strategy_names()) names += (names.empty() ? "" : ", ") + n;
    throw ConfigError("error: --strategy is empty; give a strategy name (" + names +
                      ") or a strategy .yaml file, or leave --strategy out for conv-bn-act");
  }
  const std::string& s = a.strategy.empty() ? std::string("conv-bn-act") : a.strategy;
  const auto dot = s.rfind('.');
  const std::string ext = dot == std::string::npos ? "" : s.substr(dot);
  if (ext == ".yaml" || ext == ".yml") return compiler::load_strategy_file(s);
  return compiler::builtin_strategy(s);
}

void run_compile(const CompileArgs& a) {
  // Validate everything cheap before the expensive part.
  if (a.out.empty() && a.graph.empty())
    throw ConfigError("error: nothing to write: give -o OUT.npuasm and/or --graph OUT.{dot,svg,png}");
  if (!a.graph.empty()) npu::sim::check_graph_renderer(npu::sim::graph_picture_format(a.graph));
  const compiler::Strategy strategy = resolve_strategy(a);
  const HwConfig hw = load_hw_config(a.hw);
  // Outputs: checked now, written only when everything succeeded (never truncated by a
  // failure), and never the input model.
  for (const auto& [path, what] : {std::pair<std::string, const char*>{a.out, "program"}, {a.report_csv, "report"},
                                   {a.report_json, "JSON report"}, {a.graph, "graph picture"}}) {
    if (path.empty()) continue;
    npu::sim::check_writable(path, what);
    npu::sim::refuse_same_file(path, a.model, what);
    if (!a.strategy_file.empty()) npu::sim::refuse_same_file(path, a.strategy_file, what);
    npu::sim::refuse_same_file(path, a.hw, what);
  }
  npu::sim::refuse_shared_outputs(
      {{a.out, "program"}, {a.report_csv, "report"}, {a.report_json, "JSON report"}, {a.graph, "graph picture"}});
  compiler::LoadOptions load;
  for (const auto& spec : a.input_shapes) compiler::add_input_shape(load, spec);
  load.dynamic_size = a.dynamic_size;
  load.dropout_as_identity = a.dropout_as_identity;
  const compiler::Graph graph = compiler::load_model(a.model, load);

  compiler::CompileOptions co;
  co.npu_only = a.npu_only;
  co.pipeline = !a.no_pipeline;
  co.smaller_sram_plans = !a.no_smaller_sram_plans;
  co.tiling.max_program_instructions = a.max_instructions;
  const compiler::CompileResult r = compiler::compile(graph, hw, strategy, co);
  for (const auto& w : r.warnings) std::cerr << w << "\n";
  if (!a.out.empty()) npu::sim::write_file_atomic(a.out, isa::write_program(r.program));
  if (!a.graph.empty()) npu::sim::write_graph_picture(a.graph, compiler::graph_dot(graph, r));
  if (!a.report_csv.empty()) npu::sim::write_file_atomic(a.report_csv, compiler::report_csv(r.report));
  if (!a.report_json.empty()) npu::sim::write_file_atomic(a.report_json, compiler::report_json(r.report));

  if (a.explain) std::cout << compiler::format_explain(r.decisions);
  if (a.quiet) return;
  const compiler::LayerReport t = r.report.total();
  int npu_layers = 0;
  const int host_nodes = r.host_nodes;
  for (const auto& l : r.report.layers) npu_layers += l.placement == "host" ? 0 : 1;
  // Two DDR figures, each named as docs/compiler.md "The DDR figures npu compile prints"
  // defines it: the program's planned bytes (its LOAD/STORE descriptors) and the network's
  // compulsory bytes (every input, weight/parameter and output tensor once, as `npu run`
  // reports them). The report's per-layer compulsory sum (intermediates counted twice) stays
  // in its TOTAL row: printed here beside the network figure, a new user read the two as one.
  const std::uint64_t network = isa::compulsory_bytes(r.program);
  std::cout << fmt::format(
      "{}: strategy {} on {}: {} NPU layers, {} host nodes, {} instructions, {} DDR tensors\n"
      "  MACs {}  planned DDR {} B (read {} B, write {} B)  network compulsory {} B (inputs, weights, outputs "
      "once), planned/compulsory {:.3f}\n"
      "  wrote {}{}{}  (compiled in {:.0f} ms)\n",
      graph.name, strategy.name, config_label(hw), npu_layers, host_nodes, r.program.instructions.size(),
      r.program.tensors.size(), t.macs, t.planned_bytes(), t.planned_read_bytes, t.planned_write_bytes, network,
      network ? double(t.planned_bytes()) / double(network) : 0.0,
      a.out.empty() ? a.graph : a.out, a.report_csv.empty() ? "" : ", " + a.report_csv,
      (a.report_json.empty() ? "" : ", " + a.report_json) + (a.graph.empty() || a.out.empty() ? "" : ", " + a.graph),
      r.compile_ms);
  std::cout << compiler::sram_plan_note(r.plan_sram_bytes, hw.sram.capacity_bytes);
}

void add_compile(CLI::App& app) {
  auto* cmd = app.add_subcommand("compile", "Compile a network for one fusion strategy into an .npuasm program");
  auto a = std::make_shared<CompileArgs>();
  cmd->add_option("model", a->model, "Zoo name (resnet50, resnet18, mobilenet_v2, yolov5s; LLMs gpt2, gpt2-medium, llama-3.2-1b, llama-2-7b, llama-3-8b, mistral-7b as NAME[:prefill=P|:decode=T][:batch=B], bare NAME = prefill=128) or .onnx path")->required();
  cmd->add_option("--hw", a->hw, "Hardware config YAML (e.g. configs/edge-npu-ddr4.yaml)")->required();
  auto* strategy_opt = cmd->add_option("--strategy", a->strategy,
                  "Fusion strategy: none, conv-bn, conv-act, conv-bn-act (default), residual, depth-first, transformer; or a strategy YAML");
  auto* strategy_file_opt =
      cmd->add_option("--strategy-file", a->strategy_file, "Strategy YAML file (name: ..., passes: [...])");
  cmd->add_option("-o,--output", a->out, "Output program (.npuasm); required unless --graph is given");
  cmd->add_option("--graph", a->graph,
                  "Write the dataflow graph (fused groups, host nodes, per-edge DDR bytes) as .dot, .svg or .png "
                  "(svg/png need Graphviz's dot)");
  cmd->add_option("--report", a->report_csv, "Write the per-layer compile report as CSV");
  cmd->add_option("--report-json", a->report_json, "Write the compile report as JSON");
  cmd->add_option("--input-shape", a->input_shapes, "Fix a graph input shape: NAME=1x3x224x224 (repeatable)");
  cmd->add_flag("--npu-only", a->npu_only, "Fail if any node would run on the host (lists them all)");
  cmd->add_flag("--no-pipeline", a->no_pipeline,
                "Keep the fence between every two layers (measure what cross-layer pipelining gains)");
  cmd->add_flag("--no-smaller-sram-plans", a->no_smaller_sram_plans,
                "Compile for the configured SRAM only (by default plans for 1/2, 1/4, ... of it stay candidates and a larger SRAM's program is kept only where the estimates rank it better)");
  npu::tool::add_dynamic_size_option(cmd, a->dynamic_size);
  npu::tool::add_dropout_option(cmd, a->dropout_as_identity);
  npu::tool::add_integer_option(cmd, "--max-instructions", a->max_instructions,
                                "Refuse a program past this many instructions, with an estimate of its full size "
                                "(memory bound; a large --input-shape multiplies them)",
                                1, 1ULL << 40, "instructions a program may hold, e.g. --max-instructions 6000000")
      ->default_val(compiler::kMaxProgramInstructions);
  cmd->add_flag("--explain", a->explain, "Print every pass decision (folded / fused / declined: reason)");
  cmd->add_flag("-q,--quiet", a->quiet, "Print nothing but --explain output");
  cmd->callback([a, strategy_opt, strategy_file_opt]() {
    a->strategy_given = strategy_opt->count() > 0;
    a->strategy_file_given = strategy_file_opt->count() > 0;
    run_compile(*a);
  });
}

}  // namespace

NPU_COMMAND("compile", add_compile);

}  // namespace npu::tool
