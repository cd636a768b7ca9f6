// A lower bound on the instructions code generation makes, computed before it makes any
// (program_size.hpp, docs/compiler.md "Program size limit").
#include "backend/codegen/program_size.hpp"

#include <algorithm>

#include "backend/codegen/layer_codegen.hpp"
#include "npu/compiler/backend/tiling/cin_split.hpp"

namespace npu::compiler::codegen {

namespace {

// A CONV/GEMM layer's bound from the tile plan gen_conv uses (conv_layer_options, plan_conv, or
// the input-channel split where conv_plan would take it): 0 when no tile fits (generate()
// reports that). Every step is one CONV/GEMM; an unsplit step stores its output tile, a split
// one only with its last input-channel slice; each image's input band of each row tile is
// loaded at least once.
LayerSizeBound conv_bound(const LayerSpec& L, std::uint64_t cap, const TilingOptions& opt, int act_bytes) {
  const TilingOptions o = conv_layer_options(opt, act_bytes, L);
  std::optional<ConvTilePlan> p = plan_conv_layer(L.geom, cap, o, L.kind == LayerKind::Conv);
  LayerSizeBound b;
  b.layer = L.name;
  if (!p) return b;
  b.images = std::uint64_t(std::max(L.batch, 1));
  b.tiles_per_image = std::uint64_t(p->n_co) * std::uint64_t(p->n_row) * std::uint64_t(std::max(p->n_ci, 1));
  const std::uint64_t steps = b.images * b.tiles_per_image;
  const std::uint64_t stores = steps / std::uint64_t(std::max(p->n_ci, 1));
  b.instructions = steps + stores + b.images * std::uint64_t(p->n_row);
  return b;
}

// Instructions of one vector-unit step: its input LOAD, its compute and its STORE (act.cpp,
// eltwise.cpp and pool.cpp give every step at least one of each; tokens.cpp emits each as one
// instruction).
constexpr std::uint64_t kVectorStepInstructions = 3;

// A vector-unit layer's steps, from the tiling its generator uses:
// - ACT and ELTWISE stream chunks of at most kStreamChunkElems elements
//   (GenCtx::chunk_elems), and a chunk's two input and two output buffers (double-buffered)
//   fit in the SRAM, so a chunk has at most cap / (4 x element bytes) elements; the one
//   exception, scale_shift (BatchNorm) in tiles of whole channels, has only the SRAM limit;
// - POOL tiles of ct channels x rows: two input and two output tiles fit in the SRAM, so a
//   step stores at most cap / 2 bytes of output, and ct <= ceil(C / 8) channels when whole
//   planes fit (else one channel), so at least ceil(C / ceil(C / 8)) channel groups.
std::uint64_t vector_steps(const LayerSpec& L, std::uint64_t cap, std::uint64_t e) {
  auto div_up = [](std::uint64_t a, std::uint64_t b) { return b == 0 ? 0 : (a + b - 1) / b; };
  if (L.kind == LayerKind::Pool) {
    const ConvGeom& g = L.geom;
    const std::uint64_t c = std::uint64_t(std::max(g.c_in, 1));
    const std::uint64_t out_bytes = c * std::uint64_t(std::max(g.h_out, 0)) * std::uint64_t(std::max(g.w_out, 0)) * e;
    return std::max(div_up(out_bytes, cap / 2), div_up(c, div_up(c, 8)));
  }
  std::uint64_t per_step = cap / (4 * e);
  const bool scale_shift = L.kind == LayerKind::Act && L.act == isa::ActOp::ScaleShift;
  if (!scale_shift) per_step = std::min(per_step, kStreamChunkElems);
  return div_up(L.elems, per_step);
}

// A vector-unit layer: kVectorStepInstructions per step of its tiling (vector_steps).
LayerSizeBound vector_bound(const LoweredGraph& lg, const LayerSpec& L, std::uint64_t cap) {
  LayerSizeBound b;
  b.layer = L.name;
  const std::uint64_t e = std::uint64_t(std::max(lg.act_bytes, 1));
  if (cap < 4 * e) return b;
  b.steps = vector_steps(L, cap, e);
  b.instructions = kVectorStepInstructions * b.steps;
  b.step_text = "LOAD, compute, STORE";
  return b;
}

// A data-movement layer (copy.cpp, layout.cpp): steps from the same chunk limits as
// vector_steps. A COPY (Concat) streams each input in chunks of at most
// min(kStreamChunkElems, cap / (4 x e)) elements, each a LOAD, an ACT pass and a STORE; a
// LAYOUT view (gen_moves: Transpose, Slice, nearest Resize...) tiles its output in at most
// kStreamChunkElems elements and half the SRAM per tile, and a costed layout (gen_layout)
// in chunks of at most a quarter of it, each at least a MOVE or ACT pass and a STORE. Other
// kinds (bilinear Resize, Gather, Attention, zero insertion): every STORE writes from one SRAM
// slot, so at least ceil(output bytes / capacity) of them.
LayerSizeBound movement_bound(const LoweredGraph& lg, const LayerSpec& L, std::uint64_t cap) {
  auto bytes = [&](const std::string& t) -> std::uint64_t {
    const auto it = lg.bytes.find(t);
    return it == lg.bytes.end() ? 0 : it->second;
  };
  auto div_up = [](std::uint64_t a, std::uint64_t b) { return b == 0 ? 0 : (a + b - 1) / b; };
  LayerSizeBound b;
  b.layer = L.name;
  const std::uint64_t e = std::uint64_t(std::max(lg.act_bytes, 1));
  if (cap < 4 * e) return b;
  const bool moves = (L.kind == LayerKind::Layout && !L.zero_insert && !L.linear_resize()) ||
                     (L.kind == LayerKind::Resize && !L.layout.empty());
  if (L.kind == LayerKind::Copy) {
    for (const std::string& in : L.inputs) b.steps += div_up(bytes(in) / e, std::min(kStreamChunkElems, cap / (4 * e)));
    b.instructions = kVectorStepInstructions * b.steps;
    b.step_text = "LOAD, compute, STORE";
  } else if (moves) {
    b.steps = div_up(L.elems, std::min(kStreamChunkElems, cap / (2 * e)));
    b.instructions = 2 * b.steps;
    b.step_text = "MOVE or ACT, STORE";
  } else {
    b.instructions = div_up(bytes(L.output), cap);
  }
  return b;
}

}  // namespace

ProgramSizeBound program_size_bound(const LoweredGraph& lg, const HwConfig& hw, const TilingOptions& opt,
                                    const std::vector<bool>& in_stack) {
  ProgramSizeBound out;
  const std::uint64_t cap = hw.sram.capacity_bytes;
  for (std::size_t i = 0; i < lg.layers.size(); ++i) {
    const LayerSpec& L = lg.layers[i];
    LayerSizeBound b;
    b.layer = L.name;
    const bool stacked = i < in_stack.size() && in_stack[i];
    if (stacked || L.kind == LayerKind::Host) {
      b.instructions = 1;  // a stack computes every layer at least once; a host layer is one HOST
    } else if (L.kind == LayerKind::Conv || L.kind == LayerKind::Gemm) {
      b = conv_bound(L, cap, opt, lg.act_bytes);
    } else if (L.kind == LayerKind::Act || L.kind == LayerKind::Eltwise || L.kind == LayerKind::Pool) {
      b = vector_bound(lg, L, cap);
    } else {
      b = movement_bound(lg, L, cap);
    }
    out.instructions += b.instructions;
    if (b.instructions > out.largest.instructions) out.largest = b;
  }
  return out;
}

}  // namespace npu::compiler::codegen
