// Calibration for post-training quantisation (docs/functional.md, "Quantisation"): sample
// inputs (tensor files in a folder, or a seeded generator), the fp32 reference interpreter
// run over them, and the range of every float tensor it computes, by min/max or by
// percentile. ptq.hpp turns the ranges into int8 scales and zero points.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "npu/compiler/ir/graph.hpp"
#include "npu/compiler/reference/reference_interpreter.hpp"

namespace npu::compiler {

/// One calibration sample: a tensor per graph input.
using CalibSample = RefTensorMap;

/// Reads calibration samples for `graph` from folder `dir`. Layout (sorted by name, so the
/// order is the same on every machine):
///  - sub-folders (e.g. the ONNX backend-test `test_data_set_0/ ...`): each is one sample;
///    inside, one file per graph input named `NAME.npy` / `NAME.pb` (NAME the input name,
///    '/' and ':' written as '_') or `input_K.pb` / `input_K.npy` (K the input's index);
///  - no sub-folders, one-input model: every file (`.npy` or TensorProto `.pb`) is one sample;
///  - no sub-folders, several inputs: the folder is one sample, files named as above.
/// Float data of the graph's shape is required (a file with the input's element count but
/// another shape is accepted as that shape, as `npu simulate --input-data` does).
/// Throws npu::ConfigError naming the folder or file and the fix: a missing or empty folder,
/// a sample lacking an input, a file of the wrong element count or with integer data, a
/// corrupt file (errors of read_tensor_file). An integer input (token ids) takes integer data,
/// kept as it is, each value in [0, rows) of the table it indexes (integer_inputs.hpp,
/// checked_integer_input: an id outside names the file, the input and the range).
std::vector<CalibSample> read_calibration_dir(const Graph& graph, const std::string& dir);

/// `count` samples with every graph input U(-1, 1) from std::mt19937_64 seeded with `seed`
/// (inputs in graph order, values row-major; the same generator `npu simulate --with-data`
/// uses for its inputs, so `--calib-seed S --calib-count 1` calibrates on exactly the input
/// that `--input-seed S` runs). An integer input (token ids) is drawn uniform over the rows of
/// the table it indexes instead (seeded_integer_input). Throws ConfigError for count < 1 or an
/// integer input that indexes no constant table.
std::vector<CalibSample> generate_calibration(const Graph& graph, std::uint64_t seed, int count);

enum class Calibrator { MinMax, Percentile };

/// "minmax" / "percentile"; throws ConfigError listing both for anything else.
Calibrator parse_calibrator(const std::string& name);

struct CalibrationOptions {
  Calibrator method = Calibrator::MinMax;
  /// Percentile calibrator: the range is [value at rank (100 - p) %, value at rank p %] over
  /// every value of the tensor in every sample (nearest rank: sorted ascending, index
  /// ceil(P/100 x N) - 1). In (50, 100]; 100 is min/max.
  double percentile = 99.99;
  int threads = 0;  ///< reference interpreter threads (0: all cores)
};

/// Real range of one tensor over the calibration set. Always contains 0 (an int8 grid must
/// represent 0 exactly: zero padding, ReLU).
struct TensorRange {
  float lo = 0, hi = 0;
};

/// Masking sentinels: values at or beyond +-1e30, +-inf and NaN (an attention mask's -inf, or
/// the -3.4e38 of Where(mask, scores, finfo.min)). They mark positions, not data: calibration
/// leaves them out of every range, and on an int8 grid they saturate to -128 / 127.
inline constexpr float kMaskSentinel = 1e30f;
bool mask_sentinel(float v);

/// [min, max] of the values of `v` that are not mask sentinels, widened to contain 0.
TensorRange data_range(const std::vector<float>& v);

/// Runs the fp32 reference interpreter (apply_quant off) on every sample and returns the
/// range of every float tensor it computes, graph inputs included, by name (mask sentinels
/// left out). Throws
/// ConfigError for no samples, a percentile outside (50, 100], and every error of
/// run_reference (a sample of the wrong shape names the input).
std::map<std::string, TensorRange> calibrate(const Graph& graph, const std::vector<CalibSample>& samples,
                                             const CalibrationOptions& options = {});

/// Nearest-rank percentile range of `values` (TensorRange above; 0 included). Exposed for
/// tests; calibrate() computes the same over all samples without keeping every value.
TensorRange percentile_range(std::vector<float> values, double percentile);

}  // namespace npu::compiler
