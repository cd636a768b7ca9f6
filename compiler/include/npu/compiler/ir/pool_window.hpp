// When an AveragePool's count_include_pad matters (docs/functional.md, "Data path").
#pragma once

#include "npu/compiler/ir/graph.hpp"

namespace npu::compiler {

/// True when `n` is an AveragePool with count_include_pad=1 whose result that flag changes:
/// some window reaches outside the input, through non-zero pads, an unresolved SAME auto_pad,
/// or a ceil_mode window hanging past the end ((out - 1) x stride + (k - 1) x dilation + 1 > in
/// on a spatial dim; ONNX output size rule). Otherwise every window's taps are all inside the
/// input, the padded count equals the inside count, and the pool is the count_include_pad=0
/// one (torchvision's DenseNet transitions: 2x2, stride 2, no pads, count_include_pad=1).
/// Needs the input and output shapes in `g`; a node whose shapes are not known counts as
/// mattering (the conservative answer). Never throws.
bool avg_pool_counts_padding(const Graph& g, const Node& n);

}  // namespace npu::compiler
