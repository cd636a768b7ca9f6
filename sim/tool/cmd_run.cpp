// `npu run PROGRAM.npuasm --hw CONFIG [--out DIR] [--ideal-memory] [--trace ddr,timeline,vcd]
//  [--trace-compress]`: simulate one program on the NPU model, print the summary and per-layer
// table, and write DIR/run.json, DIR/layers.csv and the requested traces (ddr.csv or
// ddr.csv.gz + ddr.trace, timeline.json, waves.vcd); a DDR trace above 100 MB is announced
// first. Formats: docs/timing.md, traces/README.md. Bad input -> ConfigError (exit 1).
#include <filesystem>
#include <iostream>
#include <memory>
#include <set>
#include <vector>
#include <sstream>
#include <string>

#include "command.hpp"
#include "npu/hw/ddr/ddr_trace.hpp"
#include "npu/isa/assembly.hpp"
#include "npu/sim/run/simulate.hpp"
#include "npu/hw_config/hw_config.hpp"
#include "npu/sim/io/ddr_trace_files.hpp"
#include "npu/base/files.hpp"
#include "npu/sim/run/compiled_for.hpp"
#include "npu/sim/run/run_program.hpp"
#include "npu/sim/run/trace_kinds.hpp"

namespace npu::tool {
namespace {

struct RunArgs {
  std::string program, hw, out;
  std::vector<std::string> trace;  ///< --trace values, each comma-separated (repeatable)
  bool ideal = false;
  bool compress = false;
};

// The --trace kinds (trace_list checks each value and kind), each at most once.
std::set<std::string> parse_traces(const std::vector<std::string>& values) {
  std::set<std::string> out;
  for (const std::string& item : npu::tool::trace_list(values)) {
    if (!out.insert(item).second)
      throw ConfigError("--trace: error: '" + item + "' is given twice; give each trace kind once");
  }
  return out;
}

void run(const RunArgs& a) {
  const std::set<std::string> traces = parse_traces(a.trace);
  if (!traces.empty() && a.out.empty()) throw ConfigError("--trace: error: traces are written into --out DIR; give --out");
  if (traces.count("ddr") && a.ideal) {
    throw ConfigError("--trace ddr: error: --ideal-memory has no DDR model, so there is no DDR trace; drop one of them");
  }
  if (a.compress && !traces.count("ddr"))
    throw ConfigError("--trace-compress: error: it compresses the DDR trace; add --trace ddr or drop it");
  namespace fs = std::filesystem;
  if (fs::path(a.program).extension() == ".onnx")
    throw ConfigError(a.program + ": error: an ONNX model, not an .npuasm program: `npu run` runs a compiled "
                      "program\n  fix: npu simulate --model " + a.program + " --hw " + a.hw +
                      " --out DIR (compiles and runs it), or npu compile it first");
  const isa::Program program = isa::read_program_file(a.program);
  const HwConfig hw = load_hw_config(a.hw);
  if (traces.count("ddr")) sim::require_ddr_model_for_trace(hw);  // before anything in --out is removed
  if (const std::string w = sim::compiled_for_warning(program, hw, a.program); !w.empty()) std::cerr << w << "\n";
  if (!a.out.empty()) {
    create_output_folder(a.out);
    sim::remove_stale_run_outputs(a.out);  // an earlier run's traces and summary would pass for this run's
  }
  const auto path = [&](const char* name) { return (fs::path(a.out) / name).string(); };

  std::unique_ptr<sim::DdrTraceFiles> ddr_files;
  sim::RunOptions opt;
  opt.ideal_memory = a.ideal;
  opt.program_source = a.program;
  if (traces.count("ddr")) {
    const std::string big = sim::ddr_trace_size_warning(sim::estimate_ddr_trace(program, hw), a.compress);
    if (!big.empty()) std::cerr << big << "\n";
    ddr_files = std::make_unique<sim::DdrTraceFiles>(a.out, a.compress);
    opt.ddr_trace = ddr_files->sink();
  }
  if (traces.count("timeline")) opt.timeline_path = path("timeline.json");
  if (traces.count("vcd")) opt.vcd_path = path("waves.vcd");

  const sim::RunResult r = sim::run_program(program, hw, opt);
  if (ddr_files) ddr_files->close();
  std::cout << sim::format_summary(r);
  if (!a.out.empty()) {
    sim::write_run_json(r, path("run.json"));
    sim::write_layers_csv(r, path("layers.csv"));
    std::cout << "\nwrote " << path("run.json") << ", " << path("layers.csv");
    if (ddr_files)
      for (const auto& p : ddr_files->paths()) std::cout << ", " << p;
    if (traces.count("timeline")) std::cout << ", " << opt.timeline_path;
    if (traces.count("vcd")) std::cout << ", " << opt.vcd_path;
    std::cout << "\n";
  }
}

void add_run(CLI::App& app) {
  auto args = std::make_shared<RunArgs>();
  CLI::App* cmd = app.add_subcommand("run", "simulate a .npuasm program on the NPU model and report cycles, traffic, "
                                            "utilisation and energy");
  cmd->add_option("program", args->program, "program (.npuasm)")->required();
  cmd->add_option("--hw", args->hw, "hardware config (YAML), e.g. configs/edge-npu-ddr4.yaml")->required();
  cmd->add_option("--out", args->out, "folder for run.json, layers.csv and traces");
  cmd->add_flag("--ideal-memory", args->ideal, "DDR and SRAM answer at once (pure compute timing)");
  cmd->add_option("--trace", args->trace, "traces to write into --out: ddr,timeline,vcd (comma-separated or repeated)");
  cmd->add_flag("--trace-compress", args->compress, "with --trace ddr: write the CSV trace gzip-compressed as ddr.csv.gz");
  cmd->callback([args] { run(*args); });
}

}  // namespace

NPU_COMMAND("run", add_run);

}  // namespace npu::tool
