// `npu verify`: each strategy's program executed with data against the fp32 reference; on
// int8 configs the post-training-quantised model's error (docs/functional.md, "What verify
// reports").
#include <filesystem>
#include <iostream>
#include <sstream>

#include "command.hpp"
#include "integer_option.hpp"
#include "self_exe.hpp"
#include "npu/sim/verify/verify.hpp"

namespace {

void add_verify(CLI::App& app) {
  auto* cmd = app.add_subcommand(
      "verify",
      "Execute a model with data under each strategy and compare with the fp32 reference interpreter (max abs "
      "error, SQNR, top-1); on int8 configs quantise it (PTQ) and report the quantised model's SQNR");
  auto opt = std::make_shared<npu::sim::VerifyOptions>();
  auto strategies = std::make_shared<std::string>("none,conv-bn,conv-act,conv-bn-act,residual,depth-first,transformer");
  auto calibrator = std::make_shared<std::string>("minmax");
  cmd->add_option("model", opt->model, ".onnx model (weights with data)")->required();
  cmd->add_option("--hw", opt->hw, "Hardware config YAML (mac_array.dtype fp32: simulated with data; int8: PTQ)")
      ->required();
  cmd->add_option("--strategies", *strategies, "Comma-separated strategies (names or strategy YAML files)")
      ->default_str("none,conv-bn,conv-act,conv-bn-act,residual,depth-first,transformer");
  cmd->add_option("--input,--input-data", opt->input_data,
                  "NAME=FILE (.npy or TensorProto .pb) or FILE for a one-input model (repeatable); other inputs "
                  "seeded U(-1,1)");
  npu::tool::add_integer_option(cmd, "--input-seed", opt->input_seed, "Seed of generated inputs", 0, ~0ULL,
                                "seed of the generated inputs")
      ->default_val(1);
  npu::tool::add_allow_nonfinite_flag(cmd, opt->allow_nonfinite);
  cmd->add_option("--expected", opt->expected,
                  "NAME=FILE or FILE: an outside reference output (e.g. PyTorch's output_0.pb) to compare with too");
  cmd->add_option("--input-shape", opt->input_shapes, "Fix a graph input shape: NAME=1x3x224x224 (repeatable)");
  npu::tool::add_dropout_option(cmd, opt->dropout_as_identity);
  cmd->add_option("--calib", opt->calib_dir,
                  "int8: calibration folder (one .npy/.pb per sample, or one sub-folder per sample; "
                  "docs/functional.md)");
  npu::tool::add_integer_option(cmd, "--calib-seed", opt->calib_seed,
                                "int8 without --calib: seed of U(-1,1) calibration samples", 0, ~0ULL,
                                "seed of the calibration samples")
      ->default_val(1);
  npu::tool::add_integer_option(cmd, "--calib-count", opt->calib_count, "int8 without --calib: number of seeded samples",
                                1, 2147483647, "seeded calibration samples")
      ->default_val(8);
  cmd->add_option("--calibrator", *calibrator, "minmax or percentile")->default_val("minmax");
  auto* percentile =
      cmd->add_option("--percentile", opt->calibration.percentile,
                      "Rank in %, in (50, 100], of the percentile calibrator (needs --calibrator percentile)")
          ->default_val(99.99);
  cmd->add_flag("--fold-after-quant", opt->fold_after_quant,
                "int8: also report each BN-folding strategy with BN folded into already-quantised weights "
                "(the naive order)");
  cmd->add_option("--tolerance", opt->fp32_tolerance,
                  "Largest relative error that passes: fp32 simulator vs our reference, and any comparison with "
                  "--expected")
      ->default_val(1e-4);
  cmd->add_option("--out", opt->out_dir, "Output folder (verify.csv/json/md, outputs/, runs/)")
      ->default_val("verify-out");
  npu::tool::add_jobs_option(cmd, opt->jobs);
  npu::tool::add_quiet_flag(cmd, opt->quiet);
  cmd->callback([opt, strategies, calibrator, percentile]() {
    if (!strategies->empty()) opt->strategies = npu::tool::strategy_list({*strategies});  // `a,,b` refused
    opt->calibration.method = npu::compiler::parse_calibrator(*calibrator);
    // --percentile only sets the percentile calibrator's rank (docs/functional.md, "Calibration"):
    // with min/max it would be ignored silently.
    if (percentile->count() > 0 && opt->calibration.method != npu::compiler::Calibrator::Percentile)
      throw npu::ConfigError("--percentile: error: it sets the rank of the percentile calibrator, and --calibrator "
                             "is '" + *calibrator + "'\n  fix: add --calibrator percentile, or drop --percentile");
    if (opt->jobs < 1) throw npu::ConfigError("-j " + std::to_string(opt->jobs) + ": error: must be at least 1");
    opt->self_exe = npu::tool::self_exe();
    const auto report = npu::sim::run_verify(*opt);
    if (!opt->quiet)
      std::cout << npu::sim::format_verify(report, *opt) << "\nwrote " << opt->out_dir
                << "/verify.csv, verify.json, verify.md, outputs/\n";
    for (const auto& m : report.expected_mismatches) std::cerr << "npu verify: error: " << m << "\n";
    if (!report.expected_mismatches.empty() && opt->input_data.empty())  // the likely cause (new-user finding)
      std::cerr << "  the inputs were generated (seed " << opt->input_seed << "), and --expected holds the output for "
                << "the input it was made with\n  fix: give that input too: --input NAME=FILE (an ONNX test set's "
                << "input_0.pb beside its output_0.pb)\n";
    if (!report.ok()) {
      std::cerr << "npu verify: a check failed (--expected above the tolerance, or a strategy failed: simulation "
                   "failed or not run, relative error above "
                << opt->fp32_tolerance << ", or int8 not bit-exact with the integer reference); "
                << (opt->quiet ? "the reasons are in " + opt->out_dir + "/verify.csv and verify.md" : std::string("see the table"))
                << "\n";
      npu::tool::set_exit_status(1);
    }
  });
}

}  // namespace

NPU_COMMAND("verify", add_verify);
