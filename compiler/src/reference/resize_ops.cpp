// Reference kernel: Resize (ONNX opset 10-17; Upsample arrives as Resize, see
// canonical_forms.hpp). Modes nearest and linear (n-linear, applied one axis at a time,
// which is the same interpolation); cubic is refused.
//   Output size per axis: sizes[d], or floor(in[d] * scales[d]).
//   Scale in the coordinate transform: scales[d], or out/in when sizes are given.
//   Output coordinate x -> input coordinate (coordinate_transformation_mode):
//     half_pixel (x + 0.5) / s - 0.5;  pytorch_half_pixel: the same, 0 when out == 1;
//     align_corners x (in - 1) / (out - 1) (0 when out == 1); asymmetric x / s;
//     tf_half_pixel_for_nn (x + 0.5) / s.
//   nearest_mode: round_prefer_floor (x.5 -> down), round_prefer_ceil (x.5 -> up), floor,
//     ceil; the index is clamped into [0, in - 1].
//   linear: the coordinate is clamped into [0, in - 1]; y = (1 - t) x[i] + t x[i + 1],
//     i = floor(coord), t = coord - i (the edge repeats past the last sample), as ONNX
//     Runtime computes it.
#include <algorithm>
#include <cmath>

#include "reference/ref_ops.hpp"

namespace npu::compiler::reference {
namespace {

struct Tap {
  std::int64_t i0 = 0, i1 = 0;
  float t = 0;  // weight of i1
};

void resize(OpCall& call) {
  const RefTensor& x = call.fin(0);
  const std::size_t r = x.shape.size();
  const Node& n = call.node;
  std::vector<float> scales;
  std::vector<std::int64_t> sizes;
  if (const auto it = n.attrs.find("scales"); it != n.attrs.end()) {
    if (const auto* v = std::get_if<std::vector<float>>(&it->second)) scales = *v;
  }
  if (const auto it = n.attrs.find("sizes"); it != n.attrs.end()) {
    if (const auto* v = std::get_if<std::vector<std::int64_t>>(&it->second)) sizes = *v;
  }
  // Non-canonical node (built in code): opset-11 inputs (X, roi, scales, sizes).
  if (call.opt(2) && call.opt(2)->is_float() && !call.opt(2)->f.empty()) scales = call.opt(2)->f;
  if (call.opt(3)) sizes = call.ints(3);
  const std::string mode = n.attr_string("mode", "nearest");
  const std::string ctm = n.attr_string("coordinate_transformation_mode", "half_pixel");
  const std::string nearest = n.attr_string("nearest_mode", "round_prefer_floor");
  if (mode != "nearest" && mode != "linear")
    call.fail("mode '" + mode + "' is not implemented by the reference interpreter (nearest, linear)");
  if (ctm != "half_pixel" && ctm != "pytorch_half_pixel" && ctm != "align_corners" && ctm != "asymmetric" &&
      ctm != "tf_half_pixel_for_nn")
    call.fail("coordinate_transformation_mode '" + ctm + "' is not implemented by the reference interpreter");
  if (nearest != "round_prefer_floor" && nearest != "round_prefer_ceil" && nearest != "floor" && nearest != "ceil")
    call.fail("nearest_mode '" + nearest + "' is not an ONNX value");
  if (!sizes.empty() ? sizes.size() != r : scales.size() != r)
    call.fail("needs " + std::to_string(r) + " scales or sizes (one per dim of " + shape_str(x.shape) + ")");

  RefTensor cur = x;
  for (std::size_t d = 0; d < r; ++d) {
    const std::int64_t in = x.shape[d];
    const std::int64_t out = !sizes.empty() ? sizes[d] : static_cast<std::int64_t>(std::floor(double(in) * double(scales[d])));
    const double s = !sizes.empty() ? double(out) / double(in) : double(scales[d]);
    if (out < 1 || s <= 0) call.fail("dim " + std::to_string(d) + " would resize " + std::to_string(in) + " to " + std::to_string(out));
    if (out == in && s == 1.0) continue;
    std::vector<Tap> taps(static_cast<std::size_t>(out));
    for (std::int64_t o = 0; o < out; ++o) {
      double c;
      if (ctm == "half_pixel") c = (double(o) + 0.5) / s - 0.5;
      else if (ctm == "pytorch_half_pixel") c = out > 1 ? (double(o) + 0.5) / s - 0.5 : 0.0;
      else if (ctm == "align_corners") c = out == 1 ? 0.0 : double(o) * double(in - 1) / double(out - 1);
      else if (ctm == "asymmetric") c = double(o) / s;
      else c = (double(o) + 0.5) / s;  // tf_half_pixel_for_nn
      Tap& tp = taps[static_cast<std::size_t>(o)];
      if (mode == "nearest") {
        double k;
        if (nearest == "round_prefer_floor") k = c == std::floor(c) + 0.5 ? std::floor(c) : std::round(c);
        else if (nearest == "round_prefer_ceil") k = std::floor(c + 0.5);
        else if (nearest == "floor") k = std::floor(c);
        else k = std::ceil(c);
        tp.i0 = tp.i1 = std::clamp<std::int64_t>(static_cast<std::int64_t>(k), 0, in - 1);
      } else {
        c = std::clamp(c, 0.0, double(in - 1));
        tp.i0 = static_cast<std::int64_t>(std::floor(c));
        tp.i1 = std::min(tp.i0 + 1, in - 1);
        tp.t = static_cast<float>(c - double(tp.i0));
      }
    }
    const std::int64_t outer = span(cur.shape, 0, d), inner = span(cur.shape, d + 1, r);
    RefTensor next;
    next.shape = cur.shape;
    next.shape[d] = out;
    next.f.resize(static_cast<std::size_t>(outer * out * inner));
    for (std::int64_t o = 0; o < outer; ++o)
      for (std::int64_t k = 0; k < out; ++k) {
        const Tap& tp = taps[static_cast<std::size_t>(k)];
        const float* a = cur.f.data() + (o * in + tp.i0) * inner;
        const float* b = cur.f.data() + (o * in + tp.i1) * inner;
        float* dst = next.f.data() + (o * out + k) * inner;
        if (mode == "nearest") std::copy_n(a, inner, dst);
        else
          for (std::int64_t e = 0; e < inner; ++e) dst[e] = a[e] + tp.t * (b[e] - a[e]);
      }
    cur = std::move(next);
  }
  call.out[0] = std::move(cur);
}

}  // namespace

void add_resize_ops(std::map<std::string, OpKernel>& t) { t["Resize"] = resize; }

}  // namespace npu::compiler::reference
