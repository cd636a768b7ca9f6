// `npu verify` (docs/functional.md, "What verify reports"): for each strategy, the compiled
// program executed with data on the simulator (one child `npu simulate --with-data` per
// strategy: SystemC elaborates once per process) against the fp32 reference interpreter;
// on int8 configs the post-training-quantised model (compiler/quantize/ptq.hpp, fake-quant
// reference) against the fp32 reference, and a slot for the int8 execution.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "npu/compiler/driver/compiler.hpp"
#include "npu/compiler/quantize/calibration.hpp"
#include "npu/compiler/reference/reference_interpreter.hpp"
#include "npu/hw_config/hw_config.hpp"

namespace npu::sim {

/// One output compared with its reference.
struct OutputError {
  std::string output;               ///< graph output name
  std::vector<std::int64_t> shape;
  double max_abs = 0;               ///< max |test - ref|
  double rel = 0;                   ///< max_abs / max |ref| (compiler::compare_tensors)
  double sqnr_db = 0;               ///< compiler::sqnr_db (+inf when identical)
  std::optional<bool> top1;         ///< argmax equal, for classifier outputs only
};

/// `test` against `ref` for every output of `ref` (by name; a missing one throws ConfigError).
std::vector<OutputError> compare_outputs(const compiler::RefTensorMap& ref, const compiler::RefTensorMap& test);

/// The int8 execution check: runs `compiled` (compiled from the quantised graph for the int8
/// config `hw`) with data in a forked child process (SystemC elaborates once per process), and
/// compares its raw int8 outputs bit for bit with the integer reference interpreter
/// (compiler::run_quantised_reference) on `quantised` (the PTQ or QDQ graph carrying
/// Tensor::quant). `inputs`: graph input name -> fp32 tensor (quantised on the input's grid by
/// both sides). Never throws for a program that cannot run: the reason is the status.
struct Int8Check {
  bool run = false;           ///< the simulation ran and the reference too
  std::string status;         ///< "bit-exact", "N of M int8 values differ (max K LSB)", or "not run: WHY"
  compiler::RefTensorMap outputs;  ///< simulated outputs, dequantised (q - zero_point) x scale
  compiler::RefTensorMap raw;      ///< the same outputs as the int8 values the simulator wrote (integer tensors)
};
Int8Check check_int8_execution(const compiler::CompileResult& compiled, const HwConfig& hw,
                               const compiler::Graph& quantised, const compiler::RefTensorMap& inputs);

struct VerifyOptions {
  std::string model;                      ///< .onnx path (constants with data)
  std::string hw;                         ///< YAML config
  std::vector<std::string> strategies;    ///< names or strategy YAML paths
  std::vector<std::string> input_data;    ///< NAME=FILE or FILE (as npu simulate --input-data)
  std::uint64_t input_seed = 1;           ///< other inputs U(-1, 1) from this seed
  bool allow_nonfinite = false;           ///< NaN/Inf in input files: warn instead of refusing
  bool quiet = false;                     ///< no progress line (-q)
  std::vector<std::string> expected;      ///< NAME=FILE or FILE: outputs of an outside reference (e.g. PyTorch)
  std::vector<std::string> input_shapes;  ///< NAME=1x3x224x224
  bool dropout_as_identity = false;       ///< --dropout-as-identity (LoadOptions)
  std::string calib_dir;                  ///< calibration folder (calibration.hpp); empty: seeded
  std::uint64_t calib_seed = 1;
  int calib_count = 8;
  compiler::CalibrationOptions calibration;
  bool fold_after_quant = false;          ///< int8: add a fold-after-quant row per BN-folding strategy
  double fp32_tolerance = 1e-4;           ///< relative error above which an fp32 strategy fails
  std::string out_dir;                    ///< verify.csv/json/md, outputs/, runs/
  std::string self_exe;                   ///< the npu binary children run
  int jobs = 1;
};

/// One strategy (or its fold-after-quant variant) on one config.
struct VerifyRow {
  std::string strategy;       ///< label (strategy_label)
  std::string variant;        ///< "" or "fold-after-quant"
  std::string sim_status;     ///< "ok", "failed: ...", or "not run: ..."
  std::vector<OutputError> sim;       ///< simulator vs fp32 reference (int8: the dequantised int8 outputs)
  std::vector<OutputError> sim_vs_expected;  ///< simulator vs --expected (when given)
  std::vector<OutputError> quant;     ///< fake-quant PTQ model vs fp32 reference (int8 configs)
  std::string bit_exact;      ///< int8 configs: Int8Check::status; fp32: "n/a (fp32 config)"
  bool pass = true;           ///< fp32: sim ran and every output within fp32_tolerance of the reference and of
                              ///< --expected; int8: ran and bit-exact
};

struct VerifyReport {
  bool fp32 = false;          ///< the config's MAC array computes fp32
  std::vector<OutputError> reference_vs_expected;  ///< our fp32 reference vs --expected
  std::vector<VerifyRow> rows;
  std::string calibration;    ///< what calibrated (folder, or seed and count), for the report
  /// int8: inputs of the run outside their calibrated range (input_range_warnings), printed
  /// under the calibration line and in verify.json "warnings".
  std::vector<std::string> warnings;
  std::vector<std::string> expected_mismatches;  ///< expected_mismatches(): comparisons with --expected that fail
  bool ok() const;            ///< every row passes and no comparison with --expected fails
};

/// Every comparison with --expected whose relative error (max |x - expected| / max |expected|)
/// is above `tolerance` or NaN: our fp32 reference's (any config) and each strategy's simulator
/// outputs (fp32 configs), one line each naming the strategy, the output, max abs and relative
/// error, and the tolerance. Empty when --expected was not given or everything is within.
std::vector<std::string> expected_mismatches(const VerifyReport& r, double tolerance);

/// What every strategy of one (model, config) is checked against, computed once.
struct VerifyInputs {
  compiler::Graph graph;                  ///< as loaded (fp32, or a QDQ model's float form)
  HwConfig hw;
  bool fp32 = false;                      ///< mac_array.dtype fp32 (else int8)
  bool quantised_model = false;           ///< the model carries its own Tensor::quant (QDQ)
  compiler::RefTensorMap inputs;          ///< the run's inputs (files or seeded, as the children get them)
  compiler::RefTensorMap reference;       ///< fp32 reference interpreter outputs
  compiler::RefTensorMap expected;        ///< --expected outputs
  std::vector<OutputError> reference_vs_expected;
  std::vector<compiler::CalibSample> samples;  ///< int8 configs: calibration samples
  std::string calibration;                ///< what calibrated, for reports
  std::vector<std::string> warnings;      ///< int8: input_range_warnings of the run's inputs
};

/// Loads and checks everything for opt.model on opt.hw (config, model, inputs, expected
/// outputs, calibration samples on int8 configs) and runs the fp32 reference. Throws
/// ConfigError for any bad input, naming it; an fp16 config is refused.
VerifyInputs prepare_verify(const VerifyOptions& opt);

/// The rows of one strategy (`strategy_arg`: name or YAML path). fp32: the simulator's outputs
/// read from RUN_DIR/outputs/NAME.npy (written by `npu simulate --with-data`), or the row
/// failed with `run_error` when not empty. int8: the PTQ model per fold order (the
/// fold-after-quant row with opt.fold_after_quant for BN-folding strategies), its fake-quant
/// outputs written to OUTPUTS_DIR/<strategy>[.fold-after-quant].fakequant/ (when not empty),
/// and the int8 execution slot.
std::vector<VerifyRow> verify_strategy(const VerifyInputs& in, const std::string& strategy_arg,
                                       const std::string& run_dir, const std::string& run_error,
                                       const VerifyOptions& opt, const std::string& outputs_dir);

/// Runs everything above and writes OUT/verify.csv, verify.json, verify.md,
/// OUT/outputs/reference/NAME.{npy,pb}, OUT/outputs/<strategy>.fakequant/NAME.{npy,pb} (int8)
/// and the children's run folders OUT/runs/<id>/ (outputs/NAME.{npy,pb}). Throws ConfigError for
/// bad input (model, config, strategy, input/expected/calibration files) before any simulation.
VerifyReport run_verify(const VerifyOptions& opt);

/// The table printed on the terminal (also verify.md's body).
std::string format_verify(const VerifyReport& r, const VerifyOptions& opt);

}  // namespace npu::sim
