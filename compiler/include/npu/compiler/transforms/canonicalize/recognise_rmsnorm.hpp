// RMSNorm exported in decomposed form (Llama, T5, Mistral; Zhang & Sennrich 2019):
// y = x / sqrt(mean(x^2) + eps) * gamma over the last axis, recognised as one
// RMSNormalization node (ONNX opset 23: axis -1, epsilon, Scale = gamma) so it runs as one
// row-wise vector-unit op (ACT rms_norm, 2 passes) instead of six or seven layers.
// The square is Pow(x, 2) or Mul(x, x); the mean a ReduceMean over the last axis, keepdims=1
// or keepdims=0 followed by Unsqueeze of the last axis; the factor chain from the mean to x
// (Add eps, Sqrt then Div(x, .), Reciprocal or Div(1, .) then Mul, Pow(., -0.5) ...) is
// recognised by math (norm_factor.hpp): an epsilon anywhere but inside the square root is
// declined with the reason. gamma is the constant [D] (or scalar) of a Mul after it; without
// one, gamma is ones. Only chains whose inner tensors have no other reader and are no graph
// outputs are rewritten.
#pragma once

#include <vector>

#include "npu/compiler/ir/decision.hpp"
#include "npu/compiler/ir/graph.hpp"

namespace npu::compiler {

/// Rewrites every matched chain into one RMSNormalization node named after the chain's first
/// node (the square). Returns how many; `decisions` (optional) gets one applied decision per
/// rewrite and one declined per RMSNorm-like chain that computes something else (the reason).
/// Run after shape inference.
int recognise_rmsnorm(Graph& graph, std::vector<Decision>* decisions = nullptr);

}  // namespace npu::compiler
