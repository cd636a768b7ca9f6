// The int8 bilinear Resize of the quantised reference (quantised_rules.hpp, resize_bilinear):
// TensorFlow Lite's ResizeBilinearInteger (reference_ops.h, ComputeInterpolationValuesInteger),
// written from its definition, on NCHW. Per axis of input length `in` and output length `out`:
//   scale_10 = (2^10 in + out / 2) / out            (align_corners, out > 1: (2^10 (in - 1) +
//                                                     (out - 1) / 2) / (out - 1))
//   v(o) = o scale_10 + scale_10 / 2 - 2^9          (half_pixel; pytorch_half_pixel too, but
//                                                     v = 0 when out == 1)
//   v(o) = o scale_10                               (align_corners, asymmetric)
//   lo = max(v / 2^10, 0), hi = min((v + 2^10 - 1) / 2^10, in - 1)   (C++ division: truncation)
//   f = v - 2^10 lo                                 (the fraction in units of 2^-10)
// Output: with fy, fx of the row and the column and the four int8 codes (zero point included:
// the weights sum to 2^20, so it passes through),
//   s = x[lo_y, lo_x] (2^10 - fy)(2^10 - fx) + x[hi_y, lo_x] fy (2^10 - fx)
//     + x[lo_y, hi_x] (2^10 - fy) fx + x[hi_y, hi_x] fy fx            (int64)
//   y = (s + (s > 0 ? 2^19 : -2^19)) / 2^20         (round half away from zero, one rounding)
// The input and the output are on one grid (TFLite requires it).
#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "reference/quantised_rules.hpp"

namespace npu::compiler::qref {

namespace {

struct AxisTaps {
  std::vector<std::int64_t> lo, hi, f;
};

AxisTaps axis_taps(std::int64_t in, std::int64_t out, const std::string& ctm) {
  const bool corners = ctm == "align_corners", half = ctm == "half_pixel" || ctm == "pytorch_half_pixel";
  if (!corners && !half && ctm != "asymmetric")
    throw std::invalid_argument("coordinate_transformation_mode '" + ctm +
                                "' has no int8 bilinear rule (half_pixel, pytorch_half_pixel, align_corners and "
                                "asymmetric do)");
  std::int64_t scale_10 = ((std::int64_t(1) << 10) * in + out / 2) / out;
  if (corners && out > 1) scale_10 = ((std::int64_t(1) << 10) * (in - 1) + (out - 1) / 2) / (out - 1);
  AxisTaps t;
  for (std::int64_t o = 0; o < out; ++o) {
    std::int64_t v = o * scale_10;
    if (half) v += scale_10 / 2 - (std::int64_t(1) << 9);
    if (ctm == "pytorch_half_pixel" && out == 1) v = 0;
    const std::int64_t lo = std::max<std::int64_t>(v / 1024, 0);
    t.lo.push_back(lo);
    t.hi.push_back(std::min<std::int64_t>((v + 1023) / 1024, in - 1));
    t.f.push_back(v - 1024 * lo);
  }
  return t;
}

}  // namespace

std::vector<std::int8_t> resize_bilinear(const std::vector<std::int64_t>& shape, const std::vector<std::int8_t>& x,
                                         std::int64_t out_h, std::int64_t out_w, const std::string& ctm) {
  if (shape.size() != 4) throw std::invalid_argument("int8 bilinear Resize needs a 4-D NCHW input");
  const std::int64_t planes = shape[0] * shape[1], H = shape[2], W = shape[3];
  const AxisTaps ty = axis_taps(H, out_h, ctm), tx = axis_taps(W, out_w, ctm);
  std::vector<std::int8_t> y;
  y.reserve(std::size_t(planes * out_h * out_w));
  for (std::int64_t p = 0; p < planes; ++p) {
    const std::int8_t* xp = &x[std::size_t(p * H * W)];
    for (std::int64_t r = 0; r < out_h; ++r)
      for (std::int64_t c = 0; c < out_w; ++c) {
        const std::int64_t fy = ty.f[std::size_t(r)], fx = tx.f[std::size_t(c)];
        const std::int64_t y0 = ty.lo[std::size_t(r)] * W, y1 = ty.hi[std::size_t(r)] * W;
        const std::int64_t x0 = tx.lo[std::size_t(c)], x1 = tx.hi[std::size_t(c)];
        const std::int64_t s = std::int64_t(xp[y0 + x0]) * (1024 - fy) * (1024 - fx) +
                               std::int64_t(xp[y1 + x0]) * fy * (1024 - fx) +
                               std::int64_t(xp[y0 + x1]) * (1024 - fy) * fx + std::int64_t(xp[y1 + x1]) * fy * fx;
        const std::int64_t round = s > 0 ? (std::int64_t(1) << 19) : -(std::int64_t(1) << 19);
        y.push_back(std::int8_t((s + round) / (std::int64_t(1) << 20)));
      }
  }
  return y;
}

}  // namespace npu::compiler::qref
