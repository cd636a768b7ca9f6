// Activation grids that must be equal in int8 (docs/functional.md, "Quantisation
// (post-training)"): ops that move int8 values without arithmetic -- MaxPool, GlobalMaxPool,
// AveragePool (their integer rule keeps the input's grid; GlobalAveragePool requantises onto
// its own, global_avg_table), the views
// (Reshape, Flatten, Squeeze, Unsqueeze, Identity, Dropout) and Concat -- need their output on
// the grid of their inputs, as the int8 data path and the integer reference require
// (TFLite's int8 kernels impose the same for these ops).
#pragma once

#include <map>
#include <string>

#include "npu/compiler/graph.hpp"
#include "npu/compiler/quantize/calibration.hpp"

namespace npu::compiler {

/// Groups the tensors that must share one grid (an op above links its activation inputs -- the
/// first input, every input of a Concat -- with its output, transitively, so a Concat of a
/// tensor and its max-pooled copies is one group) and gives every member of a group the union
/// of the group's calibrated ranges [min lo, max hi], in place. Tensors without a range are left
/// alone. Returns the number of groups of two or more tensors whose ranges were merged.
int share_grids(const Graph& graph, std::map<std::string, TensorRange>& ranges);

}  // namespace npu::compiler
