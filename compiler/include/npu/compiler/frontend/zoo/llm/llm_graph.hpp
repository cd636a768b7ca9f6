// A zoo LLM (llm_spec.hpp) as a canonical Graph for one inference phase, with the interface
// and op structure of the shared decoder exports (../shared/models/llm/export_llm.py):
//
//   prefill(P): input_ids int64 [B, P] -> logits [B, P, V], present.L.key / present.L.value
//               [B, Hkv, P, hd] for every layer L; causal attention over the P tokens (a
//               constant [P, P] mask added to the scores).
//   decode(T):  input_ids int64 [B, 1], past.L.key / past.L.value [B, Hkv, T-1, hd]
//               -> logits [B, 1, V], present.L.key / present.L.value [B, Hkv, T, hd]: the
//               token at position T-1 attends to T tokens; present = Concat(past, new) on axis 2.
//
// Canonical forms: LayerNorm is one LayerNormalization node (what recognise-layernorm makes
// of the exported chain); tanh-GELU one Gelu node (approximate "tanh"); RMSNorm stays the
// exported chain Pow, ReduceMean, Add(eps), Sqrt, Div(1, .), Mul, Mul(weight), which the back
// end lowers on the NPU; SiLU is Sigmoid + Mul (fused into the gate MatMul's epilogue); GQA
// is Unsqueeze, Expand, Reshape as in the export. A tied LM head is a Gemm (transB) on the
// token-embedding matrix itself, so the tied matrix is one tensor. Weights, the mask and the
// rotary cos/sin tables are constants with shapes and no values (zoo.hpp).
#pragma once

#include <cstdint>

#include "npu/compiler/frontend/zoo/llm/llm_spec.hpp"
#include "npu/compiler/ir/graph.hpp"

namespace npu::compiler {

enum class LlmPhase { Prefill, Decode };

/// Which graph of a zoo LLM: the phase, its token count (P for prefill, T for decode) and
/// the batch.
struct LlmShape {
  LlmPhase phase = LlmPhase::Prefill;
  std::int64_t tokens = 128;  ///< prefill: prompt length P; decode: context length T (incl. the new token)
  std::int64_t batch = 1;
};

/// Builds the graph of `spec` for `shape` (see the file comment), shape-inferred and
/// host-placed like every zoo graph. Node and weight names follow export_llm.py's modules
/// ("/blocks.3/q/MatMul", "blocks.3.q.weight"). Throws npu::ConfigError when tokens < 1, or
/// over spec.max_context, or batch < 1.
Graph build_llm_graph(const LlmSpec& spec, const LlmShape& shape);

}  // namespace npu::compiler
