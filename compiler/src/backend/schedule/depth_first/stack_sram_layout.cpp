// The SRAM layout of a depth-first stack: weights and biases (resident, in two alternating
// slots, or placed by lifetime when streamed through one band), int8 requantisation tables,
// LOADed and gathered operand tiles, shared input tiles, the tiles the stack computes, and
// the buffers placed by lifetime (first fit). Reference: docs/depth_first.md "Stacks" and
// "Weights: resident or streamed".
#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

#include "backend/schedule/depth_first/stack_planner.hpp"

namespace npu::compiler::depth_first {

// Named, not anonymous: Planner's members below hold these types (in a unity build GCC
// warns of a member whose type has internal linkage, -Wsubobject-linkage).
namespace stack_layout_detail {

// A buffer placed by lifetime: stack layers that write / last read it within a band.
struct Local {
  int buffer;
  int first, last;
};

// First and last stack layer with an operand (or a piece of one) that `reads` ({n, -1}: none).
// reads(operand, piece index or -1 for the whole operand) -> bool.
template <class Reads>
std::pair<int, int> reader_span(const StackPlan& p, Reads reads) {
  const int n_layers = int(p.layers.size());
  std::pair<int, int> span{n_layers, -1};
  for (int k = 0; k < n_layers; ++k)
    for (const Operand* o : {&p.layers[std::size_t(k)].in, &p.layers[std::size_t(k)].res}) {
      bool r = reads(*o, -1);
      for (const Piece& pc : o->pieces) r = r || reads(*o, int(&pc - o->pieces.data()));
      if (r) span = {std::min(span.first, k), std::max(span.second, k)};
    }
  return span;
}

}  // namespace stack_layout_detail
using namespace stack_layout_detail;

// The SRAM layout in progress (layout()): a bump allocator (`cursor`, bytes) for what lives
// the whole stack, and the buffers placed by lifetime after it.
struct Planner::LayoutState {
  LayoutState(std::uint64_t align_bytes, int bands, int layers)
      : align(align_bytes), ping(bands > 1 ? 2 : 1), one_band(bands == 1), n_layers(layers) {}
  std::uint64_t align;
  // Double-buffered: DDR loads, stored tensors (the DMA of band b overlaps band b+1's compute);
  // one slot when the stack has one band (a second would never be used).
  int ping;
  // One band: a buffer is needed only while its layers run, so every buffer is placed by
  // lifetime (stack layers [first, last]): a LOADed operand or shared input from the
  // layer before its first reader (the LOAD overlaps that layer's compute) to its last
  // reader; a stored tensor from its producer to its last reader, and at least the next
  // layer (its STORE overlaps that compute). The hazard tokens make each LOAD or compute
  // wait for the earlier users of the bytes it reuses.
  bool one_band;
  int n_layers;
  std::uint64_t cursor = 0;
  std::vector<Local> locals;
  std::vector<int> fixed;  // buffers placed for the whole stack (DDR-facing or carried)
  std::vector<std::pair<int, std::size_t>> weight_locals;  // (buffer, stack layer)

  std::uint32_t place(std::uint64_t bytes) {
    const std::uint64_t at = align_up(cursor, align);
    cursor = at + bytes;
    return std::uint32_t(at);
  }
  void keep(int buffer, bool ddr, int first, int last) {
    if (ddr && !one_band) fixed.push_back(buffer);
    else locals.push_back({buffer, first, last});
  }
};

// One band, weights streamed: `ev` laid out with each layer's weights loaded two layers ahead
// (summary.weights_ahead 2) where that fits, else one layer ahead.
void Planner::layout_streamed_ahead(Evaluation& ev) const {
  Evaluation deeper = ev;
  deeper.plan.summary.weights_ahead = 2;
  layout(deeper.plan, deeper);
  if (deeper.fits) ev = std::move(deeper);
  else layout(ev.plan, ev);
}

// Addresses of every buffer, weight, bias and table of `p`, and whether they fit the SRAM
// (ev.need_bytes, ev.fits; p.summary.sram_bytes).
void Planner::layout(StackPlan& p, Evaluation& ev) const {
  LayoutState s(in_.opt.align_bytes, p.summary.bands, int(p.layers.size()));
  place_weights(p, s);
  place_requant_tables(p, s);
  operand_buffers(p, s);
  input_tile_buffers(p, s);
  tensor_buffers(p, s);
  for (int i : s.fixed) {  // the whole stack's lifetime, in buffer order
    Buffer& b = p.buffers[std::size_t(i)];
    for (int k = 0; k < b.slots; ++k) b.addr[k] = s.place(b.bytes);
  }
  place_locals(p, s);
  for (const auto& [buffer, k] : s.weight_locals) {
    StackLayer& sl = p.layers[k];
    sl.w_addr = p.buffers[std::size_t(buffer)].addr[0];
    sl.bias_addr = std::uint32_t(sl.w_addr + align_up(weight_bytes(*sl.spec), s.align));
  }
  ev.need_bytes = s.cursor;
  ev.fits = s.cursor <= in_.sram_bytes && s.cursor <= 0xffffffffull;
  p.summary.sram_bytes = s.cursor;
}

// Weights and biases: resident for the whole stack, side by side, or (weights_streamed)
// re-loaded by every band into two alternating slots, layer k of the stack in slot k % 2 of
// the size of the largest layer's weights and bias (the hazard tokens order a slot's
// reuse). Streamed in a one-band stack, each layer's weights load once, while the previous
// layer computes (summary.weights_ahead 1; 2: the previous two), and are read by its one
// compute: they need SRAM only from that layer's compute to their own, so they are placed
// below with the on-chip tiles by that lifetime (`weight_locals`) instead of in two slots
// of the largest. (cost() charges what those layers' compute cannot hide of each load.)
void Planner::place_weights(StackPlan& p, LayoutState& s) const {
  if (p.summary.bands == 1 && p.summary.weights_streamed) {
    for (std::size_t k = 0; k < p.layers.size(); ++k) {
      const LayerSpec& L = *p.layers[k].spec;
      if (!is_conv(L)) continue;
      const std::uint64_t wb = weight_bytes(L), bb = L.bias.empty() ? 0 : std::uint64_t(L.geom.c_out) * isa::kParamElemBytes;
      Buffer b;
      b.bytes = align_up(wb, s.align) + bb;
      s.weight_locals.emplace_back(int(p.buffers.size()), k);
      p.buffers.push_back(b);
      p.summary.weight_bytes += wb + bb;
    }
  } else if (!p.summary.weights_streamed) {  // resident: side by side
    for (StackLayer& sl : p.layers) {
      const LayerSpec& L = *sl.spec;
      if (!is_conv(L)) continue;
      const std::uint64_t wb = weight_bytes(L);
      sl.w_addr = s.place(wb);
      p.summary.weight_bytes += wb;
      if (!L.bias.empty()) {
        sl.bias_addr = s.place(std::uint64_t(L.geom.c_out) * isa::kParamElemBytes);
        p.summary.weight_bytes += std::uint64_t(L.geom.c_out) * isa::kParamElemBytes;
      }
    }
  } else {
    weights_in_two_slots(p, s);
  }
}

// Streamed weights of a several-band stack: two slots of the largest layer's weights and bias.
void Planner::weights_in_two_slots(StackPlan& p, LayoutState& s) const {
  std::uint64_t slot = 0;
  for (const StackLayer& sl : p.layers) {
    const LayerSpec& L = *sl.spec;
    if (!is_conv(L)) continue;
    const std::uint64_t wb = align_up(weight_bytes(L), s.align);
    slot = std::max(slot, wb + (L.bias.empty() ? 0 : std::uint64_t(L.geom.c_out) * isa::kParamElemBytes));
  }
  const std::uint32_t base[2] = {s.place(slot), s.place(slot)};
  int k = 0;
  for (StackLayer& sl : p.layers) {
    const LayerSpec& L = *sl.spec;
    if (!is_conv(L)) continue;
    sl.w_addr = base[k % 2];
    sl.bias_addr = std::uint32_t(sl.w_addr + align_up(weight_bytes(L), s.align));
    ++k;
  }
  p.summary.weight_bytes = 2 * slot;
}

// int8 requantisation tables (resident like the weights): CONV pairs, ELTWISE add words.
void Planner::place_requant_tables(StackPlan& p, LayoutState& s) const {
  for (StackLayer& sl : p.layers) {
    const LayerSpec& L = *sl.spec;
    if (L.requant.empty()) continue;
    const std::uint64_t tb = lg_.bytes.at(L.requant);  // CONV pairs, the ELTWISE add words or mul pair
    sl.requant_bytes = tb;
    sl.requant_addr = s.place(tb);
    p.summary.weight_bytes += tb;
  }
}

// Bytes of the largest band tile of a [c, rows, w] tensor.
std::uint64_t Planner::tile_bytes(int c, int w, const std::vector<RowRange>& rows) const {
  int m = 0;
  for (const RowRange& r : rows) m = std::max(m, r.rows());
  return std::uint64_t(c) * std::uint64_t(m) * std::uint64_t(w) * std::uint64_t(e_);
}

// A buffer for every operand not read in place: LOADed ones (double-buffered, from the
// layer before) or gathered by MOVEs only (an on-chip tile of its reader).
void Planner::operand_buffers(StackPlan& p, LayoutState& s) const {
  const int ahead = std::max(p.summary.weights_ahead, 1);
  for (const auto& [buffer, k] : s.weight_locals) s.locals.push_back({buffer, std::max(int(k) - ahead, 0), int(k)});
  for (std::size_t k = 0; k < p.layers.size(); ++k)
    for (Operand* o : {&p.layers[k].in, &p.layers[k].res}) {
      if (o->tensor.empty() || o->on_chip) continue;
      bool from_ddr = !o->gathered();
      for (const Piece& pc : o->pieces) from_ddr = from_ddr || (pc.produced < 0 && pc.input < 0);
      Buffer b;
      b.bytes = tile_bytes(o->c, o->w, o->rows);
      b.slots = from_ddr ? s.ping : 1;
      o->buffer = int(p.buffers.size());
      p.buffers.push_back(b);
      s.keep(o->buffer, from_ddr, from_ddr ? std::max(int(k) - 1, 0) : int(k), int(k));
    }
}

// Shared input tiles: LOADed per band, double-buffered, from the layer before the first reader.
void Planner::input_tile_buffers(StackPlan& p, LayoutState& s) const {
  for (std::size_t i = 0; i < p.inputs.size(); ++i) {
    InputTile& it = p.inputs[i];
    Buffer b;
    b.bytes = tile_bytes(it.c, it.w, it.rows);
    b.slots = s.ping;
    it.buffer = int(p.buffers.size());
    p.buffers.push_back(b);
    auto [first, last] = reader_span(p, [&](const Operand& o, int piece) {
      return (piece < 0 ? o.input : o.pieces[std::size_t(piece)].input) == int(i);
    });
    if (first > last) first = 0, last = s.n_layers - 1;  // (share_inputs gives every tile readers)
    s.keep(it.buffer, true, std::max(first - 1, 0), last);
  }
}

// The tiles of the tensors the stack computes, and their scratch tiles.
void Planner::tensor_buffers(StackPlan& p, LayoutState& s) const {
  for (std::size_t ti = 0; ti < p.tensors.size(); ++ti) {
    StackTensor& t = p.tensors[ti];
    // Cache: a tile whose rows carry over to the next band keeps two slots (band b
    // assembles slot b % 2 from slot (b - 1) % 2); the computed rows land in a scratch
    // tile first (two slots when a STORE reads them).
    bool carries = false, scratch = false;
    for (int band = 0; band < int(t.rows.size()); ++band)
      if (t.cached_rows(band) > 0) {
        carries = true;
        scratch = scratch || !t.computed[std::size_t(band)].empty();
      }
    int last_read = std::max(t.producer, reader_span(p, [&](const Operand& o, int piece) {
                                           return piece < 0 ? o.on_chip && o.produced == int(ti)
                                                            : o.pieces[std::size_t(piece)].produced == int(ti);
                                         }).second);
    if (t.stored) last_read = std::max(last_read, std::min(t.producer + 1, s.n_layers - 1));
    Buffer b;
    b.bytes = tile_bytes(t.c, t.w, t.rows);
    b.slots = carries ? 2 : t.stored ? s.ping : 1;
    t.buffer = int(p.buffers.size());
    p.buffers.push_back(b);
    s.keep(t.buffer, t.stored || carries, t.producer, last_read);
    if (scratch) {
      Buffer sc;
      sc.bytes = tile_bytes(t.c, t.w, t.computed);
      sc.slots = t.stored ? s.ping : 1;
      t.scratch = int(p.buffers.size());
      p.buffers.push_back(sc);
      s.keep(t.scratch, t.stored, t.producer, t.producer);
    }
  }
}

// Single-slot on-chip tiles are only touched by the compute queue; tiles whose band
// lifetimes do not overlap share SRAM (first fit, largest first). (One band: every buffer.)
void Planner::place_locals(StackPlan& p, LayoutState& s) {
  const std::uint64_t base = align_up(s.cursor, s.align);
  std::vector<Local>& locals = s.locals;
  std::sort(locals.begin(), locals.end(), [&](const Local& a, const Local& b) {
    const std::uint64_t x = p.buffers[std::size_t(a.buffer)].bytes, y = p.buffers[std::size_t(b.buffer)].bytes;
    return x != y ? x > y : a.buffer < b.buffer;
  });
  std::vector<std::pair<std::uint64_t, std::uint64_t>> spans;  // placed [lo, hi) per locals index
  std::uint64_t end = base;
  for (std::size_t i = 0; i < locals.size(); ++i) {
    const std::uint64_t size = align_up(std::max<std::uint64_t>(p.buffers[std::size_t(locals[i].buffer)].bytes, 1), s.align);
    std::vector<std::pair<std::uint64_t, std::uint64_t>> busy;
    for (std::size_t j = 0; j < i; ++j)
      if (locals[j].first <= locals[i].last && locals[i].first <= locals[j].last) busy.push_back(spans[j]);
    std::sort(busy.begin(), busy.end());
    std::uint64_t at = base;
    for (const auto& [lo, hi] : busy) {
      if (at + size <= lo) break;
      at = std::max(at, hi);
    }
    spans.emplace_back(at, at + size);
    end = std::max(end, at + size);
    Buffer& b = p.buffers[std::size_t(locals[i].buffer)];
    b.addr[0] = b.addr[1] = std::uint32_t(at);
  }
  s.cursor = std::max(s.cursor, end);
}

}  // namespace npu::compiler::depth_first
