// Tiles of a layout layer computed by MOVE (layout_tiles.hpp).
#include "npu/compiler/backend/tiling/layout_tiles.hpp"

#include <algorithm>
#include <optional>
#include <stdexcept>
#include <utility>

namespace npu::compiler {

namespace {

struct TileDim {
  std::uint64_t x = 1;                    // extent within the tile
  std::uint64_t in = 0, out = 0;          // strides (elements) in the input / the output
  std::uint64_t sram = 0;                 // stride in the packed input slot
};

std::uint64_t product(const std::vector<std::uint64_t>& v, std::size_t from, std::size_t to) {
  std::uint64_t p = 1;
  for (std::size_t d = from; d < to; ++d) p *= v[d];
  return p;
}

// Elements of the input box of one outer index range: dims with an in stride of 0 are
// repeated by the MOVE, not loaded.
std::uint64_t box_elems(const LayoutPiece& p, std::size_t t, std::uint64_t c) {
  std::uint64_t n = 1;
  for (std::size_t d = t; d < p.dims.size(); ++d)
    if (p.in_stride[d] != 0) n *= d == t ? c : p.dims[d];
  return n;
}

// The LOADs of one piece's tile box (`dims` with their tile extents), packed into the slot
// from `slot_base` in the input's order; sets each dim's SRAM stride.
std::uint64_t add_loads(std::vector<TileDim>& dims, std::size_t piece, std::uint64_t in_base,
                        std::uint64_t slot_base, std::vector<LayoutTile::Load>& loads) {
  std::vector<std::size_t> box;
  for (std::size_t d = 0; d < dims.size(); ++d)
    if (dims[d].x > 1 && dims[d].in != 0) box.push_back(d);
  std::stable_sort(box.begin(), box.end(), [&](std::size_t a, std::size_t b) { return dims[a].in > dims[b].in; });
  std::uint64_t s = 1;
  for (std::size_t k = box.size(); k-- > 0;) {
    dims[box[k]].sram = s;
    s *= dims[box[k]].x;
  }
  const std::uint64_t elems = s;
  // Runs: neighbours contiguous in the input become one dimension of the DMA.
  std::vector<std::pair<std::uint64_t, std::uint64_t>> runs;  // (extent, stride), outermost first
  for (std::size_t d : box) {
    if (!runs.empty() && runs.back().second == dims[d].in * dims[d].x && runs.back().first * dims[d].x <= 0xffffffffull) {
      runs.back().first *= dims[d].x;
      runs.back().second = dims[d].in;
    } else {
      runs.push_back({dims[d].x, dims[d].in});
    }
  }
  LayoutTile::Load ld;
  ld.piece = piece;
  std::uint64_t e0 = 1;
  if (!runs.empty() && runs.back().second == 1) {
    e0 = runs.back().first;
    runs.pop_back();
  }
  ld.extent[0] = std::uint32_t(e0);
  std::pair<std::uint64_t, std::uint64_t> rows{1, 0}, planes{1, 0};
  if (!runs.empty()) rows = runs.back(), runs.pop_back();
  if (!runs.empty()) planes = runs.back(), runs.pop_back();
  ld.extent[1] = std::uint32_t(rows.first);
  ld.extent[2] = std::uint32_t(planes.first);
  ld.stride = {rows.first > 1 ? rows.second : 0, planes.first > 1 ? planes.second : 0};
  const std::uint64_t per_load = e0 * rows.first * planes.first;
  // The dims left over: one LOAD per index, outermost first (packed slot order).
  std::uint64_t count = 1;
  for (const auto& r : runs) count *= r.first;
  for (std::uint64_t k = 0; k < count; ++k) {
    std::uint64_t rem = k, off = 0;
    for (std::size_t r = runs.size(); r-- > 0;) {
      off += (rem % runs[r].first) * runs[r].second;
      rem /= runs[r].first;
    }
    ld.in_elem = in_base + off;
    ld.slot_elem = slot_base + k * per_load;
    loads.push_back(ld);
  }
  return elems;
}

// Checks that the pieces agree on packed outer dims (throws std::logic_error if not) and
// returns the elements of the output block of one outer index: the pieces' own parts together.
std::uint64_t outer_block_elems(const std::vector<LayoutPiece>& pieces) {
  if (pieces.empty()) throw std::logic_error("plan_layout_tiles: no pieces");
  const LayoutPiece& p0 = pieces[0];
  const std::size_t A = p0.outer;
  for (const LayoutPiece& p : pieces) {
    if (p.outer != A || p.dims.size() < A || p.in_stride.size() != p.dims.size() || p.out_stride.size() != p.dims.size() ||
        p.dims.size() > std::size_t(isa::MoveParams::kMaxDims))
      throw std::logic_error("plan_layout_tiles: malformed piece of input '" + p.input + "'");
    for (std::size_t d = 0; d < A; ++d)
      if (p.dims[d] != p0.dims[d] || p.out_stride[d] != p0.out_stride[d])
        throw std::logic_error("plan_layout_tiles: pieces disagree on the outer dims");
  }
  std::uint64_t B = 0;
  for (const LayoutPiece& p : pieces) B += product(p.dims, A, p.dims.size());
  for (std::size_t d = 0; d < A; ++d)
    if (p0.out_stride[d] != B * product(p0.dims, d + 1, A))
      throw std::logic_error("plan_layout_tiles: the outer dims are not packed in the output");
  return B;
}

// The tile shape: (t, c) = one index of the outer dims before t, c indices of dim t, all of
// the dims after it, with the first t and then the largest c that fits; none if nothing fits.
std::optional<std::pair<std::size_t, std::uint64_t>> choose_split(const std::vector<LayoutPiece>& pieces,
                                                                  std::uint64_t B, std::uint64_t max_tile_elems,
                                                                  std::uint64_t max_out_elems, std::uint64_t burst) {
  const LayoutPiece& p0 = pieces[0];
  const std::size_t A = p0.outer;
  auto fits_in = [&](std::size_t t, std::uint64_t c, std::uint64_t max_out) {
    const std::uint64_t outer = A == 0 ? 1 : c * product(p0.dims, t + 1, A);
    const std::uint64_t out = outer * B;
    std::uint64_t in = 0;
    for (const LayoutPiece& p : pieces) in += A == 0 ? box_elems(p, 0, p.dims.empty() ? 1 : p.dims[0]) : box_elems(p, t, c);
    return in + out <= max_tile_elems && out <= std::max(max_out, B);
  };
  auto fits = [&](std::size_t t, std::uint64_t c) { return fits_in(t, c, max_out_elems); };
  std::size_t t = 0;
  std::uint64_t c = 1;
  if (A == 0) {
    if (!fits(0, 1)) return std::nullopt;
  } else {
    while (t < A && !fits(t, 1)) ++t;
    if (t == A) return std::nullopt;
    std::uint64_t lo = 1, hi = p0.dims[t];
    while (lo < hi) {
      const std::uint64_t mid = (lo + hi + 1) / 2;
      if (fits(t, mid)) lo = mid; else hi = mid - 1;
    }
    c = lo;
    const bool contiguous = std::all_of(pieces.begin(), pieces.end(), [&](const LayoutPiece& p) { return p.in_stride[t] == 1; });
    if (burst > 1 && contiguous && c < p0.dims[t]) {  // whole bursts per tile (plan_layout_tiles)
      const std::uint64_t whole = std::min(p0.dims[t], burst);
      if (c >= burst) c = c / burst * burst;
      else if (fits_in(t, whole, ~std::uint64_t(0))) c = whole;
    }
  }
  return std::make_pair(t, c);
}

// The MOVE of one piece's tile from its packed input slot at `slot` to its place in the
// output block: the dims of extent above 1, innermost first.
isa::MoveParams tile_move(const std::vector<TileDim>& dims, std::uint64_t slot, std::uint64_t out_offset) {
  isa::MoveParams m;
  m.in_addr = std::uint32_t(slot);
  m.out_addr = std::uint32_t(out_offset);
  int r = 0;
  for (std::size_t d = dims.size(); d-- > 0;) {
    if (dims[d].x <= 1) continue;
    m.extent[std::size_t(r)] = std::uint32_t(dims[d].x);
    m.in_stride[std::size_t(r)] = std::uint32_t(dims[d].in == 0 ? 0 : dims[d].sram);
    m.out_stride[std::size_t(r)] = std::uint32_t(dims[d].out);
    ++r;
  }
  if (r == 0) m.extent[0] = 1, m.in_stride[0] = m.out_stride[0] = 1, r = 1;
  m.rank = r;
  return m;
}

// One tile: outer index `lo` (dims before t, and dim t from lo[t]) with `cnt` indices of dim t;
// its LOADs and MOVEs, piece by piece. `slot`: the packed input slot's elements used (out).
LayoutTile make_tile(const std::vector<LayoutPiece>& pieces, std::size_t t, std::uint64_t cnt,
                     const std::vector<std::uint64_t>& lo, std::uint64_t B, std::uint64_t& slot) {
  const LayoutPiece& p0 = pieces[0];
  const std::size_t A = p0.outer;
  LayoutTile tile;
  for (std::size_t d = 0; d < A && d <= t; ++d) tile.out_first += lo[d] * p0.out_stride[d];
  tile.out_elems = (A == 0 ? 1 : cnt * product(p0.dims, t + 1, A)) * B;
  slot = 0;
  for (std::size_t k = 0; k < pieces.size(); ++k) {
    const LayoutPiece& p = pieces[k];
    std::vector<TileDim> dims(p.dims.size());
    std::uint64_t in_base = p.in_offset;
    for (std::size_t d = 0; d < p.dims.size(); ++d) {
      dims[d].in = p.in_stride[d];
      dims[d].out = p.out_stride[d];
      if (A > 0 && d < t) dims[d].x = 1;
      else if (A > 0 && d == t) dims[d].x = cnt;
      else dims[d].x = p.dims[d];
      if (A > 0 && d <= t) in_base += lo[d] * p.in_stride[d];
    }
    const std::uint64_t box = add_loads(dims, k, in_base, slot, tile.loads);
    tile.moves.push_back(tile_move(dims, slot, p.out_offset));
    slot += box;
  }
  return tile;
}

}  // namespace

std::optional<LayoutTilePlan> plan_layout_tiles(const std::vector<LayoutPiece>& pieces, std::uint64_t max_tile_elems,
                                                std::uint64_t max_out_elems, std::uint64_t burst_elems) {
  const std::uint64_t B = outer_block_elems(pieces);
  const LayoutPiece& p0 = pieces[0];
  const std::size_t A = p0.outer;
  const auto split = choose_split(pieces, B, max_tile_elems, max_out_elems, burst_elems);
  if (!split) return std::nullopt;
  const auto [t, c] = *split;

  LayoutTilePlan plan;
  const std::uint64_t prefix_count = A == 0 ? 1 : product(p0.dims, 0, t);
  const std::uint64_t n_t = A == 0 ? 1 : p0.dims[t];
  for (std::uint64_t pre = 0; pre < prefix_count; ++pre) {
    std::vector<std::uint64_t> lo(A, 0);
    std::uint64_t rem = pre;
    for (std::size_t d = t; d-- > 0;) {
      lo[d] = rem % p0.dims[d];
      rem /= p0.dims[d];
    }
    for (std::uint64_t c0 = 0; c0 < n_t; c0 += c) {
      const std::uint64_t cnt = std::min(c, n_t - c0);
      if (A > 0) lo[t] = c0;
      std::uint64_t slot = 0;
      LayoutTile tile = make_tile(pieces, t, cnt, lo, B, slot);
      plan.in_slot_elems = std::max(plan.in_slot_elems, slot);
      plan.out_slot_elems = std::max(plan.out_slot_elems, tile.out_elems);
      plan.tiles.push_back(std::move(tile));
    }
  }
  std::string shape;
  for (std::size_t d = 0; d < A; ++d) shape += (d ? "x" : "") + std::to_string(p0.dims[d]);
  plan.describe = std::to_string(plan.tiles.size()) + " tiles of " + std::to_string(plan.out_slot_elems) +
                  " elems (outer " + (shape.empty() ? std::string("-") : shape) + ", split dim " + std::to_string(t) +
                  " by " + std::to_string(c) + ")";
  return plan;
}

}  // namespace npu::compiler
