// The scalar function a subgraph computes, for canonicalisation by math (issue 30): a
// single-input element-wise subgraph y = f(x), whatever its node order, operand order or
// spelling (Div by c or Mul by 1/c, Pow(x, 3) or x*x*x, Clip bounds as attributes or inputs),
// is evaluated in double at probe points so recognisers compare f with a known formula
// instead of matching one export's node sequence (recognise_activations.hpp).
//
// A region is rooted at a float tensor x. Its nodes are element-wise ops (scalar_ops()) whose
// inputs are x, outputs of other region nodes, or constant scalars (one element; Clip's
// bounds may also be absent), and whose outputs have x's shape. For an output y of the region,
// the subregion of y is y's ancestors inside the region; it is *closed* when every tensor it
// computes besides y is read only inside it and is no graph output, so replacing it by one
// node that computes y from x removes no value anyone else reads.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "npu/compiler/ir/graph.hpp"

namespace npu::compiler {

/// A closed single-input element-wise subgraph: y = f(x).
struct ScalarRegion {
  std::string x, y;
  std::vector<std::size_t> nodes;  ///< graph node indices, ascending (topological order)
};

/// Node indices reading each tensor (built once per scan; Graph::consumers walks every node).
using ReaderIndex = std::map<std::string, std::vector<std::size_t>>;
ReaderIndex build_reader_index(const Graph& g);

/// The element-wise ops a region may contain: Mul Add Sub Div Pow Tanh Erf Sigmoid Exp Log
/// Softplus Clip Min Max Relu Neg Abs Sqrt Reciprocal HardSigmoid HardSwish Identity, and Dropout
/// with its output alone (after training-dropout every Dropout left is the identity; a Conv ->
/// Dropout -> Relu kept its Relu unfused: new-user finding).
const std::vector<std::string>& scalar_ops();

/// The closed subregions rooted at `x` with at least `min_nodes` nodes, largest first (by
/// node count, then later output). At most `max_nodes` nodes are gathered from x (a bound on
/// the work, not on what is recognised: activations take at most a dozen nodes). Empty when
/// x is no float tensor of known shape.
std::vector<ScalarRegion> scalar_regions(const Graph& g, const ReaderIndex& readers, const std::string& x,
                                         std::size_t min_nodes = 2, std::size_t max_nodes = 32);

/// f(v) for region r, in double, following each op's ONNX definition (Softplus as
/// log(1 + exp(x)) evaluated without overflow; Clip's absent bounds unbounded). NaN or inf
/// where the graph's function is (log of a negative, 0/0).
double evaluate(const Graph& g, const ScalarRegion& r, double v);

/// The probe points recognisers compare at: 64 evenly spaced in [-8, 8], the kinks of the
/// piecewise-linear activations (0, +-0.5, +-1, +-2, +-3, +-6) and the tails +-10, +-20,
/// +-100, +-1000.
const std::vector<double>& probe_points();

}  // namespace npu::compiler
