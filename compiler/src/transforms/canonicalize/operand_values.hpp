// Values of constant operands that ONNX shape inference accepts but the op cannot compute
// with (issue 27, newcomer probe round 3): each would compile to a program whose numbers
// are undefined (ONNX Runtime refuses such models at session creation).
#pragma once

#include <string>

#include "npu/compiler/ir/graph.hpp"

namespace npu::compiler {

/// Checks node `n`'s constant operands in graph `g` (shapes already inferred) and throws
/// npu::ConfigError "WHERE: CONSTANT ...; fix" for:
///  - Gather: a constant index outside [-d, d) for the gathered axis of size d (ONNX Gather);
///  - Pad with mode `reflect`: a pad larger than d - 1 on an axis of size d (reflection
///    repeats no border element, so at most d - 1 elements mirror; ONNX Runtime's rule);
///  - BatchNormalization: a constant variance with var[c] + epsilon <= 0 or NaN, where
///    1 / sqrt(var + epsilon) is not a real number.
/// An axis whose size is not known at import (negative: dynamic) is not checked.
/// `where` is the caller's "SOURCE: error: node #I 'NAME' (OP)". Other nodes: no check.
void check_constant_operands(const Graph& g, const Node& n, const std::string& where);

}  // namespace npu::compiler
