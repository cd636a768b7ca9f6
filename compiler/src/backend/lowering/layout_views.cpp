// Layout ops as strided views (LayoutPiece, lowering.hpp): what MOVE needs to compute them.
// Each output element of a Transpose, Split, Slice (positive steps), Expand (a broadcast: stride
// 0), Concat along an inner axis or nearest upsampling by integer factors is one input element
// found by an affine index map; the codegen tiles the index space and moves each tile with LOAD +
// MOVE + STORE (layout_tiles.hpp). Ops not here (Pad, Tile, Gather, bilinear Resize, ...) keep the
// costed-only streaming copy and are reported as not computed by functional_problems.
#include <algorithm>
#include <optional>
#include <set>

#include "backend/lowering/lowering_table.hpp"
#include "npu/compiler/backend/lowering/int8/int8_lowering.hpp"
#include "npu/compiler/ir/fused_attr.hpp"
#include "npu/compiler/transforms/pass.hpp"

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

// A layout op's output as an axis map of its input (unnormalised, so that two maps compose):
// output index i (over `dims`, outermost first) reads input element
// sum_a (base[a] + sum_{d: axis[d] = a} step[d] i_d) x packed(in_shape)[a] of `input`.
// Transpose: axis = perm, step 1; Split/Slice: axis d = d, base = the start, step = the step.
struct AxisView {
  std::string input;
  Shape in_shape;
  U64s dims;
  std::vector<std::size_t> axis;
  U64s step, base;  // step per output dim, base per input axis
};

std::optional<AxisView> transpose_view(const Graph& g, const Node& n) {
  const Shape& s = g.tensor(n.inputs[0]).shape;
  std::vector<std::int64_t> perm = n.attr_ints("perm");
  if (perm.empty())
    for (std::size_t d = s.size(); d-- > 0;) perm.push_back(std::int64_t(d));
  if (perm.size() != s.size()) return std::nullopt;
  std::vector<bool> seen(s.size(), false);
  AxisView v{n.inputs[0], s, dims_of(g.tensor(n.outputs[0]).shape), {}, {}, U64s(s.size(), 0)};
  for (auto a : perm) {
    if (a < 0 || a >= std::int64_t(s.size()) || seen[std::size_t(a)]) return std::nullopt;
    seen[std::size_t(a)] = true;
    v.axis.push_back(std::size_t(a));
    v.step.push_back(1);
  }
  return v;
}

// Identity axes (Split, Slice): output dim d reads input axis d.
AxisView identity_view(const Graph& g, const Node& n, std::size_t k) {
  const Shape& s = g.tensor(n.inputs[0]).shape;
  AxisView v{n.inputs[0], s, dims_of(g.tensor(n.outputs[k]).shape), {}, U64s(s.size(), 1), U64s(s.size(), 0)};
  for (std::size_t d = 0; d < s.size(); ++d) v.axis.push_back(d);
  return v;
}

std::optional<AxisView> split_view(const Graph& g, const Node& n, std::size_t k) {
  const Shape& s = g.tensor(n.inputs[0]).shape;
  std::int64_t axis = n.attr_int("axis", 0);
  if (axis < 0) axis += std::int64_t(s.size());
  if (axis < 0 || axis >= std::int64_t(s.size())) return std::nullopt;
  std::uint64_t at = 0;
  for (std::size_t j = 0; j < k; ++j) {
    if (n.outputs[j].empty()) return std::nullopt;  // offsets of later outputs need the earlier shapes
    if (!known(g, n.outputs[j])) return std::nullopt;
    at += std::uint64_t(g.tensor(n.outputs[j]).shape.at(std::size_t(axis)));
  }
  if (g.tensor(n.outputs[k]).shape.size() != s.size()) return std::nullopt;
  AxisView v = identity_view(g, n, k);
  v.base[std::size_t(axis)] = at;
  return v;
}

std::optional<AxisView> slice_view(const Graph& g, const Node& n) {
  const Shape& s = g.tensor(n.inputs[0]).shape;
  const Shape& o = g.tensor(n.outputs[0]).shape;
  if (o.size() != s.size()) return std::nullopt;
  SliceArgs args;
  if (!slice_args(g, n, args)) return std::nullopt;
  const auto& [starts, ends, axes, steps] = args;
  AxisView v = identity_view(g, n, 0);
  for (std::size_t i = 0; i < starts.size(); ++i) {
    std::int64_t a = axes[i] < 0 ? axes[i] + std::int64_t(s.size()) : axes[i];
    if (a < 0 || a >= std::int64_t(s.size())) return std::nullopt;
    const std::int64_t dim = s[std::size_t(a)], step = steps.empty() ? 1 : steps[i];
    if (step < 1) return std::nullopt;  // negative steps walk backwards: no MOVE lowering (not computed)
    std::int64_t b = starts[i] < 0 ? starts[i] + dim : starts[i];
    std::int64_t e = ends[i] < 0 ? ends[i] + dim : ends[i];
    b = std::clamp<std::int64_t>(b, 0, dim);
    e = std::clamp<std::int64_t>(e, 0, dim);
    const std::int64_t len = e > b ? (e - b + step - 1) / step : 0;
    if (len != o[std::size_t(a)]) return std::nullopt;  // shape inference disagrees: do not guess
    v.base[std::size_t(a)] = std::uint64_t(b);
    v.step[std::size_t(a)] = std::uint64_t(step);
  }
  return v;
}

// Expand (ONNX multidirectional broadcast, shapes right-aligned): output dim d reads input axis
// d - (rank_out - rank_in) with step 1, or step 0 where the input's axis is 1 and broadcast
// (or absent: a leading output dim). Grouped-query attention's K/V head repeat is one.
std::optional<AxisView> expand_view(const Graph& g, const Node& n) {
  const Shape& s = g.tensor(n.inputs[0]).shape;
  const Shape& o = g.tensor(n.outputs[0]).shape;
  if (o.size() < s.size() || s.empty()) return std::nullopt;
  const std::size_t lead = o.size() - s.size();
  AxisView v{n.inputs[0], s, dims_of(o), {}, {}, U64s(s.size(), 0)};
  for (std::size_t d = 0; d < o.size(); ++d) {
    if (d < lead) {
      v.axis.push_back(0);
      v.step.push_back(0);
      continue;
    }
    const std::size_t a = d - lead;
    if (s[a] != o[d] && s[a] != 1) return std::nullopt;  // shape inference disagrees: do not guess
    v.axis.push_back(a);
    v.step.push_back(s[a] == o[d] ? 1 : 0);
  }
  return v;
}

// A Reshape that only splits axes (and adds or drops unit dims): output dims d0..dk that
// together span input axis a read it with steps of their inner products (a [B, S, H n] ->
// [B, S, H, n] head split reads axis 2 with steps n and 1). A Reshape that merges axes has no
// axis map once its input is strided: nullopt.
std::optional<AxisView> reshape_view(const Graph& g, const Node& n) {
  const Shape& s = g.tensor(n.inputs[0]).shape;
  const Shape& o = g.tensor(n.outputs[0]).shape;
  AxisView v{n.inputs[0], s, dims_of(o), std::vector<std::size_t>(o.size(), 0), U64s(o.size(), 0),
             U64s(s.size(), 0)};
  std::size_t a = 0;
  for (std::size_t d = 0; d < o.size();) {
    if (o[d] == 1) {  // a unit dim addresses nothing
      ++d;
      continue;
    }
    while (a < s.size() && s[a] == 1) ++a;
    if (a == s.size()) return std::nullopt;
    std::size_t end = d;
    std::int64_t run = 1;
    while (end < o.size() && run < s[a]) run *= o[end++];
    if (run != s[a]) return std::nullopt;  // a merge, or shapes that disagree
    std::uint64_t step = 1;
    for (std::size_t j = end; j-- > d;) {
      v.axis[j] = a;
      v.step[j] = o[j] == 1 ? 0 : step;
      step *= std::uint64_t(o[j]);
    }
    d = end, ++a;
  }
  while (a < s.size() && s[a] == 1) ++a;
  if (a != s.size()) return std::nullopt;
  return v;
}

std::optional<AxisView> axis_view(const Graph& g, const Node& n, std::size_t k) {
  if (n.inputs.empty() || k >= n.outputs.size() || !known(g, n.inputs[0]) || !known(g, n.outputs[k])) return std::nullopt;
  if (is_const(g, n.inputs[0])) return std::nullopt;
  if (n.op_type == "Transpose") return transpose_view(g, n);
  if (n.op_type == "Split") return split_view(g, n, k);
  if (n.op_type == "Slice") return slice_view(g, n);
  if (n.op_type == "Expand") return expand_view(g, n);
  if (n.op_type == "Reshape") return reshape_view(g, n);
  return std::nullopt;
}

// Reads `v.input` through the layout ops that compute it when they are in `composed`
// (layout_ops.cpp composed_views): v's index i reads element j of X = P(Y) with
// j_a = base[a] + sum_{axis[d] = a} step[d] i_d, and P reads Y's axis P.axis[a] at
// P.base + P.step[a] j_a, so the composition is again an axis map of Y.
AxisView compose(const Graph& g, AxisView v, const std::set<std::string>* composed) {
  while (composed && composed->count(v.input)) {
    const auto p = g.producer(v.input);
    if (!p) break;
    const Node& n = g.nodes[*p];
    std::size_t k = 0;
    while (k < n.outputs.size() && n.outputs[k] != v.input) ++k;
    const auto pv = axis_view(g, n, k);
    if (!pv || pv->dims.size() != v.in_shape.size()) break;
    AxisView c{pv->input, pv->in_shape, v.dims, {}, {}, pv->base};
    for (std::size_t a = 0; a < v.base.size(); ++a) c.base[pv->axis[a]] += v.base[a] * pv->step[a];
    for (std::size_t d = 0; d < v.dims.size(); ++d) {
      c.axis.push_back(pv->axis[v.axis[d]]);
      c.step.push_back(v.step[d] * pv->step[v.axis[d]]);
    }
    v = std::move(c);
  }
  return v;
}

// The piece of an axis map, written packed at `out_offset` with `out_stride` (empty: packed
// over v.dims).
LayoutPiece piece_of(const AxisView& v, U64s out_stride, std::uint64_t out_offset, std::size_t outer) {
  LayoutPiece p;
  p.input = v.input;
  p.dims = v.dims;
  const U64s in = packed(v.in_shape);
  for (std::size_t d = 0; d < v.dims.size(); ++d) p.in_stride.push_back(in[v.axis[d]] * v.step[d]);
  for (std::size_t a = 0; a < v.base.size(); ++a) p.in_offset += v.base[a] * in[a];
  if (out_stride.empty()) {
    Shape s;
    for (auto d : v.dims) s.push_back(std::int64_t(d));
    out_stride = packed(s);
  }
  p.out_stride = std::move(out_stride);
  p.out_offset = out_offset;
  p.outer = outer;
  return p;
}

}  // namespace

std::vector<LayoutPiece> concat_pieces(const Graph& g, const Node& n, const std::set<std::string>* composed) {
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
    AxisView v{in, s, dims_of(s), {}, U64s(s.size(), 1), U64s(s.size(), 0)};
    for (std::size_t d = 0; d < s.size(); ++d) v.axis.push_back(d);
    const std::uint64_t offset = at * out[std::size_t(axis)];
    at += std::uint64_t(s[std::size_t(axis)]);
    if (std::uint64_t(s[std::size_t(axis)]) == 0) continue;
    pieces.push_back(piece_of(compose(g, std::move(v), composed), out, offset, std::size_t(axis)));
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

std::vector<LayoutPiece> normalise_pieces(std::vector<LayoutPiece> pieces) { return normalised(std::move(pieces), false); }

std::vector<LayoutPiece> layout_pieces(const Graph& g, const Node& n, std::size_t k,
                                       const std::set<std::string>* composed) {
  const auto v = axis_view(g, n, k);
  if (!v) return {};
  return normalised({piece_of(compose(g, *v, composed), {}, 0, v->dims.size())}, true);
}

std::optional<StridedRead> strided_read(const Graph& g, const std::string& x, const std::set<std::string>& composed) {
  if (!composed.count(x) || !known(g, x)) return std::nullopt;
  const Shape& s = g.tensor(x).shape;
  AxisView v{x, s, dims_of(s), {}, U64s(s.size(), 1), U64s(s.size(), 0)};
  for (std::size_t d = 0; d < s.size(); ++d) v.axis.push_back(d);
  v = compose(g, std::move(v), &composed);
  if (composed.count(v.input)) return std::nullopt;  // a link of the chain has no axis map
  const LayoutPiece p = piece_of(v, {}, 0, v.dims.size());
  return StridedRead{p.input, p.in_stride, p.in_offset};
}

namespace {

// Fused attention `c` reads x through one of its head views (fused_attr kQueryView, kKeyPerm,
// kValueView: attention_ops.cpp), which can take any strides whose last axis is contiguous.
bool attention_reads_view(const Graph& g, const Node& c, const std::string& x) {
  if (c.op_type != "Attention" || c.attr_int(fused_attr::kAttention, 0) != 1 || c.inputs.size() < 3) return false;
  if (std::count(c.inputs.begin(), c.inputs.end(), x) != 1) return false;
  if (!known(g, x) || g.tensor(x).shape.size() != 4) return false;
  if (x == c.inputs[0]) return c.attr_int(fused_attr::kQueryView, 0) == 1;
  if (x == c.inputs[1]) return c.attr_ints(fused_attr::kKeyPerm).size() == 4;
  return x == c.inputs[2] && c.attr_int(fused_attr::kValueView, 0) == 1;
}

}  // namespace

std::set<std::string> composed_views(const Graph& g, const std::vector<bool>& npu_placed,
                                     const std::set<std::string>& placed,
                                     const std::function<bool(const Node&)>& move_concat, bool int8) {
  std::set<std::string> out;
  auto moves = [&](std::size_t i) {
    const Node& c = g.nodes[i];
    if (!npu_placed[i]) return false;
    if (c.op_type == "Concat") return move_concat(c);
    for (std::size_t k = 0; k < c.outputs.size(); ++k)
      if (!c.outputs[k].empty() && !axis_view(g, c, k)) return false;
    return c.op_type == "Transpose" || c.op_type == "Split" || c.op_type == "Slice";
  };
  // A Reshape of t (an alias: no layer) read only through MOVE or an attention's head views:
  // its output x is composed with t. Its readers' strided reads are checked with x and t composed.
  auto through_reshape = [&](std::size_t r, const std::string& t, std::vector<std::string>& xs) {
    const Node& c = g.nodes[r];
    if (c.op_type != "Reshape" || c.on_host || c.inputs[0] != t || !axis_view(g, c, 0)) return false;
    const std::string& x = c.outputs[0];
    if (is_graph_output(g, x) || g.consumers(x).empty()) return false;
    std::set<std::string> trial = out;
    trial.insert(t), trial.insert(x);
    const auto read = strided_read(g, x, trial);  // what an attention reader would read
    for (std::size_t i : g.consumers(x)) {
      if (moves(i)) continue;
      if (!npu_placed[i] || !attention_reads_view(g, g.nodes[i], x)) return false;
      if (!read || read->stride.back() != 1) return false;
    }
    xs.push_back(x);
    return true;
  };
  for (std::size_t i = 0; i < g.nodes.size(); ++i) {
    const Node& n = g.nodes[i];
    if (!npu_placed[i] || (n.op_type != "Transpose" && n.op_type != "Split" && n.op_type != "Slice")) continue;
    for (std::size_t k = 0; k < n.outputs.size(); ++k) {
      const std::string& t = n.outputs[k];
      if (t.empty() || placed.count(t) || !axis_view(g, n, k)) continue;
      if (std::find(g.outputs.begin(), g.outputs.end(), t) != g.outputs.end()) continue;
      const auto readers = g.consumers(t);
      if (readers.empty()) continue;
      bool ok = true;
      std::vector<std::string> xs;
      for (std::size_t r : readers) ok = ok && (moves(r) || through_reshape(r, t, xs));
      if (ok && int8) {  // an int8 MOVE keeps its input's grid: compose only where nothing changes it
        const auto a = activation_grid(g.tensor(n.inputs[0])), b = activation_grid(g.tensor(t));
        ok = a && b && *a == *b;
      }
      if (!ok) continue;
      out.insert(t);
      out.insert(xs.begin(), xs.end());
    }
  }
  return out;
}

void read_through_composed(const Graph& g, const std::set<std::string>& composed, LayerSpec& L) {
  bool any = false;
  for (const std::string& in : L.inputs) {
    for (std::string t = in; composed.count(t);) {
      const auto p = g.producer(t);
      if (!p) break;
      const Node& n = g.nodes[*p];
      for (const std::string& c : covered_nodes(n))
        if (std::find(L.covers.begin(), L.covers.end(), c) == L.covers.end()) L.covers.push_back(c);
      t = n.inputs[0];
      any = true;
    }
  }
  if (!any || L.layout.empty()) return;
  L.inputs.clear();
  for (const LayoutPiece& piece : L.layout)
    if (std::find(L.inputs.begin(), L.inputs.end(), piece.input) == L.inputs.end()) L.inputs.push_back(piece.input);
}

}  // namespace npu::compiler::lowering
