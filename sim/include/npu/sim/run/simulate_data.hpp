// `npu simulate --with-data` (docs/functional.md, "Running with data"): inputs from tensor
// files or a seeded generator, a run with the data path on, outputs written as files.
#pragma once

#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "npu/compiler/driver/compiler.hpp"
#include "npu/compiler/reference/reference_interpreter.hpp"
#include "npu/sim/run/run_program.hpp"
#include "npu/sim/run/simulate.hpp"

namespace npu::sim {

/// Graph input values for `c`: `specs` NAME=FILE (or one FILE for a one-input graph) read
/// with compiler::read_tensor_file (element count must match; a shape given in the file must
/// have the same element count as the graph's), every other input U(-1, 1) from std::mt19937_64
/// seeded with `seed` (inputs in graph order, values row-major). An int64/int32 graph input
/// takes integer files only (.npy '<i8'/'<i4', TensorProto INT64/INT32) and carries its values
/// as exact floats (|v| <= 2^24); generated, it is uniform in [0, rows) of the constant table
/// it indexes (compiler::indexed_table, through views: the table seeded calibration draws from,
/// so seed S gives calibration's ids), and a line saying so is appended to `notes`.
/// Throws ConfigError for an unknown input name, a malformed spec, a bad file, a wrong element
/// count, float data for an integer input (and the reverse) or an integer input to generate
/// that indexes no Gather. A file holding NaN or +-Inf is refused (ConfigError naming the file,
/// the count, the first such element and --allow-nonfinite) unless `allow_nonfinite`, when a
/// warning line is appended to `notes` instead: a reference and a simulation that both give
/// NaN compare as equal, so "all pass" would say nothing.
std::map<std::string, std::vector<float>> data_inputs(const compiler::CompileResult& c,
                                                      const std::vector<std::string>& specs, std::uint64_t seed,
                                                      std::vector<std::string>* notes = nullptr,
                                                      bool allow_nonfinite = false);

/// Writes each tensor of `outs` to DIR/FILE.npy and DIR/FILE.pb, FILE its name mapped by
/// npu::safe_file_names() over all the names of `outs` (so a name like "../x" or "/abs" stays
/// inside DIR, and names that map alike are told apart by "~2", ...). Creates DIR. Returns the
/// paths written. Throws ConfigError when DIR cannot be created or a file cannot be written.
std::vector<std::string> write_output_tensors(const std::filesystem::path& dir,
                                              const std::map<std::string, compiler::RefTensor>& outs);

/// The .npy path write_output_tensors() gives output `name` of a graph whose outputs are
/// `all_names`.
std::filesystem::path output_tensor_npy(const std::filesystem::path& dir, const std::string& name,
                                        const std::vector<std::string>& all_names);

/// Runs `c` with data (run_with_data) and writes each graph output to OUT/outputs/ with
/// write_output_tensors(); `files` gets their paths.
RunResult simulate_with_data(const SimulateOptions& opt, const compiler::CompileResult& c, const HwConfig& hw,
                             const RunOptions& ro, std::vector<std::string>& files);

}  // namespace npu::sim
