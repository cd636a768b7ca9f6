// The DDR image of an int8 program of a quantised graph (ddr_image.hpp, docs/functional.md
// "int8 execution"): int8 activations and weights, int32 biases, requantisation tables.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "npu/compiler/backend/emit/ddr_image.hpp"
#include "npu/compiler/transforms/pass.hpp"

namespace npu::compiler {

/// Problems of an int8 program of a quantised graph (appended to functional_problems): layers
/// without an int8 lowering (LayerSpec::int8_problem), graph inputs/outputs and constants
/// without an int8 grid, views and zero-copy concats whose input grid differs from the output's.
void int8_problems(const CompileResult& r, std::vector<std::string>& out);

/// Constants (weights quantised per output channel, int32 biases, tables, other constants on
/// their grid) and the inputs, quantised on their grids (ONNX QuantizeLinear: round half to even,
/// saturate). `inputs` were checked by ddr_image().
void int8_image(const CompileResult& r, const std::map<std::string, std::vector<float>>& inputs,
                std::vector<DdrSegment>& out);

}  // namespace npu::compiler
