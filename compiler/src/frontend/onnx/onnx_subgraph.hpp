// Internal to the compiler library: ONNX subgraphs (If branches) imported into the IR, and
// an If whose condition is a compile-time constant replaced by the branch it takes.
#pragma once

#include <onnx/onnx_pb.h>

#include <string>
#include <vector>

#include "npu/compiler/ir/graph.hpp"

namespace npu::compiler {

/// The nodes of `sub` as IR nodes, in order: Constant nodes become constant tensors of `g`,
/// every other node an IR Node (attributes converted, Node::onnx_proto kept, canonical form
/// applied) whose outputs are added to `g` with unknown shapes. Names are kept (ONNX names
/// are unique across a model and its subgraphs). Throws npu::ConfigError like the importer.
std::vector<Node> import_subgraph(const onnx::GraphProto& sub, Graph& g, const std::string& source);

/// If graph.nodes[index] is an If whose condition is constant, replaces it by the nodes of
/// the branch it takes followed by one Identity per output (branch output -> If output) and
/// returns true; false (graph unchanged) otherwise.
bool inline_constant_if(Graph& graph, std::size_t index, const std::string& source);

/// The tensor names node `n`'s subgraphs (GRAPH attributes: a Loop/Scan body, If branches,
/// nested ones too) read from the enclosing graph without listing them as inputs: names no
/// subgraph input, initializer or earlier subgraph node defines, in first-read order. Empty for
/// a node without onnx_proto or subgraphs.
std::vector<std::string> outer_scope_reads(const Node& n);

}  // namespace npu::compiler
