// Getting data in and out of a compiled program (docs/functional.md, "Data path"): where the
// network's inputs, constants (weights, biases, BatchNorm scale/shift, LayerNorm gamma/beta)
// and outputs live in DDR, in the layout the program's LOADs read and STOREs write, and the
// initial DDR contents (a "DDR image") for a run with data. No SystemC here: the image is a
// list of byte segments; the simulator (npu::sim::run_with_data) writes them into its DDR
// store and reads the outputs back with read_output().
//
// Layouts (fp32, IEEE 754 binary32, little-endian; row-major in the ONNX shape, so NCHW for
// 4-D activations):
//   - graph inputs and outputs, activations, Conv weights [c_out, c_in/group, kh, kw], Conv
//     and Gemm biases [N], constant ELTWISE operands: as ONNX stores them;
//   - GEMM/MatMul weights: B as [K, N] (Gemm transB=1 transposed, alpha folded in), stored
//     pre-tiled by the program's N tile t (codegen/gemm.cpp): tile j is the row-major [K, nt] block
//     of columns [j t, j t + nt) at element offset j t K;
//   - BatchNormalization (unfused, ACT scale_shift): scale[C] = gamma / sqrt(var + eps) then
//     shift[C] = beta - mean x scale; LayerNormalization: gamma[D] then beta[D] (beta 0 when absent).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "npu/compiler/driver/compiler.hpp"

namespace npu::compiler {

/// A graph tensor's place in the program's DDR.
struct TensorPlacement {
  std::string name;        ///< graph tensor name
  std::string ddr_tensor;  ///< the program's .tensor region holding it
  std::uint64_t ddr_addr = 0;
  std::uint64_t bytes = 0;
  std::vector<std::int64_t> shape;  ///< ONNX shape; elements are fp32 row-major (int8 programs: int8)
  /// A KV cache's past input lives inside present (LoweredGraph::kv_appends): its data are
  /// `blocks` runs of `block_bytes`, run k at ddr_addr + k x block_stride_bytes. 0 = contiguous.
  std::uint64_t blocks = 0, block_bytes = 0, block_stride_bytes = 0;
  /// int8 execution (LoweredGraph::int8_execution): one byte per element on the tensor's grid,
  /// real = (q - zero_point) x scale; fp32 otherwise.
  bool int8 = false;
  double scale = 1;
  int zero_point = 0;
};

/// Bytes to write at `ddr_addr` before the run.
struct DdrSegment {
  std::string what;  ///< the graph tensor (or parameter) they hold, for messages
  std::uint64_t ddr_addr = 0;
  std::vector<unsigned char> bytes;
};

/// Why `r` cannot be executed with data, one line per problem naming the layer (empty: it
/// can). Reported: a program dtype other than fp32 or int8; an int8 program of a graph without
/// quantisation (quantise it first); in int8, layers with no int8 lowering (int8_lowering.hpp); layers the ISA only costs but does not
/// compute (host partitions, layout copies, Resize, ReduceSum/ReduceMin, AveragePool with
/// count_include_pad=1 where a window reaches the padding: avg_pool_counts_padding); constants without values (structural models); Gemm with transA or a
/// bias that is not one value per column; a GEMM whose computed B the LOADs read pre-tiled.
std::vector<std::string> functional_problems(const CompileResult& r);

/// Where each graph input lives (graph order). Throws ConfigError for an input the program
/// never reads from DDR.
std::vector<TensorPlacement> input_placements(const CompileResult& r);
/// Where each graph output lives after the run (graph order); views (Flatten, Reshape, ...)
/// resolve to the tensor they view. Throws ConfigError for an output the NPU does not write.
std::vector<TensorPlacement> output_placements(const CompileResult& r);

/// The initial DDR contents: every constant the program loads, in the layout its LOADs
/// expect (above), and the graph inputs from `inputs` (name -> fp32 values, row-major). int8
/// programs of quantised graphs: the same layouts with int8 weights (per output channel),
/// int32 biases, the layers' requantisation tables, and the inputs quantised on their grids.
/// Throws ConfigError when functional_problems(r) is not empty (all listed), when an input is
/// missing or has the wrong element count (names it and the count expected), or names no
/// graph input.
std::vector<DdrSegment> ddr_image(const CompileResult& r, const std::map<std::string, std::vector<float>>& inputs);

/// fp32 values of `bytes` (little-endian binary32); throws ConfigError when the size is not a
/// multiple of 4.
std::vector<float> decode_f32(const std::vector<unsigned char>& bytes);

}  // namespace npu::compiler
