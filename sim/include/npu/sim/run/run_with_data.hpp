// One-call functional run (docs/functional.md, "Data path"): writes a compiled program's DDR
// image (weights + the given inputs) into a sparse DDR store, runs the program with the data
// path on, and reads every graph output back. Timing results are those of a run without data.
//
// Like run_program(): one call per process (SystemC elaborates once).
#pragma once

#include <map>
#include <string>
#include <vector>

#include "npu/compiler/driver/compiler.hpp"
#include "npu/compiler/backend/emit/ddr_image.hpp"
#include "npu/hw/memory/backing_store.hpp"
#include "npu/sim/run/run_program.hpp"

namespace npu::sim {

struct DataRunResult {
  RunResult run;
  /// Graph output name -> fp32 values, row-major in the output's ONNX shape.
  std::map<std::string, std::vector<float>> outputs;
  std::map<std::string, std::vector<std::int64_t>> output_shapes;
  /// int8 programs of quantised models: the raw int8 outputs (`outputs` holds them dequantised,
  /// (q - zero_point) x scale, the same as compiler::dequantise).
  std::map<std::string, std::vector<std::int8_t>> outputs_int8;
  std::uint64_t ddr_pages_touched = 0;   ///< pages of the sparse DDR store allocated
  std::uint64_t ddr_resident_bytes = 0;  ///< host memory they take
};

/// Writes every segment into `ddr`. Throws ConfigError naming the segment when one lies past
/// the DDR capacity.
void load_ddr_image(hw::BackingStore& ddr, const std::vector<compiler::DdrSegment>& image);

/// Reads graph output `p` from `ddr` as fp32 values (int8 outputs dequantised).
std::vector<float> read_output(const hw::BackingStore& ddr, const compiler::TensorPlacement& p);
/// Reads int8 graph output `p` (p.int8) as its raw int8 values.
std::vector<std::int8_t> read_output_int8(const hw::BackingStore& ddr, const compiler::TensorPlacement& p);

/// Compiles nothing: runs `compiled.program` on `hw` with data. `inputs`: graph input name ->
/// fp32 values (row-major). `opt.ddr_data` is ignored (a store of hw.ddr.capacity_bytes() is
/// made here). Throws ConfigError for a program that cannot run with data
/// (compiler::functional_problems), bad inputs, and everything run_program() throws.
DataRunResult run_with_data(const compiler::CompileResult& compiled, const HwConfig& hw,
                            const std::map<std::string, std::vector<float>>& inputs, RunOptions opt = {});

}  // namespace npu::sim
