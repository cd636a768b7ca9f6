// A zero Pad in front of a Conv or an AveragePool merged into that consumer's own padding
// (DenseNet, Inception-v3, EfficientNet exports): the padded tensor never exists in DDR.
// Semantics are kept: a Conv pads with zeros; an AveragePool takes count_include_pad=1 (the
// explicit zeros were counted in the average), and is only merged when it had no padding of
// its own or already counted it. MaxPool is never merged (it pads with -inf, not 0).
#pragma once

#include "npu/compiler/ir/graph.hpp"

namespace npu::compiler {

/// Merges every eligible Pad (mode constant, value 0, only H/W padded, non-negative, output
/// read only by one Conv/AveragePool and no graph output); returns how many. Run after shape
/// inference (canonical pads attributes).
int merge_pads(Graph& graph);

}  // namespace npu::compiler
