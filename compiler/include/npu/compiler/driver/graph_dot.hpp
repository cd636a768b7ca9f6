// The dataflow graph of a compiled network as Graphviz DOT (`npu compile --graph`): the
// network as practitioners draw it before fusing -- one box per ONNX node (name, op type,
// input and output shapes) -- with each fused group drawn as a cluster labelled with the
// strategy's passes that fused it, host-placed nodes marked with their reason, and every
// edge labelled with its tensor's shape and the DDR bytes the program moves for it.
// Reference: docs/compiler.md "Graph picture".
#pragma once

#include <string>

#include "npu/compiler/driver/compiler.hpp"
#include "npu/compiler/ir/graph.hpp"

namespace npu::compiler {

/// DOT text for `source` (the graph given to compile(), before the strategy's passes) as
/// compiled into `result`. Deterministic: node order, then input order.
///
/// Edge P -> C for tensor t (activation tensors only; constants are counted on the node):
///   wr = bytes of the program's STOREs into t's DDR region (by any layer: the tensor's
///        stores, repeated on each of its edges),
///   rd = bytes of the LOADs from t's region by the layer(s) covering C (when several nodes
///        of one fused group read t, the first edge carries the reads).
/// Labelled "DDR wr+rd B (wr W, rd R)", or "on chip" when both are 0 and P and C are in one
/// fused group. A node's "params" figure is the bytes its layer LOADs from weight tensors
/// (weights, bias, BN scale/shift), on the group's anchor node. Host traffic is analytic
/// (HOST instruction) and not on the edges. Element sizes are the program's dtype.
/// Node names are escaped for DOT (quotes, backslashes, newlines; UTF-8 kept as is).
std::string graph_dot(const Graph& source, const CompileResult& result);

/// `text` as the body of a DOT double-quoted string: `"` -> `\"`, `\` -> `\\`, newlines and
/// other control characters -> space. UTF-8 passes through unchanged.
std::string dot_escape(const std::string& text);

}  // namespace npu::compiler
