// Layout ops as strided views (LayoutPiece, lowering.hpp): what MOVE needs to compute them.
// Each output element of a Transpose, Split, Slice (positive steps), Concat along an inner axis
// or nearest upsampling by integer factors is one input element found by an affine index map;
// the codegen tiles the index space and moves each tile with LOAD + MOVE + STORE
// (layout_tiles.hpp). Ops not here (Pad, Expand, Tile, Gather, bilinear Resize, ...) keep the
// costed-only streaming copy and are reported as not computed by functional_problems.
#include <algorithm>

#include "lowering/lowering_table.hpp"

namespace npu::compiler::lowering {

namespace {

using Shape = std::vector<std::int64_t>;
using U64s = std::vector<std::uint64_t>;

U64s packed(const Shape& s) {
  U64s st(s.size(), 1);
  for (std::size_t d = s.size(); d-- > 1;) st[d - 1] = st[d] * std::uint64_t(std::max<std::int64_t>(s[d], 0));
  return st;
}

U64s dims_of(const Shape& s) {
  U64s d;
  for (auto x : s) d.push_back(std::uint64_t(std::max<std::int64_t>(x, 0)));
  return d;
}

bool known(const Graph& g, const std::string& t) { return !t.empty() && g.has_tensor(t) && g.tensor(t).shape_known(); }

// Drops dims of extent 1 (they address nothing), then merges neighbours that are contiguous in
// both the input and the output (fewer, longer MOVE dimensions). Merging stays inside the outer
// group and inside the piece's own dims, and the outer group is only merged when `merge_outer`
// (a single piece: no other piece must share its outer dims). Empty on more than 6 dims left.
std::vector<LayoutPiece> normalised(std::vector<LayoutPiece> pieces, bool merge_outer) {
  for (LayoutPiece& p : pieces) {
    LayoutPiece q = p;
    q.dims.clear(), q.in_stride.clear(), q.out_stride.clear();
    q.outer = 0;
    for (std::size_t d = 0; d < p.dims.size(); ++d) {
      if (p.dims[d] == 0) return {};  // an empty tensor: nothing to move, no MOVE lowering
      if (p.dims[d] == 1) continue;
      const bool outer = d < p.outer;
      const bool group_start = q.dims.empty() || (!outer && q.dims.size() == q.outer);
      const std::size_t b = q.dims.size() - (q.dims.empty() ? 0 : 1);
      if (!group_start && (!outer || merge_outer) && q.in_stride[b] == p.in_stride[d] * p.dims[d] &&
          q.out_stride[b] == p.out_stride[d] * p.dims[d]) {
        q.dims[b] *= p.dims[d];
        q.in_stride[b] = p.in_stride[d];
        q.out_stride[b] = p.out_stride[d];
        continue;
      }
      q.dims.push_back(p.dims[d]);
      q.in_stride.push_back(p.in_stride[d]);
      q.out_stride.push_back(p.out_stride[d]);
      if (outer) q.outer = q.dims.size();
    }
    if (q.dims.size() > 6) return {};
    p = q;
  }
  return pieces;
}

// One piece reading input 0 through `in_stride`, written packed.
std::vector<LayoutPiece> single(const Graph& g, const Node& n, std::size_t k, U64s in_stride, std::uint64_t in_offset) {
  LayoutPiece p;
  p.input = n.inputs[0];
  p.dims = dims_of(g.tensor(n.outputs[k]).shape);
  p.in_stride = std::move(in_stride);
  p.out_stride = packed(g.tensor(n.outputs[k]).shape);
  p.in_offset = in_offset;
  p.outer = p.dims.size();
  return normalised({p}, true);
}

std::vector<LayoutPiece> transpose(const Graph& g, const Node& n) {
  const Shape& s = g.tensor(n.inputs[0]).shape;
  std::vector<std::int64_t> perm = n.attr_ints("perm");
  if (perm.empty())
    for (std::size_t d = s.size(); d-- > 0;) perm.push_back(std::int64_t(d));
  if (perm.size() != s.size()) return {};
  std::vector<bool> seen(s.size(), false);
  const U64s in = packed(s);
  U64s st;
  for (auto a : perm) {
    if (a < 0 || a >= std::int64_t(s.size()) || seen[std::size_t(a)]) return {};
    seen[std::size_t(a)] = true;
    st.push_back(in[std::size_t(a)]);
  }
  return single(g, n, 0, st, 0);
}

std::vector<LayoutPiece> split(const Graph& g, const Node& n, std::size_t k) {
  const Shape& s = g.tensor(n.inputs[0]).shape;
  std::int64_t axis = n.attr_int("axis", 0);
  if (axis < 0) axis += std::int64_t(s.size());
  if (axis < 0 || axis >= std::int64_t(s.size())) return {};
  std::uint64_t at = 0;
  for (std::size_t j = 0; j < k; ++j) {
    if (n.outputs[j].empty()) return {};  // offsets of later outputs need the earlier shapes
    if (!known(g, n.outputs[j])) return {};
    at += std::uint64_t(g.tensor(n.outputs[j]).shape.at(std::size_t(axis)));
  }
  const U64s in = packed(s);
  return single(g, n, k, in, at * in[std::size_t(axis)]);
}

std::vector<LayoutPiece> slice(const Graph& g, const Node& n) {
  const Shape& s = g.tensor(n.inputs[0]).shape;
  const Shape& o = g.tensor(n.outputs[0]).shape;
  if (o.size() != s.size()) return {};
  SliceArgs args;
  if (!slice_args(g, n, args)) return {};
  const auto& [starts, ends, axes, steps] = args;
  const U64s in = packed(s);
  U64s st = in;
  std::uint64_t offset = 0;
  for (std::size_t i = 0; i < starts.size(); ++i) {
    std::int64_t a = axes[i] < 0 ? axes[i] + std::int64_t(s.size()) : axes[i];
    if (a < 0 || a >= std::int64_t(s.size())) return {};
    const std::int64_t dim = s[std::size_t(a)], step = steps.empty() ? 1 : steps[i];
    if (step < 1) return {};  // negative steps walk backwards: no MOVE lowering (not computed)
    std::int64_t b = starts[i] < 0 ? starts[i] + dim : starts[i];
    std::int64_t e = ends[i] < 0 ? ends[i] + dim : ends[i];
    b = std::clamp<std::int64_t>(b, 0, dim);
    e = std::clamp<std::int64_t>(e, 0, dim);
    const std::int64_t len = e > b ? (e - b + step - 1) / step : 0;
    if (len != o[std::size_t(a)]) return {};  // shape inference disagrees: do not guess
    offset += std::uint64_t(b) * in[std::size_t(a)];
    st[std::size_t(a)] = in[std::size_t(a)] * std::uint64_t(step);
  }
  return single(g, n, 0, st, offset);
}

}  // namespace

std::vector<LayoutPiece> concat_pieces(const Graph& g, const Node& n) {
  if (n.outputs.empty() || !known(g, n.outputs[0])) return {};
  const Shape& o = g.tensor(n.outputs[0]).shape;
  std::int64_t axis = n.attr_int("axis", 0);
  if (axis < 0) axis += std::int64_t(o.size());
  if (axis < 0 || axis >= std::int64_t(o.size())) return {};
  const U64s out = packed(o);
  std::vector<LayoutPiece> pieces;
  std::uint64_t at = 0;
  for (const std::string& in : n.inputs) {
    if (!known(g, in) || is_const(g, in)) return {};  // a constant part is not in the DDR image
    const Shape& s = g.tensor(in).shape;
    if (s.size() != o.size()) return {};
    LayoutPiece p;
    p.input = in;
    p.dims = dims_of(s);
    p.in_stride = packed(s);
    p.out_stride = out;
    p.out_offset = at * out[std::size_t(axis)];
    p.outer = std::size_t(axis);
    at += std::uint64_t(s[std::size_t(axis)]);
    if (std::uint64_t(s[std::size_t(axis)]) == 0) continue;
    pieces.push_back(std::move(p));
  }
  if (at != std::uint64_t(o[std::size_t(axis)])) return {};
  return normalised(std::move(pieces), false);
}

std::vector<LayoutPiece> upsample_pieces(const Graph& g, const Node& n) {
  if (n.outputs.empty() || !known(g, n.inputs[0]) || !known(g, n.outputs[0])) return {};
  if (n.attr_string("mode", "nearest") != "nearest") return {};
  // out[y] = in[floor(y / f)] holds for asymmetric + floor (opset 10's Upsample/Resize, YOLO's
  // export) and for half_pixel with a rounding nearest_mode: y = f k + j maps to
  // k + (j + 0.5)/f - 0.5, inside (k - 0.5, k + 0.5), which rounds to k. Not for the others.
  if (n.op_type == "Resize" && g.opset >= 11) {
    const std::string ctm = n.attr_string("coordinate_transformation_mode", "half_pixel");
    const std::string nm = n.attr_string("nearest_mode", "round_prefer_floor");
    const bool ok = (ctm == "asymmetric" && nm == "floor") ||
                    ((ctm == "half_pixel" || ctm == "pytorch_half_pixel") &&
                     (nm == "round_prefer_floor" || nm == "round_prefer_ceil"));
    if (!ok) return {};
  }
  const Shape& s = g.tensor(n.inputs[0]).shape;
  const Shape& o = g.tensor(n.outputs[0]).shape;
  if (s.size() != 4 || o.size() != 4 || s[0] != o[0] || s[1] != o[1] || s[2] < 1 || s[3] < 1 || o[2] % s[2] ||
      o[3] % s[3])
    return {};
  const std::uint64_t N = std::uint64_t(s[0]), C = std::uint64_t(s[1]), H = std::uint64_t(s[2]),
                      W = std::uint64_t(s[3]), fh = std::uint64_t(o[2] / s[2]), fw = std::uint64_t(o[3] / s[3]);
  LayoutPiece p;
  p.input = n.inputs[0];
  p.dims = {N, C, H, fh, W, fw};
  p.in_stride = {C * H * W, H * W, W, 0, 1, 0};
  p.out_stride = packed({std::int64_t(N), std::int64_t(C), std::int64_t(H), std::int64_t(fh), std::int64_t(W),
                         std::int64_t(fw)});
  p.outer = p.dims.size();
  return normalised({p}, true);
}

std::vector<LayoutPiece> layout_pieces(const Graph& g, const Node& n, std::size_t k) {
  if (n.inputs.empty() || k >= n.outputs.size() || !known(g, n.inputs[0]) || !known(g, n.outputs[k])) return {};
  if (is_const(g, n.inputs[0])) return {};
  if (n.op_type == "Transpose") return transpose(g, n);
  if (n.op_type == "Split") return split(g, n, k);
  if (n.op_type == "Slice") return slice(g, n);
  return {};
}

}  // namespace npu::compiler::lowering
