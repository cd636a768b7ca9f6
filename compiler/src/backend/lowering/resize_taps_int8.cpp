// The taps of an int8 bilinear Resize (LinearTaps, lowering.hpp), TFLite's ResizeBilinearInteger
// (tensorflow/lite/kernels/internal/reference/reference_ops.h, ComputeInterpolationValuesInteger),
// written from its definition for the NPU's program; the quantised reference
// (reference/quantised_resize.cpp) is a separate implementation the run is compared with.
// Per axis of input length `in` and output length `out`, in units of 2^-10:
//   scale_10 = (2^10 in + out / 2) / out   (align_corners with out > 1: (2^10 (in - 1) +
//                                            (out - 1) / 2) / (out - 1))
//   v(o) = o scale_10 + scale_10 / 2 - 2^9  (half_pixel, pytorch_half_pixel; the latter v = 0
//                                            when out == 1); v(o) = o scale_10 otherwise
//   i0 = max(v / 2^10, 0), i1 = min((v + 2^10 - 1) / 2^10, in - 1)   (C++ truncation)
//   w = (v - 2^10 i0) / 2^10                 (may be negative near the first border: i0 = i1)
// The sizes come from the tensor shapes (TFLite ignores a `scales` attribute).
#include <algorithm>

#include "backend/lowering/lowering_table.hpp"

namespace npu::compiler::lowering {

namespace {

bool axis_taps_int8(std::int64_t in, std::int64_t out, const std::string& ctm, LinearTaps& t) {
  const bool corners = ctm == "align_corners", half = ctm == "half_pixel" || ctm == "pytorch_half_pixel";
  if (!corners && !half && ctm != "asymmetric") return false;
  std::int64_t scale_10 = ((std::int64_t(1) << 10) * in + out / 2) / out;
  if (corners && out > 1) scale_10 = ((std::int64_t(1) << 10) * (in - 1) + (out - 1) / 2) / (out - 1);
  t = {};
  for (std::int64_t o = 0; o < out; ++o) {
    std::int64_t v = o * scale_10 + (half ? scale_10 / 2 - 512 : 0);
    if (ctm == "pytorch_half_pixel" && out == 1) v = 0;
    const std::int64_t i0 = std::max<std::int64_t>(v / 1024, 0);
    const std::int64_t i1 = std::min<std::int64_t>((v + 1023) / 1024, in - 1);
    if (i0 > in - 1) return false;  // cannot happen for in >= 1; guards the uint32 index
    t.i0.push_back(std::uint32_t(i0));
    t.i1.push_back(std::uint32_t(i1));
    t.w.push_back(float(v - 1024 * i0) / 1024.0f);  // exact: |v - 1024 i0| <= 2^11
  }
  return true;
}

}  // namespace

bool linear_resize_taps_int8(const Graph& g, const Node& n, LinearTaps& h, LinearTaps& w) {
  const std::string mode = n.attr_string("mode", "nearest");
  if ((mode != "linear" && mode != "bilinear") || n.outputs.empty()) return false;
  const auto& s = g.tensor(n.inputs[0]).shape;
  const auto& o = g.tensor(n.outputs[0]).shape;
  if (s.size() != 4 || o.size() != 4 || s[0] != o[0] || s[1] != o[1] || s[2] < 1 || s[3] < 1 || o[2] < 1 || o[3] < 1)
    return false;
  const std::string ctm =
      n.op_type == "Upsample" ? "asymmetric" : n.attr_string("coordinate_transformation_mode", "half_pixel");
  return axis_taps_int8(s[2], o[2], ctm, h) && axis_taps_int8(s[3], o[3], ctm, w);
}

}  // namespace npu::compiler::lowering
