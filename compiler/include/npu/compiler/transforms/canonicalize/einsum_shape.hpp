// Einsum's output shape and loop size from its equation (ONNX Operators.md, Einsum): ONNX's
// own shape inference in Debian's onnx 1.14 gives Einsum's output rank but no sizes, so an
// Einsum of static inputs looked data-dependent, was left out of the host cost and was told to
// use --dynamic-size (new-user finding: `bhwc,cd->bhwd` costed 65,536 B for a 4,096 B output).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "npu/compiler/ir/graph.hpp"

namespace npu::compiler {

/// What an explicit Einsum equation ("bhwc,cd->bhwd") gives for input shapes `inputs`: the
/// output shape, and the loop size (the product of every index letter's size: the MACs of a
/// two-operand contraction). nullopt for an implicit output (no "->"), an ellipsis, a term whose
/// rank differs from its input's, or one letter of two sizes (neither 1).
struct EinsumShape {
  std::vector<std::int64_t> output;
  std::uint64_t loop_size = 0;
};
std::optional<EinsumShape> einsum_shape(const std::string& equation, const std::vector<std::vector<std::int64_t>>& inputs);

/// Einsum node `n` of `g` with known input shapes: einsum_shape() of its equation attribute.
std::optional<EinsumShape> einsum_shape(const Graph& g, const Node& n);

}  // namespace npu::compiler
