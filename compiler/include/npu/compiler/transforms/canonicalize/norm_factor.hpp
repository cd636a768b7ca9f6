// The normalising factor of a decomposed RMSNorm or LayerNorm, recognised by math (issue 30):
// from a row statistic m (the mean of squares of the centred or raw row) the export computes
// a per-row factor through element-wise nodes (Add eps, Sqrt, Reciprocal, Div(1, .),
// Pow(., -0.5), in any order or spelling) and applies it to the row d by Div(d, s) or
// Mul(d, r). The factor chain is a single-input element-wise subgraph rooted at m
// (scalar_function.hpp); evaluated at several m it must equal 1 / sqrt(m + eps) for one
// constant eps >= 0 -- epsilon inside the square root, as LayerNormalization (Ba et al. 2016)
// and RMSNormalization (Zhang & Sennrich 2019) define it. Any other placement (sqrt(m) + eps,
// max(m, eps), a scale) is reported with the reason, never rewritten to a different function.
#pragma once

#include <string>
#include <vector>

#include "npu/compiler/ir/graph.hpp"
#include "npu/compiler/transforms/canonicalize/scalar_function.hpp"

namespace npu::compiler {

/// What norm_factor found.
struct NormFactor {
  std::vector<std::size_t> nodes;  ///< the factor chain and the node applying it to d
  std::string y;                   ///< d times the factor (the applying node's output)
  double eps = 0;                  ///< the epsilon, when `why` is empty
  std::string why;                 ///< non-empty: no normalising factor, and why (for --explain)
};

/// The factor applied to row tensor `d` from statistic `m` (a [..., 1] tensor, m's readers all
/// in the chain), as above. `why` is empty when the chain computes d / sqrt(m + eps); it
/// names the problem when a chain reads m and reaches d but computes something else
/// (a different epsilon placement); `nodes` is empty when no chain joins m to d at all.
NormFactor norm_factor(const Graph& g, const ReaderIndex& readers, const std::string& m, const std::string& d);

/// The constant `t` holds one value per position of the last axis of size `d` ([D] or
/// [1, ..., D]), or one value in all. A constant without values (a zoo weight) counts by shape.
bool row_constant(const Graph& g, const std::string& t, std::int64_t d);

/// ReduceMean of node n covers exactly the last axis of its input (axes attribute or, from
/// opset 18, input). `keepdims` receives the attribute (default 1).
bool mean_over_last_axis(const Graph& g, const Node& n, bool& keepdims);

/// The other input of binary node n besides `t` ("" when n does not read t or is not binary).
std::string other_input(const Node& n, const std::string& t);

}  // namespace npu::compiler
