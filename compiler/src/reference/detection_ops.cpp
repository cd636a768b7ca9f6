// Reference kernels of the ops detection heads end in: NonZero, TopK and GridSample (ONNX
// Operators.md; the semantics are also in docs/functional.md "Reference interpreter").
//   NonZero: int64 [rank, n], the coordinates of the n non-zero elements in row-major order
//     (column j is the j-th non-zero element); a scalar counts as a 1-element 1-D tensor
//     (ONNX Runtime's convention), giving [1, n].
//   TopK (opset 1: attribute k; opset 10+: input K [1]): the k largest (largest=1) or smallest
//     values along `axis` (default -1) and their int64 indices; equal values keep the lower
//     index first (ONNX: "the ordering of elements with equal values is by index"). The
//     result is always sorted (sorted=0 leaves the order unspecified, so sorted order is a
//     valid one). k larger than the axis fails.
//   GridSample (opset 16+, 4-D): Y[n, c, h, w] samples X[n, c] at the normalised point
//     grid[n, h, w] = (x, y) in [-1, 1] (x along W). Denormalised: align_corners=1
//     ix = (x + 1) / 2 (W - 1); align_corners=0 ix = ((x + 1) W - 1) / 2. mode bilinear
//     (opset 20: linear) blends the 4 neighbours, nearest rounds half to even, bicubic
//     (cubic) uses the 4x4 neighbours with Keys' kernel, a = -0.75. padding_mode acts on
//     each neighbour's integer index: zeros reads 0 outside, border clamps it into
//     [0, W - 1], reflection reflects it at -0.5 and W - 0.5 (align_corners: 0 and W - 1).
//     As ONNX Runtime (1.30, grid_sample.cc) and PyTorch's grid_sampler compute bicubic;
//     ONNX's Python reference moves the sampling point itself into the border first, which
//     gives the same bilinear and nearest values (in every case we checked) but other bicubic
//     values near a border (we follow ONNX Runtime, the runtime users deploy with).
#include <algorithm>
#include <cmath>
#include <numeric>

#include "reference/ref_ops.hpp"

namespace npu::compiler::reference {
namespace {

void nonzero(OpCall& call) {
  const RefTensor* x = call.opt(0);
  if (!x) call.fail("input 0 is required but absent");
  call.only_attrs({});
  std::vector<std::int64_t> shape = x->shape.empty() ? std::vector<std::int64_t>{1} : x->shape;
  const std::vector<std::int64_t> st = strides_of(shape);
  const std::int64_t n = x->elements();
  std::vector<std::int64_t> hits;
  for (std::int64_t e = 0; e < n; ++e)
    if (x->is_float() ? x->f[std::size_t(e)] != 0.0f : x->i[std::size_t(e)] != 0) hits.push_back(e);
  const std::int64_t count = std::int64_t(hits.size());
  RefTensor y;
  y.type = ElemType::Int64;
  y.shape = {std::int64_t(shape.size()), count};
  y.i.resize(shape.size() * hits.size());
  for (std::size_t d = 0; d < shape.size(); ++d)
    for (std::int64_t j = 0; j < count; ++j)
      y.i[d * hits.size() + std::size_t(j)] = (hits[std::size_t(j)] / st[d]) % shape[d];
  call.out[0] = std::move(y);
}

void topk(OpCall& call) {
  call.only_attrs({"axis", "largest", "sorted", "k"});
  const RefTensor* x = call.opt(0);
  if (!x) call.fail("input 0 is required but absent");
  const Node& node = call.node;
  const bool has_k_input = call.opt(1) != nullptr;
  if (!has_k_input && !node.attrs.count("k")) call.fail("needs K (input 1, opset 10+) or attribute k (opset 1)");
  const std::vector<std::int64_t> kv = has_k_input ? call.ints(1) : std::vector<std::int64_t>{node.attr_int("k", 0)};
  if (kv.size() != 1) call.fail("K must hold one value, it holds " + std::to_string(kv.size()));
  const std::size_t axis = norm_axis(call, node.attr_int("axis", -1), x->shape.size());
  const bool largest = node.attr_int("largest", 1) != 0;
  const std::int64_t len = x->shape[axis], k = kv[0];
  if (k < 0 || k > len)
    call.fail("K = " + std::to_string(k) + " is outside [0, " + std::to_string(len) + "] (axis " +
              std::to_string(axis) + " of " + shape_str(x->shape) + ")");
  const std::int64_t outer = span(x->shape, 0, axis), inner = span(x->shape, axis + 1, x->shape.size());
  std::vector<std::int64_t> out_shape = x->shape;
  out_shape[axis] = k;
  RefTensor vals, idx;
  vals.type = x->type;
  vals.shape = idx.shape = out_shape;
  idx.type = ElemType::Int64;
  const std::size_t total = std::size_t(outer * k * inner);
  idx.i.resize(total);
  if (x->is_float()) vals.f.resize(total);
  else vals.i.resize(total);
  auto at = [&](std::int64_t e) { return x->is_float() ? double(x->f[std::size_t(e)]) : double(x->i[std::size_t(e)]); };
  std::vector<std::int64_t> order(static_cast<std::size_t>(len));
  for (std::int64_t o = 0; o < outer; ++o)
    for (std::int64_t in = 0; in < inner; ++in) {
      const std::int64_t base = o * len * inner + in;
      std::iota(order.begin(), order.end(), 0);
      // Stable: equal values keep the lower index first, whichever direction.
      std::stable_sort(order.begin(), order.end(), [&](std::int64_t a, std::int64_t b) {
        const double va = at(base + a * inner), vb = at(base + b * inner);
        return largest ? va > vb : va < vb;
      });
      for (std::int64_t j = 0; j < k; ++j) {
        const std::size_t dst = std::size_t(o * k * inner + j * inner + in);
        const std::int64_t src = base + order[std::size_t(j)] * inner;
        idx.i[dst] = order[std::size_t(j)];
        if (x->is_float()) vals.f[dst] = x->f[std::size_t(src)];
        else vals.i[dst] = x->i[std::size_t(src)];
      }
    }
  call.out[0] = std::move(vals);
  if (call.wants(1)) call.out[1] = std::move(idx);
}

enum class GsMode { Linear, Nearest, Cubic };
enum class GsPad { Zeros, Border, Reflection };

struct GridSampler {
  const float* img = nullptr;  // one H x W plane
  std::int64_t h = 0, w = 0;
  bool align = false;
  GsPad pad = GsPad::Zeros;

  double denorm(double g, std::int64_t len) const {
    return align ? (g + 1) / 2 * double(len - 1) : ((g + 1) * double(len) - 1) / 2;
  }
  // Reflects x into [lo, hi] (ONNX's _gs_reflect).
  static double reflect(double x, double lo, double hi) {
    const double rng = hi - lo;
    if (rng <= 0) return lo;
    if (x < lo || x > hi) {
      const double dx = x < lo ? lo - x : x - hi;
      const auto n = static_cast<std::int64_t>(dx / rng);
      const double r = dx - double(n) * rng;
      const bool even = n % 2 == 0;
      if (x < lo) return even ? lo + r : hi - r;
      return even ? hi - r : lo + r;
    }
    return x;
  }
  // The pixel at integer (r, c): 0 outside for zeros, else clamped / reflected indices.
  double pixel(std::int64_t r, std::int64_t c) const {
    if (pad == GsPad::Zeros) return (r < 0 || r >= h || c < 0 || c >= w) ? 0.0 : double(img[r * w + c]);
    if (pad == GsPad::Border) {
      r = std::clamp<std::int64_t>(r, 0, h - 1);
      c = std::clamp<std::int64_t>(c, 0, w - 1);
    } else {
      const double lo_r = align ? 0 : -0.5, hi_r = align ? double(h - 1) : double(h) - 0.5;
      const double lo_c = align ? 0 : -0.5, hi_c = align ? double(w - 1) : double(w) - 0.5;
      r = std::clamp<std::int64_t>(std::int64_t(reflect(double(r), lo_r, hi_r)), 0, h - 1);
      c = std::clamp<std::int64_t>(std::int64_t(reflect(double(c), lo_c, hi_c)), 0, w - 1);
    }
    return double(img[r * w + c]);
  }
  static void cubic_coeffs(double t, double c[4]) {
    const double a = -0.75;
    const double x0 = t + 1, x1 = t, x2 = 1 - t, x3 = 2 - t;
    c[0] = ((a * x0 - 5 * a) * x0 + 8 * a) * x0 - 4 * a;
    c[1] = ((a + 2) * x1 - (a + 3)) * x1 * x1 + 1;
    c[2] = ((a + 2) * x2 - (a + 3)) * x2 * x2 + 1;
    c[3] = ((a * x3 - 5 * a) * x3 + 8 * a) * x3 - 4 * a;
  }
  double sample(GsMode mode, double gx, double gy) const {
    const double x = denorm(gx, w), y = denorm(gy, h);
    if (mode == GsMode::Nearest) return pixel(std::int64_t(std::nearbyint(y)), std::int64_t(std::nearbyint(x)));
    const double fx = std::floor(x), fy = std::floor(y);
    const auto x0 = std::int64_t(fx), y0 = std::int64_t(fy);
    const double tx = x - fx, ty = y - fy;
    if (mode == GsMode::Linear)
      return (1 - ty) * ((1 - tx) * pixel(y0, x0) + tx * pixel(y0, x0 + 1)) +
             ty * ((1 - tx) * pixel(y0 + 1, x0) + tx * pixel(y0 + 1, x0 + 1));
    double cx[4], cy[4];
    cubic_coeffs(tx, cx);
    cubic_coeffs(ty, cy);
    double acc = 0;
    for (int i = 0; i < 4; ++i) {
      double row = 0;
      for (int j = 0; j < 4; ++j) row += cx[j] * pixel(y0 - 1 + i, x0 - 1 + j);
      acc += cy[i] * row;
    }
    return acc;
  }
};

GsMode grid_mode(const OpCall& call) {
  const std::string m = call.node.attr_string("mode", "bilinear");
  if (m == "bilinear" || m == "linear") return GsMode::Linear;
  if (m == "nearest") return GsMode::Nearest;
  if (m == "bicubic" || m == "cubic") return GsMode::Cubic;
  call.fail("mode '" + m + "' is not an ONNX GridSample mode (bilinear/linear, nearest, bicubic/cubic)");
}

GsPad grid_pad(const OpCall& call) {
  const std::string p = call.node.attr_string("padding_mode", "zeros");
  if (p == "zeros") return GsPad::Zeros;
  if (p == "border") return GsPad::Border;
  if (p == "reflection") return GsPad::Reflection;
  call.fail("padding_mode '" + p + "' is not an ONNX GridSample padding mode (zeros, border, reflection)");
}

void grid_sample(OpCall& call) {
  call.only_attrs({"mode", "padding_mode", "align_corners"});
  const RefTensor& x = call.fin(0);
  const RefTensor& grid = call.fin(1);
  if (x.shape.size() != 4)
    call.fail("the reference interpreter implements 4-D GridSample (N x C x H x W) only; X is " + shape_str(x.shape));
  if (grid.shape.size() != 4 || grid.shape[0] != x.shape[0] || grid.shape[3] != 2)
    call.fail("grid must be N x H_out x W_out x 2 with N = " + std::to_string(x.shape[0]) + ", it is " +
              shape_str(grid.shape));
  const GsMode mode = grid_mode(call);
  GridSampler s;
  s.pad = grid_pad(call);
  s.align = call.node.attr_int("align_corners", 0) != 0;
  const std::int64_t N = x.shape[0], C = x.shape[1], ho = grid.shape[1], wo = grid.shape[2];
  s.h = x.shape[2];
  s.w = x.shape[3];
  RefTensor y = RefTensor::zeros({N, C, ho, wo});
  for (std::int64_t n = 0; n < N; ++n)
    for (std::int64_t c = 0; c < C; ++c) {
      s.img = x.f.data() + (n * C + c) * s.h * s.w;
      float* out = y.f.data() + (n * C + c) * ho * wo;
      const float* g = grid.f.data() + n * ho * wo * 2;
      for (std::int64_t p = 0; p < ho * wo; ++p) out[p] = float(s.sample(mode, g[2 * p], g[2 * p + 1]));
    }
  call.out[0] = std::move(y);
}

}  // namespace

void add_detection_ops(std::map<std::string, OpKernel>& t) {
  t["NonZero"] = nonzero;
  t["TopK"] = topk;
  t["GridSample"] = grid_sample;
}

}  // namespace npu::compiler::reference
