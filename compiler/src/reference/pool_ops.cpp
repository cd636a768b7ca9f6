// Reference kernels: pooling (ONNX opset 9-17; 1-D, 2-D and 3-D windows, geometry in window_of).
//   MaxPool:     max over the window's positions inside the input (padding is -inf, never
//                chosen); the Indices output is refused.
//   AveragePool: sum over the window's positions inside the input, divided by
//                count_include_pad = 0: the number of those positions;
//                count_include_pad = 1: the number of window positions inside the padded
//                input (a ceil_mode window hanging past the end padding counts only up to
//                it, as PyTorch and ONNX Runtime do).
//   GlobalAveragePool / GlobalMaxPool: over all dims after N, C; output [N, C, 1, ...].
#include <algorithm>
#include <cmath>
#include <limits>

#include "reference/ref_ops.hpp"

namespace npu::compiler::reference {
namespace {

// One output of a window pool at (od, oh, ow) over the D x H x W volume `in` (depth 1 below
// 3-D): max (NaN if any input is NaN) or the sum divided by the count the spec names.
template <bool Max>
float pool_at(const float* in, const Window& w, std::int64_t od, std::int64_t oh, std::int64_t ow, bool include_pad) {
  float acc = Max ? -std::numeric_limits<float>::infinity() : 0.0f;
  std::int64_t inside = 0, padded = 0;
  bool nan = false;
  for (std::int64_t kd = 0; kd < w.k_d; ++kd) {
    const std::int64_t id = od * w.s_d - w.pad_f + kd * w.d_d;
    const bool d_in_pad = id >= -w.pad_f && id < w.in_d + w.pad_k, d_in = id >= 0 && id < w.in_d;
    for (std::int64_t i = 0; i < w.k_h; ++i) {
      const std::int64_t ih = oh * w.s_h - w.pad_t + i * w.d_h;
      for (std::int64_t j = 0; j < w.k_w; ++j) {
        const std::int64_t iw = ow * w.s_w - w.pad_l + j * w.d_w;
        if (d_in_pad && ih >= -w.pad_t && ih < w.in_h + w.pad_b && iw >= -w.pad_l && iw < w.in_w + w.pad_r) ++padded;
        if (!d_in || ih < 0 || ih >= w.in_h || iw < 0 || iw >= w.in_w) continue;
        const float v = in[(id * w.in_h + ih) * w.in_w + iw];
        ++inside;
        nan = nan || std::isnan(v);
        acc = Max ? std::max(acc, v) : acc + v;
      }
    }
  }
  if (Max) return nan ? NAN : acc;
  return acc / static_cast<float>(include_pad ? padded : std::max<std::int64_t>(inside, 1));
}

template <bool Max>
void pool(OpCall& call) {
  call.only_attrs({"auto_pad", "ceil_mode", "count_include_pad", "dilations", "kernel_shape", "pads", "storage_order",
                   "strides"});
  const RefTensor& x = call.fin(0);
  if (call.wants(1)) call.fail("the Indices output of MaxPool is not implemented by the reference interpreter");
  if (x.shape.size() < 3 || x.shape.size() > 5)
    call.fail("input has shape " + shape_str(x.shape) + "; the reference interpreter implements 1-D, 2-D and 3-D pooling");
  const std::vector<std::int64_t> kernel = call.node.attr_ints("kernel_shape");
  const std::vector<std::int64_t> spatial(x.shape.begin() + 2, x.shape.end());
  if (kernel.size() != spatial.size())
    call.fail("kernel_shape " + shape_str(kernel) + " does not match the input's " + std::to_string(spatial.size()) +
              " spatial dims");
  const Window w = window_of(call, spatial, kernel, true);
  const bool include_pad = call.node.attr_int("count_include_pad", 0) != 0;
  const std::int64_t NC = x.shape[0] * x.shape[1];
  std::vector<std::int64_t> out_shape{x.shape[0], x.shape[1]};
  if (spatial.size() == 3) out_shape.push_back(w.out_d);
  if (spatial.size() >= 2) out_shape.push_back(w.out_h);
  out_shape.push_back(w.out_w);
  RefTensor y = RefTensor::zeros(out_shape);
  const std::int64_t in_vol = w.in_d * w.in_h * w.in_w, out_plane = w.out_h * w.out_w;
  for (std::int64_t nc = 0; nc < NC; ++nc) {
    const float* in = x.f.data() + nc * in_vol;
    float* out = y.f.data() + nc * w.out_d * out_plane;
    for (std::int64_t od = 0; od < w.out_d; ++od)
      for (std::int64_t oh = 0; oh < w.out_h; ++oh)
        for (std::int64_t ow = 0; ow < w.out_w; ++ow)
          out[od * out_plane + oh * w.out_w + ow] = pool_at<Max>(in, w, od, oh, ow, include_pad);
  }
  call.out[0] = std::move(y);
}

template <bool Max>
void global_pool(OpCall& call) {
  const RefTensor& x = call.fin(0);
  if (x.shape.size() < 3) call.fail("input has shape " + shape_str(x.shape) + "; global pooling needs [N, C, D1, ...]");
  const std::int64_t NC = x.shape[0] * x.shape[1], P = span(x.shape, 2, x.shape.size());
  std::vector<std::int64_t> out_shape(x.shape.size(), 1);
  out_shape[0] = x.shape[0];
  out_shape[1] = x.shape[1];
  RefTensor y = RefTensor::zeros(out_shape);
  for (std::int64_t nc = 0; nc < NC; ++nc) {
    const float* in = x.f.data() + nc * P;
    if (Max) {
      float m = -std::numeric_limits<float>::infinity();
      for (std::int64_t p = 0; p < P; ++p) m = std::isnan(in[p]) || std::isnan(m) ? NAN : std::max(m, in[p]);
      y.f[static_cast<std::size_t>(nc)] = m;
    } else {
      double s = 0;  // double: a 56x56 plane summed in float loses ~1e-5 relative
      for (std::int64_t p = 0; p < P; ++p) s += in[p];
      y.f[static_cast<std::size_t>(nc)] = static_cast<float>(s / double(P));
    }
  }
  call.out[0] = std::move(y);
}

}  // namespace

void add_pool_ops(std::map<std::string, OpKernel>& t) {
  t["MaxPool"] = pool<true>;
  t["AveragePool"] = pool<false>;
  t["GlobalAveragePool"] = global_pool<false>;
  t["GlobalMaxPool"] = global_pool<true>;
}

}  // namespace npu::compiler::reference
