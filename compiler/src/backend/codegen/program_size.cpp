// A lower bound on the instructions code generation makes, computed before it makes any
// (program_size.hpp, docs/compiler.md "Program size limit").
#include "backend/codegen/program_size.hpp"

#include <algorithm>

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
  std::optional<ConvTilePlan> p = plan_conv(L.geom, cap, o);
  if (!p && o.cin_split && L.kind == LayerKind::Conv && cin_split_applies(L.geom)) p = plan_conv_split(L.geom, cap, o);
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

// A vector-unit layer: each compute reads its operands from SRAM, so the larger of its input
// and output passes through the SRAM in at least ceil(bytes / capacity) computes.
LayerSizeBound vector_bound(const LoweredGraph& lg, const LayerSpec& L, std::uint64_t cap) {
  auto bytes = [&](const std::string& t) -> std::uint64_t {
    const auto it = lg.bytes.find(t);
    return it == lg.bytes.end() ? 0 : it->second;
  };
  std::uint64_t most = bytes(L.output);
  for (const std::string& in : L.inputs) most = std::max(most, bytes(in));
  LayerSizeBound b;
  b.layer = L.name;
  b.instructions = cap > 0 ? (most + cap - 1) / cap : 0;
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
    }  // other kinds (views, copies, gathers, attention): no bound claimed (0)
    out.instructions += b.instructions;
    if (b.instructions > out.largest.instructions) out.largest = b;
  }
  return out;
}

}  // namespace npu::compiler::codegen
