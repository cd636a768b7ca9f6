// Activation grids that must be equal in int8 (docs/functional.md, "Quantisation
// (post-training)"): ops that move int8 values without arithmetic -- MaxPool, GlobalMaxPool,
// AveragePool (their integer rule keeps the input's grid; GlobalAveragePool and ReduceMean
// requantise onto their own, global_avg_table), the views (Reshape, Flatten, Squeeze,
// Unsqueeze, Identity, Dropout), the layout ops (Transpose, Split, Slice, Resize, Upsample,
// Gather, Pad: a constant Pad writes its value's code on that grid) and Concat -- need their output on
// the grid of their inputs, as the int8 data path and the integer reference require
// (TFLite's int8 kernels impose the same for these ops).
#pragma once

#include <map>
#include <string>
#include <vector>

#include "npu/compiler/ir/graph.hpp"
#include "npu/compiler/quantize/calibration.hpp"

namespace npu::compiler {

/// Groups the tensors that must share one grid (an op above links its activation inputs -- the
/// first input, every input of a Concat -- with its output, transitively, so a Concat of a
/// tensor and its max-pooled copies is one group) and gives every member of a group the union
/// of the group's calibrated ranges [min lo, max hi], in place. Tensors without a range are left
/// alone. Returns the number of groups of two or more tensors whose ranges were merged.
int share_grids(const Graph& graph, std::map<std::string, TensorRange>& ranges);

/// Before share_grids: every Concat input x whose calibrated range is narrower than
/// 1/kConcatRequantRatio of the Concat output's (both widened to contain 0) is moved off the
/// output's grid: a Clip without bounds (an identity in fp32; in int8 the rescaling copy out =
/// clamp(zp_out + (x - zp_x) s_x / s_out), TFLite's int8 Concat rule per input) is inserted
/// before the Concat, x -> "x:requant:CONCAT", whose range is the output's. x keeps its own
/// range (and the producers that share x's grid keep theirs). Returns the new tensors (to be
/// quantised as materialised activations). Source: concat_requant.cpp.
inline constexpr double kConcatRequantRatio = 8.0;
std::vector<std::string> insert_concat_requant(Graph& graph, std::map<std::string, TensorRange>& ranges);

/// Before share_grids: the constant table of every Gather by run-time indices (a token
/// embedding, Gather(wte [V, D], input_ids)) gets the range of its own values [min, max] (with
/// 0) under its name, so that share_grids puts the table and the Gather's output on one grid:
/// the int8 Gather selects table rows as they are (a DMA of int8 rows, no requantisation), so
/// the output keeps the table's scale and zero point. The table is per tensor, not per row
/// (the output is one activation grid). Returns the tables given a range (quantised onto their
/// grid after share_grids, as Concat constants are). Source: gather_tables.cpp.
std::vector<std::string> range_gather_tables(const Graph& graph, std::map<std::string, TensorRange>& ranges);

}  // namespace npu::compiler
