// Nearest Resize by a fraction (e.g. 4 -> 6) as MOVE pieces (LayoutPiece, lowering.hpp). Along
// one axis the ONNX nearest map o -> i(o) of a rational scale repeats: with g = gcd(in, out),
// q = out / g and p = in / g, i(o + q) = i(o) + p. So output index o = q k + j (k the block, j
// the residue) reads p k + i(j): per residue pair (j_y, j_x) one affine piece with in strides
// (p_y W, p_x) and out strides (q_y W_out, q_x), the blocks of q_y output rows its outer dim.
// The map is computed here from the ONNX Resize definition (independent of the reference
// interpreter, which the run is compared with) and checked against the period at every index;
// a map that does not repeat (clamped borders) gets no pieces (costed only, refused with data).
#include <cmath>
#include <numeric>
#include <optional>

#include "backend/lowering/lowering_table.hpp"

namespace npu::compiler::lowering {

namespace {

// Most residues a layer may have (q_y q_x pieces, each a MOVE per tile).
constexpr std::int64_t kMaxResidues = 64;

// The input index of output index o along an axis of `in` -> `out` elements, `scale` the
// transform's scale (ONNX Resize-13/19 nearest, clamped into [0, in - 1]).
std::optional<std::int64_t> nearest_source(const std::string& ctm, const std::string& mode, std::int64_t o,
                                           std::int64_t in, std::int64_t out, double scale) {
  const auto c = resize_source_coordinate(ctm, o, in, out, scale);
  if (!c) return std::nullopt;
  const double x = *c, fl = std::floor(x);
  const bool half = x - fl == 0.5;
  double r = 0;
  if (mode == "floor") r = fl;
  else if (mode == "ceil") r = std::ceil(x);
  else if (mode == "round_prefer_floor") r = half ? fl : std::round(x);
  else if (mode == "round_prefer_ceil") r = half ? fl + 1 : std::round(x);
  else return std::nullopt;
  return std::min<std::int64_t>(std::max<std::int64_t>(std::int64_t(r), 0), in - 1);
}

// One axis: the period q (output) and p (input), and the source of each residue j < q.
struct AxisMap {
  std::int64_t q = 1, p = 1;
  std::vector<std::int64_t> first;
};

std::optional<AxisMap> axis_map(const Node& n, std::int64_t in, std::int64_t out, double scale) {
  const std::string ctm = n.attr_string("coordinate_transformation_mode", "half_pixel");
  const std::string mode = n.attr_string("nearest_mode", "round_prefer_floor");
  const std::int64_t g = std::gcd(in, out);
  AxisMap m{out / g, in / g, {}};
  std::vector<std::int64_t> src;
  for (std::int64_t o = 0; o < out; ++o) {
    const auto i = nearest_source(ctm, mode, o, in, out, scale);
    if (!i) return std::nullopt;
    src.push_back(*i);
  }
  for (std::int64_t o = m.q; o < out; ++o)
    if (src[std::size_t(o)] != src[std::size_t(o - m.q)] + m.p) return std::nullopt;  // no period
  m.first.assign(src.begin(), src.begin() + m.q);
  return m;
}

}  // namespace

std::optional<double> resize_source_coordinate(const std::string& ctm, std::int64_t o, std::int64_t in,
                                               std::int64_t out, double scale) {
  const double y = double(o);
  if (ctm == "asymmetric") return y / scale;
  if (ctm == "half_pixel") return (y + 0.5) / scale - 0.5;
  if (ctm == "pytorch_half_pixel") return out > 1 ? (y + 0.5) / scale - 0.5 : 0.0;
  if (ctm == "align_corners") return out > 1 ? y * double(in - 1) / double(out - 1) : 0.0;
  if (ctm == "tf_half_pixel_for_nn") return (y + 0.5) / scale;
  return std::nullopt;
}

double resize_scale(const Node& n, const std::vector<std::int64_t>& in, const std::vector<std::int64_t>& out,
                    std::size_t d) {
  if (const auto it = n.attrs.find("scales"); it != n.attrs.end() && !n.has_attr("sizes"))
    if (const auto* v = std::get_if<std::vector<float>>(&it->second); v && v->size() == in.size())
      return double((*v)[d]);
  return double(out[d]) / double(in[d]);
}

bool linear_resize_taps(const Graph& g, const Node& n, LinearTaps& h, LinearTaps& w) {
  if (n.attr_string("mode", "nearest") != "linear" || n.outputs.empty()) return false;
  const auto& s = g.tensor(n.inputs[0]).shape;
  const auto& o = g.tensor(n.outputs[0]).shape;
  if (s.size() != 4 || o.size() != 4 || s[0] != o[0] || s[1] != o[1] || s[2] < 1 || s[3] < 1 || o[2] < 1 || o[3] < 1)
    return false;
  const std::string ctm = n.attr_string("coordinate_transformation_mode", "half_pixel");
  for (std::size_t d : {std::size_t(2), std::size_t(3)}) {
    LinearTaps& t = d == 2 ? h : w;
    t = {};
    const double scale = resize_scale(n, s, o, d);
    for (std::int64_t k = 0; k < o[d]; ++k) {
      const auto c = resize_source_coordinate(ctm, k, s[d], o[d], scale);
      if (!c) return false;
      const double x = std::min(std::max(*c, 0.0), double(s[d] - 1)), lo = std::floor(x);
      t.i0.push_back(std::uint32_t(lo));
      t.i1.push_back(std::uint32_t(std::min<std::int64_t>(std::int64_t(lo) + 1, s[d] - 1)));
      t.w.push_back(float(x - lo));
    }
  }
  return true;
}

std::vector<LayoutPiece> nearest_resize_pieces(const Graph& g, const Node& n) {
  if (n.attr_string("mode", "nearest") != "nearest" || n.outputs.empty()) return {};
  const auto& s = g.tensor(n.inputs[0]).shape;
  const auto& o = g.tensor(n.outputs[0]).shape;
  if (s.size() != 4 || o.size() != 4 || s[0] != o[0] || s[1] != o[1] || s[2] < 1 || s[3] < 1 || o[2] < 1 || o[3] < 1)
    return {};
  const auto my = axis_map(n, s[2], o[2], resize_scale(n, s, o, 2)), mx = axis_map(n, s[3], o[3], resize_scale(n, s, o, 3));
  if (!my || !mx || my->q * mx->q > kMaxResidues) return {};
  const std::uint64_t H = std::uint64_t(s[2]), W = std::uint64_t(s[3]), OW = std::uint64_t(o[3]);
  const std::uint64_t planes = std::uint64_t(s[0] * s[1]), blocks = std::uint64_t(o[2] / my->q);
  std::vector<LayoutPiece> pieces;
  for (std::int64_t jy = 0; jy < my->q; ++jy)
    for (std::int64_t jx = 0; jx < mx->q; ++jx) {
      LayoutPiece p;
      p.input = n.inputs[0];
      p.dims = {planes, blocks, std::uint64_t(o[3] / mx->q)};
      p.in_stride = {H * W, std::uint64_t(my->p) * W, std::uint64_t(mx->p)};
      p.out_stride = {std::uint64_t(o[2]) * OW, std::uint64_t(my->q) * OW, std::uint64_t(mx->q)};
      p.in_offset = std::uint64_t(my->first[std::size_t(jy)]) * W + std::uint64_t(mx->first[std::size_t(jx)]);
      p.out_offset = std::uint64_t(jy) * OW + std::uint64_t(jx);
      p.outer = 2;
      pieces.push_back(std::move(p));
    }
  return normalise_pieces(std::move(pieces));
}

}  // namespace npu::compiler::lowering
