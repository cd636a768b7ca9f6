// `npu simulate`: compile one model for one strategy and simulate it on one config.
#include <iostream>
#include <sstream>
#include <vector>

#include <fmt/format.h>

#include "command.hpp"
#include "integer_option.hpp"
#include "npu/compiler/driver/compile_report.hpp"
#include "npu/compiler/backend/tiling/sram_plans.hpp"
#include "npu/sim/run/run_stats.hpp"
#include "npu/sim/run/simulate.hpp"

namespace {

void add_simulate(CLI::App& app) {
  auto* cmd = app.add_subcommand("simulate",
                                 "Compile a model with one fusion strategy and simulate it on one hardware config "
                                 "(one cell of `npu experiment`)");
  auto opt = std::make_shared<npu::sim::SimulateOptions>();
  auto traces = std::make_shared<std::vector<std::string>>();
  auto quiet = std::make_shared<bool>(false);
  cmd->add_option("--model", opt->model, "Zoo name (resnet50, resnet18, mobilenet_v2, yolov5s; LLMs gpt2, gpt2-medium, llama-3.2-1b, llama-2-7b, llama-3-8b, mistral-7b as NAME[:prefill=P|:decode=T][:batch=B], bare NAME = prefill=128) or .onnx path")->required();
  cmd->add_option("--hw", opt->hw, "Hardware config YAML")->required();
  cmd->add_option("--strategy", opt->strategy, "Fusion strategy name or strategy YAML file")->default_val("conv-bn-act");
  cmd->add_option("--out", opt->out_dir, "Run folder for program, report, statistics and traces")->required();
  cmd->add_option("--trace", *traces, "Comma-separated subset of ddr,timeline,vcd (or repeated)");
  cmd->add_option("--input-shape", opt->input_shapes, "Fix a graph input shape: NAME=1x3x224x224 (repeatable)");
  npu::tool::add_quiet_flag(cmd, *quiet);
  cmd->add_flag("--trace-compress", opt->trace_compress,
                "With --trace ddr: write the CSV trace gzip-compressed as ddr.csv.gz");
  cmd->add_flag("--npu-only", opt->npu_only, "Fail if any node would run on the host (lists them all)");
  npu::tool::add_max_instructions_option(cmd, opt->max_instructions);
  cmd->add_flag("--no-pipeline", opt->no_pipeline,
                "Keep the fence between every two layers (measure what cross-layer pipelining gains)");
  cmd->add_flag("--no-smaller-sram-plans", opt->no_smaller_sram_plans,
                "Compile for the configured SRAM only (by default plans for 1/2, 1/4, ... of it stay candidates and a larger SRAM's program is kept only where the estimates rank it better)");
  npu::tool::add_dynamic_size_option(cmd, opt->dynamic_size);
  npu::tool::add_dropout_option(cmd, opt->dropout_as_identity);
  cmd->add_flag("--with-data", opt->with_data,
                "Execute with values (fp32 configs): writes every graph output to OUT/outputs/NAME.npy and .pb");
  cmd->add_option("--input,--input-data", opt->input_data,
                  "With --with-data: NAME=FILE (.npy or ONNX TensorProto .pb), or FILE for a one-input model "
                  "(repeatable); other inputs are seeded U(-1,1)");
  npu::tool::add_integer_option(cmd, "--input-seed", opt->input_seed, "With --with-data: seed of generated inputs", 0,
                                ~0ULL, "seed of the generated inputs")
      ->default_val(1);
  npu::tool::add_allow_nonfinite_flag(cmd, opt->allow_nonfinite);
  cmd->callback([cmd, opt, traces, quiet]() {
    opt->traces = npu::tool::trace_list(*traces);
    if (!opt->with_data && (!opt->input_data.empty()))
      throw npu::ConfigError("--input-data: error: it gives values for a run with data; add --with-data");
    if (!opt->with_data && cmd->count("--input-seed") > 0)
      throw npu::ConfigError("--input-seed: error: it seeds the generated inputs of a run with data; add --with-data "
                             "or drop it");
    auto r = npu::sim::simulate(*opt);
    if (!*quiet) {
      for (const auto& f : r.output_files) std::cout << "wrote " << f << "\n";
      std::cout << npu::sim::format_summary(r.run);
      std::cout << npu::compiler::sram_plan_note(r.plan_sram_bytes, r.sram_bytes);
      std::string files = "program.npuasm, compile_report.csv, run.json, layers.csv, run_summary.json";
      for (const std::string& t : opt->traces) {  // the traces too, as npu run lists them (new-user finding)
        if (t == "ddr") files += opt->trace_compress ? ", ddr.csv.gz, ddr.trace" : ", ddr.csv, ddr.trace";
        if (t == "timeline") files += ", timeline.json";
        if (t == "vcd") files += ", waves.vcd";
      }
      std::cout << fmt::format("\nwrote {}/ ({})\n", opt->out_dir, files);
    }
  });
}

}  // namespace

NPU_COMMAND("simulate", add_simulate);
