// The cost of a depth-first stack: MACs, array and vector-unit cycles, DDR bytes and the
// time estimate, and the same layers generated one by one (plan_conv per conv) for the
// choice between them. Reference: docs/depth_first.md.
#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

#include "backend/schedule/depth_first/stack_planner.hpp"
#include "backend/tiling/tiling_detail.hpp"

namespace npu::compiler::depth_first {

// Named, not anonymous: Planner's members below hold these types (in a unity build GCC
// warns of a member whose type has internal linkage, -Wsubobject-linkage).
namespace stack_cost_detail {

std::uint64_t bursts(std::uint64_t bytes, int burst) {
  const std::uint64_t b = std::uint64_t(std::max(burst, 1));
  return (bytes + b - 1) / b * b;
}

// DDR cost of moving rows [r.lo, r.hi) of all c channels of a burst-aligned [c, h, w] tensor:
// one run per channel from byte c x h x w x e + r.lo x w x e, or one run when the band is
// whole planes, each in the whole bursts it touches (tiling_detail::runs_cost).
std::uint64_t band_cost(int c, int h, int w, RowRange r, int e, int burst) {
  const std::uint64_t row = std::uint64_t(w) * std::uint64_t(e);
  return tiling_detail::runs_cost(std::uint64_t(r.rows()) * row, std::uint64_t(c), std::uint64_t(h) * row, burst,
                                  std::uint64_t(r.lo) * row);
}

// Streamed weights: per band and layer, its compute cycles and its weight bytes, for the
// part of each weight load the previous layer's compute cannot hide (add_weight_stalls).
struct StreamedLoad {
  std::uint64_t cycles = 0, weight_bytes = 0;
  int groups = 1;  ///< output-channel groups (weight_group_channels)
};

// Streamed weights sit on the critical path: with two slots, layer k's weights load while
// layer k-1 computes (not earlier: the slot is layer k-2's until its compute ends), so the
// part of each load longer than the previous compute in the band order is not hidden; in
// one band with weights_ahead 2, longer than the previous two layers' compute. In G
// output-channel groups the array computes group g while group g+1 loads, so the layer's
// own compute hides all but its last group's: (G - 1) / G of it.
// A weight LOAD is one sequential DMA stream (one descriptor per group): it takes
// isa::dma_transfers_ns, the achievable stream rate (on a DDR whose mapping keeps consecutive
// bursts in one bank group, half the peak: tCCD_L) plus each descriptor's first-burst latency.
// Adds the unhidden part of every load to s.estimated_ns.
void add_weight_stalls(StackSummary& s, const std::vector<std::vector<StreamedLoad>>& band_layer,
                       const TilingOptions& opt) {
  const double stream_bw = opt.stream_bytes_per_ns > 0 ? opt.stream_bytes_per_ns : opt.ddr_bytes_per_ns;
  if (!s.weights_streamed || (stream_bw <= 0 && !opt.dma.valid())) return;
  const std::size_t ahead = std::size_t(s.bands == 1 ? std::max(s.weights_ahead, 1) : 1);
  std::vector<double> prev;  // the last `ahead` computes, ns
  for (const auto& layers : band_layer)
    for (const StreamedLoad& l : layers) {
      const double own_ns = double(l.cycles) * opt.core_period_ns;
      double hidden = own_ns * double(l.groups - 1) / double(l.groups);
      for (double ns : prev) hidden += ns;
      const double load_ns = opt.dma.valid() ? isa::dma_transfers_ns(opt.dma, l.weight_bytes, std::uint64_t(l.groups))
                                             : double(l.weight_bytes) / stream_bw;
      s.estimated_ns += std::max(0.0, load_ns - hidden);
      prev.push_back(own_ns);
      if (prev.size() > ahead) prev.erase(prev.begin());
    }
}

}  // namespace stack_cost_detail
using namespace stack_cost_detail;

// What cost() adds up over the layers of one stack.
struct Planner::CostTally {
  explicit CostTally(StackSummary& summary) : s(summary) {}
  StackSummary& s;
  std::uint64_t lanes = 1;  ///< act_unit.lanes (at least 1)
  std::uint64_t bytes = 0, cycles = 0;
  std::uint64_t dmas = 0;  ///< LOADs and STOREs (each pays the first-burst latency)
  std::vector<std::vector<StreamedLoad>> band_layer;  ///< weights_streamed: per band, per conv
};

// MACs, array cycles, DDR bytes and the time estimate of the stack, and of the same layers
// generated one by one (plan_conv per conv), for the choice.
void Planner::cost(StackPlan& p) {
  StackSummary& s = p.summary;
  CostTally tally(s);
  tally.lanes = std::uint64_t(std::max(in_.hw.act_unit.lanes, 1));
  tally.band_layer.resize(s.weights_streamed ? std::size_t(std::max(s.bands, 0)) : 0);
  for (StackLayer& sl : p.layers) cost_layer(sl, p.tensors[std::size_t(sl.out)], tally);
  for (const InputTile& it : p.inputs)  // one LOAD per band for all readers
    for (const RowRange& r : it.rows) {
      tally.bytes += band_cost(it.c, it.h, it.w, r, e_, in_.opt.burst_bytes);
      ++tally.dmas;
    }
  s.ddr_bytes = tally.bytes;
  const double compute_ns = double(tally.cycles) * in_.opt.core_period_ns;
  const double memory_ns = dma_estimate_ns(in_.opt, tally.bytes, tally.dmas);
  // As plan_conv's estimate, with the stack's steps: one CONV/POOL of one band is the unit
  // double buffering cannot overlap (the first band's loads, the last band's stores).
  const double steps = double(std::max(s.bands, 1)) * double(p.layers.size());
  s.estimated_ns = std::max(compute_ns, memory_ns) + (compute_ns + memory_ns) / steps;
  add_weight_stalls(s, tally.band_layer, in_.opt);
  compare_layer_by_layer(p);
}

// One stack layer's weight loads, and per band its MACs, cycles (CONV/POOL/ELTWISE, the
// Cache MOVEs and gathers) and DDR bytes (operands LOADed, output STOREd); sets its
// group_channels.
void Planner::cost_layer(StackLayer& sl, const StackTensor& t, CostTally& tally) const {
  StackSummary& s = tally.s;
  const LayerSpec& L = *sl.spec;
  const int burst = in_.opt.burst_bytes;
  std::uint64_t layer_macs = 0;
  sl.group_channels = s.weights_streamed && is_conv(L)
                          ? weight_group_channels(L, weight_bytes(L), in_.opt.weight_group_bytes, in_.opt.array)
                          : L.geom.c_out;

  if (is_conv(L)) {
    // Once, or (streamed) once per band the layer computes in.
    std::uint64_t loads = 1;
    if (s.weights_streamed) {
      loads = 0;
      for (const RowRange& r : t.computed) loads += r.empty() ? 0 : 1;
    }
    tally.bytes += loads * bursts(weight_bytes(L), burst);
    tally.dmas += loads;
    if (!L.bias.empty()) {
      tally.bytes += loads * bursts(std::uint64_t(L.geom.c_out) * isa::kParamElemBytes, burst);
      tally.dmas += loads;
    }
  }
  const std::uint64_t lanes = tally.lanes;
  for (std::size_t b = 0; b < t.rows.size(); ++b) {
    const RowRange r = t.computed[b];
    if (const int ov = t.cached_rows(int(b)); ov > 0) {
      // Cache: the overlap rows and the computed rows MOVEd into the tile (vector unit).
      const std::uint64_t n = std::uint64_t(t.c) * std::uint64_t(ov + r.rows()) * std::uint64_t(t.w);
      tally.cycles += (n + lanes - 1) / lanes;
      s.move_elems += n;
    }
    if (r.empty()) continue;
    layer_macs += band_macs(L, sl.geom, r.rows());
    const std::uint64_t c = band_cycles(L, sl.geom, r.rows(), sl.in.rows[b].rows(), in_.opt.array, in_.hw.act_unit.lanes);
    tally.cycles += c;
    if (s.weights_streamed && b < tally.band_layer.size())
      tally.band_layer[b].push_back({c, is_conv(L) ? bursts(weight_bytes(L), burst) : 0, weight_groups(sl)});
    for (const Operand* o : {&sl.in, &sl.res}) operand_band(*o, b, tally);
    if (t.stored) {
      tally.bytes += band_cost(t.c, t.h, t.w, r, e_, burst);
      ++tally.dmas;
    }
  }
  // Rows no reader needs (a 1x1 stride-2 reader skips odd rows at a band's end) are not
  // computed; only rows computed more than once count as recomputed.
  s.macs += layer_macs;
  s.layer_macs += L.macs;
  s.recompute_macs += layer_macs - std::min(layer_macs, L.macs);
}

// Band b of an operand not read in place: its LOAD's DDR bytes, or per gathered piece its
// LOAD or its MOVE (vector-unit cycles).
void Planner::operand_band(const Operand& o, std::size_t b, CostTally& tally) const {
  if (o.tensor.empty() || o.on_chip) return;
  const int burst = in_.opt.burst_bytes;
  const RowRange rr = o.rows[b];
  if (!o.gathered()) {
    tally.bytes += band_cost(o.c, o.h, o.w, rr, e_, burst);
    ++tally.dmas;
    return;
  }
  for (const Piece& pc : o.pieces) {
    if (pc.produced < 0 && pc.input < 0) {
      tally.bytes += band_cost(pc.c, o.h, o.w, rr, e_, burst);
      ++tally.dmas;
      continue;
    }
    // One MOVE: a streaming pass of the vector unit (act_unit_timing.cpp).
    const std::uint64_t n = std::uint64_t(pc.c) * std::uint64_t(rr.rows()) * std::uint64_t(o.w);
    tally.cycles += (n + tally.lanes - 1) / tally.lanes;
    tally.s.move_elems += n;
  }
}

// The same layers' DDR bytes and estimated ns one by one, and the tensors the stack stores.
void Planner::compare_layer_by_layer(StackPlan& p) {
  StackSummary& s = p.summary;
  s.layer_by_layer_bytes = 0;
  s.layer_by_layer_ns = 0;
  for (const StackLayer& sl : p.layers) {
    const auto& [b, ns] = alone(sl.index);
    s.layer_by_layer_bytes += b;
    s.layer_by_layer_ns += ns;
  }
  for (const StackTensor& t : p.tensors)
    if (t.stored) s.stored.push_back(t.name);
}

// DDR bytes and estimated ns of layer k generated on its own (codegen's plan).
std::pair<std::uint64_t, double> Planner::alone(std::size_t k) {
  auto it = alone_.find(k);
  if (it != alone_.end()) return it->second;
  const LayerSpec& L = lg_.layers[k];
  std::pair<std::uint64_t, double> r{0, 0};
  if (is_conv(L)) {
    TilingOptions o = in_.opt;
    o.residual = !L.residual.empty();
    o.in_scale = !L.in_scale.empty();
    o.batch = std::max(L.batch, 1);
    const auto plan = plan_conv(L.geom, in_.sram_bytes, o);
    if (plan) {
      r.first = plan->burst_cost_bytes;
      if (!L.bias.empty()) r.first += bursts(std::uint64_t(L.geom.c_out) * isa::kParamElemBytes, in_.opt.burst_bytes);
      const double compute = double(plan->array_cycles) * in_.opt.core_period_ns;
      // The plan's LOADs and STOREs and the bias LOAD.
      const double memory = dma_estimate_ns(in_.opt, r.first, plan->dma_count + (L.bias.empty() ? 0 : 1));
      r.second = std::max(compute, memory) + (compute + memory) / std::max(plan->steps, 1);
    } else {
      r = {UINT64_MAX / 4, 1e30};  // cannot run alone: any stack is better
    }
  } else {
    const ConvGeom& g = geom_.at(k);
    const int inputs = L.kind == LayerKind::Eltwise ? 2 : 1;
    r.first = inputs * bursts(std::uint64_t(g.c_in) * g.h_in * g.w_in * e_, in_.opt.burst_bytes) +
              bursts(std::uint64_t(g.c_out) * g.h_out * g.w_out * e_, in_.opt.burst_bytes);
    const double compute =
        double(band_cycles(L, g, g.h_out, g.h_in, in_.opt.array, in_.hw.act_unit.lanes)) * in_.opt.core_period_ns;
    const double memory = dma_estimate_ns(in_.opt, r.first, std::uint64_t(inputs) + 1);  // whole tensors
    r.second = std::max(compute, memory) + (compute + memory) / 8;
  }
  alone_[k] = r;
  return r;
}

std::uint64_t band_macs(const LayerSpec& L, const ConvGeom& geom, int out_rows) {
  if (L.kind != LayerKind::Conv) return 0;
  ConvGeom g = geom;
  g.h_out = out_rows;
  return g.macs();
}

std::uint64_t band_cycles(const LayerSpec& L, const ConvGeom& geom, int out_rows, int in_rows,
                          const MacArrayConfig& array, int lanes) {
  if (L.kind == LayerKind::Conv) {
    ConvGeom g = geom;
    g.h_out = out_rows;
    return conv_array_cycles(g, g.c_out, out_rows, array, lanes);
  }
  const std::uint64_t n = std::uint64_t(std::max(lanes, 1));
  const std::uint64_t elems = std::uint64_t(geom.c_in) * std::max<std::uint64_t>(std::uint64_t(in_rows) * geom.w_in,
                                                                                 std::uint64_t(out_rows) * geom.w_out);
  return (elems + n - 1) / n;
}

}  // namespace npu::compiler::depth_first
