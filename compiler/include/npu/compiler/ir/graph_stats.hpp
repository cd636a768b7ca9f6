// Per-node and whole-graph statistics of a shape-inferred Graph: multiply-accumulates,
// parameter counts, activation bytes. Used by reports and by the front-end tests.
//
// Definitions (the ones of ../shared/models/README.md and of torchvision's model tables):
//  - MACs: Conv = prod(output shape) * C_in/group * prod(kernel);
//          Gemm = M * N * K; MatMul = prod(output shape) * K; every other op 0.
//  - params: elements of constant float tensors that are trainable in the source
//    framework: Conv W and B, Gemm B and C, MatMul constant operands, BatchNormalization
//    scale and B. BatchNormalization mean/var are "buffers" (torch's running statistics),
//    counted separately; params + buffers = the README's "weights".
//  - bytes use each tensor's element type (elem_bytes), i.e. fp32 for the ONNX files.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "npu/compiler/ir/graph.hpp"

namespace npu::compiler {

struct NodeStats {
  std::string node;
  std::string op_type;
  std::int64_t macs = 0;
  std::int64_t params = 0;        ///< trainable parameter elements this node reads
  std::int64_t buffers = 0;       ///< BatchNormalization running mean + var elements
  std::int64_t output_bytes = 0;  ///< bytes of all its outputs
  bool on_host = false;
};

struct GraphStats {
  std::vector<NodeStats> nodes;        ///< in node order
  std::int64_t macs = 0;               ///< sum over nodes
  std::int64_t params = 0;             ///< each constant tensor counted once
  std::int64_t buffers = 0;            ///< each constant tensor counted once
  std::int64_t weight_bytes = 0;       ///< bytes of the params + buffers tensors
  std::int64_t input_bytes = 0;        ///< graph inputs
  std::int64_t output_bytes = 0;       ///< graph outputs
  /// Node outputs that are not graph outputs (every intermediate activation).
  std::int64_t intermediate_bytes = 0;
  std::int64_t host_macs = 0;          ///< MACs of nodes placed on the host
  int host_nodes = 0;
};

/// MACs of one node (definition above). Needs inferred shapes; throws std::out_of_range
/// if a tensor is missing. A Conv, Gemm or MatMul whose shapes are not known (a dimension
/// sized only at run time, e.g. Faster R-CNN's box head without --dynamic-size, or a rank
/// below the op's) counts 0: its work is not costed, as the run warns (was an internal error,
/// `vector::_M_range_check`, on such a Gemm).
std::int64_t node_macs(const Graph& graph, const Node& node);

/// Statistics of every node and the totals (definitions above).
GraphStats graph_stats(const Graph& graph);

}  // namespace npu::compiler
